"""``tinytorch.install_as_torch()``: ``import torch`` (and every ``torch.X`` submodule) gives tinytorch's
modules for the rest of the process, so code written for PyTorch (torchvision, einops, torchmetrics...)
runs on tinytorch unchanged.

It is one meta-path finder: ``torch`` is ``tinytorch``, ``torch.nn.functional`` is
``tinytorch.nn.functional`` (the same module objects, entered in ``sys.modules`` under both names), and the
package then answers ``torch.__name__ == "torch"`` as PyTorch's does.
Three ways to turn it on:

- ``import tinytorch; tinytorch.install_as_torch()`` at the top of a program;
- ``python -m tinytorch.run script.py [args]`` (or ``-m module``), which installs it and runs the script;
- ``TINYTORCH_AS_TORCH=1 python script.py``: the ``tinytorch_as_torch.pth`` file the package installs
  into site-packages reads that variable at interpreter start-up.

Child processes follow: the variable is set in ``os.environ`` by ``install_as_torch()`` (so a started
interpreter with the ``.pth`` hook installs it too), and processes started by ``multiprocessing``'s
*spawn* and *forkserver* methods (DataLoader workers among them) reinstall it before they import the
parent's ``__main__``, with or without the ``.pth`` file.

Refused (RuntimeError) when PyTorch itself is already imported: two libraries under one name would mix
tensors of both. While it is on, ``importlib.metadata`` finds a ``torch`` distribution (version
``torch.__version__``) for queries about this process's import path, as libraries that detect PyTorch that way
expect (``_as_torch_metadata``); nothing is installed under that name, so pip never treats tinytorch as
satisfying a ``torch`` requirement."""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import types

from . import _as_torch_metadata, _dtype

ENV_VAR = "TINYTORCH_AS_TORCH"
_PACKAGE = __name__.rpartition(".")[0]  # "tinytorch"
_ALIAS = "torch"


def _target(fullname: str) -> str | None:
    """``torch.X.Y`` -> ``tinytorch.X.Y``; None for names outside ``torch``."""
    if fullname == _ALIAS:
        return _PACKAGE
    if fullname.startswith(_ALIAS + "."):
        return _PACKAGE + fullname[len(_ALIAS):]
    return None


class _AliasLoader(importlib.abc.Loader):
    """Gives the tinytorch module itself: nothing is executed twice, ``torch.nn is tinytorch.nn``."""

    def __init__(self, module) -> None:
        self._module = module
        self._spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self._module

    def exec_module(self, module) -> None:
        # the import system has just set ``module.__spec__`` to the alias's spec; the module keeps its own
        # (``tinytorch.X``, its file), which ``importlib.reload`` and pickle's lookups of it rely on
        if self._spec is not None:
            module.__spec__ = self._spec


class _AliasFinder(importlib.abc.MetaPathFinder):
    """First on ``sys.meta_path`` while installed: answers for ``torch`` and ``torch.*``."""

    def find_spec(self, fullname, path=None, target=None):
        name = _target(fullname)
        if name is None:
            return None
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            # a module tinytorch makes on first access (``onnx.symbolic_opset11``) or keeps as an attribute
            # (``ops``); otherwise torch.X does not exist either
            parent, _, last = name.rpartition(".")
            module = getattr(sys.modules.get(parent), last, None) if parent in sys.modules else None
            if not isinstance(module, types.ModuleType):
                return None
        # sys.modules is left to the import system, which enters the alias's module under ``fullname``: a
        # module entered here would make it take that module's own spec (``tinytorch.X``, its file) for the
        # answer, execute the file a second time and replace ``tinytorch.X`` with the new copy
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module),
                                              is_package=hasattr(module, "__path__"))

    def find_distributions(self, context=None):
        """``importlib.metadata``'s question: a ``torch`` distribution, for queries about this process's own
        import path only (``_as_torch_metadata``: pip never sees it)."""
        return _as_torch_metadata.find(context, str(sys.modules[_PACKAGE].__version__))


_finder = _AliasFinder()


def is_installed() -> bool:
    """True once ``install_as_torch()`` ran in this process."""
    return _finder in sys.meta_path


def install_as_torch() -> None:
    """Make ``import torch`` and every ``torch.*`` import resolve to tinytorch from now on (idempotent).

    Raises RuntimeError when PyTorch is already imported in this process."""
    tinytorch = sys.modules[_PACKAGE]
    present = sys.modules.get(_ALIAS)
    if present is not None and present is not tinytorch:
        where = getattr(present, "__file__", None) or repr(present)
        raise RuntimeError(
            f"tinytorch.install_as_torch(): a module named 'torch' is already imported ({where}); "
            "tinytorch cannot stand in for PyTorch in a process that has loaded PyTorch. Call "
            "install_as_torch() before anything imports torch (or run the program with "
            f"`python -m tinytorch.run` or {ENV_VAR}=1)")
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)
    sys.modules[_ALIAS] = tinytorch
    # code written for PyTorch reads the package's name (pyro checks ``torch.__name__ == "torch"`` before it
    # patches ``torch.distributions``); tinytorch's own lazy imports go by ``__spec__.name``, which stays
    tinytorch.__name__ = _ALIAS
    _dtype.SHOWN_AS[0] = _ALIAS  # and reprs name it so: torch.float32, torch.Size([2])
    # tinytorch modules imported so far answer under both names at once (``torch.nn`` without a new lookup)
    for name, module in list(sys.modules.items()):
        if module is not None and name.startswith(_PACKAGE + "."):
            sys.modules.setdefault(_ALIAS + name[len(_PACKAGE):], module)
    os.environ[ENV_VAR] = "1"  # started interpreters (subprocess, spawn) with the .pth hook follow
    _patch_spawn()


def _reinstall():
    """Run in a spawned child while it unpickles its preparation data, before it imports ``__main__``."""
    importlib.import_module(_PACKAGE).install_as_torch()


class _Reinstall:
    def __reduce__(self):
        return (_reinstall, ())


_spawn_patched = [False]


def _patch_spawn() -> None:
    """multiprocessing's spawn/forkserver children unpickle ``get_preparation_data()``'s dict before they
    run the parent's ``__main__``: one more entry there (ignored by ``prepare``) reinstalls the alias."""
    if _spawn_patched[0]:
        return
    _spawn_patched[0] = True
    from multiprocessing import spawn

    original = spawn.get_preparation_data

    def get_preparation_data(name):
        data = original(name)
        data["tinytorch_as_torch"] = _Reinstall()
        return data

    get_preparation_data.__wrapped__ = original
    spawn.get_preparation_data = get_preparation_data


def _from_environment() -> None:
    """The ``.pth`` hook's entry: install when ``TINYTORCH_AS_TORCH`` is set to anything but ``0``/empty."""
    if os.environ.get(ENV_VAR, "") not in ("", "0"):
        install_as_torch()
