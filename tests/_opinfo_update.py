"""Write ``opinfo_known.py`` from a fresh walk: ``python tests/_opinfo_update.py [--paths NAME,...] [SUBSTRING ...]``
(with substrings, only the entries whose id contains one are walked again; the others keep their rows).

The walk runs once on each CPU path of ``_paths.walk_paths()`` (PyTorch's ATen DEFAULT / AVX2 /
native, and an imitated AVX2-only machine: oneDNN, MKL, numpy's SIMD and OpenBLAS at AVX2), each in a
child process, two at a time (``--paths native,aten-avx2`` walks a subset). A row that differs on
every path walked goes to ``KNOWN`` (the list that may only shrink); a row that differs on some paths
only goes to ``PATH_DEPENDENT`` with the paths where it differs (test_opinfo lets it match or differ).

The reasons written are what the comparison saw (the error or the first line of assert_close's
report); rows kept from the old file keep their hand-written reason. Run it after fixing ops (rows
disappear) — a new row is a regression to fix, not to list, unless the difference is deliberate."""
from __future__ import annotations

import json
import os
import pprint
import sys

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)), os.path.join(os.path.dirname(os.path.abspath(__file__)), "opinfo")]

HEADER = '''"""Known differences of the OpInfo walk (tests/opinfo/test_opinfo.py): entry -> {"dtype:sample:fwd|bwd": reason}.

Each row is a sample of PyTorch's op_db where tinytorch's result differs from PyTorch's; the reason says
what differs. ``KNOWN``: rows that differ on every CPU path walked (``PATHS``); the list only shrinks:
a listed row that matches on a machine is reported there (tests/_known_rows.py) and moved or deleted by a
maintainer. ``PATH_DEPENDENT``: rows that differ on some paths
and match on others (PyTorch's kernels round differently per path, and so do numpy's SIMD kernels and
OpenBLAS's per-CPU kernels under tinytorch): "differs on" names the paths; such a row may match or
differ. Regenerate with ``python tests/_opinfo_update.py`` after fixing ops."""

'''


def _walk_here(only: list) -> dict:
    """{entry: {row: reason}} on this process's path (the child's side)."""
    import torch
    from torch.testing._internal.common_methods_invocations import op_db

    import _opinfo
    from test_opinfo import _differences

    torch.set_num_threads(1)
    out = {}
    for o in op_db:
        if o.name.startswith("_"):
            continue
        if only and not any(s in _opinfo.entry_id(o) for s in only):
            continue
        result = _opinfo.walk_entry(o, torch)
        if result["present"]:
            diffs = _differences(result)
            if diffs:
                out[_opinfo.entry_id(o)] = diffs
    return out


def main() -> None:
    import _paths

    argv = sys.argv[1:]
    if argv[:1] == ["--walk-json"]:  # a child: walk on the path its environment sets
        out, only = argv[1], argv[2:]
        diffs = _walk_here(only)
        with open(out, "w") as f:
            json.dump({"label": _paths.label(), "diffs": diffs}, f)
        return
    names = None
    if argv[:1] == ["--paths"]:
        names, argv = argv[1].split(","), argv[2:]
    only = argv
    try:
        from opinfo_known import KNOWN as OLD
        from opinfo_known import PATH_DEPENDENT as OLD_DEP
        from opinfo_known import PATHS as OLD_PATHS
    except ImportError:
        OLD, OLD_DEP, OLD_PATHS = {}, {}, []
    per_path = _paths.walk_everywhere(os.path.abspath(__file__), only, names)

    def walked(old):
        return {k: v for k, v in old.items() if any(s in k for s in only)} if only else old
    # the paths of other machines (in PATHS, not walked here) keep what the old lists say of them
    known, dependent = _paths.split_known(per_path, walked(OLD), walked(OLD_DEP), OLD_PATHS)
    if only:  # the entries not walked again keep their rows
        def keep(old):
            return {k: v for k, v in old.items() if not any(s in k for s in only)}
        known, dependent = {**keep(OLD), **known}, {**keep(OLD_DEP), **dependent}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "opinfo_known.py")
    with open(path, "w") as f:
        f.write(HEADER)
        f.write("# the CPU paths walked (tests/_paths.py's walk_paths), on every machine the lists were walked on\n")
        f.write("PATHS = " + pprint.pformat(sorted(set(per_path) | set(OLD_PATHS)), width=118) + "\n\n")
        f.write("KNOWN = " + pprint.pformat(dict(sorted(known.items())), width=118, sort_dicts=True) + "\n\n")
        f.write("PATH_DEPENDENT = " + pprint.pformat(dict(sorted(dependent.items())), width=118, sort_dicts=True)
                + "\n")
    print(f"{sum(len(v) for v in known.values())} rows in {len(known)} entries; "
          f"{sum(len(v) for v in dependent.values())} path-dependent rows in {len(dependent)} entries")


if __name__ == "__main__":
    main()
