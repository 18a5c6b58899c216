"""The internals PyTorch's libraries reach (Lightning, PyG, Pyro, captum, kornia, skorch), against PyTorch:
``torch.overrides``, ``torch.futures``, ``torch._C._nn._parse_to``, ``torch.__config__``, ``_tensor_str``,
``utils._pytree``'s node table, ``nn.parallel.scatter_gather``, the ``sym_*`` helpers, the ATen-only
operators; and the names with no meaning here, which refuse when used."""
import pytest

import tinytorch


def _both(torch, fn):
    return fn(tinytorch), fn(torch)


def test_parse_to_as_pytorch(torch):
    cases = [((), {}), (("cpu", "float16", True), {}), (("cpu",), {"dtype": "float64"}), ((None,), {}),
             (("float32", True), {}), (("tensor",), {"non_blocking": True}), ((), {"memory_format": "channels_last"}),
             (("meta",), {})]
    for args, kwargs in cases:
        res = []
        for mod in (tinytorch, torch):
            def conv(a):
                if a == "tensor":
                    return mod.ones(1, dtype=mod.float64)
                if a in ("float16", "float32", "float64", "channels_last"):
                    return getattr(mod, a)
                return a
            dev, dt, nb, fmt = mod._C._nn._parse_to(*map(conv, args), **{k: conv(v) for k, v in kwargs.items()})
            res.append((str(dev), str(dt).split(".")[-1], nb, str(fmt).split(".")[-1]))
        assert res[0] == res[1], (args, kwargs)
    for mod in (tinytorch, torch):
        with pytest.raises(RuntimeError, match=r"\.to\(\) does not accept copy argument"):
            mod._C._nn._parse_to(mod.float32, True, True)
        with pytest.raises(TypeError, match=r"to\(\) received an invalid combination of arguments - got \(str, str\)"):
            mod._C._nn._parse_to("cpu", "cpu")
    # Module.to goes through the same parser, and still refuses other devices
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        tinytorch.nn.Linear(2, 2).to("cuda")
    assert tinytorch.nn.Linear(2, 2).to(tinytorch.float64, non_blocking=True).weight.dtype == tinytorch.float64


def test_c_helpers(torch):
    for mod in (tinytorch, torch):
        assert mod._C._get_default_device() == "cpu"
        assert mod._C._are_functorch_transforms_active() is False
        assert mod._C._functorch.is_legacy_batchedtensor(mod.ones(1)) is False
        assert isinstance(mod.Tensor, mod._C._TensorMeta)
    inside = tinytorch.func.vmap(lambda x: x + float(tinytorch._C._are_functorch_transforms_active()))(tinytorch.zeros(2))
    assert inside.tolist() == [1.0, 1.0]
    assert issubclass(tinytorch._C._LinAlgError, RuntimeError)
    with pytest.raises(NotImplementedError, match="torch.load / torch.save"):
        tinytorch.PyTorchFileReader("x.pt")


def test_overrides_as_pytorch(torch):
    def check(mod):
        ov = mod.overrides

        class Sub(mod.Tensor):
            pass

        class Other:
            calls = []

            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                cls.calls.append((ov.resolve_name(func), [t.__name__ for t in types]))
                return "handled"

        class Refuses:
            @classmethod
            def __torch_function__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        sub = mod.ones(2).as_subclass(Sub)
        p = mod.nn.Parameter(mod.ones(1))
        flags = [ov.has_torch_function(a) for a in ((mod.ones(1),), (sub,), (p,), (Other(),), (1,))]
        with mod._C.DisableTorchFunctionSubclass():
            flags.append(ov.has_torch_function((sub,)))
        out = [flags, ov.handle_torch_function(mod.add, (Other(),), Other(), 1), Other.calls,
               ov.is_tensor_like(sub), ov.is_tensor_like(Other), ov.is_tensor_like(3),
               ov.resolve_name(mod.add), ov.resolve_name(mod.nn.functional.relu), ov.resolve_name(lambda x: x)]
        with pytest.raises(TypeError) as e:
            ov.handle_torch_function(mod.add, (Refuses(),), 1)
        out.append(str(e.value).replace("tinytorch", "torch").split(": [")[0])

        @ov.wrap_torch_function(lambda x: (x,))
        def f(x):
            return "plain"
        out += [f(1), f(Other())]
        return out
    ours, theirs = _both(torch, check)
    assert ours == theirs
    with pytest.raises(NotImplementedError, match="no torch-function modes"):
        with tinytorch.overrides.TorchFunctionMode():
            pass
    with pytest.raises(NotImplementedError):
        tinytorch.overrides.get_overridable_functions()


