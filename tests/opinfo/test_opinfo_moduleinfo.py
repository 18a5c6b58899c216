"""PyTorch's own module test data as the spec: every ModuleInfo of ``module_db`` whose class tinytorch
has, its ModuleInputs (float64, training mode, at most ``_moduleinfo.CAP`` per module, always the
same ones) built and run in both libraries: initialisation with the same seed (bit for bit), forward
values with PyTorch's parameters loaded, and input/parameter gradients (``_moduleinfo.py``).

Each difference is listed, with its reason, in ``moduleinfo_known.py``; a listed row that matches
here is reported, not failed (``_known_rows.py``); rows that differ on some CPU paths only (``_paths.walk_paths``)
are in ``PATH_DEPENDENT`` and may match or differ. ``test_figures`` holds the coverage at or above the floor."""
import collections

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")  # torch.testing._internal needs it
from torch.testing._internal.common_modules import module_db  # noqa: E402

import _known_rows  # noqa: E402
import _moduleinfo  # noqa: E402
from moduleinfo_known import KNOWN, PATH_DEPENDENT  # noqa: E402

_CACHE: dict = {}

# raised as coverage grows, never lowered
PRESENT_FLOOR = 114
MATCH_FLOOR = 1.0


def _walk(info) -> dict:
    key = _moduleinfo.entry_id(info)
    if key not in _CACHE:
        _CACHE[key] = _moduleinfo.walk_entry(info, torch)
    return _CACHE[key]


def differences(result) -> dict:
    """{"3:fwd": reason} for every comparison of a sample that did not match (skips are not)."""
    out = {}
    for i, init, fwd, bwd in result["results"]:
        if not init.startswith("skip") and init != "ok":
            out[f"{i}:init"] = init
        if fwd not in ("ok", "skip"):
            out[f"{i}:fwd"] = fwd
        if bwd not in (None, "ok"):
            out[f"{i}:bwd"] = bwd
    return out


@pytest.mark.parametrize("info", module_db, ids=_moduleinfo.entry_id)
def test_moduleinfo(info):
    result = _walk(info)
    key = _moduleinfo.entry_id(info)
    if not result["present"]:
        assert key not in KNOWN, f"{key} is listed in moduleinfo_known.py but tinytorch does not have it"
        pytest.skip(f"tinytorch has no nn.{info.module_cls.__name__}")
    found = differences(result)
    _known_rows.judge("moduleinfo_known.py", key, found, KNOWN.get(key, {}), PATH_DEPENDENT.get(key, {}))


def test_figures():
    present = 0
    counts = collections.Counter()
    for info in module_db:
        result = _walk(info)
        present += result["present"]
        for _, init, fwd, bwd in result["results"]:
            for kind, r in (("init", init), ("fwd", fwd), ("bwd", bwd)):
                if r is None or r.startswith("skip"):
                    continue
                counts[kind, r == "ok"] += 1
    rate = {k: counts[k, True] / max(1, counts[k, True] + counts[k, False]) for k in ("init", "fwd", "bwd")}
    print(f"\nmodule_db: {present} of {len(module_db)} modules present; matching: init {rate['init']:.2%} of "
          f"{counts['init', True] + counts['init', False]}, forward {rate['fwd']:.2%} of "
          f"{counts['fwd', True] + counts['fwd', False]}, backward {rate['bwd']:.2%} of "
          f"{counts['bwd', True] + counts['bwd', False]}")
    assert present >= PRESENT_FLOOR
    assert min(rate.values()) >= MATCH_FLOOR
