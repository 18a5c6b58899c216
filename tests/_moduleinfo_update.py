"""Write ``moduleinfo_known.py`` from a fresh walk: ``python tests/_moduleinfo_update.py [--paths NAME,...]``.

The walk runs once on each CPU path of ``_paths.walk_paths()``, each in a child process, two at a time
(``--paths native,aten-default`` walks a subset); a row that differs on every path walked goes to
``KNOWN`` (the list that may only shrink), one that differs on some paths only to ``PATH_DEPENDENT``
with the paths where it differs (test_moduleinfo lets it match or differ). Rows kept from the old file
keep their hand-written reason. Run it after fixing modules (rows disappear); a new row is a
regression to fix, not to list, unless the difference is deliberate."""
from __future__ import annotations

import json
import os
import pprint
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_HERE, os.path.join(_HERE, "opinfo"), os.path.dirname(_HERE)]  # this checkout's tinytorch, not an installed one

HEADER = '''"""Known differences of the module_db walk (tests/opinfo/test_opinfo_moduleinfo.py): entry -> {"sample:init|fwd|bwd": reason}.

``KNOWN``: rows that differ on every CPU path walked (``PATHS``); the list only shrinks: a listed row that
matches on a machine is reported there (tests/_known_rows.py) and moved or deleted by a maintainer. ``PATH_DEPENDENT``: rows that differ on some paths only
("differs on" names them); such a row may match or differ. Regenerate with
``python tests/_moduleinfo_update.py`` after fixing modules."""

'''


def _walk_here() -> dict:
    """{entry: {row: reason}} on this process's path (the child's side)."""
    import torch
    from torch.testing._internal.common_modules import module_db

    import _moduleinfo
    from test_opinfo_moduleinfo import differences

    out = {}
    for info in module_db:
        result = _moduleinfo.walk_entry(info, torch)
        diffs = differences(result) if result["present"] else {}
        if diffs:
            out[_moduleinfo.entry_id(info)] = diffs
    return out


def main() -> None:
    import _paths

    argv = sys.argv[1:]
    if argv[:1] == ["--walk-json"]:  # a child: walk on the path its environment sets
        with open(argv[1], "w") as f:
            json.dump({"label": _paths.label(), "diffs": _walk_here()}, f)
        return
    names = argv[1].split(",") if argv[:1] == ["--paths"] else None
    try:
        from moduleinfo_known import KNOWN as OLD
        from moduleinfo_known import PATH_DEPENDENT as OLD_DEP
        from moduleinfo_known import PATHS as OLD_PATHS
    except ImportError:
        OLD, OLD_DEP, OLD_PATHS = {}, {}, []
    per_path = _paths.walk_everywhere(os.path.abspath(__file__), [], names)
    # the paths of other machines (in PATHS, not walked here) keep what the old lists say of them
    known, dependent = _paths.split_known(per_path, OLD, OLD_DEP, OLD_PATHS)
    path = os.path.join(_HERE, "moduleinfo_known.py")
    with open(path, "w") as f:
        f.write(HEADER)
        f.write("# the CPU paths walked (tests/_paths.py's walk_paths), on every machine the lists were walked on\n")
        f.write("PATHS = " + pprint.pformat(sorted(set(per_path) | set(OLD_PATHS)), width=116) + "\n\n")
        f.write("KNOWN: dict = " + pprint.pformat(known, width=116) + "\n\n")
        f.write("PATH_DEPENDENT: dict = " + pprint.pformat(dependent, width=116) + "\n")
    print(f"{sum(len(v) for v in known.values())} rows; {sum(len(v) for v in dependent.values())} path-dependent rows")


if __name__ == "__main__":
    main()
