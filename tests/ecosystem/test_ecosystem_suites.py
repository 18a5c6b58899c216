"""Libraries' own test suites on tinytorch (``python -m tinytorch.run -m pytest`` in the ecosystem interpreter,
without PyTorch), held to PyTorch's results on the same suites:

- einops' suite (shipped inside its wheel, ``einops.tests``, torch backend): 61 tests, all pass on PyTorch;
- gpytorch's core modules (its sdist's ``test/``: constraints, distributions, functions, kernels, likelihoods,
  means, metrics, mlls, priors, utils: 777 tests, all pass on PyTorch 2.13 and on tinytorch), found where
  ``TINYTORCH_GPYTORCH_TESTS`` names the unpacked sdist (``.ci/run`` unpacks it). ``test/lazy`` is left out: its
  LinearOperators are not tensors but define ``__torch_function__``, which tinytorch's ops do not consult for
  objects other than Tensor subclasses; ``examples``, ``models`` and ``variational`` are left out for time.

A test of a suite fails whenever the set of failing tests differs from the known one below, either way: a
known failure that starts passing must leave the list. (torchdiffeq's suite lives only in its repository,
which CI cannot fetch, so it is not run here.)"""
from __future__ import annotations

import os
import subprocess
import tempfile
import xml.etree.ElementTree as ET

import pytest

from _libraries import needs
from _ecosystem import ROOT, ecosystem_python

# test id -> why it fails on tinytorch (each is fixed on another branch, or named in the report as left to do)
EINOPS_KNOWN: dict = {}
GPYTORCH_KNOWN: dict = {}
_GPYTORCH_DIRS = ("constraints", "distributions", "functions", "kernels", "likelihoods", "means", "metrics", "mlls",
                  "priors", "utils")


def _run_suite(args: list, cwd: str, env: dict) -> tuple[set, int]:
    """Run pytest on tinytorch in the ecosystem interpreter; the failing test ids and the number that passed."""
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "junit.xml")
        environ = dict(os.environ, PYTHONPATH=ROOT, **env)
        environ.pop("TINYTORCH_AS_TORCH", None)
        res = subprocess.run([ecosystem_python(), "-m", "tinytorch.run", "-m", "pytest", "-p", "no:cacheprovider",
                              "-q", "-p", "no:randomly", f"--junitxml={report}", *args], cwd=cwd, env=environ,
                             capture_output=True, text=True, timeout=1800)
        assert os.path.exists(report), res.stdout[-3000:] + res.stderr[-3000:]
        failed, passed = set(), 0
        for case in ET.parse(report).getroot().iter("testcase"):
            name = f"{case.get('classname', '').rpartition('.')[2]}::{case.get('name')}"
            if case.find("failure") is not None or case.find("error") is not None:
                failed.add(name.lstrip(":"))  # a collection error has no class: its module's name alone
            elif case.find("skipped") is None:
                passed += 1
    return failed, passed


def test_einops_suite_as_on_pytorch():
    needs("einops")
    failed, passed = _run_suite(["--pyargs", "einops.tests"], tempfile.gettempdir(), {"EINOPS_TEST_BACKENDS": "torch"})
    assert failed == set(EINOPS_KNOWN), failed ^ set(EINOPS_KNOWN)
    assert passed + len(failed) == 61


def test_gpytorch_core_suite_as_on_pytorch():
    needs("gpytorch")
    root = os.environ.get("TINYTORCH_GPYTORCH_TESTS")
    if not root or not os.path.isdir(os.path.join(root, "test")):
        pytest.skip("TINYTORCH_GPYTORCH_TESTS does not name gpytorch's unpacked sdist (with test/): "
                    "pip download --no-deps --no-binary :all: gpytorch==1.15.2")
    failed, passed = _run_suite(["--continue-on-collection-errors", *[f"test/{d}" for d in _GPYTORCH_DIRS]], root, {})
    assert failed == set(GPYTORCH_KNOWN), failed ^ set(GPYTORCH_KNOWN)
    # PyTorch 2.13 passes all 777 of these
    assert passed == 777 - len(GPYTORCH_KNOWN)
