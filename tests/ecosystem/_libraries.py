"""Shared by the tests of PyTorch's libraries on tinytorch (test_ecosystem_<library>.py): a quickstart-style
script runs in the ecosystem interpreter (the library installed beside tinytorch, WITHOUT PyTorch:
docs/ecosystem.md, "More libraries"), then the same script on PyTorch with the same library (that interpreter's
site-packages appended to this one's path, so PyTorch stays this interpreter's), and the printed numbers are
compared. A library missing from the ecosystem interpreter skips its tests by hand, and fails them where
``TINYTORCH_ECOSYSTEM_PYTHON`` names the interpreter (``.ci/run`` installs every library there)."""
from __future__ import annotations

import functools
import os
import subprocess

import numpy as np
import pytest

from _ecosystem import ecosystem_python, run_on_pytorch, run_on_tinytorch

# both sides on one thread: PyTorch's reductions split across threads round differently
_PRELUDE = "torch.set_num_threads(1)\n"


@functools.lru_cache(None)
def _has(python: str, module: str) -> bool:
    probe = f"import importlib.util as u, sys; sys.exit(0 if u.find_spec({module!r}) else 1)"
    return subprocess.run([python, "-c", probe], timeout=60).returncode == 0


def needs(module: str) -> None:
    """Skip (by hand) or fail (in CI) unless the ecosystem interpreter has ``module``."""
    python = ecosystem_python()
    if python is None:
        pytest.skip("no ecosystem interpreter (torchvision, einops, torchmetrics beside tinytorch, without PyTorch): "
                    "see docs/ecosystem.md, More libraries; or set TINYTORCH_ECOSYSTEM_PYTHON")
    if not _has(python, module):
        message = f"{module} is not installed in the ecosystem interpreter {python}"
        if os.environ.get("TINYTORCH_ECOSYSTEM_PYTHON"):
            pytest.fail(message + " (.ci/run installs it there)")
        pytest.skip(message)


def on_tinytorch(code: str, module: str, timeout: int = 600) -> dict:
    needs(module)
    return run_on_tinytorch(_PRELUDE + code, timeout=timeout)


def on_pytorch(code: str) -> dict:
    pytest.importorskip("torch")
    return run_on_pytorch(_PRELUDE + code)


def assert_close(ours, theirs, rtol: float, atol: float, path: str = "") -> None:
    """Every number of ``ours`` within ``rtol``/``atol`` of ``theirs`` (nested dicts and lists), strings equal."""
    if isinstance(theirs, dict):
        assert ours.keys() == theirs.keys(), path
        for k in theirs:
            assert_close(ours[k], theirs[k], rtol, atol, f"{path}.{k}")
    elif isinstance(theirs, str):
        assert ours == theirs, path
    else:
        try:
            want = np.array(theirs, dtype=float)
        except ValueError:  # a list of unlike items (a number beside a list...): item by item
            assert len(ours) == len(theirs), path
            for i, (a, b) in enumerate(zip(ours, theirs)):
                assert_close(a, b, rtol, atol, f"{path}[{i}]")
            return
        np.testing.assert_allclose(np.array(ours, dtype=float), want, rtol=rtol, atol=atol, err_msg=path)
