"""Sparse COO tensors against PyTorch: construction, reprs, coalescing, conversions, the products, sums and
pointwise ops PyTorch's sparse backend runs, with their values (bit for bit), gradients (their layout too:
PyTorch's sparse gradient is masked to the input's pattern, its torch.mm gradient dense), grad_fn names,
flags and errors (PyTorch's sparse backend refuses ops, and some backward formulas, that tinytorch then
refuses alike)."""
import copy
import pickle

import _paths
import numpy as np
import pytest
from _sparse_compare import raises_alike, run_both, same_or_raises_alike

import tinytorch as tt

I = [[0, 1, 0, 2], [2, 0, 2, 1]]  # (0, 2) twice: uncoalesced
# a sparse tensor made once: functions looked up before the first one exists (``lib.exp(coo(lib))`` reads
# lib.exp first) would otherwise miss the sparse dispatch that the first sparse tensor installs
tt.tensor([[1.0]]).to_sparse()
V = [3.0, 4.0, 1.0, -2.0]


def coo(lib, rg=False, dtype=None, idx=None, vals=None, size=(3, 3)):
    v = lib.tensor(V if vals is None else vals, dtype=dtype)
    if rg:
        v.requires_grad_(True)
    return lib.sparse_coo_tensor(lib.tensor(I if idx is None else idx), v, size)


def dense(lib, shape=(3, 2), seed=1):
    return lib.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


# -- construction, flags, reprs -----------------------------------------------------------------------------
CONSTRUCT = [
    lambda lib: coo(lib),
    lambda lib: coo(lib).coalesce(),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(I), lib.tensor(V)),  # size inferred
    lambda lib: lib.sparse_coo_tensor(lib.tensor([[0, 2]]), lib.tensor([[1.0, 2.0], [3.0, 4.0]]), (4, 2)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(I), lib.tensor([1, 2, 3, 4]), (3, 3)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(I), lib.tensor(V), (3, 3), dtype=lib.float64),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(I), lib.tensor(V, dtype=lib.float16), (3, 3)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(I), lib.tensor([True, False, True, True]), (3, 3)),
    lambda lib: lib.sparse_coo_tensor(lib.zeros(2, 0, dtype=lib.long), lib.zeros(0), (2, 3)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(I), lib.tensor(V), (3, 3), requires_grad=True),
    lambda lib: lib.sparse_coo_tensor(lib.tensor(I), lib.tensor(V), (3, 3), is_coalesced=False),
    lambda lib: lib.sparse_coo_tensor([[0, 1], [1, 0]], [5.0, 6.0], [2, 2]),
    lambda lib: coo(lib, rg=True),
    lambda lib: coo(lib, rg=True).coalesce(),
    lambda lib: lib.zeros_like(coo(lib)),
    lambda lib: dense(lib, (40, 40)).to_sparse(),  # summarised values
]


@pytest.mark.parametrize("i", range(len(CONSTRUCT)))
def test_construction_and_repr(torch, i):
    def program(lib):
        s = CONSTRUCT[i](lib)
        return [s, repr(s), str(s), s.is_sparse, str(s.layout), s.sparse_dim(), s.dense_dim(), s._nnz(),
                s.is_coalesced(), tuple(s.shape), s.dim(), s.numel(), str(s.dtype), s.is_leaf, s.is_sparse_csr]

    run_both(torch, program)


def test_repr_under_print_options_and_default_dtype(torch):
    def program(lib):
        lib.set_printoptions(precision=2, linewidth=40)
        try:
            return [repr(coo(lib, rg=True) * 1.2345), repr(coo(lib, dtype=lib.float64))]
        finally:
            lib.set_printoptions(profile="default")

    run_both(torch, program)


