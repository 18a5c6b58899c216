"""``Module``: the base class of every layer and model.

Assigning a Parameter or a Module to an attribute registers it (``__setattr__``), so parameters,
state_dict, train/eval and printing can walk the tree. The registries are plain dicts and
``__getattr__`` only runs for names not found the normal way, so attribute access stays cheap;
``__call__`` goes straight to ``forward`` while no hook is registered."""
from __future__ import annotations

from collections import OrderedDict

from ..._oom import reraise_as_runtime_error
from ...autograd.grad_mode import _Active, _State
from ...tensor import Tensor
from ..parameter import Buffer, Parameter
from ._module_state import _IncompatibleKeys, typename  # noqa: F401  (re-exported, as in torch.nn.modules.module)
from ._hooks import _foreign_input


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module:
    """Base class for all neural network modules; subclasses define ``forward``."""

    training: bool
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs) -> None:
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} "
                            "were given")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", OrderedDict())
        setattr_(self, "_forward_hooks_always_called", OrderedDict())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())
        setattr_(self, "_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_pre_hooks", OrderedDict())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # -- calling ---------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        try:
            if self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks:
                return self._call_with_hooks(args, kwargs)
            return self.forward(*args, **kwargs)
        except MemoryError as e:  # numpy's, as PyTorch's RuntimeError naming the bytes
            reraise_as_runtime_error(e)
        except AttributeError as e:  # a numpy array or a PyTorch tensor where a tensor belongs?
            error = _foreign_input(self, args, e)
            if error is e:
                raise
            raise error from None

    # the slow path of __call__ and the hook registration methods live in _hooks.py, beside the hooks they run
    from ._hooks import (_call_with_hooks, register_forward_hook, register_forward_pre_hook,  # noqa: E402
                         register_full_backward_hook, register_full_backward_pre_hook,
                         register_load_state_dict_post_hook, register_state_dict_post_hook,
                         _register_load_state_dict_pre_hook, register_load_state_dict_pre_hook,
                         register_state_dict_pre_hook)

    # -- registration ----------------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is state but not a parameter (in state_dict unless ``persistent=False``)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or None, which stays out of parameters() and state_dict)."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None:
            if not isinstance(param, Parameter):
                raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                                "(tinytorch.nn.Parameter or None required)")
            if param.grad_fn is not None:
                raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                                 f"created explicitly. To express '{name}' as a function of another Tensor, "
                                 "compute the value in the forward() method.")
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module, reachable as the attribute ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f"module name can't contain \".\", got: {name}")
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias for ``add_module``."""
        self.add_module(name, module)

    def __getattr__(self, name: str):
        d = self.__dict__
        if "_parameters" in d:
            params = d["_parameters"]
            if name in params:
                if _Active.transforms and _State.tracer is not None:  # an ONNX export in this thread
                    return _State.tracer.alias(params[name])
                return params[name]
        if "_buffers" in d:
            buffers = d["_buffers"]
            if name in buffers:
                if _Active.transforms and _State.tracer is not None:
                    return _State.tracer.alias(buffers[name])
                return buffers[name]
        if "_modules" in d:
            modules = d["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(tinytorch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._forget(name, d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(tinytorch.nn.Module or None expected)")
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(tinytorch.nn.Buffer, tinytorch.Tensor or None expected)")
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    @staticmethod
    def _forget(name: str, *containers) -> None:
        for c in containers:
            if name in c:
                if isinstance(c, dict):
                    del c[name]
                else:
                    c.discard(name)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (dir(type(self)) + list(self.__dict__) + list(self._parameters) + list(self._modules)
                + list(self._buffers))
        return sorted(k for k in keys if not k[0].isdigit())

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for hooks in ("_state_dict_pre_hooks", "_load_state_dict_pre_hooks"):  # pickles from before they existed
            self.__dict__.setdefault(hooks, OrderedDict())

    # -- lookup by dotted name -------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path ``target`` ('' is the module itself)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at dotted path ``target`` (its parent must exist; ``strict``: so must the name)."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        *path, name = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self.get_submodule(".".join(path))
        if strict and not hasattr(parent, name):
            raise AttributeError(parent._get_name() + " has no attribute `" + name + "`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        buf = getattr(mod, name)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return buf

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. Please "
                           "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                           "to report this bug.")

    def set_extra_state(self, state) -> None:
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. Please "
                           "file an issue at https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
                           "to report this bug.")

    # walking the tree (iteration, train/eval, zero_grad, apply) lives in _module_traversal.py
    from ._module_traversal import (_named_members, apply, buffers, children, eval, modules,  # noqa: E402
                                    named_buffers, named_children, named_modules, named_parameters, parameters,
                                    requires_grad_, train, zero_grad)

    # state_dict / load_state_dict and dtype conversion live in _module_state.py;
    # importing them in the class body makes them ordinary methods
    from ._module_state import (_apply, _load_from_state_dict, _save_to_state_dict, cpu, cuda,  # noqa: E402
                                load_state_dict, share_memory, state_dict, to, to_empty)
    from ._module_state import to_double as double, to_float as float, to_half as half, to_type as type  # noqa
    from ._module_state import to_bfloat16 as bfloat16  # noqa

    # -- printing --------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The module's own settings, printed inside its parentheses."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"

