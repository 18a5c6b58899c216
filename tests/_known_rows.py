"""The rule every list of known differences follows (``opinfo_known.py``, ``moduleinfo_known.py``,
``test_opinfo_nonfinite.NONFINITE_KNOWN``), on every machine a user runs the suite on.

- A sample that differs from PyTorch and is not listed fails the test: the lists never hide a new difference.
- A listed sample that matches PyTorch here does not fail a user's run. PyTorch's results depend on its CPU path
  and on the CPU itself (MKL and oneDNN pick their kernels by vendor and model, which no path label names), so a
  row that differs on the machine the lists were walked on may match on another. The test reports it instead,
  as a ``KnownDifferenceAbsent`` warning in pytest's summary, naming the rows and this machine's path.
- The pressure to shrink the lists stays with the maintainers: ``TINYTORCH_KNOWN_STRICT=1`` turns those
  reports into failures (run it on a machine whose paths the lists name), and ``tests/_opinfo_update.py`` /
  ``_moduleinfo_update.py`` rewrite the lists from a fresh walk, moving a row that matches on this machine's
  paths to ``PATH_DEPENDENT`` with the paths it still differs on."""
from __future__ import annotations

import os
import warnings

import pytest

STRICT = os.environ.get("TINYTORCH_KNOWN_STRICT") == "1"


class KnownDifferenceAbsent(UserWarning):
    """A row of a list of known differences that matches PyTorch on this machine."""


def judge(list_name: str, key: str, found: dict, known, either=()) -> None:
    """Fail on the rows of ``found`` (row -> reason) listed in neither ``known`` nor ``either``; report the
    rows of ``known`` absent from ``found`` (a failure under ``TINYTORCH_KNOWN_STRICT=1``)."""
    new = {k: v for k, v in found.items() if k not in known and k not in either}
    assert not new, f"differences from PyTorch not listed in {list_name}: {new}"
    absent = sorted(k for k in known if k not in found)
    if not absent:
        return
    import _paths

    message = (f"{key}: rows listed in {list_name} as differing on every path walked match PyTorch on this "
               f"machine ({_paths.label()}): {absent}. Nothing is wrong with this run; a maintainer moves the "
               f"rows with the update script, or deletes them if they match everywhere")
    if STRICT:
        pytest.fail(message)
    warnings.warn(message, KnownDifferenceAbsent, stacklevel=2)