def test_sparse_invariants_warning_is_pytorchs(torch):
    import subprocess
    import sys
    code = ("import warnings, {lib} as torch\nwarnings.simplefilter('always')\nwith warnings.catch_warnings(record=True) "
            "as w:\n    torch.sparse_coo_tensor(torch.tensor([[0]]), torch.tensor([1.0]), (2,))\n"
            "    torch.sparse_coo_tensor(torch.tensor([[0]]), torch.tensor([1.0]), (2,))\n"
            "print(len(w), str(w[0].message).split('  (Triggered')[0].strip(), w[0].category.__name__)")
    outs = [subprocess.run([sys.executable, "-c", code.format(lib=lib)], capture_output=True, text=True).stdout
            for lib in ("tinytorch", "torch")]
    assert outs[0] == outs[1] and outs[0].startswith("1 Sparse invariant checks")


# -- conversions --------------------------------------------------------------------------------------------
CONVERT = [
    lambda lib: coo(lib).to_dense(),
    lambda lib: coo(lib, dtype=lib.float64).to_dense(),
    lambda lib: dense(lib).to_sparse(),
    lambda lib: (dense(lib) * (dense(lib) > 0)).to_sparse(),
    lambda lib: dense(lib, (2, 3, 4)).relu().to_sparse(2),
    lambda lib: dense(lib, (2, 3, 4)).relu().to_sparse(1),
    lambda lib: lib.tensor(5.0).to_sparse(),
    lambda lib: dense(lib).to_sparse_coo(),
    lambda lib: dense(lib).to_sparse(layout=lib.sparse_coo),
    lambda lib: coo(lib).to_sparse(),
    lambda lib: dense(lib).to_dense(),
    lambda lib: [coo(lib).coalesce().indices(), coo(lib).coalesce().values(), coo(lib)._indices(), coo(lib)._values()],
    lambda lib: lib.arange(9.0).view(3, 3).sparse_mask(coo(lib).coalesce()),
    lambda lib: lib.arange(9.0).view(3, 3).sparse_mask(coo(lib)),
    lambda lib: coo(lib).sparse_mask(coo(lib, vals=[1.0, 1.0, 1.0, 1.0]).coalesce()),
    lambda lib: [coo(lib).to(lib.float64), coo(lib).double(), coo(lib).int(), coo(lib).long(), coo(lib).bool(),
                 coo(lib).half(), coo(lib).float(), coo(lib).cpu(), coo(lib).to("cpu"), coo(lib).clone(),
                 coo(lib).detach()],
    lambda lib: [coo(lib).t(), coo(lib).transpose(0, 1), coo(lib).T, coo(lib).t().t(), coo(lib).coalesce().t()],
]


@pytest.mark.parametrize("i", range(len(CONVERT)))
def test_conversions(torch, i):
    run_both(torch, CONVERT[i])


def test_coalesce_sums_duplicates_and_returns_itself_when_coalesced(torch):
    def program(lib):
        g = np.random.default_rng(0)
        idx = g.integers(0, 5, (2, 200))
        vals = g.standard_normal(200).astype(np.float32)
        s = lib.sparse_coo_tensor(lib.tensor(idx), lib.tensor(vals), (5, 5))
        c = s.coalesce()
        return [c, c.coalesce() is c, s.coalesce() is s, c.to_dense(), s.to_dense()]

    # PyTorch sums duplicates in its (unstable) sort's order: the last bits of a sum may differ
    run_both(torch, program, rtol=1e-6, atol=1e-6)


def test_empty_and_huge_sizes_stay_sparse(torch):
    """A 10^6 x 10^6 matrix: products, sums, coalescing and reprs never make it dense."""
    def program(lib):
        n = 1_000_000
        s = lib.sparse_coo_tensor(lib.tensor([[0, n - 1, 5], [n - 1, 0, 5]]), lib.tensor([1.0, 2.0, 3.0]), (n, n))
        d = lib.ones(n, 2)
        return [repr(s), s.coalesce(), lib.sparse.mm(s, d).sum(0), lib.sparse.sum(s), lib.sparse.sum(s, 0),
                (s * 2).t().coalesce(), (s + s).coalesce()]

    run_both(torch, program)


