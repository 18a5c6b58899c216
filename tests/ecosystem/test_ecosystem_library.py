"""torch.ops / torch.library, utils.checkpoint, utils._pytree, the behaviour differences the ecosystem met
(type names, ``t == None``, integer wrapping, uint16-64, interpolate's antialias and uint8 paths), against
PyTorch where it is installed."""

import itertools
import warnings

import numpy as np
import pytest

import tinytorch


def _lib_pair(torch, ns):
    out = []
    for mod in (tinytorch, torch):
        lib = mod.library.Library(ns, "DEF")
        lib.define("scale(Tensor x, float s=2.) -> Tensor")
        lib.impl("scale", lambda x, s=2.: x * s, "CPU")

        def bw(ctx, g):
            return g * ctx.s, None

        def setup(ctx, inputs, output):
            ctx.s = inputs[1]

        mod.library.register_autograd(f"{ns}::scale", bw, setup_context=setup)
        out.append(lib)
    return out


def test_library_op_dispatch_and_autograd(torch):
    libs = _lib_pair(torch, "tt_eco_test")
    try:
        res = []
        for mod in (tinytorch, torch):
            x = mod.tensor([1., 2.], requires_grad=True)
            y = mod.ops.tt_eco_test.scale(x, s=3.)
            y.sum().backward()
            z = mod.ops.tt_eco_test.scale.default(x)
            res.append((y.tolist(), x.grad.tolist(), type(y.grad_fn).__name__, z.tolist(),
                        mod.ops.tt_eco_test.scale.default.name(), str(mod.ops.tt_eco_test.scale)))
        assert res[0] == res[1]
    finally:
        for lib in libs:
            lib._destroy()


def test_custom_op_and_errors(torch):
    for mod in (tinytorch, torch):
        @mod.library.custom_op("tt_eco_test2::twice", mutates_args=())
        def twice(x: mod.Tensor, k: int = 2) -> mod.Tensor:
            return x * k

        assert twice(mod.tensor([1., 2.])).tolist() == [2., 4.]
        assert mod.ops.tt_eco_test2.twice(mod.tensor([1.]), 3).tolist() == [3.]
        assert str(mod.ops.tt_eco_test2.twice.default._schema) == "tt_eco_test2::twice(Tensor x, SymInt k=2) -> Tensor"
        with pytest.raises(RuntimeError, match="operator tt_eco_nothing::op does not exist"):
            mod.library.register_fake("tt_eco_nothing::op")(lambda x: x)
        with pytest.raises(AttributeError, match="'_OpNamespace' 'tt_eco_test2' object has no attribute 'nope'"):
            _ = mod.ops.tt_eco_test2.nope
        with pytest.raises(OSError, match="Could not load this library"):
            mod.ops.load_library("/no/such/library.so")
    assert tinytorch.ops.aten.add.Tensor(tinytorch.ones(2), 1).tolist() == [2., 2.]
    assert str(tinytorch.ops.aten.add.Tensor) == str(torch.ops.aten.add.Tensor) == "aten.add.Tensor"


# annotations infer_schema accepts, each with the schema text PyTorch infers (checked against it below)
_ANNOTATED = """
import typing
from collections.abc import Sequence
T = torch.Tensor

def every_type(a: T, b: int | None, c: list[int], d: Sequence[float], e: typing.Optional[T] = None,
               f: list[int] | None = None, g: float = 1.5, h: str = "x", i: torch.dtype = torch.float16,
               j: torch.device = torch.device("cpu"), k: bool = True, l: list[T | None] = None, *,
               m: int | float | bool = 2) -> tuple[T, T]:
    pass

def more(x: T, y: typing.List[typing.Optional[T]], z: typing.Union[int, None], w: typing.Optional[typing.Sequence[bool]],
         v: "torch.Tensor", u: typing.Union[int, float, bool, None] = None, t: float = 2.0, s: int = -3,
         r: typing.Sequence[int | float | bool] = None) -> list[T]:
    pass

def one_tensor(x: T) -> tuple[T]:
    pass

def nothing(x: T, n: int) -> None:
    pass
"""


def _inferred(mod) -> list:
    ns = {"torch": mod}
    exec(_ANNOTATED, ns)
    S = mod.library.infer_schema
    return [S(ns["every_type"], mutates_args=("a",)), S(ns["every_type"], mutates_args="unknown", op_name="foo"),
            S(ns["more"], mutates_args=()), S(ns["one_tensor"], mutates_args=()),
            S(ns["nothing"], mutates_args=["x"], op_name="bar")]


