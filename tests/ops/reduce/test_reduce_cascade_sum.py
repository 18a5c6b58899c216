"""sum and mean of floating tensors against PyTorch's CPU kernel (ATen's cascade sum), on each of its x86 paths.

With the compiled kernels (``[fast]``) tinytorch's sum is PyTorch's (``tinytorch/_cpu/reduce.py``,
``_kernels/compiled/cascade_sum.py``): bit for bit on PyTorch's DEFAULT, AVX2 and AVX-512 paths alike (its sum
kernel runs 32-byte vectors on all three), at any thread count that both libraries use (PyTorch cuts a long sum
across its threads, and the cut changes the floats). PyTorch runs in a child process per path
(``ATEN_CPU_CAPABILITY``) and thread count; a path this CPU cannot run is skipped, saying so. The inputs: full
sums of 1 to 10^6 elements (odd sizes, the sizes around a vector, a chunk of 16, a thread's grain), 2-d arrays
summed over either dim, 3-d ones over a middle dim or two adjacent dims, float32, float64, float16 and bfloat16,
values over six orders of magnitude (so that the order of the additions shows), and rows built so that the way a
float16/bfloat16 load is folded into float32 lanes decides the result.

The kernel runs only where it costs no more than numpy's sum (the path's guard, restated here as
``_on_the_kernel``): float32 sums of 32768 elements or more, rows of 4096 or more, columns of 256 rows or more
(float64, float16 and bfloat16 sums cost it 1.1-1.5x numpy's, so they stay numpy's; the kernel's half/bfloat16
load folding is kept, with its cases, for when it pays); smaller sums, other dtypes, and every sum without
the compiled kernels (the default install, numpy only), are numpy's pairwise sums: held within the stated bound
of PyTorch's (``NUMPY_ULPS`` ulps of the result's dtype at the sum of the magnitudes summed: numpy's pairwise
order along a row, its running sums down columns). The cases hold both kinds for each dtype, and the tests
check that the kernel's float32 cases cover full sums, rows and columns."""
from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tinytorch as tt
from tinytorch._dtype import BF16_NP
from tinytorch._ops._kernels import compiled

import _paths

pytestmark = pytest.mark.bitexact

BF16 = np.dtype(BF16_NP) if BF16_NP is not None else None  # (ml_dtypes' bfloat16; its cases left out without it)
_BF16_OR_HALF = BF16 if BF16 is not None else np.dtype(np.float16)
CAPABILITIES = {"default": "DEFAULT", "avx2": "AVX2", "avx512": "AVX512"}
# numpy's sums against PyTorch's cascade, at the sum of the magnitudes summed, measured over these cases
# (TINYTORCH_ULP_REPORT): float32 6.25 ulp (numpy sums columns one row after another), float64 4.25, float16
# 0.06 and bfloat16 0.03 (both sums round to the same half/bfloat16 nearly always)
NUMPY_ULPS = 8


def _values(rng, shape, dt):
    x = rng.standard_normal(shape) * 10.0 ** rng.uniform(-3, 3, shape)
    if np.dtype(dt).itemsize == 2:
        x = x * 1e-2  # (float16 sums stay finite)
    return x.astype(dt)


def _folded_rows(dt, n: int = 16) -> np.ndarray:
    """Rows whose first load (16 float16/bfloat16 elements; zeros after it, to ``n``) sums to x[1] + x[9] if the
    load is folded in halves (lane l = x[l] + x[l + 8]), and 0 if neighbours were paired: a big value, its
    negation half a load later, and small ones that vanish beside the big one in float32."""
    big, small = (2.0 ** 14, 2.0 ** -11) if dt == np.float16 else (2.0 ** 30, 2.0 ** -1)
    rows = np.zeros((4, n))
    for r in range(4):
        rows[r, r], rows[r, r + 8] = big, -big
        rows[r, (r + 1) % 8], rows[r, (r + 1) % 8 + 8] = small * (r + 1), small
    return rows.astype(dt)


@functools.cache
def _cases() -> list:
    """[(name, array, op, dims, keepdim)]: the same every run."""
    rng = np.random.default_rng(76)
    out = []
    sizes = [1, 2, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 257, 511, 1023, 4097,
             32767, 32768, 32769, 65537, 100003, 10 ** 6] + [int(n) for n in rng.integers(1, 10 ** 6, 4)]
    for n in sizes:
        for dt in (np.float32,) + ((np.float64, np.float16, _BF16_OR_HALF) if n % 2 else ()):
            out.append((f"{np.dtype(dt)}[{n}].sum()", _values(rng, (n,), dt), "sum", None, False))
        if n % 4 == 1:
            for dt in (np.float32, np.float16):
                out.append((f"{np.dtype(dt)}[{n}].mean()", _values(rng, (n,), dt), "mean", None, False))
    shapes = [(int(r), int(c)) for r, c in rng.integers(1, 3000, (6, 2))] + [(1000, 7), (7, 1000), (3, 37),
                                                                             (100, 96), (33, 2049), (2, 40000),
                                                                             (3, 16400), (260, 300)]
    for i, shape in enumerate(shapes):
        for dt in (np.float32, [np.float64, np.float16, _BF16_OR_HALF][i % 3]):
            x = _values(rng, shape, dt)
            for d in (0, 1):
                out.append((f"{np.dtype(dt)}{list(shape)}.sum({d})", x, "sum", d, i % 4 == 0))
                if dt != np.float64:
                    out.append((f"{np.dtype(dt)}{list(shape)}.mean({d})", x, "mean", d, False))
    for shape in [(5, 300, 70), (40, 33, 17), (2, 1000, 129), (9, 8, 7)]:
        for dt in (np.float32, np.float16):
            x = _values(rng, shape, dt)
            for dims in (1, (1, 2), (0, 1)):
                out.append((f"{np.dtype(dt)}{list(shape)}.sum({dims})", x, "sum", dims, False))
    for dt in (np.float16,) + ((BF16,) if BF16 is not None else ()):
        for n in (16, 8192):  # (one load alone; rows long enough for the kernel)
            out.append((f"{np.dtype(dt)} folded rows[{n}] .sum(1)", _folded_rows(dt, n), "sum", 1, False))
    return out