# -- products ---------------------------------------------------------------------------------------------
MM = {
    "sparse.mm": lambda lib, s, d: lib.sparse.mm(s, d),
    "spmm": lambda lib, s, d: lib.spmm(s, d),
    "mm": lambda lib, s, d: lib.mm(s, d),
    "method mm": lambda lib, s, d: s.mm(d),
    "matmul": lambda lib, s, d: lib.matmul(s, d),
    "@": lambda lib, s, d: s @ d,
    "smm": lambda lib, s, d: lib.smm(s, d),
    "sparse.addmm": lambda lib, s, d: lib.sparse.addmm(lib.ones(3, 2), s, d, beta=0.5, alpha=2.0),
    "addmm": lambda lib, s, d: lib.addmm(lib.ones(3, 2), s, d),
    "dense @ sparse": lambda lib, s, d: d.t() @ s.t(),
    "mm(dense, sparse)": lambda lib, s, d: lib.mm(d.t(), s.t()),
}


@pytest.mark.parametrize("name", MM)
@pytest.mark.parametrize("grad", ["values", "leaf", "dense only", "none"])
def test_products_values_gradients_and_nodes(torch, name, grad):
    def program(lib):
        v = lib.tensor(V, requires_grad=grad == "values")
        if grad == "leaf":
            s = lib.sparse_coo_tensor(lib.tensor(I), lib.tensor(V), (3, 3), requires_grad=True)
        else:
            s = lib.sparse_coo_tensor(lib.tensor(I), v, (3, 3))
        d = dense(lib, (3, 2)).requires_grad_(grad != "none")
        out = MM[name](lib, s, d)
        res = [out]
        if out.requires_grad:
            cot = dense(lib, tuple(out.shape), seed=5)
            out.backward(cot)
            res += [d.grad, v.grad if grad == "values" else None, s.grad if grad == "leaf" else None]
        return res

    # a dense gradient of the sparse operand is a dense product (numpy's BLAS, PyTorch's MKL: last bits)
    same_or_raises_alike(torch, program, rtol=1e-6 if grad in ("values", "leaf") else 0.0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_products_are_pytorchs_floats_at_scale(torch, dtype):
    """Many duplicates per row, float32 and float64: the FMA accumulation in storage order is PyTorch's, bit for
    bit, forward and both gradients."""
    def program(lib):
        g = np.random.default_rng(3)
        idx = g.integers(0, 60, (2, 3000))
        v = lib.tensor(g.standard_normal(3000), dtype=getattr(lib, dtype), requires_grad=True)
        d = lib.tensor(g.standard_normal((60, 24)), dtype=getattr(lib, dtype), requires_grad=True)
        s = lib.sparse_coo_tensor(lib.tensor(idx), v, (60, 60))
        out = lib.sparse.mm(s, d)
        out.backward(lib.tensor(g.standard_normal((60, 24)), dtype=getattr(lib, dtype)))
        return [out, d.grad]

    if _paths.running(_paths.FMA_PATHS):
        run_both(torch, program)
        return
    # PyTorch's DEFAULT build rounds each product before adding it: within a few ulps of the sums' magnitude
    for ours, theirs, what in zip(program(tt), program(torch), ("out", "d.grad")):
        _paths.assert_bits(ours, theirs, ulps=4, scale="max", what=what)


def test_sparse_values_gradient_through_sparse_mm(torch):
    def program(lib):
        g = np.random.default_rng(4)
        idx = g.integers(0, 20, (2, 100))
        v = lib.tensor(g.standard_normal(100).astype(np.float32), requires_grad=True)
        d = lib.tensor(g.standard_normal((20, 8)).astype(np.float32))
        out = lib.sparse.mm(lib.sparse_coo_tensor(lib.tensor(idx), v, (20, 20)), d)
        out.pow(2).sum().backward()
        return [out, v.grad]

    run_both(torch, program, rtol=1e-5, atol=1e-6)  # PyTorch masks a dense grad @ d.t() (BLAS rounding)


def test_matrix_vector_and_sparse_sparse(torch):
    def program(lib):
        s = coo(lib)
        return [s @ lib.ones(3), lib.matmul(s, lib.arange(3.0)), lib.sparse.mm(s, coo(lib).t()), s.mm(s.coalesce())]

    run_both(torch, program)


# -- sums -------------------------------------------------------------------------------------------------
SUMS = [
    lambda lib, s: lib.sparse.sum(s),
    lambda lib, s: lib.sparse.sum(s, 0),
    lambda lib, s: lib.sparse.sum(s, 1),
    lambda lib, s: lib.sparse.sum(s, (0, 1)),
    lambda lib, s: lib.sparse.sum(s, -1),
    lambda lib, s: s.sum(),
    lambda lib, s: s.sum(0),
    lambda lib, s: lib.sum(s, 1),
    lambda lib, s: lib.sparse.sum(s, dtype=lib.float64),
]


@pytest.mark.parametrize("i", range(len(SUMS)))
def test_sums(torch, i):
    def program(lib):
        v = lib.tensor(V, requires_grad=True)
        s = lib.sparse_coo_tensor(lib.tensor(I), v, (3, 3))
        out = SUMS[i](lib, s)
        (out.to_dense() if out.layout != lib.strided else out).pow(2).sum().backward()
        return [out, v.grad]

    same_or_raises_alike(torch, program)


def test_sums_with_dense_dims_and_integers(torch):
    def program(lib):
        s = lib.sparse_coo_tensor(lib.tensor([[0, 2, 0]]), lib.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), (4, 2))
        t = lib.sparse_coo_tensor(lib.tensor(I), lib.tensor([1, 2, 3, 4]), (3, 3))
        return [lib.sparse.sum(s), lib.sparse.sum(s, 0), lib.sparse.sum(s, 1), lib.sparse.sum(t), lib.sparse.sum(t, 0)]

    run_both(torch, program)


