"""Grad modes as context managers, functions and decorators (also on generators), and row 23:
the previous mode is restored whatever happens inside. Compared with PyTorch."""

import pytest

import tinytorch
from test_autograd_helpers import assert_same


def _state(lib):
    return lib.is_grad_enabled()


def _records(lib):
    """Whether an op on a tensor that requires grad records a node right now."""
    return (lib.ones(1, requires_grad=True) * 2).requires_grad


def test_context_managers_and_nesting(torch):
    def snippet(lib):
        seen = [_state(lib)]
        with lib.no_grad():
            seen.append((_state(lib), _records(lib)))
            with lib.enable_grad():
                seen.append((_state(lib), _records(lib)))
                with lib.set_grad_enabled(False):
                    seen.append(_state(lib))
                seen.append(_state(lib))
            seen.append(_state(lib))
        seen.append((_state(lib), _records(lib)))
        return seen

    assert_same(snippet, torch)


def test_set_grad_enabled_as_a_function_persists(torch):
    def snippet(lib):
        seen = []
        try:
            lib.set_grad_enabled(False)
            seen.append((_state(lib), _records(lib)))
            lib.set_grad_enabled(True)
            seen.append(_state(lib))
        finally:
            lib.set_grad_enabled(True)
        return seen

    assert_same(snippet, torch)


def test_decorators(torch):
    def snippet(lib):
        @lib.no_grad()
        def off(x):
            """Docstring kept."""
            return x * 2

        @lib.enable_grad()
        def on(x):
            return x * 2

        @lib.set_grad_enabled(False)
        def set_off(x):
            return x * 2

        @lib.inference_mode()
        def infer(x):
            return x * 2

        x = lib.ones(1, requires_grad=True)
        with lib.no_grad():
            inside_on = on(x).requires_grad
        return (
            off(x).requires_grad,
            inside_on,
            set_off(x).requires_grad,
            infer(x).requires_grad,
            _state(lib),
            off.__name__,
            off.__doc__,
        )

    assert_same(snippet, torch)


def test_decorators_without_parentheses(torch):
    def snippet(lib):
        @lib.no_grad
        def off(x):
            return x * 2

        @lib.enable_grad
        def on(x):
            return x * 2

        @lib.inference_mode
        def infer(x):
            return x * 2, lib.is_inference_mode_enabled()

        x = lib.ones(1, requires_grad=True)
        with lib.no_grad():
            inside_on = on(x).requires_grad
        y, inferring = infer(x)
        return (
            off(x).requires_grad,
            inside_on,
            y.requires_grad,
            inferring,
            _state(lib),
            off.__name__,
        )

    assert_same(snippet, torch)


def test_inference_mode(torch):
    def snippet(lib):
        x = lib.ones(2, requires_grad=True)
        with lib.inference_mode():
            y = x * 2
            inner = (_state(lib), lib.is_inference_mode_enabled())
        with lib.inference_mode(False):
            z = x * 2
            off = (_state(lib), lib.is_inference_mode_enabled())
        return (
            inner,
            off,
            y.requires_grad,
            y.grad_fn,
            z.requires_grad,
            lib.is_inference_mode_enabled(),
        )

    assert_same(snippet, torch)


@pytest.mark.parametrize("mode", ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode"])
def test_row23_exception_inside_a_block_restores_the_mode(mode, torch):
    def snippet(lib):
        def manager():
            return (
                lib.set_grad_enabled(False) if mode == "set_grad_enabled" else getattr(lib, mode)()
            )

        seen = []
        for outer in (True, False):
            with lib.set_grad_enabled(outer):
                try:
                    with manager():
                        raise ValueError("inside")
                except ValueError:
                    pass
                seen.append(_state(lib))
        seen.append(lib.is_inference_mode_enabled())
        return seen

    assert_same(snippet, torch)


@pytest.mark.parametrize("mode", ["no_grad", "enable_grad", "inference_mode"])
def test_row23_exception_inside_a_decorated_function(mode, torch):
    def snippet(lib):
        @getattr(lib, mode)()
        def failing():
            raise KeyError("x")

        seen = []
        for outer in (True, False):
            with lib.set_grad_enabled(outer):
                try:
                    failing()
                except KeyError:
                    pass
                seen.append(_state(lib))
        return seen

    assert_same(snippet, torch)


def test_decorated_generator_switches_mode_only_while_running(torch):
    def snippet(lib):
        @lib.no_grad()
        def gen():
            for i in range(3):
                yield i, _state(lib)

        seen = []
        for item in gen():
            seen.append((item, _state(lib)))
        return seen

    assert_same(snippet, torch)


def test_row23_exception_inside_a_decorated_generator(torch):
    def snippet(lib):
        @lib.no_grad()
        def gen():
            yield _state(lib)
            raise RuntimeError("generator failed")

        seen = []
        g = gen()
        seen.append(next(g))
        seen.append(_state(lib))
        try:
            next(g)
        except RuntimeError as e:
            seen.append(str(e))
        seen.append(_state(lib))
        return seen

    assert_same(snippet, torch)


def test_row23_generator_abandoned_or_thrown_into(torch):
    def snippet(lib):
        @lib.enable_grad()
        def gen():
            try:
                yield _state(lib)
                yield _state(lib)
            except ValueError:
                yield ("caught", _state(lib))
            finally:
                closing.append(_state(lib))

        closing = []
        seen = []
        with lib.no_grad():
            g = gen()
            seen.append(next(g))
            seen.append(_state(lib))
            seen.append(g.throw(ValueError("in")))
            seen.append(_state(lib))
            g.close()
            seen.append(_state(lib))
            g2 = gen()
            next(g2)
            del g2
        seen.append(_state(lib))
        return seen, closing

    assert_same(snippet, torch)


def test_generator_send_values_pass_through(torch):
    def snippet(lib):
        @lib.no_grad()
        def echo():
            received = yield "start"
            while True:
                received = yield (received, _state(lib))

        g = echo()
        out = [next(g), g.send(1), g.send(2), _state(lib)]
        g.close()
        return out

    assert_same(snippet, torch)


def test_backward_inside_no_grad_still_computes_gradients(torch):
    def snippet(lib):
        x = lib.ones(2, requires_grad=True)
        y = (x * x).sum()
        with lib.no_grad():
            y.backward()
            inside = _state(lib)
        return x.grad, inside, _state(lib)

    assert_same(snippet, torch)


def test_grad_mode_restored_after_a_failing_backward():
    x = tinytorch.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    for create_graph in (False, True):
        with pytest.raises(RuntimeError):
            y.backward(create_graph=create_graph)
        assert tinytorch.is_grad_enabled()
    with tinytorch.no_grad():
        with pytest.raises(RuntimeError):
            y.backward(create_graph=True)
        assert not tinytorch.is_grad_enabled()
