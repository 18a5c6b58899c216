"""``python -m tinytorch.run script.py [args]`` (or ``python -m tinytorch.run -m package.module [args]``):
run a program written for PyTorch on tinytorch, unedited. ``tinytorch.install_as_torch()`` runs first,
so ``import torch`` (and ``torch.*``) inside the program and in the libraries it uses gives tinytorch;
the program sees ``sys.argv`` as ``python script.py [args]`` would give it, and runs as ``__main__``.

``python -m tinytorch.run --install-pth`` writes ``tinytorch_as_torch.pth`` into this environment's
site-packages: from then on ``TINYTORCH_AS_TORCH=1 python script.py`` does the same as this command
(and without the variable the file does nothing). ``--remove-pth`` deletes it. The file is written on
request, not by ``pip install``: a wheel can carry a top-level ``.pth`` only through custom setuptools
commands, and an editable install (``pip install -e``) drops it."""
from __future__ import annotations

import os
import pkgutil
import runpy
import sys
import sysconfig

from ._as_torch import install_as_torch

USAGE = ("usage: python -m tinytorch.run script.py [args ...]\n"
         "       python -m tinytorch.run -m module [args ...]\n"
         "       python -m tinytorch.run --install-pth | --remove-pth")
PTH_NAME = "tinytorch_as_torch.pth"
# one line: site.py executes lines that start with "import"; it imports tinytorch only when the variable is
# set, and a tinytorch uninstalled since leaves nothing but this no-op behind
PTH_LINE = ("import os; exec('try:\\n import tinytorch._as_torch as m\\nexcept ImportError:\\n pass\\nelse:\\n"
            " m._from_environment()') if os.environ.get('TINYTORCH_AS_TORCH', '') not in ('', '0') else None\n")


def pth_path() -> str:
    """Where ``--install-pth`` writes the hook: this interpreter's site-packages (purelib)."""
    return os.path.join(sysconfig.get_paths()["purelib"], PTH_NAME)


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        raise SystemExit(2 if not argv else 0)
    if argv[0] == "--install-pth":
        with open(pth_path(), "w") as f:
            f.write(PTH_LINE)
        print(f"wrote {pth_path()}: TINYTORCH_AS_TORCH=1 now maps `import torch` to tinytorch in this environment")
        return
    if argv[0] == "--remove-pth":
        if os.path.exists(pth_path()):
            os.remove(pth_path())
            print(f"removed {pth_path()}")
        return
    install_as_torch()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            raise SystemExit(2)
        sys.argv = argv[1:]
        # the function ``python -m`` itself runs: a module it cannot find is the interpreter's one line
        # ("python: No module named x", exit status 1), not a traceback through this runner
        as_main = getattr(runpy, "_run_module_as_main", None)
        if as_main is None:  # pragma: no cover - every CPython since 2.7 has it
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            as_main(argv[1], alter_argv=True)
        return
    script = argv[0]
    sys.argv = argv
    _run_path(script)


def _run_path(script: str) -> None:
    """``python script.py``: the script's folder first on sys.path; a folder or zip file runs its ``__main__``.
    A path Python cannot run is its one-line error, with its exit status."""
    path = script if os.path.isabs(script) else os.path.join(os.getcwd(), script)  # Python's: no normpath
    importer = pkgutil.get_importer(path)
    if importer is None:
        try:
            open(path, "rb").close()
        except OSError as e:
            print(f"{sys.executable}: can't open file {path!r}: [Errno {e.errno}] {e.strerror}", file=sys.stderr)
            raise SystemExit(2) from None
        sys.path[0] = os.path.dirname(os.path.abspath(script))
    else:
        if importer.find_spec("__main__") is None:
            print(f"{sys.executable}: can't find '__main__' module in {path!r}", file=sys.stderr)
            raise SystemExit(1)
        sys.path[0] = path
    runpy.run_path(path, run_name="__main__")


if __name__ == "__main__":
    main()
