"""``torch.library.custom_op``'s rules, against PyTorch 2.13: a mutating op that returns nothing needs no fake
implementation (opcheck passes, meta tensors run), defining a name again replaces the op (its kernel, schema and
fake implementation; the earlier ``CustomOpDef`` calls the new one), and an op whose output is or views an input
(or another output) is refused with PyTorch's RuntimeError."""
import itertools
import re

import pytest

import tinytorch

_names = itertools.count()


def _outcome(fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        # the message names the module holding the kernel (PyTorch's torch._library.custom_ops)
        return "raises", type(e).__name__, re.sub(r"<module '[^']*' from '[^']*'>", "<module>", str(e))
    if isinstance(out, dict):
        return out
    if out is None:
        return None
    outs = out if isinstance(out, tuple) else (out,)
    return [None if t is None else (tuple(t.shape), str(t.device), t.tolist() if str(t.device) != "meta" else None)
            for t in outs]


def _both(build):
    """``build(lib, ns)`` run with tinytorch and with PyTorch, each in a fresh namespace."""
    torch = pytest.importorskip("torch")
    ns = f"tt_rules{next(_names)}"
    return _outcome(lambda: build(tinytorch, ns)), _outcome(lambda: build(torch, ns))


def _mutating_no_return(lib, ns):
    @lib.library.custom_op(f"{ns}::bump", mutates_args=("x",))
    def bump(x: lib.Tensor) -> None:
        x.add_(1)
    return bump


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_mutating_op_returning_none_runs_without_fake(device):
    def build(lib, ns):
        bump = _mutating_no_return(lib, ns)
        x = lib.ones(3, device=device)
        return bump(x), (x if device == "cpu" else None)
    got, expected = _both(build)
    assert got == expected


def test_opcheck_of_mutating_op_returning_none():
    got, expected = _both(lambda lib, ns: lib.library.opcheck(_mutating_no_return(lib, ns), (lib.ones(3),)))
    assert got == expected == {"test_schema": "SUCCESS", "test_autograd_registration": "SUCCESS",
                               "test_faketensor": "SUCCESS", "test_aot_dispatch_dynamic": "SUCCESS"}


def test_op_returning_none_without_mutation_still_needs_fake():
    def build(lib, ns):
        @lib.library.custom_op(f"{ns}::nothing", mutates_args=())
        def nothing(x: lib.Tensor) -> None:
            pass
        return nothing(lib.empty(2, device="meta"))
    got, expected = _both(build)
    assert got == expected and got[0] == "raises"


def _defined_twice(lib, ns):
    @lib.library.custom_op(f"{ns}::scale", mutates_args=())
    def scale(x: lib.Tensor) -> lib.Tensor:
        return x * 2
    first = scale
    scale.register_fake(lambda x: lib.empty_like(x))

    @lib.library.custom_op(f"{ns}::scale", mutates_args=())
    def scale(x: lib.Tensor) -> lib.Tensor:  # noqa: F811 - the cell run again
        return x * 3
    return first, scale


@pytest.mark.parametrize("then", ["new", "ops", "meta"])
def test_defining_a_name_again_replaces_the_op(then):
    def build(lib, ns):
        _, scale = _defined_twice(lib, ns)
        x = lib.full((2,), 2.0)
        if then == "new":
            return scale(x)
        if then == "ops":
            return getattr(lib.ops, ns).scale(x)
        # the first definition's fake implementation went with it
        return scale(lib.empty(2, device="meta"))
    got, expected = _both(build)
    assert got == expected


def test_the_earlier_definition_calls_the_new_kernel():
    """PyTorch's earlier ``CustomOpDef`` reaches freed dispatcher state: in one process out of a few hundred calls it
    crashes the interpreter (seen in CI), otherwise it runs the new kernel. tinytorch runs the new kernel every time;
    the value is held to what PyTorch's new definition returns."""
    torch = pytest.importorskip("torch")
    ns = f"tt_rules{next(_names)}"
    first, _ = _defined_twice(tinytorch, ns)
    _, scale = _defined_twice(torch, ns)
    assert first(tinytorch.full((2,), 2.0)).tolist() == scale(torch.full((2,), 2.0)).tolist() == [6.0, 6.0]


def test_defining_a_name_again_with_another_schema():
    """(The earlier CustomOpDef is not called here: PyTorch's dispatcher crashes on a call of it with the old
    schema.)"""
    def build(lib, ns):
        @lib.library.custom_op(f"{ns}::scale", mutates_args=())
        def scale(x: lib.Tensor) -> lib.Tensor:
            return x * 2

        @lib.library.custom_op(f"{ns}::scale", mutates_args=())
        def scale(x: lib.Tensor, y: lib.Tensor) -> lib.Tensor:  # noqa: F811 - the cell run again, changed
            return x * y * 3
        x = lib.full((2,), 2.0)
        return {"schema": str(getattr(lib.ops, ns).scale.default._schema), "value": scale(x, x).tolist()}
    got, expected = _both(build)
    assert got == expected


@pytest.mark.parametrize("kind", ["same", "view", "two_same_outputs", "mutated_and_returned", "no_grad",
                                  "requires_grad", "cpu_kernel", "clone"])
def test_output_aliasing_an_input_is_refused(kind):
    def build(lib, ns):
        op = lib.library.custom_op

        if kind == "view":
            @op(f"{ns}::f", mutates_args=())
            def f(x: lib.Tensor) -> lib.Tensor:
                return x.view(-1)
        elif kind == "two_same_outputs":
            @op(f"{ns}::f", mutates_args=())
            def f(x: lib.Tensor) -> tuple[lib.Tensor, lib.Tensor]:
                y = x * 2
                return y, y
        elif kind == "mutated_and_returned":
            @op(f"{ns}::f", mutates_args=("x",))
            def f(x: lib.Tensor) -> lib.Tensor:
                x.add_(1)
                return x
        elif kind == "cpu_kernel":
            @op(f"{ns}::f", mutates_args=(), device_types="cpu")
            def f(x: lib.Tensor) -> lib.Tensor:
                return x
        elif kind == "clone":
            @op(f"{ns}::f", mutates_args=())
            def f(x: lib.Tensor) -> lib.Tensor:
                return x.clone()
        else:
            @op(f"{ns}::f", mutates_args=())
            def f(x: lib.Tensor) -> lib.Tensor:
                return x
        x = lib.ones(2, requires_grad=kind == "requires_grad")
        if kind == "no_grad":
            with lib.no_grad():
                return f(x)
        return f(x)
    got, expected = _both(build)
    if kind == "requires_grad":
        assert expected[0] == "raises"
    assert got == expected