# -- pointwise --------------------------------------------------------------------------------------------
UNARY = ["neg", "abs", "sqrt", "sin", "tan", "tanh", "asin", "atan", "sinh", "asinh", "atanh", "expm1", "log1p", "sign",
         "sgn", "floor", "ceil", "round", "trunc", "frac", "square", "erf", "erfinv", "relu", "deg2rad", "rad2deg",
         "nan_to_num", "isnan", "isinf", "signbit", "positive"]


@pytest.mark.parametrize("name", UNARY)
def test_pointwise_ops_and_their_gradients(torch, name):
    """The value, node and flags; then the gradient, or the error PyTorch's backward raises (its formulas for
    several of these call ops its sparse backend lacks)."""
    def make(lib):
        v = (lib.tensor(V) * 0.1).requires_grad_(True)
        s = lib.sparse_coo_tensor(lib.tensor(I), v, (3, 3))
        return v, getattr(lib, name)(s)

    def forward(lib):
        return make(lib)[1]

    run_both(torch, forward, rtol=1e-6)  # numpy's float32 sin/tan/expm1 against PyTorch's SLEEF: last bits

    def backward(lib):
        v, out = make(lib)
        if out.requires_grad:
            out.to_dense().pow(2).sum().backward()
        return v.grad

    try:
        torch_grad_ok = True
        backward(torch)
    except Exception:  # noqa: BLE001
        torch_grad_ok = False
    if torch_grad_ok:
        run_both(torch, backward, rtol=1e-6)
    else:
        raises_alike(torch, backward)


ARITH = {
    "s*2": lambda lib, a, b: a * 2, "2*s": lambda lib, a, b: 2 * a, "s*0-d": lambda lib, a, b: a * lib.tensor(3.0),
    "s/2": lambda lib, a, b: a / 2, "s.div(2)": lambda lib, a, b: a.div(2.0),
    "div floor": lambda lib, a, b: a.div(2, rounding_mode="floor"), "-s": lambda lib, a, b: -a,
    "s+s": lambda lib, a, b: a + b, "s+s same": lambda lib, a, b: a + a, "s-s": lambda lib, a, b: a - b,
    "add alpha": lambda lib, a, b: a.add(b, alpha=2), "coalesced+": lambda lib, a, b: a.coalesce() + b.coalesce(),
    "mixed+": lambda lib, a, b: a.coalesce() + b, "dense+s": lambda lib, a, b: lib.ones(3, 3) + a,
    "dense.add(s)": lambda lib, a, b: lib.ones(3, 3).add(a, alpha=3), "torch.add": lambda lib, a, b: lib.add(lib.ones(3, 3), a),
    "s*dense": lambda lib, a, b: a * lib.arange(9.0).view(3, 3), "dense*s": lambda lib, a, b: lib.arange(9.0).view(3, 3) * a,
    "s*s": lambda lib, a, b: a * b, "s*s swapped": lambda lib, a, b: b * a,
    "coalesced*s": lambda lib, a, b: a.coalesce() * b, "s*coalesced": lambda lib, a, b: a * b.coalesce(),
    "coalesced*coalesced": lambda lib, a, b: a.coalesce() * b.coalesce(), "s*itself": lambda lib, a, b: a * a,
    "s**2": lambda lib, a, b: a ** 2, "pow": lambda lib, a, b: a.pow(3),
    "s+empty": lambda lib, a, b: a + lib.zeros_like(b), "empty+s": lambda lib, a, b: lib.zeros_like(a) + b,
}


