"""torch.library against PyTorch: opcheck's result dict and its failures (a fake implementation of the wrong
shape, a kernel that writes an input not declared mutable or returns it as an alias, a custom op with no autograd
formula, a backend kernel recording the graph, no fake implementation), the schemas custom_op infers as PyTorch
prints them, register_fake/register_kernel/register_autograd in their spellings, and get_ctx."""
import warnings

import pytest

import tinytorch


def _same(text) -> str:
    return str(text).replace("tinytorch", "torch")


def _results(mod, op, args, **kw):
    """opcheck's dict as text, and the aliasing warnings it gave (an error instead where PyTorch's functorch config
    ``error_on_custom_op_aliasing`` is set, as it is by default wherever the environment variable CI is)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = mod.library.opcheck(op, args, raise_exception=False, **kw)
    story = {k: v if v == "SUCCESS" else f"{type(v).__name__}: {_same(v)}" for k, v in got.items()}
    story["warnings"] = [_same(w.message) for w in seen if "with implementation in" in str(w.message)]
    return story


@pytest.fixture(params=[False, True], ids=["alias_warns", "alias_errors"])
def alias_rule(request, monkeypatch):
    """Both settings of the custom-op aliasing switch, in both libraries (PyTorch's default follows $CI). PyTorch's
    is set with its config module's own ``patch``: a pytest whose monkeypatch deletes what it did not find in a
    module's ``__dict__`` would hide the entry from PyTorch's config for the rest of the process."""
    import torch._functorch.config

    import tinytorch._functorch.config
    monkeypatch.setattr(tinytorch._functorch.config, "error_on_custom_op_aliasing", request.param)
    with torch._functorch.config.patch(error_on_custom_op_aliasing=request.param):
        yield request.param


def _ops(mod, ns):
    """Custom ops, one per behaviour opcheck judges."""
    T = mod.Tensor
    made = {}

    @mod.library.custom_op(f"{ns}::good", mutates_args=())
    def good(x: T, k: float = 2.0) -> T:
        return x * k

    @good.register_fake
    def _(x, k=2.0):
        return mod.empty_like(x)

    def backward(ctx, g):
        return g * ctx.k, None

    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    good.register_autograd(backward, setup_context=setup_context)
    made["good"] = good

    @mod.library.custom_op(f"{ns}::badfake", mutates_args=())
    def badfake(x: T) -> T:
        return x.clone()

    @badfake.register_fake
    def _(x):
        return x.new_empty(x.shape[0] + 1)
    made["badfake"] = badfake

    @mod.library.custom_op(f"{ns}::baddtype", mutates_args=())
    def baddtype(x: T) -> T:
        return x.clone()

    mod.library.register_fake(f"{ns}::baddtype")(lambda x: mod.empty_like(x, dtype=mod.float64))
    made["baddtype"] = baddtype

    @mod.library.custom_op(f"{ns}::mutating", mutates_args=())
    def mutating(x: T) -> T:
        x.add_(1)
        return x.clone()

    mutating.register_fake(lambda x: mod.empty_like(x))
    made["mutating"] = mutating

    @mod.library.custom_op(f"{ns}::declared", mutates_args=("out",))
    def declared(x: T, out: T) -> None:
        out.copy_(x.sin())

    @declared.register_fake
    def _(x, out):
        return None
    made["declared"] = declared

    @mod.library.custom_op(f"{ns}::noautograd", mutates_args=())
    def noautograd(x: T) -> T:
        return x.sin()

    noautograd.register_fake(lambda x: mod.empty_like(x))
    made["noautograd"] = noautograd

    @mod.library.custom_op(f"{ns}::nofake", mutates_args=(), device_types="cpu")
    def nofake(x: T) -> T:
        return x.cos()
    made["nofake"] = nofake

    @mod.library.custom_op(f"{ns}::pair", mutates_args=())
    def pair(x: T, dims: list[int], scale: float | None = None) -> tuple[T, T]:
        return x.sum(dims), x * (scale or 1.0)

    @pair.register_fake
    def _(x, dims, scale=None):
        return x.sum(dims), mod.empty_like(x)
    made["pair"] = pair
    return made


def _opcheck_story(mod, ns):
    ops = _ops(mod, ns)
    x = mod.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]])
    xg = x.clone().requires_grad_(True)
    story = [mod.library.opcheck(ops["good"], (xg, 3.0)),
             mod.library.opcheck(ops["good"], (x,), test_utils="test_schema"),
             mod.library.opcheck(ops["good"]._opoverload, (x,), {"k": 0.5}, test_utils=["test_faketensor"]),
             mod.library.opcheck(ops["declared"], (x, mod.zeros(2, 3))),
             mod.library.opcheck(ops["pair"], (xg, [1], 2.0), test_utils=("test_schema", "test_faketensor"))]
    for name, args in (("badfake", (x,)), ("baddtype", (x,)), ("mutating", (x,)), ("noautograd", (xg,)),
                       ("nofake", (x,)), ("pair", (xg, [0]))):
        story.append(_results(mod, ops[name], args))
    with pytest.raises(Exception) as info:
        mod.library.opcheck(ops["badfake"], (x,))
    story.append((type(info.value).__name__, _same(info.value), type(info.value.__cause__).__name__))
    for bad in ("nope", ["test_schema", "x"]):
        with pytest.raises(ValueError) as info:
            mod.library.opcheck(ops["good"], (x,), test_utils=bad)
        story.append(_same(info.value))
    with pytest.raises(ValueError) as info:
        mod.library.opcheck(ops["good"], (x,), rtol=1e-3)
    story.append(str(info.value))
    return story


def test_opcheck_results_and_failures_as_pytorchs(torch, alias_rule):
    ns = f"tt_opcheck_{int(alias_rule)}"  # a custom op's name is registered once per process
    assert _opcheck_story(tinytorch, ns) == _opcheck_story(torch, ns)


def _library_story(mod, ns):
    lib = mod.library.Library(ns, "DEF")
    try:
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x.sin(), "CPU")
        lib.define("g(Tensor x) -> Tensor")
        lib.impl("g", lambda x: x, "CompositeExplicitAutograd")
        lib._register_fake("g", lambda x: mod.empty_like(x))
        lib.define("h(Tensor x, int n) -> Tensor")
        mod.library.impl(f"{ns}::h", "cpu", lambda x, n: x * n, lib=lib)
        mod.library.register_fake(f"{ns}::h", lambda x, n: mod.empty_like(x), lib=lib)
        xg = mod.ones(3, requires_grad=True)
        story = [_results(mod, mod.ops.__getattr__(ns).f.default, (xg,)),
                 _results(mod, mod.ops.__getattr__(ns).g.default, (mod.ones(3),)),
                 _results(mod, mod.ops.__getattr__(ns).h.default, (mod.ones(3), 2),
                          test_utils=("test_schema", "test_faketensor"))]
        ft = __import__(mod.__name__ + "._subclasses.fake_tensor", fromlist=["x"])
        with ft.FakeTensorMode():
            story.append(repr(mod.ops.__getattr__(ns).h(mod.ones(4, 2), 3)))
        return story
    finally:
        lib._destroy()


def test_library_ops_under_opcheck_and_fake_mode(torch, alias_rule):
    ns = f"tt_opcheck_lib_{int(alias_rule)}"
    assert _library_story(tinytorch, ns) == _library_story(torch, ns)


def _autograd_story(mod, ns):
    T = mod.Tensor

    @mod.library.custom_op(f"{ns}::square", mutates_args=(), device_types="cpu")
    def square(x: T) -> T:
        return x * x

    square.register_fake(lambda x: mod.empty_like(x))
    x = mod.tensor([1.0, 2.0, -3.0], requires_grad=True)
    y = square(x)
    story = [type(y.grad_fn).__name__]
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    story.append(str(info.value))

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, g):
        (saved,) = ctx.saved_tensors
        return 2 * g * saved

    mod.library.register_autograd(f"{ns}::square", backward, setup_context=setup_context)
    square(x).sum().backward()
    story.append(x.grad.tolist())
    story.append(mod.library.opcheck(square, (x.detach().requires_grad_(),)))
    story.append(mod.library.get_ctx())
    return story


def test_custom_op_autograd_registration(torch):
    assert _autograd_story(tinytorch, "tt_opcheck_ag") == _autograd_story(torch, "tt_opcheck_ag")


def _schema_story(mod, ns):
    T = mod.Tensor
    import typing
    from collections.abc import Sequence
    Number = mod.types.Number

    @mod.library.custom_op(f"{ns}::every", mutates_args=("out",))
    def every(x: T, out: T, a: T | None, b: typing.Optional[T], c: list[T], d: Sequence[int], e: int = 3,
              f: float = 0.5, g: bool = False, h: str = "mean", i: Number = 2, j: mod.dtype = mod.float16,
              k: mod.device = mod.device("cpu"), m: list[float] | None = None, *, n: int | None = None) -> None:
        pass

    @mod.library.custom_op(f"{ns}::outs", mutates_args=())
    def outs(x: T) -> list[T]:
        return [x.clone()]

    return [every._schema, str(every._opoverload._schema), str(mod.ops.__getattr__(ns).outs.default._schema)]


def test_custom_op_schemas_print_as_pytorchs(torch):
    assert _schema_story(tinytorch, "tt_opcheck_schema") == _schema_story(torch, "tt_opcheck_schema")


@pytest.mark.parametrize("bad", [
    "def b(x: torch.Tensor, y: tuple[int, int]) -> torch.Tensor: pass",
    "def b(x: torch.Tensor, y: dict) -> torch.Tensor: pass",
    "def b(x: torch.Tensor) -> dict: pass",
    "def b(x: torch.Tensor, *rest: int) -> torch.Tensor: pass",
])
def test_custom_op_refuses_as_pytorch(torch, bad):
    messages = []
    for mod in (tinytorch, torch):
        ns = {"torch": mod}
        exec(bad, ns)
        with pytest.raises(ValueError) as info:
            mod.library.custom_op("tt_opcheck_bad::b", mutates_args=())(ns["b"])
        group = "torch.distributed.distributed_c10d.GroupName"  # PyTorch's valid types name it; tinytorch has not
        messages.append(_same(info.value).replace(f", {group}, typing.Optional[{group}]", ""))
    assert messages[0] == messages[1]
