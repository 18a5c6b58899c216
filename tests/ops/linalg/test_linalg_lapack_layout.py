"""LAPACK-backed results are laid out as PyTorch's CPU kernels lay them out: each matrix column-major (LAPACK's
Fortran order), the batch dims C-ordered over the matrices, and so are the gradients PyTorch ends in a LAPACK
solve (Cholesky's, QR's, a solve's right-hand side). Strides are part of the spec: a user's ``.view`` or
``.is_contiguous()`` sees them. Each case compares tinytorch's strides, values and gradients with PyTorch's on the
CPU, then the same op on meta tensors with PyTorch's meta results."""
import warnings

import numpy as np
import pytest

import tinytorch as tt

torch = pytest.importorskip("torch")


def _spd(shape, dtype):
    a = torch.randn(*shape, dtype=dtype)
    return a @ a.mH + shape[-1] * torch.eye(shape[-1], dtype=dtype)


def _tri(shape, dtype):
    return torch.randn(*shape, dtype=dtype).triu() + 4 * torch.eye(shape[-1], dtype=dtype)


def _lu(shape, dtype):
    return torch.linalg.lu_factor(torch.randn(*shape, dtype=dtype))


# name: (inputs from a shape and a dtype (float64 or complex128), the op of a library, indices of inputs that get
# gradients)
CASES = {
    "linalg.cholesky": (lambda s, d: [_spd(s, d)], lambda L: L.linalg.cholesky, [0]),
    "linalg.cholesky_upper": (lambda s, d: [_spd(s, d)], lambda L: lambda a: L.linalg.cholesky(a, upper=True), [0]),
    "linalg.cholesky_ex": (lambda s, d: [_spd(s, d)], lambda L: lambda a: L.linalg.cholesky_ex(a)[0], [0]),
    "cholesky": (lambda s, d: [_spd(s, d)], lambda L: L.cholesky, [0]),
    "linalg.qr": (lambda s, d: [torch.randn(*s, dtype=d)], lambda L: L.linalg.qr, [0]),
    "qr": (lambda s, d: [torch.randn(*s, dtype=d)], lambda L: L.qr, [0]),
    "linalg.svd": (lambda s, d: [torch.randn(*s, dtype=d)],
                   lambda L: lambda a: L.linalg.svd(a, full_matrices=False), []),
    "linalg.eigh": (lambda s, d: [_spd(s, d)], lambda L: L.linalg.eigh, []),
    "linalg.eig": (lambda s, d: [torch.randn(*s, dtype=d)], lambda L: L.linalg.eig, []),
    "linalg.inv": (lambda s, d: [torch.randn(*s, dtype=d)], lambda L: L.linalg.inv, [0]),
    "linalg.solve": (lambda s, d: [torch.randn(*s, dtype=d), torch.randn(*s, dtype=d)[..., :2]],
                     lambda L: L.linalg.solve, [0, 1]),
    "linalg.solve_triangular": (lambda s, d: [_tri(s, d), torch.randn(*s, dtype=d)[..., :2]],
                                lambda L: lambda a, b: L.linalg.solve_triangular(a, b, upper=True), [0, 1]),
    "linalg.solve_triangular_right": (lambda s, d: [_tri(s, d), torch.randn(*s, dtype=d)[..., :2, :]],
                                      lambda L: lambda a, b: L.linalg.solve_triangular(a, b, upper=True, left=False),
                                      [0, 1]),
    "linalg.lu_factor": (lambda s, d: [torch.randn(*s, dtype=d)], lambda L: L.linalg.lu_factor, [0]),
    "linalg.lu": (lambda s, d: [torch.randn(*s, dtype=d)], lambda L: L.linalg.lu, [0]),
    "linalg.lu_solve": (lambda s, d: [*_lu(s, d), torch.randn(*s, dtype=d)[..., :2]],
                        lambda L: L.linalg.lu_solve, [0, 2]),
    "linalg.lu_solve_adjoint": (lambda s, d: [*_lu(s, d), torch.randn(*s, dtype=d)[..., :2]],
                                lambda L: lambda lu, p, b: L.linalg.lu_solve(lu, p, b, adjoint=True), [0, 2]),
    "linalg.lu_solve_right": (lambda s, d: [*_lu(s, d), torch.randn(*s, dtype=d)[..., :2, :]],
                              lambda L: lambda lu, p, b: L.linalg.lu_solve(lu, p, b, left=False), [0, 2]),
    "lu_solve": (lambda s, d: [torch.randn(*s, dtype=d)[..., :2], *_lu(s, d)],
                 lambda L: L.lu_solve, [0, 1]),
    "cholesky_solve": (lambda s, d: [torch.randn(*s, dtype=d)[..., :2], torch.linalg.cholesky(_spd(s, d))],
                       lambda L: L.cholesky_solve, [0, 1]),
    "cholesky_inverse": (lambda s, d: [torch.linalg.cholesky(_spd(s, d))], lambda L: L.cholesky_inverse, [0]),
    "geqrf": (lambda s, d: [torch.randn(*s, dtype=d)], lambda L: L.geqrf, []),
    "linalg.householder_product": (lambda s, d: list(torch.geqrf(torch.randn(*s, dtype=d))),
                                   lambda L: L.linalg.householder_product, [0, 1]),
    "ormqr": (lambda s, d: [*torch.geqrf(torch.randn(*s, dtype=d)), torch.randn(*s, dtype=d)[..., :2]],
              lambda L: L.ormqr, [0, 2]),
    "ormqr_right_transpose": (lambda s, d: [*torch.geqrf(torch.randn(*s, dtype=d)),
                                            torch.randn(*s[:-2], 2, s[-2], dtype=d)],
                              lambda L: lambda a, t, c: L.ormqr(a, t, c, left=False, transpose=True), [0, 2]),
    "linalg.lstsq": (lambda s, d: [torch.randn(*s, dtype=d), torch.randn(*s, dtype=d)[..., :2]],
                     lambda L: lambda a, b: L.linalg.lstsq(a, b).solution, [0, 1]),
    "linalg.ldl_factor": (lambda s, d: [_spd(s, d)], lambda L: L.linalg.ldl_factor, []),
    "triangular_solve": (lambda s, d: [torch.randn(*s, dtype=d)[..., :2], _tri(s, d)],
                         lambda L: L.triangular_solve, [0, 1]),
}
SQUARE_ONLY = {"linalg.cholesky", "linalg.cholesky_upper", "linalg.cholesky_ex", "cholesky", "linalg.eigh",
               "linalg.eig", "linalg.inv", "linalg.solve", "linalg.solve_triangular", "linalg.solve_triangular_right",
               "linalg.lu_solve", "linalg.lu_solve_adjoint", "linalg.lu_solve_right", "lu_solve", "cholesky_solve",
               "cholesky_inverse", "linalg.ldl_factor", "triangular_solve", "linalg.lstsq"}
