"""Module hook plumbing: removable handles and the full backward hooks.

A full backward hook needs the gradients with respect to a module's inputs and outputs. As in
PyTorch, both are caught by wrapping them in an identity autograd Function: the node on the
outputs sees grad_output first, the node on the inputs then sees grad_input and calls the user
hooks, whose result replaces the gradients that flow on to the inputs."""
from __future__ import annotations

import warnings

from ...autograd.function import Function
from ...autograd.grad_mode import _State
from ...autograd.node import RemovableHandle
from ...tensor import Tensor


def add_hook(hooks: dict, hook, prepend: bool, *extra: dict) -> RemovableHandle:
    """Register ``hook`` in the ordered dict ``hooks``, first when ``prepend``; ``extra`` are the hook's flag
    tables (with_kwargs, always_call), which its handle's ``remove()`` clears too."""
    handle = RemovableHandle(hooks, extra_dict=list(extra))
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

    __module__ = "tinytorch.utils.hooks"  # PyTorch's module for it, which re-exports ours

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


# -- Module methods (bound in Module's class body) ------------------------------------------------
def _call_with_hooks(self, args: tuple, kwargs: dict):
    """__call__ when hooks are registered: pre-hooks, backward-hook wrapping, forward, forward hooks."""
    called = set()
    result = None
    try:
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                new = hook(self, args, kwargs)
                if new is not None:
                    if not (isinstance(new, tuple) and len(new) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {new}.")
                    args, kwargs = new
            else:
                new = hook(self, args)
                if new is not None:
                    args = new if isinstance(new, tuple) else (new,)
        bw_hook = None
        if self._backward_hooks or self._backward_pre_hooks:
            bw_hook = BackwardHook(self, list(self._backward_hooks.values()),
                                   list(self._backward_pre_hooks.values()))
            args = bw_hook.setup_input_hook(args)
        result = self.forward(*args, **kwargs)
        for hook_id, hook in list(self._forward_hooks.items()):
            called.add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs:
                new = hook(self, args, kwargs, result)
            else:
                new = hook(self, args, result)
            if new is not None:
                result = new
        if bw_hook is not None:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple "
                              f"of Tensors but received {type(result)}", stacklevel=2)
            result = bw_hook.setup_output_hook(result)
        return result
    except Exception:
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_always_called and hook_id not in called:
                try:
                    if hook_id in self._forward_hooks_with_kwargs:
                        new = hook(self, args, kwargs, result)
                    else:
                        new = hook(self, args, result)
                    if new is not None:
                        result = new
                except Exception as e:
                    warnings.warn("module forward hook with ``always_call=True`` raised an exception that was "
                                  f"silenced as another error was raised in forward: {e}", stacklevel=2)
        raise


def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
    """``hook(module, args)`` before forward; a returned value replaces the positional args."""
    handle = add_hook(self._forward_pre_hooks, hook, prepend, self._forward_pre_hooks_with_kwargs)
    if with_kwargs:
        self._forward_pre_hooks_with_kwargs[handle.id] = True
    return handle


def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                          always_call: bool = False):
    """``hook(module, args, output)`` after forward; a returned value replaces the output."""
    handle = add_hook(self._forward_hooks, hook, prepend, self._forward_hooks_with_kwargs,
                      self._forward_hooks_always_called)
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    return handle


def register_full_backward_hook(self, hook, prepend: bool = False):
    """``hook(module, grad_input, grad_output)`` once the input gradients are known."""
    return add_hook(self._backward_hooks, hook, prepend)


def register_full_backward_pre_hook(self, hook, prepend: bool = False):
    """``hook(module, grad_output)`` before the module's gradients are computed; may replace grad_output."""
    return add_hook(self._backward_pre_hooks, hook, prepend)


def register_state_dict_post_hook(self, hook):
    """``hook(module, state_dict, prefix, local_metadata)`` after this module's entries are added."""
    return add_hook(self._state_dict_hooks, hook, False)


def register_state_dict_pre_hook(self, hook):
    """``hook(module, prefix, keep_vars)`` before this module's ``state_dict`` entries are gathered."""
    return add_hook(self._state_dict_pre_hooks, hook, False)


def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False):
    """``hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``
    (the module first when ``with_module``) before this module's entries are loaded; may edit state_dict."""
    wrapped = (lambda *args: hook(self, *args)) if with_module else hook
    return add_hook(self._load_state_dict_pre_hooks, wrapped, False)


def register_load_state_dict_pre_hook(self, hook):
    """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)``."""
    return _register_load_state_dict_pre_hook(self, hook, with_module=True)


def register_load_state_dict_post_hook(self, hook):
    """``hook(module, incompatible_keys)`` after ``load_state_dict``; may edit the key lists in place."""
    return add_hook(self._load_state_dict_post_hooks, hook, False)


# -- a module given something that is not a tinytorch tensor -----------------------------------
# the function PyTorch's error names, where it is not the class name in snake case
_OP_NAMES = {"ReLU": "relu", "ReLU6": "hardtanh", "GELU": "gelu", "SiLU": "silu", "ELU": "elu", "SELU": "selu",
             "CELU": "celu", "PReLU": "prelu", "LeakyReLU": "leaky_relu", "Dropout1d": "dropout1d",
             "Dropout2d": "dropout2d", "Dropout3d": "dropout3d"}


def _snake(name: str) -> str:
    import re

    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _foreign_input(module, args: tuple, error: AttributeError) -> Exception:
    """PyTorch's TypeError for a numpy array (a PyTorch tensor, a list...) passed where a tensor belongs,
    in place of the AttributeError its missing ``_data`` raised; any other AttributeError is kept."""
    import inspect


    if "'_data'" not in str(error):
        return error
    bad = next(((i, a) for i, a in enumerate(args) if not isinstance(a, Tensor)), None)
    if bad is None:
        return error
    position, value = bad
    cls = type(module).__name__
    op = _OP_NAMES.get(cls) or _snake(cls)
    if cls == "Embedding":  # F.embedding(input, weight): the indices come second
        arg, position = "indices", 1
    else:
        try:
            names = [p for p in inspect.signature(module.forward).parameters]
        except (TypeError, ValueError):
            names = []
        arg = names[position] if position < len(names) else "input"
    kind = type(value)
    kind_name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__.split('.')[0]}.{kind.__name__}"
    return TypeError(f"{op}(): argument '{arg}' (position {position + 1}) must be Tensor, not {kind_name}")
