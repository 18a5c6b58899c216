"""Every CPU path registered onto an op (``tinytorch/_cpu``, ``_ops/_core/paths.py``) held to what it replaces.

Each registered path has programs (``tests/house/path_programs/<family>.py``, one ``PROGRAMS`` table each) that
reach it; each program runs twice on the same
generated inputs, once as tinytorch runs (every path bound) and once with that one path off, and the two runs
must agree on every output and every gradient: the same floats where the path says so (``ulps=0``), within
its stated ulps (counted at each result's largest magnitude with ``scale="max"``: a sum made in another
order; at the largest magnitude of the program's inputs and results with ``scale="program"``: statistics
rounded otherwise, which a mean near zero or a cancelling gradient carries at the inputs' scale), or within
float rounding (``ulps=None``: a path that gives PyTorch's bits on its vectorised CPU kernels, where the
reference rounds as PyTorch's DEFAULT path). A path registered without programs fails
``test_every_path_has_programs``, so none goes untested. Under ``TINYTORCH_REFERENCE=1`` nothing is
registered and the test checks that."""
from __future__ import annotations

import zlib

import numpy as np
import pytest

import tinytorch as tt
from tinytorch._ops._core import paths

FLOATS = (np.float32, np.float64)
SHAPES = ((), (5,), (3, 4), (2, 3, 4))


def _programs() -> dict:
    """Every ``PROGRAMS`` table of ``tests/house/path_programs/``: one module per family of paths."""
    import importlib
    import pkgutil

    import path_programs

    table: dict = {}
    for info in pkgutil.iter_modules(path_programs.__path__):
        module = importlib.import_module(f"path_programs.{info.name}")
        for target, makers in module.PROGRAMS.items():
            table.setdefault(target, []).extend(makers)
    return table


PROGRAMS = _programs()


def _leaves(arrays):
    return [tt.tensor(a, requires_grad=True) for a in arrays]


def _run(fn, arrays):
    """Outputs and input gradients of ``fn`` on fresh leaves made from ``arrays`` (a fixed cotangent)."""
    xs = _leaves(arrays)
    out = fn(*xs)
    outs = out if isinstance(out, tuple) else (out,)
    diff = [o for o in outs if o.requires_grad]
    if diff:
        cot = [tt.tensor(np.linspace(-1, 1, o.numel()).reshape(o.shape).astype(o.numpy(force=True).dtype))
               for o in diff]
        grads = tt.autograd.grad(diff, xs, cot, allow_unused=True)
    else:
        grads = ()
    return [o.detach().numpy() for o in outs] + [None if g is None else g.numpy() for g in grads]


def _largest(arrays) -> float:
    return max((float(np.abs(a[np.isfinite(a)]).max(initial=0.0)) for a in arrays if a is not None), default=0.0)


def _same(got, want, ulps, scale="", arrays=()) -> None:
    """``got`` against ``want`` within ``ulps`` counted as ``scale`` says (``arrays``: the program's inputs,
    for ``scale="program"``)."""
    assert len(got) == len(want)
    program = _largest(list(arrays) + list(want)) if scale == "program" else 0.0
    for g, w in zip(got, want):
        if g is None or w is None:
            assert g is None and w is None
            continue
        assert g.dtype == w.dtype and g.shape == w.shape
        if scale in ("max", "program"):  # ulps of the result's (or the program's) largest magnitude
            finite = np.isfinite(w)
            np.testing.assert_array_equal(np.isfinite(g), finite)
            top = max(np.abs(w[finite]).max(initial=0.0), np.asarray(program, w.dtype))
            # at most ``ulps``: the strict comparison gets its slack in float64 (1 + 1e-9 is 1 in float32)
            bound = ulps * float(np.spacing(top)) * (1 + 1e-9) + 1e-300
            np.testing.assert_array_less(np.abs(g[finite].astype(np.float64) - w[finite].astype(np.float64)), bound)
        elif ulps == 0:
            np.testing.assert_array_equal(g.reshape(-1).view(np.uint8), w.reshape(-1).view(np.uint8))
        elif ulps is None:
            np.testing.assert_allclose(g, w, rtol=4 * np.finfo(g.dtype).eps, atol=4 * np.finfo(g.dtype).eps)
        else:
            np.testing.assert_array_max_ulp(g, w, maxulp=ulps)


def _registered():
    return [(target, i) for target, ps in sorted(paths.PATHS.items()) for i in range(len(ps))]


def test_every_path_has_programs():
    if paths.REFERENCE:
        assert not paths.PATHS, "TINYTORCH_REFERENCE=1 must register no path"
        return
    assert paths.PATHS, "tinytorch/_cpu registered no path"
    missing = sorted(set(paths.PATHS) - set(PROGRAMS))
    assert not missing, f"paths registered without programs in tests/house/test_house_second_layer.py: {missing}"


@pytest.mark.parametrize("target,index", _registered(), ids=lambda v: str(v))
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_path_matches_what_it_replaces(target, index, dtype, shape):
    path = paths.PATHS[target][index]
    # a seed of its own per case, the same in every run (Python's hash of a str changes from process to process)
    rng = np.random.default_rng(zlib.crc32(repr((target, np.dtype(dtype).name, shape)).encode()))
    ran = 0
    for make in PROGRAMS[target]:
        for name, fn, arrays in make(rng, dtype, shape):
            got = _run(fn, arrays)
            with paths.off(path):
                want = _run(fn, arrays)
            try:
                _same(got, want, path.ulps, path.scale, arrays)
            except AssertionError as e:
                raise AssertionError(f"{path.kind} path {target} ({path.where}), program {name!r}: {e}") from None
            ran += 1
    assert ran


def test_off_puts_the_reference_back():
    """``paths.off`` really unbinds a path (else the comparison above would compare a path with itself)."""
    if paths.REFERENCE:
        pytest.skip("no path registered under TINYTORCH_REFERENCE=1")
    path = paths.PATHS["mul"][0]
    assert tt.Tensor.__mul__ is path.fn
    with paths.off(path):
        assert tt.Tensor.__mul__ is paths.reference("mul")
        assert tt.mul.__closure__ is not None
    assert tt.Tensor.__mul__ is path.fn
