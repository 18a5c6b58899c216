"""Running a library's own code on tinytorch and on PyTorch, for the tests of tests/ecosystem/.

The libraries are installed WITHOUT PyTorch in an interpreter of their own (README: "PyTorch's ecosystem";
``.ci/run`` builds it and names it ``TINYTORCH_ECOSYSTEM_PYTHON``), else the first of ``/tmp/venv-tv/bin/python``
or this interpreter that can import them without PyTorch. A script runs there under
``tinytorch.install_as_torch()`` and prints JSON as its last line; the same script runs on PyTorch in this
interpreter, with that interpreter's site-packages appended to ``sys.path`` (so the very same library files run
on both). Where no interpreter has a library the test skips, except when ``TINYTORCH_ECOSYSTEM_PYTHON`` names
one: CI's venv must have them all, and a missing one fails."""
from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_NAMED = "TINYTORCH_ECOSYSTEM_PYTHON"


def _usable(python: str, modules: tuple) -> bool:
    probe = (f"import importlib.util as u, sys; sys.exit(0 if all(u.find_spec(m) for m in {list(modules)!r}) "
             "and not u.find_spec('torch') else 1)")
    try:
        return subprocess.run([python, "-c", probe], timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@functools.lru_cache(None)
def ecosystem_python(modules: tuple = ("torchvision", "einops", "torchmetrics")) -> str | None:
    """The interpreter that has ``modules`` beside tinytorch and no PyTorch; None when there is none."""
    named = os.environ.get(_NAMED)
    if named:
        if not _usable(named, modules):
            pytest.fail(f"{_NAMED}={named} cannot import {', '.join(modules)} (or it has PyTorch): .ci/run installs "
                        "them there")
        return named
    for candidate in ("/tmp/venv-tv/bin/python", sys.executable):
        if os.path.exists(candidate) and _usable(candidate, modules):
            return candidate
    return None


def require(modules: tuple) -> str:
    python = ecosystem_python(tuple(modules))
    if python is None:
        pytest.skip(f"no interpreter with {', '.join(modules)} beside tinytorch (and without PyTorch): see README, "
                    f"PyTorch's ecosystem; or set {_NAMED}")
    return python


def _last_json(res) -> dict:
    assert res.returncode == 0, res.stderr[-6000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


def _env(**extra) -> dict:
    env = dict(os.environ, PYTHONPATH=ROOT, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HF_HUB_DISABLE_TELEMETRY="1", TOKENIZERS_PARALLELISM="false")
    env.update(extra)
    env.pop("TINYTORCH_AS_TORCH", None)
    return env


def run_on_tinytorch(code: str, modules: tuple = ("torchvision", "einops", "torchmetrics"), timeout: int = 600,
                     cwd: str = ROOT) -> dict:
    """``code`` in the ecosystem interpreter, ``torch`` being tinytorch: its last line of output, as JSON."""
    python = require(modules)
    prog = "import json, sys\nimport tinytorch\ntinytorch.install_as_torch()\nimport torch\n" + textwrap.dedent(code)
    res = subprocess.run([python, "-c", prog], capture_output=True, text=True, env=_env(), cwd=cwd, timeout=timeout)
    return _last_json(res)


def run_on_pytorch(code: str, modules: tuple = ("torchvision", "einops", "torchmetrics"), timeout: int = 600,
                   cwd: str = ROOT) -> dict:
    """``code`` on PyTorch, with the ecosystem interpreter's libraries (its site-packages appended to sys.path).
    torchvision's compiled extension (built for another PyTorch) does not load into this one: its operator
    schemas are defined first, without kernels (the libraries' models call none)."""
    pytest.importorskip("torch")
    python = require(modules)
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True).stdout.strip()
    prelude = textwrap.dedent(f"""
        import json, sys
        import torch
        sys.path.insert(0, {ROOT!r})
        from tinytorch._vision_ops import VISION_SCHEMAS
        _lib = torch.library.Library("torchvision", "DEF")
        for _schema, _ in VISION_SCHEMAS.values():
            _lib.define(_schema)
        sys.path.remove({ROOT!r})
        sys.path.append({site!r})
    """)
    res = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                         env=_env(PYTHONPATH=""), cwd=cwd, timeout=timeout)
    if res.returncode != 0 and "import torchvision" in res.stderr and "Error" in res.stderr.splitlines()[-1]:
        pytest.skip(f"torchvision does not import beside PyTorch here: {res.stderr[-300:]}")
    return _last_json(res)
