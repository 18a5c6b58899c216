"""Module hook plumbing: removable handles and the full backward hooks.

A full backward hook needs the gradients with respect to a module's inputs and outputs. As in
PyTorch, both are caught by wrapping them in an identity autograd Function: the node on the
outputs sees grad_output first, the node on the inputs then sees grad_input and calls the user
hooks, whose result replaces the gradients that flow on to the inputs."""
from __future__ import annotations

import warnings
import weakref

from ...autograd.function import Function
from ...autograd.grad_mode import _State
from ...autograd.node import RemovableHandle
from ...tensor import Tensor


class ModuleHookHandle(RemovableHandle):
    """A handle whose ``remove()`` also clears the hook's flags (with_kwargs, always_call)."""

    def __init__(self, hooks_dict: dict, *extra: dict):
        super().__init__(hooks_dict)
        self._extra_refs = tuple(weakref.ref(d) for d in extra)

    def remove(self) -> None:
        super().remove()
        for ref in self._extra_refs:
            d = ref()
            if d is not None:
                d.pop(self.id, None)


def add_hook(hooks: dict, hook, prepend: bool, *extra: dict) -> ModuleHookHandle:
    """Register ``hook`` in the ordered dict ``hooks``, first when ``prepend``."""
    handle = ModuleHookHandle(hooks, *extra)
    if prepend:
        rest = list(hooks.items())
        hooks.clear()
        hooks[handle.id] = hook
        hooks.update(rest)
    else:
        hooks[handle.id] = hook
    return handle


class BackwardHookFunction(Function):
    """Identity on its tensor arguments; its node is where module backward hooks attach."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _pack(indices, values, size: int) -> tuple:
    out = [None] * size
    for i, v in zip(indices, values):
        out[i] = v
    return tuple(out)


class BackwardHook:
    """Calls a module's full backward (pre-)hooks once grad_output and grad_input are both known."""

    def __init__(self, module, hooks: list, pre_hooks: list) -> None:
        self.module = module
        self.hooks = hooks
        self.pre_hooks = pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_index = self.output_index = None

    def _wrap(self, args: tuple, on_node):
        """Pass the tensors of ``args`` through the identity Function; ``on_node`` gets its node."""
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (_State.enabled and any(t._requires_grad for t in tensors)):
            return args, None
        wrapped = BackwardHookFunction.apply(*tensors)
        node = next(t.grad_fn for t in wrapped if t.grad_fn is not None
                    and t.grad_fn.name() == "BackwardHookFunctionBackward")
        on_node(node)
        out = list(args)
        for i, t in zip(index, wrapped):
            out[i] = t
        return tuple(out), index

    def setup_input_hook(self, args: tuple) -> tuple:
        def on_node(node):
            def hook(grad_inputs, _grad_outputs):
                if self.grad_outputs is None:
                    return None  # the gradient reached the inputs without passing the outputs
                res = _pack(self.input_index, grad_inputs, self.n_inputs)
                for user_hook in self.hooks:
                    new = user_hook(self.module, res, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != len(res):
                        raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                           f"got {len(new)}, but expected {len(res)}")
                    res = new
                self.grad_outputs = None
                return tuple(res[i] for i in self.input_index)
            node.register_hook(hook)

        self.n_inputs = len(args)
        res, self.input_index = self._wrap(args, on_node)
        return res

    def setup_output_hook(self, result):
        def on_node(node):
            def hook(_grad_inputs, grad_outputs):
                self.grad_outputs = _pack(self.output_index, grad_outputs, self.n_outputs)
                for pre_hook in self.pre_hooks:
                    new = pre_hook(self.module, self.grad_outputs)
                    if new is None:
                        continue
                    if len(new) != len(self.grad_outputs):
                        raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                           f"got {len(new)}, but expected {len(self.grad_outputs)}")
                    self.grad_outputs = tuple(new)
                local = self.grad_outputs
                if self.input_index is None:
                    # no input requires grad: the hooks fire here, with grad_input all None
                    warnings.warn("Full backward hook is firing when gradients are computed with respect to module "
                                  "outputs since no inputs require gradients. See "
                                  "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                                  "#torch.nn.Module.register_full_backward_hook for more details.", stacklevel=5)
                    none_inputs = (None,) * self.n_inputs
                    for user_hook in self.hooks:
                        new = user_hook(self.module, none_inputs, self.grad_outputs)
                        if new is not None and not (isinstance(new, tuple) and all(g is None for g in new)):
                            raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                               "always return None or None for all gradients.")
                    self.grad_outputs = None
                return tuple(local[i] for i in self.output_index)
            node.register_hook(hook)

        single = not isinstance(result, tuple)
        args = (result,) if single else result
        self.n_outputs = len(args)
        res, self.output_index = self._wrap(args, on_node)
        return res[0] if single else res
