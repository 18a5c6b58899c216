"""Names real programs call first, against PyTorch: legacy tensor types, the CPU-honest switches
(backends, cuda, compile, determinism, matmul precision, default device), amp's GradScaler and autocast,
finfo/iinfo, constants and the promotion queries."""
import itertools
import re
import warnings

import numpy as np
import pytest

import tinytorch


def _tiny(text: str) -> str:
    return re.sub(r"(?<!tiny)torch\.", "tinytorch.", text)


def _outcome(T, src: str):
    """What evaluating ``src`` with ``T`` = tinytorch or torch gives: its repr, or the error raised."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = eval(src, {"T": T, "np": np})
        except Exception as e:  # noqa: BLE001 - the exception is what is compared
            return ("raise", type(e).__name__, _tiny(str(e)) if T is not tinytorch else str(e))
    text = repr(r)
    return ("value", _tiny(text) if T is not tinytorch else text)


def _same(src, torch):
    assert _outcome(tinytorch, src) == _outcome(torch, src)


LEGACY = [
    "T.FloatTensor([1, 2])", "T.DoubleTensor([1, 2])", "T.LongTensor([1.7, -2.7])", "T.IntTensor([[1, 2]])",
    "T.ByteTensor([1, 255])", "T.BoolTensor([1, 0])", "T.HalfTensor([1.5])", "T.ShortTensor([3])",
    "T.CharTensor([-3])", "T.FloatTensor(2, 3).shape", "T.LongTensor(T.Size([2, 0])).shape", "T.FloatTensor().shape",
    "T.FloatTensor(T.tensor([1.0, 2.0]))", "T.FloatTensor('a')", "T.FloatTensor(np.array([1, 2]))",
    "T.FloatTensor([[1, 2], [3, 4]]).requires_grad", "T.FloatTensor", "T.LongTensor.__name__", "T.FloatTensor.dtype",
    "T.FloatTensor.is_cuda",
    "isinstance(T.ones(2), T.FloatTensor)", "isinstance(T.ones(2, dtype=T.float64), T.FloatTensor)",
    "isinstance(T.ones(2, dtype=T.float64), T.DoubleTensor)", "isinstance(T.tensor([1]), T.LongTensor)",
    "isinstance(T.tensor([True]), T.BoolTensor)", "isinstance(T.FloatTensor([1]), T.Tensor)",
    "isinstance([1.0], T.FloatTensor)", "issubclass(T.FloatTensor, T.Tensor)",
    "T.ones(2).type(T.DoubleTensor)", "T.ones(2).type('torch.LongTensor')", "T.ones(2).type(T.int32)",
    "T.ones(2).type('FooTensor')", "T.ones(2).type('tinytorch.Foo')", "T.ones(2).type()", "T.tensor([1]).type(T.ByteTensor).type()",
    "T.ones(2, dtype=T.float16).type()", "T.ones(2, dtype=T.int8).type()",
]


@pytest.mark.parametrize("src", LEGACY)
def test_legacy_types_match_torch(src, torch):
    _same(src, torch)


def test_legacy_constructor_aliases_and_dtype_mismatch(torch):
    a = tinytorch.tensor([1.0, 2.0])
    assert tinytorch.FloatTensor(a).data_ptr() == a.data_ptr()
    with pytest.raises(TypeError):
        tinytorch.FloatTensor(tinytorch.tensor([1, 2]))
    with pytest.raises(TypeError):
        torch.FloatTensor(torch.tensor([1, 2]))


@pytest.mark.parametrize("name", ["tinytorch.DoubleTensor", "torch.DoubleTensor", "DOUBLE"])
def test_set_default_tensor_type(name, torch):
    try:
        with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
            tinytorch.set_default_tensor_type(tinytorch.DoubleTensor if name == "DOUBLE" else name)
        assert tinytorch.get_default_dtype() is tinytorch.float64
        assert tinytorch.tensor([1.0]).dtype is tinytorch.float64
        assert tinytorch.Tensor([1]).dtype is tinytorch.float64
    finally:
        tinytorch.set_default_dtype(tinytorch.float32)
    for T, arg in ((tinytorch, tinytorch.LongTensor), (torch, torch.LongTensor), (tinytorch, "torch.LongTensor"),
                   (torch, "torch.LongTensor")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
                T.set_default_tensor_type(arg)
    assert torch.get_default_dtype() is torch.float32 and tinytorch.get_default_dtype() is tinytorch.float32


SWITCHES = [
    "T.backends.cudnn.benchmark", "T.backends.cudnn.deterministic", "T.backends.cudnn.enabled",
    "T.backends.cudnn.allow_tf32", "T.backends.cudnn.is_available()", "T.backends.cudnn.version()",
    "T.backends.cuda.matmul.allow_tf32", "T.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
    "T.backends.cuda.is_built()", "T.backends.mps.is_available()", "T.backends.mps.is_built()",
    "T.cuda.is_available()", "T.cuda.device_count()", "T.cuda.manual_seed(1)", "T.cuda.manual_seed_all(1)",
    "T.cuda.empty_cache()", "T.cuda.synchronize()", "T.cuda.current_device()", "T.cuda.is_initialized()",
    "T.ones(2).is_cpu", "T.ones(2).is_xpu", "T.ones(2).is_mps", "T.ones(2).is_cuda", "T.ones(2).is_pinned()",
    "T.ones(2).pin_memory()", "T.are_deterministic_algorithms_enabled()",
    "T.is_deterministic_algorithms_warn_only_enabled()", "T.get_float32_matmul_precision()",
    "T.get_default_device()", "T.cpu.is_available()",
    "T.pi", "T.e", "T.inf", "T.nan", "T.newaxis", "T.ones(2, 3)[:, T.newaxis].shape",
]


@pytest.mark.parametrize("src", SWITCHES)
def test_switches_match_torch(src, torch):
    _same(src, torch)


def test_switch_state_round_trips(torch):
    for T in (tinytorch, torch):
        T.use_deterministic_algorithms(True, warn_only=True)
        state = (T.are_deterministic_algorithms_enabled(), T.is_deterministic_algorithms_warn_only_enabled())
        T.use_deterministic_algorithms(False)
        assert state == (True, True) and not T.are_deterministic_algorithms_enabled()
        T.set_float32_matmul_precision("medium")
        assert T.get_float32_matmul_precision() == "medium"
        with pytest.warns(UserWarning, match="foo is not one of 'highest', 'high', or 'medium'"):
            T.set_float32_matmul_precision("foo")
        assert T.get_float32_matmul_precision() == "medium"
        T.set_float32_matmul_precision("highest")
        T.set_default_device("cpu")
        T.set_default_device(None)
        assert str(T.get_default_device()) == "cpu"
    # PyTorch's own test helpers (loaded by the OpInfo walk) freeze its cudnn flags: set only ours
    tinytorch.backends.cudnn.benchmark = True
    assert tinytorch.backends.cudnn.benchmark
    tinytorch.backends.cudnn.benchmark = False
    tinytorch.backends.cuda.matmul.allow_tf32 = True
    assert tinytorch.backends.cuda.matmul.allow_tf32
    tinytorch.backends.cuda.matmul.allow_tf32 = False
    with pytest.raises(RuntimeError, match="only the CPU"):
        tinytorch.set_default_device("cuda")


def test_compile_returns_a_callable_that_runs_the_model():
    model = tinytorch.nn.Linear(3, 2)
    compiled = tinytorch.compile(model, mode="max-autotune")
    x = tinytorch.ones(4, 3)
    assert tinytorch.equal(compiled(x), model(x))

    @tinytorch.compile(fullgraph=True)
    def double(t):
        return t * 2

    @tinytorch.compile
    def triple(t):
        return t * 3

    assert double(x).sum().item() == 24.0 and triple(x).sum().item() == 36.0
    assert type(compiled).__name__ == "OptimizedModule" and compiled._orig_mod is model


# -- dtype info ------------------------------------------------------------------------------------
DTYPES = ["float16", "float32", "float64", "uint8", "int8", "int16", "int32", "int64", "bool"]


@pytest.mark.parametrize("name", DTYPES)
def test_finfo_iinfo_match_torch(name, torch):
    for kind in ("finfo", "iinfo"):
        src = f"T.{kind}(T.{name})"
        _same(src, torch)
        for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
            _same(f"{src}.{field}", torch)
    _same("T.finfo()", torch)


PAIRS = list(itertools.product(DTYPES, DTYPES))


def test_promote_types_and_can_cast_match_torch(torch):
    for a, b in PAIRS:
        _same(f"T.promote_types(T.{a}, T.{b})", torch)
        _same(f"T.can_cast(T.{a}, T.{b})", torch)


RESULT_TYPE = [
    "T.result_type(T.tensor([1]), 1.0)", "T.result_type(T.tensor([1.0]), 1)", "T.result_type(2, 3.0)",
    "T.result_type(2, 3)", "T.result_type(True, False)", "T.result_type(True, 2)",
    "T.result_type(T.tensor([1], dtype=T.int8), T.tensor(1000))", "T.result_type(T.tensor(1.0, dtype=T.float64), T.ones(2))",
    "T.result_type(T.tensor([1], dtype=T.uint8), T.tensor([1], dtype=T.int8))",
    "T.result_type(T.tensor(1.0, dtype=T.float64), T.ones(2, dtype=T.int32))", "T.result_type(T.ones(2, dtype=T.float16), 2.5)",
]


@pytest.mark.parametrize("src", RESULT_TYPE)
def test_result_type_matches_torch(src, torch):
    _same(src, torch)


# -- amp ---------------------------------------------------------------------------------------------
def _scaler_run(T, grads, **kwargs):
    """A GradScaler driven through a scripted sequence of gradients; everything observable recorded."""
    p = T.nn.Parameter(T.tensor([1.0, 2.0]))
    opt = T.optim.SGD([p], lr=0.5)
    scaler = T.amp.GradScaler("cpu", **kwargs)
    seen = []
    for g in grads:
        opt.zero_grad()
        loss = scaler.scale((p * T.tensor(g)).sum())
        seen.append(loss.item())
        loss.backward()
        seen.append(p.grad.tolist())
        if len(seen) % 4 == 2:
            scaler.unscale_(opt)
            seen.append(p.grad.tolist())
        seen.append(scaler.step(opt))
        scaler.update()
        seen.append((p.tolist(), scaler.get_scale(), scaler.state_dict()))
    return seen


@pytest.mark.parametrize("kwargs", [{}, {"init_scale": 8.0, "growth_interval": 2},
                                    {"init_scale": 2.0 ** 120, "growth_factor": 1e20, "growth_interval": 1},
                                    {"init_scale": 4.0, "backoff_factor": 0.25, "growth_interval": 3}])
def test_grad_scaler_matches_torch(kwargs, torch):
    inf, nan = float("inf"), float("nan")
    grads = [[1.0, 2.0], [inf, 1.0], [1.0, -1.0], [nan, 0.0], [0.5, 0.5], [1.0, 1.0], [3e38, 1.0], [2.0, 2.0]]
    ours, theirs = _scaler_run(tinytorch, grads, **kwargs), _scaler_run(torch, grads, **kwargs)
    assert repr(ours) == repr(theirs)


def test_grad_scaler_errors_and_state_dict_match_torch(torch):
    def run(T):
        out = []
        p = T.nn.Parameter(T.ones(2))
        opt = T.optim.SGD([p], lr=0.1)
        s = T.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
        for call in (lambda: s.step(opt), lambda: s.update(), lambda: s.unscale_(opt)):
            try:
                call()
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        s.scale(p.sum()).backward()
        s.unscale_(opt)
        for call in (lambda: s.unscale_(opt), lambda: s.step(opt, closure=lambda: 0), lambda: s.step(opt),
                     lambda: s.step(opt), lambda: s.unscale_(opt), lambda: s.load_state_dict({})):
            try:
                out.append(call())
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e)))
        s.update(16.0)
        out.append(s.state_dict())
        s.update(T.tensor(32.0))
        out.append(s.get_scale())
        fresh = T.amp.GradScaler("cpu")
        fresh.load_state_dict(s.state_dict())
        out.append((fresh.state_dict(), [t.tolist() for t in fresh.scale([T.tensor(1.0), (T.tensor(2.0),)])[:1]]))
        off = T.amp.GradScaler("cpu", enabled=False)
        x = T.tensor(3.0)
        out.append((off.scale(x) is x, off.get_scale(), off.state_dict(), off.is_enabled(), off.step(opt)))
        return out
    assert repr(run(tinytorch)) == repr(run(torch))


def test_cuda_grad_scaler_is_disabled_with_torchs_warnings(torch):
    for T in (tinytorch, torch):
        with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available.  Disabling."):
            assert not T.amp.GradScaler().is_enabled()
        with pytest.warns(FutureWarning, match=r"`torch.cuda.amp.GradScaler\(args...\)` is deprecated"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                assert not T.cuda.amp.GradScaler().is_enabled()


def test_autocast_contexts(torch):
    for T in (tinytorch, torch):
        with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported. Disabling autocast."):
            with T.autocast("cuda"):
                assert (T.ones(2, 2) @ T.ones(2, 2)).dtype is T.float32
        with pytest.warns(UserWarning, match="CPU Autocast only supports dtypes of torch.bfloat16, torch.float16"):
            with T.autocast("cpu", dtype=T.float32):
                assert not T.is_autocast_enabled("cpu")
        with T.amp.autocast("cpu", enabled=False):
            assert (T.ones(2, 2) @ T.ones(2, 2)).dtype is T.float32
        with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is deprecated"):
            T.cpu.amp.autocast(enabled=False)

        @T.autocast("cpu", enabled=False)
        def f(x):
            return x * 2
        assert f(T.ones(1)).item() == 2.0
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`, got: `<class 'int'>`"):
            T.autocast(3)
    # CPU autocast that PyTorch runs (bfloat16 by default, float16) runs (tests/amp/test_amp_autocast_bf16.py)
    for T in (tinytorch, torch):
        with T.autocast("cpu"):
            assert (T.ones(2, 2) @ T.ones(2, 2)).dtype is T.bfloat16
        with T.autocast("cpu", dtype=T.float16):
            assert (T.ones(2, 2) @ T.ones(2, 2)).dtype is T.float16
