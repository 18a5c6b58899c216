"""Custom autograd.Function (row 10), once_differentiable and Variable, against PyTorch."""

import pytest

from test_autograd_helpers import assert_same, raises_same


def _scale_and_square(lib):
    class ScaleAndSquare(lib.autograd.Function):
        """x * k + y * y, with a non-tensor argument in the middle."""

        @staticmethod
        def forward(ctx, x, k, y=None):
            ctx.save_for_backward(x, y)
            ctx.k = k
            return x * k + (0 if y is None else y * y)

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * ctx.k, None, (None if y is None else 2 * g * y)

    return ScaleAndSquare


def _edges(node):
    return [(type(n).__name__ if n is not None else None, nr) for n, nr in node.next_functions]


def test_custom_function_forward_backward_and_graph(torch):
    def snippet(lib):
        fn = _scale_and_square(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0], requires_grad=True)
        out = fn.apply(x, 3, y)
        out.sum().backward()
        return out, x.grad, y.grad, out.grad_fn.name(), _edges(out.grad_fn)

    assert_same(snippet, torch)


def test_needs_input_grad_and_edges_for_mixed_arguments(torch):
    def snippet(lib):
        fn = _scale_and_square(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        out = fn.apply(x, 3, lib.tensor([3.0, 4.0]))
        out.sum().backward()
        return out.grad_fn.needs_input_grad, _edges(out.grad_fn), x.grad

    assert_same(snippet, torch)


def test_no_node_when_nothing_requires_grad(torch):
    def snippet(lib):
        fn = _scale_and_square(lib)
        out = fn.apply(lib.tensor([1.0, 2.0]), 3)
        with lib.no_grad():
            out2 = fn.apply(lib.tensor([1.0, 2.0], requires_grad=True), 3)
        return out, out.grad_fn, out2, out2.grad_fn

    assert_same(snippet, torch)


def test_forward_runs_without_recording_and_backward_with_grad_mode_off(torch):
    def snippet(lib):
        seen = []

        class Probe(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                seen.append(("forward", lib.is_grad_enabled(), y.requires_grad))
                return y

            @staticmethod
            def backward(ctx, g):
                seen.append(("backward", lib.is_grad_enabled()))
                return g

        Probe.apply(lib.tensor([1.0, 2.0], requires_grad=True)).sum().backward()
        return seen

    assert_same(snippet, torch)


def test_saved_tensors_freed_after_backward(torch):
    def snippet(lib):
        fn = _scale_and_square(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        out = fn.apply(x, 3)
        out.sum().backward()
        out.sum().backward()

    raises_same(snippet, torch)


def test_multiple_outputs(torch):
    def snippet(lib):
        class TwoWays(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * 2, x * x

            @staticmethod
            def backward(ctx, g1, g2):
                (x,) = ctx.saved_tensors
                return g1 * 2 + g2 * 2 * x

        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        a, b = TwoWays.apply(x)
        (a.sum() + b.sum()).backward()
        both = x.grad.clone()
        x.grad = None
        a, b = TwoWays.apply(x)
        b.sum().backward()  # a's gradient arrives as zeros (materialized)
        return both, x.grad, a.grad_fn is b.grad_fn, (a.output_nr, b.output_nr)

    assert_same(snippet, torch)


def test_set_materialize_grads_false_passes_none(torch):
    def snippet(lib):
        seen = []

        class TwoWays(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append((g1 is None, g2 is None))
                return g1 * 2

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a, _ = TwoWays.apply(x)
        a.sum().backward()
        return seen, x.grad

    assert_same(snippet, torch)


def test_mark_non_differentiable(torch):
    def snippet(lib):
        class SortLike(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, idx):
                vals = x[idx]
                ctx.mark_non_differentiable(idx)
                ctx.save_for_backward(idx)
                return vals, idx

            @staticmethod
            def backward(ctx, g, g_idx):
                (idx,) = ctx.saved_tensors
                out = lib.zeros(3)
                out[idx] = g
                return out, None

        x = lib.tensor([3.0, 1.0, 2.0], requires_grad=True)
        vals, idx = SortLike.apply(x, lib.tensor([1, 2, 0]))
        (vals * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        return vals, idx, idx.requires_grad, x.grad

    assert_same(snippet, torch)


def test_mark_non_differentiable_float_output(torch):
    def snippet(lib):
        class Frozen(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.mark_non_differentiable(y)
                return y

            @staticmethod
            def backward(ctx, g):
                return g

        y = Frozen.apply(lib.tensor([1.0], requires_grad=True))
        return y.requires_grad, y.grad_fn, y.is_leaf

    assert_same(snippet, torch)


def test_mark_dirty(torch):
    def snippet(lib):
        class DoubleInPlace(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        w = lib.tensor([3.0, 1.0], requires_grad=True)
        x = w * 1
        y = DoubleInPlace.apply(x)
        y.sum().backward()
        return y is x, y, w.grad, y.grad_fn.name()

    assert_same(snippet, torch)


def test_returning_an_input_gives_a_view_of_it(torch):
    def snippet(lib):
        class Identity(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = lib.tensor([3.0, 1.0], requires_grad=True)
        y = Identity.apply(x)
        y.sum().backward()
        return y is x, y._base is x, y.is_leaf, x.grad, y.grad_fn.name()

    assert_same(snippet, torch)


def test_keyword_and_non_tensor_arguments(torch):
    def snippet(lib):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, factor, name):
                ctx.factor, ctx.name = factor, name
                return x * factor

            @staticmethod
            def backward(ctx, g):
                return g * ctx.factor, None, None

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        Scale.apply(x, 5.0, "five").sum().backward()
        return x.grad

    assert_same(snippet, torch)


def test_custom_function_twice_differentiable(torch):
    def snippet(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x**2

        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(Cube.apply(x).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        return g.detach(), h

    assert_same(snippet, torch)


def _once(lib):
    class SquareOnce(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    return SquareOnce


def test_once_differentiable_first_derivative(torch):
    def snippet(lib):
        x = lib.tensor([2.0, 3.0], requires_grad=True)
        (g,) = lib.autograd.grad(_once(lib).apply(x).sum(), x, create_graph=True)
        return g

    assert_same(snippet, torch)


def test_once_differentiable_refuses_a_second_derivative(torch):
    def snippet(lib):
        x = lib.tensor([2.0], requires_grad=True)
        y = _once(lib).apply(x) * x
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        edges = _edges(g.grad_fn)
        g.sum().backward()
        return edges

    text = raises_same(snippet, torch)
    assert (
        text == "trying to differentiate twice a function that was marked with @once_differentiable"
    )


# -- row 10 and other invalid backward results -----------------------------------------------------
def _returning(lib, make_grad, n_inputs=1):
    class MyFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx, *xs):
            return xs[0] * 2

        @staticmethod
        def backward(ctx, g):
            return make_grad(lib, g)

    return MyFunction


def test_row10_invalid_gradient_shape(torch):
    def snippet(lib):
        fn = _returning(lib, lambda lib, g: lib.ones(10))
        fn.apply(lib.ones(5, 5, requires_grad=True)).sum().backward()

    assert raises_same(snippet, torch) == (
        "Function MyFunctionBackward returned an invalid gradient at index 0 "
        "- got [10] but expected shape compatible with [5, 5]"
    )


@pytest.mark.parametrize(
    "case", ["scalar", "row", "bigger_broadcast", "double", "int", "too_many", "too_few"]
)
def test_invalid_or_adjusted_gradients(case, torch):
    makers = {
        "scalar": lambda lib, g: g.sum(),
        "row": lambda lib, g: g[0],
        "bigger_broadcast": lambda lib, g: g.expand(3, 2, 2),
        "double": lambda lib, g: g.double(),
        "int": lambda lib, g: 3,
        "too_many": lambda lib, g: (g, g),
        "too_few": lambda lib, g: g,
    }

    def snippet(lib):
        x = lib.ones(2, 2, requires_grad=True)
        fn = _returning(lib, makers[case])
        args = (x, x) if case == "too_few" else (x,)
        fn.apply(*args).sum().backward()
        return x.grad

    assert_same(snippet, torch)


def test_missing_backward(torch):
    def snippet(lib):
        class NoBackward(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        NoBackward.apply(lib.ones(2, requires_grad=True)).sum().backward()

    raises_same(snippet, torch)


def test_instantiating_a_function_warns_and_calling_it_raises(torch):
    def snippet(lib):
        class Legacy(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

        Legacy()(lib.ones(2))

    raises_same(snippet, torch)


# -- Variable --------------------------------------------------------------------------------------
def test_variable_is_the_tensor(torch):
    def snippet(lib):
        var = lib.autograd.Variable
        x = var(lib.ones(2), requires_grad=True)
        (x * 3).sum().backward()
        return x, x.grad, isinstance(x, var), isinstance(lib.ones(2), var), type(x).__name__

    assert_same(snippet, torch)


_VARIABLE_CALLS = {
    # a new leaf over the same data: the source keeps its flags, the graph behind it is cut
    "source_untouched": lambda lib, v: (lambda t: (v(t, True), t, v(t, True).data_ptr() == t.data_ptr()))(lib.ones(2)),
    "shares_writes": lambda lib, v: (lambda t: (v(t).add_(1), t))(lib.ones(2)),
    "cuts_the_graph": lambda lib, v: v(lib.ones(2, requires_grad=True) * 2),
    "parameter": lambda lib, v: type(v(lib.nn.Parameter(lib.ones(2)))).__name__,
    "empty": lambda lib, v: v(),
    "none": lambda lib, v: v(None, requires_grad=True),
    "name": lambda lib, v: v(lib.ones(2), name="x").name,
    "volatile": lambda lib, v: v(lib.ones(2), volatile=True),
    "volatile_and_requires_grad": lambda lib, v: v(lib.ones(2), requires_grad=True, volatile=True),
    "integer_requires_grad": lambda lib, v: v(lib.ones(2, dtype=lib.long), requires_grad=True),
    "requires_grad_one": lambda lib, v: v(lib.ones(2), requires_grad=1),
    "requires_grad_float": lambda lib, v: v(lib.ones(2), requires_grad=1.0),
    "not_a_tensor": lambda lib, v: v([1.0, 2.0]),
    "unknown_keyword": lambda lib, v: v(lib.ones(2), foo=1),
    "six_arguments": lambda lib, v: v(lib.ones(2), True, False, None, None, 5),
    "grad_fn": lambda lib, v: v(lib.ones(2), _grad_fn=3),
    "name_not_str": lambda lib, v: v(lib.ones(2), name=3),
}


@pytest.mark.parametrize("case", sorted(_VARIABLE_CALLS))
def test_variable_makes_what_pytorch_makes(torch, case):
    assert_same(lambda lib: _VARIABLE_CALLS[case](lib, lib.autograd.Variable), torch)


def test_variable_prints_and_pickles_by_pytorchs_path(torch):
    import pickle

    from tinytorch.autograd import Variable
    assert pickle.loads(pickle.dumps(Variable)) is Variable
    assert repr(Variable).replace("tinytorch", "torch") == repr(torch.autograd.Variable)
    assert repr(type(Variable)).replace("tinytorch", "torch") == repr(type(torch.autograd.Variable))
