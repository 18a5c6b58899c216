"""The named tuples some ops return, as ``torch.return_types``: a tuple whose fields are also
attributes (``torch.linalg.qr(A).Q``), printed as PyTorch prints them."""
from __future__ import annotations


def _named(name: str, fields: tuple):
    def rep(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"tinytorch.return_types.{name}(\n{body})"
    ns = {"__new__": lambda cls, *v: tuple.__new__(cls, v), "__repr__": rep, "_fields": fields}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: self[i])
    return type(name, (tuple,), ns)