def test_futures_as_pytorch(torch):
    def check(mod):
        F = mod.futures
        out = []
        f = F.Future()
        out.append(f.done())
        seen = []
        f.add_done_callback(lambda fut: seen.append(fut.value()))
        g = f.then(lambda fut: fut.value() * 2)
        f.set_result(3)
        out += [f.done(), f.wait(), g.wait(), seen]
        with pytest.raises(RuntimeError) as e:
            f.set_result(4)
        out.append(str(e.value))
        bad = F.Future()
        bad.set_exception(ValueError("bad"))
        with pytest.raises(ValueError, match="bad"):
            bad.wait()
        chained = bad.then(lambda fut: fut.value())
        with pytest.raises(RuntimeError) as e:
            chained.wait()
        out.append(str(e.value).splitlines()[0])
        with pytest.raises(AssertionError) as e:
            F.Future().set_exception(3)
        out.append(str(e.value))
        out += [F.wait_all([f, g]), len(F.collect_all([f, g]).wait()), F.collect_all([]).wait()]
        with pytest.raises(ValueError, match="bad"):
            F.wait_all([f, bad])
        return out
    ours, theirs = _both(torch, check)
    assert ours == theirs


def test_config_and_tensor_str(torch):
    show = tinytorch.__config__.show()
    assert "USE_MKL=OFF" in show and "USE_CUDA=0" in show and "numpy" in show  # PyTorch's CPU build: USE_CUDA=0
    assert "at::get_num_threads() : " in tinytorch.__config__.parallel_info()
    from torch._tensor_str import _tensor_str as theirs

    from tinytorch._tensor_str import PRINT_OPTS, _tensor_str
    for make in (lambda m: m.tensor([[1., 2.5], [3, 4]]), lambda m: m.tensor([1, 2]), lambda m: m.zeros(0),
                 lambda m: m.arange(2000.)):
        assert _tensor_str(make(tinytorch), 3) == theirs(make(torch), 3)
    tinytorch.set_printoptions(threshold=5)
    try:
        assert PRINT_OPTS.threshold == 5
    finally:
        tinytorch.set_printoptions(profile="default")


def test_pytree_node_table(torch):
    from collections import namedtuple

    import torch.utils._pytree as tp

    import tinytorch.utils._pytree as ours
    P = namedtuple("P", "a b")
    for tree in ((1, 2), [1], {"a": 1}, P(1, 2), 3):
        assert (ours._get_node_type(tree) in ours.SUPPORTED_NODES) == (tp._get_node_type(tree) in tp.SUPPORTED_NODES)
        if ours._get_node_type(tree) in ours.SUPPORTED_NODES:
            node, theirs = ours.SUPPORTED_NODES[ours._get_node_type(tree)], tp.SUPPORTED_NODES[tp._get_node_type(tree)]
            assert node.flatten_fn(tree)[0] == theirs.flatten_fn(tree)[0]
    assert ours._get_node_type(P(1, 2)) is tp._get_node_type(P(1, 2))  # collections.namedtuple
    assert ours.tree_unflatten(*ours.tree_flatten(P(1, [2]))) == P(1, [2])


def test_scatter_gather_as_pytorch(torch):
    from torch.nn.parallel.scatter_gather import gather, scatter, scatter_kwargs

    from tinytorch.nn.parallel import scatter_gather as ours
    for obj in ((1, [2]), {"a": 1}, [], 3):
        assert ours.scatter(obj, [0, 1]) == scatter(obj, [0, 1])
    assert ours.scatter_kwargs((1,), {"k": 2}, [0]) == scatter_kwargs((1,), {"k": 2}, [0])
    assert ours.scatter_kwargs((1,), {}, []) == scatter_kwargs((1,), {}, [])
    with pytest.raises(RuntimeError, match="no accelerators"):
        ours.scatter(tinytorch.ones(2), [0])
    for g, t in ((ours.gather, tinytorch.ones(1)), (gather, torch.ones(1))):
        with pytest.raises(AssertionError, match="Gather function not implemented for CPU tensors"):
            g([t], "cpu")


