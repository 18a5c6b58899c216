"""The op registry: every declared op's spellings are exactly PyTorch's (none missing, none extra), and
every spelling a declaration promises is really there."""
import importlib

import pytest

import tinytorch as tt
from tinytorch._ops._core.registry import REGISTRY

from _torch_spellings import spellings as torch_spellings


def _namespace_of(decl) -> str:
    return decl.namespace if decl.namespace not in ("", "torch") else "torch"


def _has(module_path: str, name: str) -> bool:
    mod = importlib.import_module(module_path)
    return callable(getattr(mod, name, None))


def _observed(decl, name: str) -> set:
    """The spellings tinytorch really has for ``name`` (out= as the declaration's public function takes it)."""
    ns = _namespace_of(decl)
    out = set()
    prefix, module = ("torch", "tinytorch") if ns == "torch" else (f"torch.{ns}", f"tinytorch.{ns}")
    if _has(module, name):
        out.add(f"{prefix}.{name}")
        fn = getattr(importlib.import_module(module), name)
        d = getattr(fn, "_decl", None)
        if d is not None and any("out" in w for n, w in d.variants.items() if n == name):
            out.add(f"{prefix}.{name}(out=)")
    if ns != "torch":
        return out
    if _has("tinytorch", name + "_"):
        out.add(f"torch.{name}_")
    if hasattr(tt.Tensor, name):
        out.add(f"Tensor.{name}")
    if hasattr(tt.Tensor, name + "_"):
        out.add(f"Tensor.{name}_")
    if _has("tinytorch.nn.functional", name):
        out.add(f"torch.nn.functional.{name}")
    return out


_DECLS = sorted(REGISTRY.values(), key=lambda d: d.qualname if d.namespace else d.name)


def _spellings_of_name(decl) -> set:
    """The spellings of ``decl`` and of any other declaration of the same name in the same namespace: PyTorch
    spells two ops ``unfold`` (``Tensor.unfold``, a view of windows, and ``F.unfold``, im2col), declared apart."""
    ns = _namespace_of(decl)
    same = [d for d in _DECLS if d.name == decl.name and _namespace_of(d) == ns]
    return set().union(*(d.spellings() for d in same))


@pytest.mark.parametrize("decl", _DECLS, ids=lambda d: d.qualname if d.namespace else d.name)
def test_declared_spellings_are_pytorchs(decl, torch):
    ns = _namespace_of(decl)
    ours = _spellings_of_name(decl)
    theirs = {f"Tensor.{d}" for d in decl.dunders + decl.rdunders + decl.idunders if hasattr(torch.Tensor, d)}
    for name in decl.names():
        found = torch_spellings(torch, name, ns)
        if f"Tensor.{name}_" in REGISTRY or f"{name}_" in REGISTRY:
            # ``Tensor.normal_`` is an op of its own (a random fill), not the in-place torch.normal
            found -= {f"Tensor.{name}_", f"torch.{name}_"}
        theirs |= found
    # spellings of other names (``extra``) are checked on their own
    theirs |= {f"torch.{q}" for q in decl.extra if callable(_resolve(torch, q))}
    assert ours == theirs, f"missing: {sorted(theirs - ours)}; extra: {sorted(ours - theirs)}"


def _resolve(root, qualname: str):
    obj = root
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
    return obj


@pytest.mark.parametrize("decl", _DECLS, ids=lambda d: d.qualname if d.namespace else d.name)
def test_declared_spellings_exist(decl):
    observed = set()
    for name in decl.names():
        found = _observed(decl, name)
        if f"Tensor.{name}_" in REGISTRY or f"{name}_" in REGISTRY:
            found -= {f"Tensor.{name}_", f"torch.{name}_"}  # an op of its own (see above)
        observed |= found
    observed |= {f"torch.{q}" for q in decl.extra if callable(_resolve(tt, q))}
    observed |= {f"Tensor.{d}" for d in decl.dunders + decl.rdunders + decl.idunders if hasattr(tt.Tensor, d)}
    assert observed == _spellings_of_name(decl)


def test_dunders_exist_in_pytorch(torch):
    for decl in _DECLS:
        for d in decl.dunders + decl.rdunders + decl.idunders:
            assert hasattr(torch.Tensor, d), d


def test_declared_twice_is_refused():
    from tinytorch._ops._core.registry import op

    with pytest.raises(RuntimeError, match="declared twice"):
        op("exp")(lambda input: input)