def _on_the_kernel(shape: tuple, dims, dtype) -> bool:
    """Whether the path's guard gives ``x.sum(dims)`` of this shape to the cascade kernel (its ``when=``, in this
    test's own words): the dims adjacent, 32768 elements or more, and along a row (the dims last) 4096 or more
    summed into each value, down columns (kept dims after them) 256 or more; float32 only (the kernel costs more
    than numpy's sum for the other dtypes, so they stay on numpy's path)."""
    if np.dtype(dtype) != np.float32:
        return False
    nd = len(shape)
    dims = tuple(range(nd)) if dims is None else tuple(sorted(d % nd for d in np.atleast_1d(dims)))
    summed = int(np.prod([shape[d] for d in dims]))
    along_rows = dims[-1] == nd - 1
    return (dims == tuple(range(dims[0], dims[-1] + 1)) and int(np.prod(shape)) >= 32768
            and summed >= (4096 if along_rows else 256))


def _kind(shape: tuple, dims) -> str:
    nd = len(shape)
    if dims is None or len(np.atleast_1d(dims)) == nd:
        return "full"
    return "rows" if max(d % nd for d in np.atleast_1d(dims)) == nd - 1 else "columns"


def _assert_numpy_bound(name, x, op, dims, keepdim, a, e):
    magnitude = np.abs(x.astype(np.float64)).sum(axis=dims, keepdims=keepdim)
    if op == "mean":
        magnitude = magnitude / (x.size // max(1, e.size))
    _paths.assert_bits(a, e, ulps=NUMPY_ULPS, exact_on=(), scale=np.asarray(magnitude), what=name)


def test_the_cases_cover_both_sides_of_the_guard():
    """Each dtype has full sums, rows and columns on the kernel, and sums below its sizes."""
    on, off = set(), set()
    for _, x, _, dims, _ in _cases():
        (on if _on_the_kernel(x.shape, dims, x.dtype) else off).add((x.dtype, _kind(x.shape, dims)))
    f32 = np.dtype(np.float32)
    assert {(f32, k) for k in ("full", "rows", "columns")} <= on
    assert (f32, "full") in off
    assert not {dt for dt, _ in on} - {f32}
    assert (np.dtype(np.float32), "rows") in off and (np.dtype(np.float32), "columns") in off


_CHILD = """
import json, sys
import numpy as np, torch
inp, outp, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
if threads:
    torch.set_num_threads(threads)
spec = json.load(open(inp + ".json"))
arrays = np.load(inp)
got = {"capability": torch.backends.cpu.get_cpu_capability()}
for i, (dtype, op, dims, keepdim) in enumerate(spec):
    a = arrays[f"a{i}"]
    t = torch.from_numpy(a).view(torch.bfloat16) if dtype == "bfloat16" else torch.from_numpy(a)
    dims = tuple(dims) if isinstance(dims, list) else dims
    r = getattr(t, op)() if dims is None else getattr(t, op)(dims, keepdim=keepdim)
    got[f"r{i}"] = r.view(torch.int16).numpy() if r.dtype == torch.bfloat16 else r.numpy()
np.savez(outp, **{k: v for k, v in got.items() if k != "capability"}, capability=np.array(got["capability"]))
"""


def _store_raw(a: np.ndarray) -> np.ndarray:
    return a.view(np.int16) if a.dtype == BF16 else a


def _pytorch(tmp_path, capability: str | None, threads: int) -> tuple:
    """(PyTorch's capability name, [its results]) from a child process on ``capability`` (None: its own)."""
    pytest.importorskip("torch")
    inp, outp = str(tmp_path / "in.npz"), str(tmp_path / "out.npz")
    np.savez(inp, **{f"a{i}": _store_raw(c[1]) for i, c in enumerate(_cases())})
    spec = [(str(c[1].dtype), c[2], list(c[3]) if isinstance(c[3], tuple) else c[3], c[4]) for c in _cases()]
    with open(inp + ".json", "w") as f:
        json.dump(spec, f)
    env = dict(os.environ)
    env.pop("ATEN_CPU_CAPABILITY", None)
    if capability:
        env["ATEN_CPU_CAPABILITY"] = capability
    subprocess.run([sys.executable, "-c", _CHILD, inp, outp, str(threads)], check=True, env=env)
    got = np.load(outp)
    results = []
    for i, c in enumerate(_cases()):
        r = got[f"r{i}"]
        results.append(r.view(BF16) if BF16 is not None and c[1].dtype == BF16 else r)
    return str(got["capability"]), results


def _tinytorch(threads: int) -> list:
    before = tt.get_num_threads()
    if threads:
        tt.set_num_threads(threads)
    try:
        out = []
        for _, x, op, dims, keepdim in _cases():
            t = tt.tensor(x)
            r = getattr(t, op)() if dims is None else getattr(t, op)(dims, keepdim=keepdim)
            out.append(r.numpy())
        return out
    finally:
        tt.set_num_threads(before)


def _fast() -> bool:
    return _paths.compiled("cascade_sum") and not _paths.reference_mode() and _on_x86()


def _on_x86() -> bool:
    import platform

    return platform.machine().lower() in ("x86_64", "amd64")


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("capability", list(CAPABILITIES))
def test_sum_is_pytorchs_on_each_path(tmp_path, capability, threads):
    if not _fast():
        pytest.skip("tinytorch's sum is PyTorch's only with the compiled kernels ([fast]) on x86-64 (its numpy "
                    "path: test_numpy_path_keeps_its_bound)")
    cap, theirs = _pytorch(tmp_path, capability, threads)
    want = CAPABILITIES[capability]
    if _paths.torch_path() != want and not cap.startswith(want):
        pytest.skip(f"this CPU has no {want} path: PyTorch runs {cap} here")
    ours = _tinytorch(threads)
    for (name, x, op, dims, keepdim), a, e in zip(_cases(), ours, theirs):
        if _on_the_kernel(x.shape, dims, x.dtype):
            _paths.assert_bits(a, e, ulps=0, exact_on=tuple(CAPABILITIES.values()), path=want,
                               what=f"{name} on {threads} thread(s)")
        else:  # below the guard's sizes: numpy's sum
            _assert_numpy_bound(f"{name} on {threads} thread(s)", x, op, dims, keepdim, a, e)


def test_sum_is_pytorchs_at_the_default_thread_count(tmp_path):
    """Both libraries at their own default thread count (the physical cores), on PyTorch's own path here."""
    if not _fast():
        pytest.skip("tinytorch's sum is PyTorch's only with the compiled kernels ([fast]) on x86-64")
    cap, theirs = _pytorch(tmp_path, None, 0)
    ours = _tinytorch(0)
    for (name, x, op, dims, keepdim), a, e in zip(_cases(), ours, theirs):
        if _on_the_kernel(x.shape, dims, x.dtype):
            _paths.assert_bits(a, e, ulps=0, exact_on=tuple(CAPABILITIES.values()), what=f"{name} at the default")
        else:
            _assert_numpy_bound(f"{name} at the default", x, op, dims, keepdim, a, e)


def test_numpy_path_keeps_its_bound(torch):
    """Without the compiled kernels: numpy's pairwise sums, within ``NUMPY_ULPS`` of PyTorch's at the sum of the
    magnitudes summed (the bound a different order of the same additions can reach)."""
    with compiled.disabled():
        ours = _tinytorch(0)
    for (name, x, op, dims, keepdim), a in zip(_cases(), ours):
        t = torch.from_numpy(_store_raw(x).copy())
        t = t.view(torch.bfloat16) if x.dtype == BF16 else t
        r = getattr(t, op)() if dims is None else getattr(t, op)(dims, keepdim=keepdim)
        e = r.view(torch.int16).numpy().view(BF16) if r.dtype == torch.bfloat16 else r.numpy()
        _assert_numpy_bound(name, x, op, dims, keepdim, a, e)


def test_the_kernels_ran_on_the_fast_path(monkeypatch):
    """With ``[fast]`` a float32 sum, a float32 mean and a sum of columns of the guard's sizes run the compiled
    cascade; the same ops a size smaller do not."""
    if not _fast():
        pytest.skip("no compiled kernels here")
    fast = compiled.family("cascade_sum")
    seen = []
    for name in ("rows_into", "columns_into"):
        real = getattr(fast, name)
        monkeypatch.setattr(fast, name, lambda *a, _r=real, _n=name: (seen.append(_n), _r(*a))[1])
    for run, kernel in [(lambda: tt.ones(32768).sum(), "rows_into"),
                        (lambda: tt.ones(8, 4096).mean(1), "rows_into"),
                        (lambda: tt.ones(256, 128).sum(0), "columns_into")]:
        seen.clear()
        run()
        assert seen and set(seen) == {kernel}
    seen.clear()
    tt.ones(32767).sum()
    tt.ones(32, 4095).mean(1)
    tt.ones(8, 4096, dtype=tt.float16).mean(1)
    tt.ones(32768, dtype=tt.float64).sum()
    tt.ones(255, 1000).sum(0)
    tt.ones(1000, 30).sum(1)
    assert seen == []
