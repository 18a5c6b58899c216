"""PyTorch's spellings of an op name, read from the installed PyTorch: which of ``torch.X``,
``torch.X(out=)``, ``torch.X_``, ``Tensor.X``, ``Tensor.X_`` and ``torch.nn.functional.X`` exist.

``out=`` is read from the argument parser's own list of signatures (what a call with a bad argument
prints), or from the Python signature for functions written in Python."""
from __future__ import annotations

import inspect
import re

import pytest

_SIGNATURES = re.compile(r"\* \((.*)\)")


_MISSING = re.compile(r"missing \d+ required positional arguments?: (.*)")
_WRONG = re.compile(r"argument '(\w+)' \(position (\d+)\) must be ([\w. ]+?), not")


def _dummy(torch, type_name: str):
    x = torch.ones(2, 2)
    table = {"Tensor": x, "int": 0, "float": 0.5, "bool": False, "Number": 1, "tuple of Tensors": [x],
             "tuple of ints": (0,), "torch.dtype": torch.float32, "str": "", "list of Tensors": [x]}
    return table.get(type_name, x)


def _by_name(torch, name: str):
    guesses = {"dim": 0, "p": 0.5, "train": False, "dims": (0,), "repeats": 1, "sections": 1, "k": 1,
               "value": 1.0, "n": 1, "alpha": 1.0, "ord": 2}
    return guesses.get(name, torch.ones(2, 2))


def accepts_out(fn, torch=None) -> bool:
    """Does ``fn`` take ``out=``? Asked of PyTorch's argument parser with a deliberately wrong ``out``."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None
    if sig is not None and not any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        return "out" in sig.parameters
    if torch is None:
        torch = pytest.importorskip("torch")
    args = [torch.ones(2, 2)]
    for _ in range(8):
        try:
            fn(*args, out=0)
        except TypeError as exc:
            text = str(exc)
            if "unexpected keyword argument 'out'" in text:
                return False
            if "argument 'out' must be" in text:
                return True
            if "but expected one of" in text:
                return re.search(r"\bout = None|\bTensor out\b|\bTensors out\b", text) is not None
            m = _MISSING.search(text)
            if m:
                args += [_by_name(torch, n.strip().strip('"')) for n in m.group(1).split(",")]
                continue
            m = _WRONG.search(text)
            if m:
                pos = int(m.group(2)) - 1
                if pos < len(args):
                    args[pos] = _dummy(torch, m.group(3))
                    continue
            break
        except Exception:  # noqa: BLE001 - parsed, then failed to compute: out=0 was not refused by name
            break
        else:
            return True
    return "out=" in (fn.__doc__ or "").split("\n\n")[0]


def spellings(torch, name: str, namespace: str = "torch") -> set:
    """The spellings PyTorch has for ``name`` (in ``torch.<namespace>`` when not "torch")."""
    out = set()
    if namespace == "torch":
        ns = torch
        prefix = "torch"
    else:
        ns = torch
        for part in namespace.split("."):
            ns = getattr(ns, part, None)
            if ns is None:
                return out
        prefix = f"torch.{namespace}"
    fn = getattr(ns, name, None)
    if fn is not None and callable(fn):
        out.add(f"{prefix}.{name}")
        if accepts_out(fn, torch):
            out.add(f"{prefix}.{name}(out=)")
    if namespace != "torch":
        return out
    if hasattr(torch, name + "_"):
        out.add(f"torch.{name}_")
    if hasattr(torch.Tensor, name):
        out.add(f"Tensor.{name}")
    if hasattr(torch.Tensor, name + "_"):
        out.add(f"Tensor.{name}_")
    if hasattr(torch.nn.functional, name):
        out.add(f"torch.nn.functional.{name}")
    return out


if __name__ == "__main__":
    import sys

    _torch = pytest.importorskip("torch")
    for n in sys.argv[1:]:
        ns, _, short = n.rpartition(".")
        print(n, sorted(spellings(_torch, short, ns or "torch")))