def test_infer_schema_accepts_pytorchs_annotations(torch):
    assert _inferred(tinytorch) == _inferred(torch)
    assert _inferred(tinytorch)[0].startswith("(Tensor(a0!) a, SymInt? b, SymInt[] c, float[] d, Tensor? e=None, "
                                              "SymInt[]? f=None")


@pytest.mark.parametrize("bad", [
    "def b(x): pass",
    "def b(x: tuple[int, int]) -> torch.Tensor: pass",
    "def b(x: torch.Tensor): pass",
    "def b(*x: torch.Tensor) -> None: pass",
    "def b(x: dict) -> None: pass",
    "def b(x: torch.Tensor) -> dict: pass",
    "def b(x: torch.Tensor, y: list[torch.Tensor] | None) -> None: pass",
    "def b(x: 'Nope') -> None: pass",
    "def b(x: torch.Tensor, n: list[int] = (1, 2)) -> None: pass",
])
def test_infer_schema_refuses_as_pytorch(torch, bad):
    messages = []
    for mod in (tinytorch, torch):
        ns = {"torch": mod}
        exec(bad, ns)
        with pytest.raises(ValueError) as info:
            mod.library.infer_schema(ns["b"], mutates_args=())
        # PyTorch's list of valid types also names torch.distributed's GroupName, which tinytorch has not
        messages.append(str(info.value).replace("tinytorch", "torch").replace(
            ", torch.distributed.distributed_c10d.GroupName, typing.Optional[torch.distributed.distributed_c10d.GroupName]",
            ""))
    assert messages[0] == messages[1]


def test_custom_op_schema_as_pytorch(torch):
    schemas = []
    for mod in (tinytorch, torch):
        @mod.library.custom_op("tt_eco_schema::scale_into", mutates_args=("out",))
        def scale_into(x: mod.Tensor, out: mod.Tensor, scale: float | None = None, dims: list[int] | None = None,
                       dt: mod.dtype = mod.float32, eps: float = 1e-5) -> None:
            out.copy_(x * (1.0 if scale is None else scale))

        out = mod.zeros(2)
        mod.ops.tt_eco_schema.scale_into(mod.ones(2), out, 3.0)
        schemas.append((scale_into._schema, str(mod.ops.tt_eco_schema.scale_into.default._schema), out.tolist()))
    assert schemas[0] == schemas[1]


def test_defined_schemas_print_as_pytorchs(torch):
    text = ('(Tensor x, float a=1e-5, float c=1e10, float e=-2.0, int[] l=[1,2], int[2] m=[3,3], float[] o=[1.5, 2.], '
            'bool[] p=[True, False], str q="a b", Device r="cpu", ScalarType s=float32, Layout t=strided, '
            'MemoryFormat u=contiguous_format, Scalar v=2.5, SymInt w=-3, int? y=None, *, Tensor(a!) out) -> '
            '(Tensor(a!), Tensor)')
    printed = []
    for mod in (tinytorch, torch):
        lib = mod.library.Library("tt_eco_print", "DEF")
        try:
            lib.define("f" + text)
            lib.define("g.overload(Tensor x) -> ((Tensor))")
            printed.append((str(mod.ops.tt_eco_print.f.default._schema), str(mod.ops.tt_eco_print.g.overload._schema)))
        finally:
            lib._destroy()
    assert printed[0] == printed[1]


