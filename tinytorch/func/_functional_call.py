"""``functional_call``: run a module with some parameters and buffers swapped for given tensors."""
from __future__ import annotations


def _resolve(module, dotted: str):
    *path, name = dotted.split(".")
    for p in path:
        module = getattr(module, p)
    return module, name


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """``module(*args, **kwargs)`` with the named parameters/buffers replaced for this call only."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, (list, tuple)):
        merged = {}
        for d in dicts:
            for k in d:
                if k in merged:
                    raise ValueError(f"{k} appeared in multiple dictionaries; behavior of functional call is ambiguous")
            merged.update(d)
        dicts = merged
    if strict:
        expected = set(n for n, _ in module.named_parameters()) | set(n for n, _ in module.named_buffers())
        missing = sorted(expected - set(dicts))
        unexpected = sorted(set(dicts) - expected)
        if missing or unexpected:
            parts = []
            if unexpected:
                parts.append("Unexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
            if missing:
                parts.append("Missing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(type(module).__name__,
                                                                                  "\n\t".join(parts)))
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    saved = []
    try:
        for name, value in dicts.items():
            owner, attr = _resolve(module, name)
            # the swap bypasses Module.__setattr__, which would insist on a Parameter
            for table in ("_parameters", "_buffers"):
                store = owner.__dict__.get(table)
                if store is not None and attr in store:
                    saved.append((store, attr, store[attr]))
                    store[attr] = value
                    break
            else:
                saved.append((owner.__dict__, attr, owner.__dict__.get(attr, _MISSING)))
                owner.__dict__[attr] = value
        return module(*args, **(kwargs or {}))
    finally:
        for store, attr, old in reversed(saved):
            if old is _MISSING:
                store.pop(attr, None)
            else:
                store[attr] = old


_MISSING = object()