def test_sym_helpers_and_aten_spellings(torch):
    for name, args in (("sym_int", (3.7,)), ("sym_int", (-3.7,)), ("sym_float", (3,)), ("sym_max", (2, 5)),
                       ("sym_min", (2, 5.0)), ("sym_not", (True,)), ("sym_ite", (False, 1, 2)), ("sym_sqrt", (4,)),
                       ("sym_sum", ([1, 2, 3],))):
        ours, theirs = getattr(tinytorch, name)(*args), getattr(torch, name)(*args)
        assert (ours, type(ours)) == (theirs, type(theirs)), name
    assert tinytorch.torch is tinytorch and torch.torch is torch
    assert not isinstance(3, tinytorch.SymInt)
    with pytest.raises(NotImplementedError, match="no symbolic sizes"):
        tinytorch.SymInt()
    for mod in (tinytorch, torch):
        a = mod.arange(6.).reshape(2, 3).requires_grad_()
        out = [mod.ops.aten._to_copy.default(a, dtype=mod.float64), mod.ops.aten.alias.default(a),
               mod.ops.aten.index.Tensor(a, [None, mod.tensor([0, 2])])]
        got = [(o.tolist(), str(o.dtype).split(".")[-1], type(o.grad_fn).__name__) for o in out]
        sp = mod.tensor([[0., 2.], [1., 0.]]).to_sparse()
        got.append(mod.ops.aten._sparse_addmm.default(mod.ones(2, 2), sp, mod.eye(2), beta=2, alpha=3).tolist())
        if mod is tinytorch:
            mine = got
    assert mine == got


def test_refusing_names():
    from tinytorch._subclasses.fake_tensor import FakeTensorMode, is_fake
    from tinytorch.fx.experimental.proxy_tensor import get_proxy_mode
    from tinytorch.utils.flop_counter import FlopCounterMode
    assert is_fake(tinytorch.ones(1)) is False and get_proxy_mode() is None
    with FakeTensorMode():  # fake tensors exist (tests/fx/test_fx_fake_tensor.py)
        assert is_fake(tinytorch.ones(1))
    counter = FlopCounterMode(display=False, depth=2)
    assert counter.get_total_flops() == 0 and counter.get_flop_counts() == {"Global": {}}
    with pytest.raises(NotImplementedError, match="cannot count FLOPs"):
        with counter:
            pass
    assert isinstance(tinytorch.compile(tinytorch.nn.Linear(1, 1)), tinytorch._dynamo.OptimizedModule)
    from tinytorch.distributed import rpc
    assert rpc.is_available() is False
    with pytest.raises(RuntimeError, match="no torch.distributed.rpc"):
        rpc.init_rpc("w")
    assert not tinytorch.backends.mkldnn.is_available() and not tinytorch.backends.mkl.is_available()
    assert tinytorch.cuda.get_rng_state_all() == [] and tinytorch.cuda.set_rng_state_all([]) is None
    with pytest.raises(RuntimeError, match="torch.cuda.Stream requires CUDA support"):
        tinytorch.cuda.Stream()
    with pytest.raises(NotImplementedError, match="NVTX"):
        with tinytorch.autograd.profiler.emit_nvtx():
            pass
    with tinytorch.autograd.profiler.emit_nvtx(enabled=False):
        pass
    import tinytorch.utils.data.dataloader as dl
    from tinytorch.data._multiprocess import _MultiProcessingDataLoaderIter
    assert dl._MultiProcessingDataLoaderIter is _MultiProcessingDataLoaderIter
    assert tinytorch.utils.data.sampler.RandomSampler is tinytorch.data.RandomSampler
    from tinytorch.utils.hooks import RemovableHandle, unserializable_hook, warn_if_has_hooks
    t = tinytorch.ones(1, requires_grad=True)
    t.register_hook(unserializable_hook(lambda g: g))
    warn_if_has_hooks(t)  # marked: no warning
    t.register_hook(lambda g: g)
    with pytest.warns(UserWarning, match="will not be serialized"):
        warn_if_has_hooks(t)
    assert isinstance(tinytorch.nn.Linear(1, 1).register_forward_hook(lambda *a: None), RemovableHandle)
    assert tinytorch.serialization.MAP_LOCATION is not None
    assert tinytorch.hub.HASH_REGEX.search("resnet18-f37072fd.pth").group(1) == "f37072fd"