@pytest.mark.parametrize("name", ARITH)
def test_arithmetic(torch, name):
    def program(lib):
        a = coo(lib, rg=True)
        b = lib.sparse_coo_tensor(lib.tensor([[2, 0, 1], [1, 2, 1]]), lib.tensor([5.0, 6.0, 7.0]), (3, 3))
        out = ARITH[name](lib, a, b)
        res = [out]
        if out.requires_grad:
            (out.to_dense() if out.layout != lib.strided else out).pow(2).sum().backward()
            leaf = a.grad_fn.next_functions[0][0].variable
            res.append(leaf.grad)
        return res

    run_both(torch, program)


def test_inplace_ops(torch):
    def program(lib):
        a, b, c = coo(lib), coo(lib).coalesce(), coo(lib)
        a.mul_(2)
        b.add_(coo(lib).coalesce())
        c.zero_()
        d = coo(lib)
        d.div_(4)
        e = coo(lib)
        e.neg_()
        return [a, b, c, d, e]

    run_both(torch, program)


# -- autograd details ---------------------------------------------------------------------------------------
def test_graph_nodes_and_next_functions(torch):
    def program(lib):
        v = lib.tensor(V, requires_grad=True)
        s = lib.sparse_coo_tensor(lib.tensor(I), v, (3, 3))
        c = s.coalesce()
        outs = [s, c, c.values(), s.to_dense(), s.t(), s * 2, lib.sparse.sum(s), lib.sparse.sum(s, 0), s.sum(0),
                s.clone(), s.double(), dense(lib, (3, 3)).requires_grad_().to_sparse(),
                dense(lib, (3, 3)).requires_grad_().to_sparse(1), lib.sparse.mm(s, dense(lib)), lib.mm(s, dense(lib))]
        names = [[type(n).__name__ for n, _ in o.grad_fn.next_functions if n is not None] for o in outs]
        return [[type(o.grad_fn).__name__ for o in outs], names, [o.is_leaf for o in outs], c._values().requires_grad,
                s._indices().requires_grad, c.values().is_leaf]

    run_both(torch, program)


def test_leaf_sparse_grads_accumulate(torch):
    def program(lib):
        s = lib.sparse_coo_tensor(lib.tensor(I), lib.tensor(V), (3, 3), requires_grad=True)
        d = dense(lib)
        lib.sparse.mm(s, d).sum().backward()
        first = s.grad
        lib.sparse.mm(s, d * 2).sum().backward()
        lib.sparse.sum(s).backward()
        second = s.grad
        s.grad = None
        lib.mm(s, d).sum().backward()  # torch.mm: a dense gradient
        lib.mm(s, d).sum().backward()
        third = s.grad
        s.grad = None
        lib.sparse.mm(s, d).sum().backward()
        lib.mm(s, d).sum().backward()  # sparse .grad + a dense one: dense
        return [first, second, third, s.grad]

    run_both(torch, program)