def test_exclude_dispatch_key_guard():
    C = tinytorch._C
    keys = C.DispatchKeySet(C.DispatchKey.AutocastCPU) | C.DispatchKeySet(C.DispatchKey.AutocastCUDA)
    assert keys.has(C.DispatchKey.AutocastCPU) and not keys.has(C.DispatchKey.CPU)
    lib = tinytorch.library.Library("tt_eco_test3", "DEF")
    try:
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x + 1, "CPU")
        calls = []

        def autocast_kernel(x):
            calls.append(1)
            with C._ExcludeDispatchKeyGuard(keys):
                return tinytorch.ops.tt_eco_test3.f(x.float())

        lib.impl("f", autocast_kernel, "AutocastCPU")
        with tinytorch.autocast("cpu"):
            out = tinytorch.ops.tt_eco_test3.f(tinytorch.ones(2, dtype=tinytorch.float64))
        assert out.dtype == tinytorch.float32 and out.tolist() == [2., 2.] and calls == [1]
        assert tinytorch.ops.tt_eco_test3.f(tinytorch.ones(1)).tolist() == [2.] and calls == [1]
    finally:
        lib._destroy()


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_recomputes_with_the_same_gradients(torch, reentrant):
    calls = []

    def make(mod):
        mod.manual_seed(0)
        lin = mod.nn.Linear(5, 4)

        def f(a):
            calls.append(mod)
            return mod.nn.functional.dropout(lin(a).tanh(), 0.3, True).sum(1)
        return lin, f

    out = []
    for mod in (tinytorch, torch):
        lin, f = make(mod)
        x = mod.tensor(np.linspace(-1, 1, 15, dtype=np.float32).reshape(3, 5), requires_grad=True)
        mod.manual_seed(1)
        y = mod.utils.checkpoint.checkpoint(f, x, use_reentrant=reentrant)
        y.sum().backward()
        out.append((y.detach().numpy(), x.grad.numpy(), lin.weight.grad.numpy()))
    assert calls.count(tinytorch) == 2  # the forward and the recomputation
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_checkpoint_warns_without_use_reentrant():
    x = tinytorch.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        y = tinytorch.utils.checkpoint.checkpoint(lambda a: a * 2, x)
    assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"


def test_pytree_against_pytorch(torch):
    from collections import OrderedDict, namedtuple

    import torch.utils._pytree as tp

    P = namedtuple("P", "a b")
    tree = {"x": [1, (2, 3)], "y": None, "z": P(4, OrderedDict(k=5)), "w": "leaf"}
    leaves, spec = tinytorch.utils._pytree.tree_flatten(tree)
    assert leaves == tp.tree_flatten(tree)[0]
    assert tinytorch.utils._pytree.tree_unflatten([v * 10 if isinstance(v, int) else v for v in leaves], spec) == \
        tp.tree_unflatten([v * 10 if isinstance(v, int) else v for v in leaves], tp.tree_flatten(tree)[1])
    assert spec.num_leaves == tp.tree_flatten(tree)[1].num_leaves
    assert tinytorch.utils._pytree.tree_map(lambda v: v, tree) == tree


def test_type_names_as_pytorch(torch):
    pairs = [(tinytorch.ones(1), torch.ones(1)), (tinytorch.ones(1).shape, torch.ones(1).shape),
             (tinytorch.float32, torch.float32), (tinytorch.Generator(), torch.Generator()),
             (tinytorch.device("cpu"), torch.device("cpu")),
             (tinytorch.nn.Parameter(tinytorch.ones(1)), torch.nn.Parameter(torch.ones(1)))]
    for ours, theirs in pairs:
        assert str(type(ours)).replace("tinytorch", "torch") == str(type(theirs))
    for name in ("dataloader", "dataset", "sampler"):
        __import__(f"tinytorch.utils.data.{name}")
    from tinytorch.utils.data.dataloader import DataLoader, default_collate  # noqa: F401
    from tinytorch.utils.data.sampler import RandomSampler  # noqa: F401
    from tinytorch.utils.data.dataset import Dataset
    assert Dataset[int] is not None


def test_comparisons_with_non_operands_and_int_wrapping(torch):
    for mod in (tinytorch, torch):
        x = mod.tensor([1, 2])
        assert (x == None) is False and (x != None) is True and (x == "a") is False  # noqa: E711
        with pytest.raises(TypeError, match="'<' not supported between instances of 'Tensor' and 'NoneType'"):
            x < None  # noqa: B015
    for dt, op, v in itertools.product(("uint8", "int8", "int16"), ("&", "+", "-", "|", "^"), (-32, 300, -300, 70000)):
        a = np.array([200 if dt == "uint8" else 100, 7], dtype=dt)  # noqa: F841  (read by the eval below)
        ours = eval(f"tinytorch.from_numpy(a) {op} v").numpy()
        theirs = eval(f"torch.from_numpy(a) {op} v").numpy()
        assert ours.dtype == theirs.dtype and (ours == theirs).all(), (dt, op, v)