SHAPES = [(4, 4), (2, 3, 3), (5, 3), (2, 3, 5)]
# gradients composed of other ops where PyTorch's node is one formula of its own: their values are PyTorch's, their
# layout not always yet (some shapes match), so only their values are compared
GRADIENT_LAYOUT_DIFFERS = {
    "cholesky_solve": "the Gram matrix's solve: PyTorch's cholesky_solve backward ends in a product (C order)",
    "cholesky_inverse": "the Gram matrix's inverse: PyTorch's backward ends in a product (C order)",
    "linalg.householder_product": "a loop over the reflectors, stacked column by column: PyTorch's is column-major",
    "ormqr": "through householder_product's gradient (column-major in PyTorch)",
    "ormqr_right_transpose": "through householder_product's gradient (column-major in PyTorch)",
    "triangular_solve": "complex: solve_triangular's backward of A^H, a conjugate view (C order, as PyTorch's "
                        "linalg.solve_triangular); PyTorch's triangular_solve backward has no conjugate view",
}


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [t for v in x for t in _flat(v)]
    return [x]


def _cases():
    for name in CASES:
        for shape in SHAPES:
            if name in SQUARE_ONLY and shape[-1] != shape[-2]:
                continue
            if name.startswith(("linalg.householder_product", "ormqr")) and shape[-1] > shape[-2]:
                continue
            for dtype in ("float64", "complex128"):
                if name == "linalg.ldl_factor" and dtype == "complex128":
                    continue  # PyTorch's complex LDL is Hermitian only with hermitian=True: another case
                yield pytest.param(name, shape, dtype, id=f"{name}-{'x'.join(map(str, shape))}-{dtype}")


