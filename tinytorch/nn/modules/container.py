"""Containers: ``Sequential`` (a pipeline), ``ModuleList`` and ``ModuleDict`` (registered collections)."""
from __future__ import annotations

import operator
import warnings
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from itertools import chain

from .module import Module, _addindent


def _renumber(modules: dict) -> None:
    """Keys back to '0', '1', ... after a deletion, keeping the order (and the dict object)."""
    values = list(modules.values())
    modules.clear()
    modules.update((str(i), m) for i, m in enumerate(values))


def _absolute_index(idx, size: int) -> int:
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx + size if idx < 0 else idx


def _without_digits(keys: list) -> list:
    return [k for k in keys if not k.isdigit()]


class Container(Module):
    """The pre-Module container (deprecated in PyTorch, with a FutureWarning): children from keywords."""

    def __init__(self, **kwargs) -> None:
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. "
                      "Subclass that instead.", FutureWarning, stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


class Sequential(Module):
    """Modules applied one after the other; built from arguments or from an OrderedDict of names."""

    def __init__(self, *args) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        values = list(self._modules.values())
        return values[_absolute_index(idx, len(values))]

    def __setitem__(self, idx: int, module: Module) -> None:
        keys = list(self._modules)
        setattr(self, keys[_absolute_index(idx, len(keys))], module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)
        doomed = keys[idx] if isinstance(idx, slice) else [keys[_absolute_index(idx, len(keys))]]
        for key in doomed:
            delattr(self, key)
        _renumber(self._modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __dir__(self):
        return _without_digits(super().__dir__())

    def __add__(self, other) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {str(type(other))} is "
                             "given.")
        combined = Sequential()
        for layer in chain(self, other):
            combined.append(layer)
        return combined

    def __iadd__(self, other) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {str(type(other))} is "
                             "given.")
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def _check_factor(self, other) -> None:
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")

    def __mul__(self, other: int) -> Sequential:
        self._check_factor(other)
        combined = Sequential()
        for i, module in enumerate(list(self) * other):
            combined.add_module(str(i), module)
        return combined

    __rmul__ = __mul__

    def __imul__(self, other: int) -> Sequential:
        self._check_factor(other)
        originals = list(self)
        for i, module in enumerate(originals * (other - 1), start=len(originals)):
            self.add_module(str(i), module)
        return self

    def pop(self, key):
        """Remove and return the module (or Sequential slice) at ``key``."""
        v = self[key]
        del self[key]
        return v

    def append(self, module: Module) -> Sequential:
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Insert ``module`` before position ``index`` (negative counts from the end); returns self."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        """Append every module of ``sequential``; returns self."""
        for layer in sequential:
            self.append(layer)
        return self


class ModuleList(Module):
    """A list of modules that registers them (so parameters() and state_dict() see them)."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_absolute_index(idx, len(self)))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_absolute_index(idx, len(self))), module)

    def __delitem__(self, idx) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_absolute_index(idx, len(self))))
        _renumber(self._modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __dir__(self):
        return _without_digits(super().__dir__())

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index``."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def __repr__(self) -> str:
        # runs of identical children print once, as "(0-2): 3 x Linear(...)"
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []  # [first index, last index, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = []
        for start, end, r in runs:
            label = f"({start}): {r}" if start == end else f"({start}-{end}): {end - start + 1} x {r}"
            lines.append(_addindent(label, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """An ordered dict of modules that registers them."""

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        """Add modules from a mapping or from an iterable of (name, module) pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            + type(modules).__name__)
        if isinstance(modules, (Mapping, ModuleDict)):
            for key, module in modules.items():
                self[key] = module
            return
        for j, pair in enumerate(modules):
            if not isinstance(pair, Iterable):
                raise TypeError(f"ModuleDict update sequence element #{j} should be Iterable; is"
                                + type(pair).__name__)
            if len(pair) != 2:
                raise ValueError(f"ModuleDict update sequence element #{j} has length {len(pair)}; 2 is required")
            self[pair[0]] = pair[1]


# PyTorch's container.py holds the parameter containers too; here they have a file of their own, as
# containers of parameters rather than of modules
from ._parameter_containers import ParameterDict, ParameterList  # noqa: E402,F401