def test_autograd_grad_and_hooks(torch):
    def program(lib):
        v = lib.tensor(V, requires_grad=True)
        s = lib.sparse_coo_tensor(lib.tensor(I), v, (3, 3))
        seen = []
        s.register_hook(lambda g: seen.append(g))
        c = s.coalesce()
        c.retain_grad()
        out = lib.sparse.mm(c, dense(lib)).sum()
        (gv,) = lib.autograd.grad(out, [v], retain_graph=True)
        out.backward()
        return [gv, seen, c.grad, v.grad]

    run_both(torch, program)


def test_second_backward_refused_as_pytorch(torch):
    def program(lib):
        s = coo(lib, rg=True)
        out = lib.sparse.mm(s, dense(lib)).sum()
        out.backward()
        out.backward()

    raises_alike(torch, program)


def test_pickle_deepcopy_and_data(torch):
    def program(lib):
        s = coo(lib).requires_grad_()
        return [pickle.loads(pickle.dumps(s)), copy.deepcopy(s), s.data, s.detach().requires_grad]

    run_both(torch, program)


# -- errors -----------------------------------------------------------------------------------------------
ERRORS = [
    lambda lib: coo(lib).values(),
    lambda lib: coo(lib).indices(),
    lambda lib: lib.ones(2).coalesce(),
    lambda lib: lib.ones(2).indices(),
    lambda lib: lib.ones(2).values(),
    lambda lib: lib.ones(2)._values(),
    lambda lib: lib.ones(2)._nnz(),
    lambda lib: coo(lib).crow_indices(),
    lambda lib: lib.exp(coo(lib)),
    lambda lib: coo(lib).cos(),
    lambda lib: coo(lib).view(-1),
    lambda lib: coo(lib).numpy(),
    lambda lib: coo(lib).tolist(),
    lambda lib: coo(lib).storage(),
    lambda lib: coo(lib).item(),
    lambda lib: coo(lib) + 1,
    lambda lib: coo(lib) + lib.ones(3, 3),
    lambda lib: 2 / coo(lib),
    lambda lib: coo(lib) / lib.ones(3, 3),
    lambda lib: coo(lib) ** 0,
    lambda lib: coo(lib).contiguous(),
    lambda lib: lib.ones_like(coo(lib)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor([0, 1]), lib.tensor([1.0, 2.0]), (2,)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor([[0, 1]]), lib.tensor([1.0, 2.0, 3.0]), (2,)),
    lambda lib: lib.sparse_coo_tensor(lib.tensor([[0, 1]]), lib.tensor([1.0, 2.0]), (2, 2)),
    lambda lib: lib.sparse.mm(coo(lib), lib.ones(2, 2)),
    lambda lib: coo(lib).add(coo(lib, size=(3, 4))),
    lambda lib: coo(lib).requires_grad_().mul_(2),
    lambda lib: coo(lib, dtype=lib.long).requires_grad_(),
    lambda lib: dense(lib, (2, 3, 4)).to_sparse(0),
    lambda lib: dense(lib, (2, 3)).to_sparse(3),
    lambda lib: coo(lib).to_dense(lib.float64),
    lambda lib: lib.mm(coo(lib), lib.ones(2, 2)),
    lambda lib: coo(lib, rg=True).sum(0).to_dense().sum().backward(),
    lambda lib: lib.full_like(coo(lib), 2.0),
    lambda lib: coo(lib).ne(coo(lib)),
    lambda lib: coo(lib).not_equal(coo(lib)),  # (the alias: aten::ne.Tensor in the refusal)
    lambda lib: lib.not_equal(coo(lib), coo(lib)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(torch, i):
    raises_alike(torch, ERRORS[i])


def test_isinstance_and_dense_operands(torch):
    """A sparse tensor is a Tensor; a dense op given one as its operand computes with its values."""
    def program(lib):
        s = coo(lib)
        return [isinstance(s, lib.Tensor), lib.ones(3, 3).add(s), lib.ones(3, 3).sub(s), lib.ones(3, 3) - s]

    run_both(torch, program)


def test_nn_module_on_sparse_input(torch):
    """nn.Linear's weight applied after a sparse aggregation, trained a few steps: the losses are PyTorch's."""
    def program(lib):
        g = np.random.default_rng(7)
        lib.manual_seed(0)
        lin = lib.nn.Linear(6, 3)
        adj = lib.sparse_coo_tensor(lib.tensor(g.integers(0, 10, (2, 40))), lib.tensor(g.random(40).astype(np.float32)),
                                    (10, 10)).coalesce()
        x = lib.tensor(g.standard_normal((10, 6)).astype(np.float32))
        opt = lib.optim.SGD(lin.parameters(), lr=0.1)
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = lin(lib.sparse.mm(adj, x)).pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    run_both(torch, program, rtol=1e-6)


# -- dtypes of mixed sparse/dense operations: PyTorch's promotion (not numpy's), and its products' refusals ----
_DTYPES = ["float32", "float64", "int64", "uint8", "bool", "float16"]


def _sp(lib, dt):
    return lib.sparse_coo_tensor(lib.tensor([[0, 1, 2, 3], [1, 2, 3, 4]]), lib.ones(4), (5, 5), dtype=getattr(lib, dt))


def _dn(lib, dt):
    return lib.eye(5, dtype=getattr(lib, dt))


MIXED = {
    "dense + sparse": lambda L, a, b: _dn(L, a) + _sp(L, b), "dense - sparse": lambda L, a, b: _dn(L, a) - _sp(L, b),
    "sparse + sparse": lambda L, a, b: _sp(L, a) + _sp(L, b), "sparse - sparse": lambda L, a, b: _sp(L, a) - _sp(L, b),
    "dense * sparse": lambda L, a, b: _dn(L, a) * _sp(L, b), "sparse * sparse": lambda L, a, b: _sp(L, a) * _sp(L, b),
    "add alpha": lambda L, a, b: L.add(_dn(L, a), _sp(L, b), alpha=2),
    "sparse.add_(sparse)": lambda L, a, b: _sp(L, a).add_(_sp(L, b)),
    "sparse.mul_(sparse)": lambda L, a, b: _sp(L, a).mul_(_sp(L, b)),
    "sparse.mul_(dense)": lambda L, a, b: _sp(L, a).mul_(_dn(L, b)),
    "mm sparse dense": lambda L, a, b: L.mm(_sp(L, a), _dn(L, b)), "mm dense sparse": lambda L, a, b: L.mm(_dn(L, a), _sp(L, b)),
    "matmul": lambda L, a, b: _sp(L, a) @ _dn(L, b), "sparse.mm": lambda L, a, b: L.sparse.mm(_sp(L, a), _dn(L, b)),
    "mm sparse sparse": lambda L, a, b: L.mm(_sp(L, a), _sp(L, b)),
    "addmm, dense mat2 differs": lambda L, a, b: L.addmm(_dn(L, a), _sp(L, a), _dn(L, b)),
    "addmm, input differs": lambda L, a, b: L.addmm(_dn(L, a), _sp(L, b), _dn(L, b)),
    "sparse.addmm": lambda L, a, b: L.sparse.addmm(_dn(L, b), _sp(L, a), _dn(L, b)),
    "smm": lambda L, a, b: L.smm(_sp(L, a), _dn(L, b)),
}


@pytest.mark.parametrize("b", _DTYPES)
@pytest.mark.parametrize("a", _DTYPES)
@pytest.mark.parametrize("name", list(MIXED))
def test_mixed_dtypes_as_pytorch(torch, name, a, b):
    same_or_raises_alike(torch, lambda L: MIXED[name](L, a, b).to_dense() if name.startswith(("sparse", "smm"))
                         and not name.startswith("sparse.mm") and "addmm" not in name else MIXED[name](L, a, b))


def test_gcn_layer_on_an_integer_adjacency(torch):
    # eye + an int64 sparse adjacency is float32 (PyTorch's promotion): the layer's mm then runs in float32
    def program(L):
        adj = L.eye(5) + L.sparse_coo_tensor(L.tensor([[0, 1, 2, 3], [1, 2, 3, 4]]), L.ones(4), (5, 5), dtype=L.int64)
        h = L.tensor(np.arange(10, dtype=np.float32).reshape(5, 2) / 4)  # a layer's output, exact in float32
        return L.mm(adj.to_sparse(), h), adj
    run_both(torch, program)
