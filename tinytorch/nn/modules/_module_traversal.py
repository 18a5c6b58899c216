"""The Module methods that walk the tree: named_modules/children/parameters/buffers and the
operations applied along them (train/eval, requires_grad_, zero_grad, apply). ``Module`` imports them
in its class body, so they are ordinary methods."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from ...tensor import Tensor
    from ..parameter import Parameter
    from .module import Module


def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True):
    """(dotted name, module) for this module and every descendant, each module once by default."""
    if memo is None:
        memo = set()
    if self in memo:
        return
    if remove_duplicate:
        memo.add(self)
    yield prefix, self
    for name, module in self._modules.items():
        if module is None:
            continue
        yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)


def modules(self) -> Iterator[Module]:
    for _, m in self.named_modules():
        yield m


def named_children(self):
    """(name, module) for the direct children, each module once."""
    seen = set()
    for name, module in self._modules.items():
        if module is not None and module not in seen:
            seen.add(module)
            yield name, module


def children(self) -> Iterator[Module]:
    for _, m in self.named_children():
        yield m


def _named_members(self, members_of, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
    memo = set()
    mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
    for mod_prefix, mod in mods:
        for k, v in members_of(mod):
            if v is None or v in memo:
                continue
            if remove_duplicate:
                memo.add(v)
            yield mod_prefix + ("." if mod_prefix else "") + k, v


def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
    """(dotted name, parameter) pairs; a parameter shared by several modules comes once."""
    return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)


def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
    for _, p in self.named_parameters(recurse=recurse):
        yield p


def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
    return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)


def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
    for _, b in self.named_buffers(recurse=recurse):
        yield b


def train(self, mode: bool = True) -> Module:
    """Set training mode here and in every descendant; returns self."""
    if not isinstance(mode, bool):
        raise ValueError("training mode is expected to be boolean")
    self.training = mode
    for module in self.children():
        module.train(mode)
    return self


def eval(self) -> Module:
    """Evaluation mode (Dropout becomes the identity); returns self."""
    return self.train(False)


def requires_grad_(self, requires_grad: bool = True) -> Module:
    for p in self.parameters():
        p.requires_grad_(requires_grad)
    return self


def zero_grad(self, set_to_none: bool = True) -> None:
    """Reset the parameters' gradients: to None by default, else to zeros in place."""
    for p in self.parameters():
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            g = p.grad
            if g.grad_fn is not None:
                g.detach_()
            else:
                g.requires_grad_(False)
            g.zero_()


def apply(self, fn) -> Module:
    """Call ``fn`` on every descendant (children first), then on self."""
    for module in self.children():
        module.apply(fn)
    fn(self)
    return self
