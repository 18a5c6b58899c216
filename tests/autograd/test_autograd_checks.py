"""gradcheck/gradgradcheck catching wrong backward formulas, and anomaly mode (row 19)."""

import warnings

import numpy as np
import pytest

import tinytorch
from tinytorch.autograd import GradcheckError, gradcheck, gradgradcheck
from test_autograd_helpers import assert_same


# -- gradcheck / gradgradcheck ---------------------------------------------------------------------
def _wrong_backward():
    class WrongSin(tinytorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos() * 1.01  # one percent off

    return WrongSin


def _wrong_double_backward():
    class CubeWithWrongSecond(tinytorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            # right value, wrong dependence on x: 3 * x0**2 with x0 frozen by detach
            return g * 3 * x.detach() ** 2

    return CubeWithWrongSecond


def _x64():
    return tinytorch.tensor([0.3, -1.2, 2.0], dtype=tinytorch.float64, requires_grad=True)


def test_gradcheck_accepts_a_correct_function():
    assert gradcheck(lambda x: (x.sin() * x).sum(), (_x64(),))
    assert gradcheck(lambda x, y: x * y + x.exp(), (_x64(), _x64()))


def test_gradcheck_detects_a_wrong_backward():
    with pytest.raises(GradcheckError, match="Jacobian mismatch"):
        gradcheck(_wrong_backward().apply, (_x64(),))
    assert gradcheck(_wrong_backward().apply, (_x64(),), raise_exception=False) is False


def test_gradgradcheck_accepts_a_correct_function():
    assert gradgradcheck(lambda x: x**3, (_x64(),))


def test_gradgradcheck_detects_a_wrong_double_backward():
    fn = _wrong_double_backward().apply
    assert gradcheck(fn, (_x64(),))  # the first derivative is right
    with pytest.raises(GradcheckError):
        gradgradcheck(fn, (_x64(),))


def test_gradcheck_warns_for_single_precision():
    x = tinytorch.tensor([0.3, 0.5], requires_grad=True)
    with pytest.warns(UserWarning, match="is not a double precision floating point"):
        gradcheck(lambda t: t * 2, (x,), atol=1e-2, rtol=1e-2)


def test_gradcheck_agrees_with_pytorch_on_the_same_verdicts(torch):
    torch_fn = type(
        "WrongSin",
        (torch.autograd.Function,),
        {
            "forward": staticmethod(lambda ctx, x: (ctx.save_for_backward(x), x.sin())[1]),
            "backward": staticmethod(lambda ctx, g: g * ctx.saved_tensors[0].cos() * 1.01),
        },
    )
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(torch_fn.apply, (x,), raise_exception=False) is False
    assert gradcheck(_wrong_backward().apply, (_x64(),), raise_exception=False) is False


# -- anomaly mode (row 19) -------------------------------------------------------------------------
def _nan_grad(lib):
    x = lib.tensor([0.0, 1.0], requires_grad=True)
    y = x * lib.tensor([float("nan"), 1.0])  # d/dx is nan at index 0
    return x, y.sum()


def test_row19_nan_gradient_raises_in_anomaly_mode(torch):
    def snippet(lib):
        with lib.autograd.detect_anomaly():
            _, loss = _nan_grad(lib)
            loss.backward()

    got_torch = _anomaly_outcome(snippet, torch)
    got_tiny = _anomaly_outcome(snippet, tinytorch)
    assert (
        got_tiny[0]
        == got_torch[0]
        == "Function 'MulBackward0' returned nan values in its 0th output."
    )
    assert got_tiny[1] == got_torch[1]


def _anomaly_outcome(snippet, lib):
    """(error text, warning prefixes) of running ``snippet`` in anomaly mode."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(RuntimeError) as err:
            snippet(lib)
    prefixes = sorted(str(w.message).split("\n")[0].split(" (Triggered")[0] for w in caught)
    return str(err.value), prefixes


def test_row19_warning_carries_the_forward_traceback():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with tinytorch.autograd.detect_anomaly():
            _, loss = _nan_grad(tinytorch)
            with pytest.raises(RuntimeError):
                loss.backward()
    traces = [str(w.message) for w in caught if "Traceback of forward call" in str(w.message)]
    assert len(traces) == 1
    assert traces[0].startswith(
        "Error detected in MulBackward0. Traceback of forward call that caused the error:"
    )
    assert "_nan_grad" in traces[0]  # the line that built the failing node


def test_row19_inf_gradient_passes(torch):
    def snippet(lib):
        with lib.autograd.detect_anomaly():
            x = lib.tensor([2.0, 1.0], requires_grad=True)
            (x * lib.tensor([float("inf"), 1.0])).sum().backward()
        return x.grad

    assert np.isinf(assert_same(snippet, torch)[0][1].values[0])


def test_nan_gradient_passes_without_anomaly_mode(torch):
    def snippet(lib):
        x, loss = _nan_grad(lib)
        loss.backward()
        return x.grad

    assert_same(snippet, torch)


def test_anomaly_mode_with_check_nan_false(torch):
    def snippet(lib):
        with lib.autograd.detect_anomaly(check_nan=False):
            x, loss = _nan_grad(lib)
            loss.backward()
        return x.grad

    assert_same(snippet, torch)


def test_anomaly_mode_state_restored(torch):
    def snippet(lib):
        # PyTorch has the query at top level only; tinytorch in autograd (see the next test)
        enabled = lib.is_anomaly_enabled if lib is torch else lib.autograd.is_anomaly_enabled
        states = [enabled()]
        try:
            with lib.autograd.detect_anomaly():
                states.append(enabled())
                raise KeyError("boom")
        except KeyError:
            pass
        states.append(enabled())
        lib.autograd.set_detect_anomaly(True)
        states.append(enabled())
        lib.autograd.set_detect_anomaly(False)
        states.append(enabled())
        with lib.autograd.set_detect_anomaly(True):
            states.append(enabled())
        states.append(enabled())
        return states

    assert_same(snippet, torch)


def test_anomaly_query_at_top_level():
    assert tinytorch.is_anomaly_enabled() is False


def test_any_backward_error_in_anomaly_mode_warns_where_the_node_was_made(torch):
    def modified(lib):
        with lib.autograd.detect_anomaly():
            x = lib.tensor([1.0, 2.0])
            w = lib.tensor([1.0, 2.0], requires_grad=True)
            y = x * w
            x.add_(1)
            y.sum().backward()

    assert _anomaly_outcome(modified, tinytorch)[1] == _anomaly_outcome(modified, torch)[1]

    def failing_custom_backward(lib):
        class Failing(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                raise RuntimeError("bad backward")

        with lib.autograd.detect_anomaly():
            Failing.apply(lib.ones(2, requires_grad=True)).sum().backward()

    tiny = _anomaly_outcome(failing_custom_backward, tinytorch)
    assert tiny == _anomaly_outcome(failing_custom_backward, torch)
    assert "Error detected in FailingBackward. Traceback of forward call that caused the error:" in tiny[1]


def test_anomaly_mode_only_during_backward_has_no_forward_trace(torch):
    def snippet(lib):
        _, loss = _nan_grad(lib)
        with lib.autograd.detect_anomaly():
            loss.backward()

    tiny = _anomaly_outcome(snippet, tinytorch)
    assert tiny == _anomaly_outcome(snippet, torch)
    assert any("No forward pass information available" in w for w in tiny[1])