def _run(lib, name, inputs, grads_of):
    op = CASES[name][1](lib)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecated spellings' warnings
        out = op(*inputs)
    outs = [t for t in _flat(out) if t.dtype.is_floating_point or t.dtype.is_complex]
    grads = []
    if grads_of:
        diff = [t for t in outs if t.requires_grad]
        cot = [lib.ones_like(t) for t in diff]
        grads = lib.autograd.grad(diff, [inputs[i] for i in grads_of], cot, allow_unused=True)
    return _flat(out), list(grads)


@pytest.mark.parametrize("name, shape, dtype", list(_cases()))
def test_lapack_results_and_gradients_have_pytorchs_layout(name, shape, dtype):
    torch.manual_seed(0)
    d = getattr(torch, dtype)
    base = CASES[name][0](shape, d)
    grads_of = CASES[name][2]
    t_in = [x.detach().clone().requires_grad_(i in grads_of) for i, x in enumerate(base)]
    u_in = [tt.tensor(x.detach().numpy()).requires_grad_(i in grads_of) for i, x in enumerate(base)]
    t_out, t_grads = _run(torch, name, t_in, grads_of)
    u_out, u_grads = _run(tt, name, u_in, grads_of)
    assert len(t_out) == len(u_out)
    for a, b in zip(t_out, u_out):
        assert tuple(b.shape) == tuple(a.shape) and b.stride() == a.stride(), (name, a.stride(), b.stride())
        if name not in ("linalg.svd", "linalg.eig", "linalg.eigh", "linalg.qr", "qr", "geqrf"):
            # (a factor's signs and phases are LAPACK's choice: their values are checked by their own tests)
            np.testing.assert_allclose(b.detach().resolve_conj().numpy(), a.detach().resolve_conj().numpy(),
                                       rtol=1e-9, atol=1e-9)
    for a, b in zip(t_grads, u_grads):
        assert (a is None) == (b is None)
        if a is not None:
            if name not in GRADIENT_LAYOUT_DIFFERS:
                assert b.stride() == a.stride(), (name, "gradient", a.stride(), b.stride())
            np.testing.assert_allclose(b.resolve_conj().numpy(), a.resolve_conj().numpy(), rtol=1e-8, atol=1e-8)



@pytest.mark.parametrize("name", [n for n in CASES if not n.startswith(("linalg.householder_product", "ormqr"))])
def test_lapack_layout_on_meta_is_pytorchs(name):
    """The same ops on meta tensors: PyTorch's meta results' and gradients' shapes and strides (its meta eig says
    C order where its CPU kernel gives column-major: each device as PyTorch's)."""
    torch.manual_seed(0)
    base = CASES[name][0]((2, 3, 3), torch.float32)
    grads_of = CASES[name][2]
    t_in = [torch.empty_like(x, device="meta").requires_grad_(i in grads_of) for i, x in enumerate(base)]
    u_in = [tt.empty(tuple(x.shape), dtype=getattr(tt, str(x.dtype).split(".")[-1]), device="meta")
            .requires_grad_(i in grads_of) for i, x in enumerate(base)]
    try:
        t_out, t_grads = _run(torch, name, t_in, grads_of)
    except NotImplementedError as e:  # no meta kernel (geqrf, lstsq): the same refusal
        with pytest.raises(NotImplementedError) as info:
            _run(tt, name, u_in, grads_of)
        assert str(info.value) == str(e)
        return
    u_out, u_grads = _run(tt, name, u_in, grads_of)
    seen = [(tuple(a.shape), a.stride()) for a in t_out + [g for g in t_grads if g is not None]]
    assert [(tuple(b.shape), b.stride()) for b in u_out + [g for g in u_grads if g is not None]] == seen
    assert all(b.device.type == "meta" for b in u_out)
