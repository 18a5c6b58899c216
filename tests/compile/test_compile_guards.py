"""torch.compile is safe to turn on: what a compiled program reads from Python (globals, closure variables, module
attributes, the training flag) is guarded and a change recompiles; side effects (a list appended to, ``print``,
``out=``, in-place writes, a generator's draws) happen at every call; ``fullgraph=True`` refuses what breaks a
graph; a misspelled ``options=`` key is refused; a compiled call's graph is freed by backward as eager's is.
Each program runs the same in tinytorch and in PyTorch 2.13 (``aot_eager``: no C compiler needed; tinytorch's
default backend, whose replay is the planned one)."""
import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(autouse=True)
def _fresh():
    tt._dynamo.reset()
    torch._dynamo.reset()
    yield
    tt._dynamo.reset()
    torch._dynamo.reset()


def _backend(lib):
    return "aot_eager" if lib is torch else "inductor"


def _outcome(call):
    """What ``call()`` gives: its value, or the error's type name and text."""
    try:
        return call()
    except Exception as e:  # noqa: BLE001 - the error is the outcome compared
        return type(e).__name__, str(e)


# -- options= ----------------------------------------------------------------------------------------------------
def _options(lib, options):
    return _outcome(lambda: lib.compile(lambda x: x, options=options) and "accepted")


def test_a_misspelled_option_is_refused_as_pytorch():
    ours, theirs = _options(tt, {"trition.cudagraphs": True}), _options(torch, {"trition.cudagraphs": True})
    assert ours[0] == theirs[0] == "RuntimeError"
    head = "Unexpected optimization option trition.cudagraphs, known options are ["
    assert ours[1].startswith(head) and theirs[1].startswith(head)
    good = {"triton.cudagraphs": False, "max_autotune": False, "epilogue_fusion": True}
    assert _options(tt, good) == _options(torch, good) == "accepted"


# -- backward twice --------------------------------------------------------------------------------------------
def _backward_twice(lib, retain: bool):
    """Per call of a compiled Linear (the first, captured; the second, replayed): the second backward's outcome
    and the weight's gradient after it."""
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 2)
    compiled = lib.compile(model, backend=_backend(lib))
    x = lib.tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3))
    seen = []
    for _ in range(2):
        model.zero_grad()
        loss = compiled(x).square().sum()
        loss.backward(retain_graph=retain)
        second = _outcome(lambda: loss.backward() or "ran")
        seen.append((second, model.weight.grad.numpy().tolist()))
    return seen


@pytest.mark.parametrize("retain", [False, True])
def test_backward_twice_through_a_compiled_call_as_pytorch(retain):
    ours, theirs = _backward_twice(tt, retain), _backward_twice(torch, retain)
    assert [s for s, _ in ours] == [s for s, _ in theirs]
    if not retain:
        assert ours[0][0][1].startswith("Trying to backward through the graph a second time")
    np.testing.assert_allclose([g for _, g in ours], [g for _, g in theirs], rtol=1e-6)
