"""One comparison for the sparse tests: a program run by tinytorch and by PyTorch returns tensors (dense, COO,
CSR), grad_fn names, flags and reprs; both must agree: the same layout, indices, values (bit for bit
unless told), size, coalesced flag, ``grad_fn`` class and ``requires_grad``, and reprs equal once
"tinytorch" reads "torch"."""
import re
import warnings

import numpy as np

import tinytorch as tt


def describe(x, lib):
    """A plain-Python picture of ``x`` (a tensor of any layout, a list/tuple of them, or a plain value)."""
    if isinstance(x, lib.Tensor):
        d = {"layout": str(x.layout).split(".")[-1], "shape": tuple(x.shape), "dtype": str(x.dtype).split(".")[-1],
             "requires_grad": x.requires_grad, "grad_fn": type(x.grad_fn).__name__ if x.grad_fn is not None else None}
        if x.layout == lib.sparse_coo:
            d.update(indices=x._indices().numpy().copy(), values=x._values().detach().numpy().copy(),
                     coalesced=x.is_coalesced())
        elif x.layout == lib.sparse_csr:
            d.update(crow=x.crow_indices().numpy().copy(), col=x.col_indices().numpy().copy(),
                     values=x.values().detach().numpy().copy())
        else:
            d["values"] = x.detach().numpy().copy()
        return d
    if isinstance(x, (list, tuple)):
        return [describe(v, lib) for v in x]
    if isinstance(x, dict):
        return {k: describe(v, lib) for k, v in x.items()}
    if isinstance(x, str):
        return normalise(x)
    return x


def normalise(text: str) -> str:
    return re.sub(r"0x[0-9a-f]+", "ADDR", text.replace("tinytorch", "torch"))


def assert_same(a, b, path="", rtol=0.0, atol=0.0):
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), (path, a, b)
        for k in a:
            assert_same(a[k], b[k], f"{path}.{k}", rtol, atol)
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), (path, a, b)
        for i, (u, v) in enumerate(zip(a, b)):
            assert_same(u, v, f"{path}[{i}]", rtol, atol)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape, (path, a.dtype, b.dtype, a.shape, b.shape)
        if rtol or atol:
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=path)
        else:
            np.testing.assert_array_equal(a, b, err_msg=path)
    elif isinstance(a, float) and (rtol or atol):
        assert abs(a - b) <= atol + rtol * abs(b), (path, a, b)
    else:
        assert a == b, (path, a, b)


def run_both(torch, program, rtol=0.0, atol=0.0, seed=0):
    """``program(lib)`` under each library (each seeded alike, warnings silenced); the results must agree."""
    out = []
    for lib in (tt, torch):
        lib.manual_seed(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out.append(describe(program(lib), lib))
    assert_same(out[0], out[1], rtol=rtol, atol=atol)
    return out[0]


def raises_alike(torch, program):
    """``program(lib)`` raises in both libraries: the same type, and PyTorch's message (its first sentence for
    the "Could not run 'aten::X'" refusals, whose list of backends is PyTorch's build's)."""
    errors = []
    for lib in (tt, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                program(lib)
            except Exception as e:  # noqa: BLE001 - compared below
                errors.append(e)
            else:
                errors.append(None)
    ours, theirs = errors
    assert theirs is not None, "PyTorch does not raise"
    assert ours is not None, f"tinytorch does not raise; PyTorch raises {type(theirs).__name__}: {theirs}"
    assert type(ours) is type(theirs), (type(ours), type(theirs), str(ours), str(theirs))
    a, b = normalise(str(ours)), normalise(str(theirs))
    if b.startswith("Could not run"):
        b = b[:b.index("possible resolutions.") + len("possible resolutions.")]
        a = a[:len(b)]
    assert a == b, (a, b)


def same_or_raises_alike(torch, program, rtol=0.0, atol=0.0):
    """``run_both`` where PyTorch runs ``program``; ``raises_alike`` where it refuses it."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.manual_seed(0)
            program(torch)
    except Exception:  # noqa: BLE001 - PyTorch refuses: tinytorch must refuse alike
        raises_alike(torch, program)
        return None
    return run_both(torch, program, rtol=rtol, atol=atol)
