"""``ParameterList`` and ``ParameterDict``: registered collections of parameters (PyTorch keeps them in
``container.py``; here in a file of their own, as containers of parameters rather than of modules,
carrying that module's name).

Tensors put in either are wrapped as ``Parameter`` (requiring grad), as PyTorch does; other objects
are kept as plain attributes and printed as "Object of type: ...". The parameters are registered on
the container under the names "0", "1", ... (list) or the dict's keys, so a parent's ``state_dict``
holds ``<child>.0`` or ``<child>.<key>``."""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Mapping

from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module

_MODULE = "tinytorch.nn.modules.container"


def _as_parameter(value):
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _entry_repr(key, value, type_name) -> str:
    # the list prints a tensor's dtype, the dict its type name ("torch.FloatTensor"), as PyTorch
    if isinstance(value, Tensor):
        kind = "Parameter" if isinstance(value, Parameter) else "Tensor"
        size = "x".join(str(s) for s in value.size())
        return f"  ({key}): {kind} containing: [{type_name(value)} of size {size}]"
    return f"  ({key}): Object of type: {type(value).__name__}"


class ParameterList(Module):
    """A list of parameters, registered on the list under "0", "1", ..."""

    __module__ = _MODULE

    def __init__(self, values: Iterable | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _key(self, idx) -> str:
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return str(idx + len(self) if idx < 0 else idx)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            out = type(self)()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, self._key(idx))

    def __setitem__(self, idx, param) -> None:
        setattr(self, self._key(idx), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable) -> ParameterList:
        return self.extend(parameters)

    def __dir__(self):
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, value) -> ParameterList:
        """Add ``value`` (a tensor becomes a Parameter) at the end; returns self."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable) -> ParameterList:
        """Append every element of ``values``; returns self."""
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_entry_repr(k, p, lambda t: t.dtype) for k, p in enumerate(self))

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters, registered on the dict under their (string) keys."""

    __module__ = _MODULE

    def __init__(self, parameters=None) -> None:
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key_to_attr(key) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a string (type is "
                            f"'{type(key).__name__}'). Open an issue on github if you need non-string keys.")
        return key

    def __getitem__(self, key):
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key, value) -> None:
        self._keys[key] = None
        setattr(self, self._key_to_attr(key), _as_parameter(value))

    def __delitem__(self, key) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same parameters (not copies of them)."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def popitem(self):
        """Remove and return the last (key, parameter) pair."""
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None) -> ParameterDict:
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters) -> None:
        """Add entries from a mapping (a plain dict's in sorted key order, as PyTorch) or from pairs."""
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, but got "
                            + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            pairs = parameters.items()
        elif isinstance(parameters, Mapping):
            pairs = sorted(parameters.items())
        else:
            pairs = parameters
        for j, pair in enumerate(pairs):
            if not isinstance(pair, Iterable):
                raise TypeError(f"ParameterDict update sequence element #{j} should be Iterable; is"
                                + type(pair).__name__)
            if len(pair) != 2:
                raise ValueError(f"ParameterDict update sequence element #{j} has length {len(pair)}; "
                                 "2 is required")
            self[pair[0]] = pair[1]

    def extra_repr(self) -> str:
        return "\n".join(_entry_repr(k, p, Tensor.type) for k, p in self.items())

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other) -> ParameterDict:
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other) -> ParameterDict:
        self.update(other)
        return self
