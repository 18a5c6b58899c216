"""The named tuples some ops return, as ``torch.return_types``: a tuple whose fields are also
attributes (``torch.linalg.qr(A).Q``), printed as PyTorch prints them. Each name is made once and kept in
``TYPES``, which the public module ``tinytorch.return_types`` reads: a class prints and pickles by the path
PyTorch gives it (``torch.return_types.max``), and ``torch.max`` returns the same class on every call."""
from __future__ import annotations

from ..._dtype import SHOWN_AS

TYPES: dict = {}


class _ReturnType(tuple):
    _fields: tuple = ()

    def __new__(cls, *values):
        # PyTorch's structseq takes the fields as one sequence (``torch.return_types.max((v, i))``);
        # tinytorch's ops pass them one by one
        if len(values) == 1 and len(cls._fields) != 1 and isinstance(values[0], (tuple, list)):
            values = tuple(values[0])
        if len(values) != len(cls._fields):
            raise TypeError(f"{SHOWN_AS[0]}.return_types.{cls.__name__} takes a {len(cls._fields)}-sequence "
                            f"({len(values)}-sequence given)")
        return tuple.__new__(cls, values)

    def __repr__(self) -> str:
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"{SHOWN_AS[0]}.return_types.{type(self).__name__}(\n{body})"

    def __reduce__(self):
        return type(self), (tuple(self),)


def _named(name: str, fields: tuple):
    """The return type ``name`` with ``fields``: made on first call, the same class after."""
    known = TYPES.get(name)
    if known is not None:
        if known._fields != tuple(fields):
            raise AssertionError(f"return_types.{name} declared with fields {fields} and {known._fields}")
        return known
    ns = {"_fields": tuple(fields), "__module__": "tinytorch.return_types", "__qualname__": name, "__slots__": ()}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: self[i])
    TYPES[name] = cls = type(name, (_ReturnType,), ns)
    return cls