def test_barebones_unsigned_dtypes(torch):
    for name in ("uint16", "uint32", "uint64"):
        d, td = getattr(tinytorch, name), getattr(torch, name)
        assert d.is_signed == td.is_signed and d.itemsize == td.itemsize
        assert tinytorch.iinfo(d).max == torch.iinfo(td).max
        a = np.array([1, 2, 3], dtype=name)
        assert (tinytorch.from_numpy(a).sum().item(), str(tinytorch.from_numpy(a).dtype)) == \
            (torch.from_numpy(a).sum().item(), str(torch.from_numpy(a).dtype).replace("torch", "tinytorch"))
        for other in ("int16", "uint8", "bool", "int64"):
            with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64 types is not supported"):
                tinytorch.promote_types(d, getattr(tinytorch, other))
            with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64 types is not supported"):
                torch.promote_types(td, getattr(torch, other))
        assert str(tinytorch.promote_types(d, tinytorch.float32)) == "tinytorch.float32"


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize("dtype", ["uint8", "float32"])
def test_interpolate_antialias_and_uint8(torch, mode, antialias, dtype):
    rng = np.random.default_rng(0)
    for (h, w), size in (((40, 50), (20, 23)), ((17, 13), (31, 29)), ((64, 64), (16, 16)), ((10, 12), (10, 7))):
        a = rng.integers(0, 256, (2, 3, h, w)).astype(np.uint8) if dtype == "uint8" else \
            rng.standard_normal((2, 3, h, w)).astype(np.float32)
        kw = dict(size=size, mode=mode, antialias=antialias, align_corners=False)
        ours = tinytorch.nn.functional.interpolate(tinytorch.from_numpy(a), **kw).numpy()
        theirs = torch.nn.functional.interpolate(torch.from_numpy(a), **kw).numpy()
        assert ours.dtype == theirs.dtype
        if dtype == "uint8":  # PyTorch's fixed-point kernel: the same bits
            np.testing.assert_array_equal(ours, theirs)
        else:
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=5e-6)
    if dtype == "float32":  # differentiable: the weights are a linear map
        x = tinytorch.tensor(a, requires_grad=True)
        tx = torch.tensor(a, requires_grad=True)
        tinytorch.nn.functional.interpolate(x, **kw).pow(2).sum().backward()
        torch.nn.functional.interpolate(tx, **kw).pow(2).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_tensor_subclass_new_is_kept(torch):
    for mod in (tinytorch, torch):
        class Img(mod.Tensor):
            def __new__(cls, data, *, dtype=None, requires_grad=None):
                return mod.as_tensor(data, dtype=dtype).as_subclass(cls)

        im = Img(mod.tensor([1, 2], dtype=mod.uint8), requires_grad=False)
        assert type(im) is Img and str(im.dtype).endswith("uint8") and im.tolist() == [1, 2]
    assert tinytorch.Tensor([1, 2]).dtype == tinytorch.float32 and tinytorch.Tensor(2, 3).shape == (2, 3)


def test_is_contiguous_memory_format(torch):
    for shape in ((2, 3, 4, 5), (1, 3, 4, 5), (2, 1, 4, 5), (2, 3, 1, 1)):
        for mod in (tinytorch, torch):
            a = mod.zeros(shape)
            cl = a.contiguous(memory_format=mod.channels_last)
            got = (a.is_contiguous(), a.is_contiguous(memory_format=mod.channels_last),
                   cl.is_contiguous(memory_format=mod.channels_last), cl.is_contiguous())
            if mod is tinytorch:
                ours = got
        assert ours == got, shape


def test_factories_take_layout_and_pin_memory(torch):
    assert tinytorch.full_like(tinytorch.ones(2), 3, layout=tinytorch.strided).tolist() == [3., 3.]
    assert tinytorch.zeros(2, layout=tinytorch.strided, pin_memory=False).tolist() == [0., 0.]
    for mod in (tinytorch, torch):
        with pytest.raises(RuntimeError, match="pin_memory=True requires"):
            mod.zeros(2, pin_memory=True)
    assert [t.tolist() for t in tinytorch.tensor_split(tinytorch.arange(6), indices=[2])] == \
        [t.tolist() for t in torch.tensor_split(torch.arange(6), indices=[2])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tinytorch._assert(True, "fine")
    with pytest.raises(AssertionError, match="nope"):
        tinytorch._assert(False, "nope")
    with pytest.raises(ValueError, match="bad"):
        tinytorch._check_value(False, lambda: "bad")
