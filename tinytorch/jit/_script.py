"""``tinytorch.jit._script``: where PyTorch defines ``ScriptModule``, ``RecursiveScriptModule`` and ``Attribute``,
which print and pickle by this path (ours are in ``_trace.py`` and the package)."""
from . import Attribute
from ._trace import RecursiveScriptModule, ScriptModule, script

__all__ = ["Attribute", "RecursiveScriptModule", "ScriptModule", "script"]
