"""``Module``: the base class of every layer and model.

Assigning a Parameter or a Module to an attribute registers it (``__setattr__``), so parameters,
state_dict, train/eval and printing can walk the tree. The registries are plain dicts and
``__getattr__`` only runs for names not found the normal way, so attribute access stays cheap;
``__call__`` goes straight to ``forward`` while no hook is registered.

``load_state_dict`` copies into the existing tensors under no_grad, so an optimizer holding the
parameters keeps working; conversion (``to``, ``float``...) swaps a parameter's data in place, so the
Parameter objects survive."""
from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Iterator, Mapping

from ... import _dtype, _meta_data
from ..._oom import reraise_as_runtime_error
from ..._size import _require_cpu
from ...autograd.grad_mode import _Active, _State, no_grad
from ..._ops.creation.factory import empty_like
from ...tensor import Tensor, device as _device
from ..parameter import Buffer, Parameter
from ... import __future__ as _future
from ..._tensor.swap import swap_tensors
from ._hooks import _foreign_input

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"
# a module's own tables, made empty for each module in PyTorch's order (its __dict__ lists them so): what it
# holds (parameters, buffers, submodules), then its hooks, each an OrderedDict keyed by handle id
_TABLES = (("_parameters", dict), ("_buffers", dict), ("_non_persistent_buffers_set", set), ("_modules", dict),
           *((name, OrderedDict) for name in (
               "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks", "_forward_hooks_with_kwargs",
               "_forward_hooks_always_called", "_backward_hooks", "_backward_pre_hooks", "_state_dict_hooks",
               "_load_state_dict_post_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks")))


def typename(obj) -> str:
    """PyTorch's ``torch.typename``: 'tinytorch.FloatTensor' for tensors, else the qualified type name."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it missed and the keys it did not expect."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _has_extra_state(module) -> bool:
    return type(module).get_extra_state is not Module.get_extra_state


def _swap_in_loaded(param: Tensor, value: Tensor, assign: bool) -> None:
    """``load_state_dict``'s swap path: ``param.module_load(value)`` (a subclass may remap it) swapped into the
    parameter's own object, so everything that holds the parameter sees the loaded tensor."""
    new = param.module_load(value, assign=assign)
    if new is value or new is param:
        raise RuntimeError("module_load returned one of self or other, please .detach() the result if returning one "
                           "of the inputs in module_load")
    if isinstance(param, Parameter):
        if isinstance(new, Parameter):
            new.requires_grad_(param.requires_grad)
        else:
            new = Parameter(new, requires_grad=param.requires_grad)
    swap_tensors(param, new)


def parse_to(*args, **kwargs):
    """PyTorch's ``torch._C._nn._parse_to``: ``(device, dtype, non_blocking, memory_format)`` from the arguments
    of ``Module.to`` (``to(device, dtype, non_blocking)``, ``to(dtype, non_blocking)``, ``to(tensor,
    non_blocking)``), each None (False) where not given; the device is not checked here."""
    def invalid():
        got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()])
        return TypeError(f"to() received an invalid combination of arguments - got ({got})")

    unknown = set(kwargs) - {"device", "dtype", "non_blocking", "memory_format", "copy"}
    if unknown:
        raise TypeError(f"to() got an unexpected keyword argument '{sorted(unknown)[0]}'")
    if "copy" in kwargs:
        raise RuntimeError(".to() does not accept copy argument")
    rest = list(args)
    dev = dtype = None
    if rest and isinstance(rest[0], _dtype.dtype):
        dtype = rest.pop(0)
    elif rest and isinstance(rest[0], Tensor):
        other = rest.pop(0)
        dev, dtype = other.device, other.dtype
    elif rest and (rest[0] is None or isinstance(rest[0], (str, int, _device))) and not isinstance(rest[0], bool):
        dev = rest.pop(0)
        if rest and (rest[0] is None or isinstance(rest[0], _dtype.dtype)):
            dtype = rest.pop(0)
    if len(rest) > 2 or not all(isinstance(b, bool) for b in rest):
        raise invalid()
    if len(rest) == 2:
        raise RuntimeError(".to() does not accept copy argument")
    non_blocking = rest[0] if rest else bool(kwargs.get("non_blocking", False))
    dev = kwargs.get("device", dev)
    dtype = kwargs.get("dtype", dtype)
    if dev is not None and not isinstance(dev, _device):
        dev = _device(dev)
    return dev, dtype, non_blocking, kwargs.get("memory_format")


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


_TORCH_COMPILE = [None]  # torch.compile, which tinytorch/_dynamo (built on this file) registers as it loads


def _register_compile(compile_fn) -> None:
    """Name the ``torch.compile`` that ``Module.compile`` calls (``tinytorch/_dynamo/eval_frame.py`` does)."""
    _TORCH_COMPILE[0] = compile_fn


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
        for name, table in _TABLES:
            setattr_(self, name, table())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # -- calling ---------------------------------------------------------------------------------
    _compiled_call_impl = None  # set by compile(): the compiled form of _call_impl that calls go through

    def _wrapped_call_impl(self, *args, **kwargs):
        if self._compiled_call_impl is not None:
            return self._compiled_call_impl(*args, **kwargs)
        return self._call_impl(*args, **kwargs)

    __call__ = _wrapped_call_impl

    def compile(self, *args, **kwargs) -> None:
        """Compile this module's calls in place (PyTorch's ``Module.compile``): from now on a call runs
        ``torch.compile(self._call_impl, *args, **kwargs)``. Unlike ``torch.compile(module)`` the module stays
        itself: no ``OptimizedModule`` wrapper, no ``_orig_mod.`` prefix in ``state_dict``."""
        self._compiled_call_impl = _TORCH_COMPILE[0](self._call_impl, *args, **kwargs)

    def _call_impl(self, *args, **kwargs):
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
        for table in ("_parameters", "_buffers", "_modules"):
            members = d.get(table)
            if members is not None and name in members:
                value = members[name]
                if table != "_modules" and _Active.transforms and _State.tracer is not None:
                    return _State.tracer.alias(value)  # an ONNX export in this thread
                return value
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

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)  # compile()'s compiled call is not pickled or copied, as in PyTorch
        return state

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

    # -- walking the tree ------------------------------------------------------------------------
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
        watch = _State.step_watch
        if watch is not None:  # a capture in this thread (tinytorch/_dynamo/train_step.py)
            return watch(self, "zero_grad", lambda: self._zero_grad(set_to_none), (set_to_none,))
        return self._zero_grad(set_to_none)

    def _zero_grad(self, set_to_none: bool) -> None:
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

    # -- saving -----------------------------------------------------------------------------------
    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if _has_extra_state(self):
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """An OrderedDict of parameters and persistent buffers under dotted names, detached, sharing storage."""
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict "
                          "for details.", FutureWarning, stacklevel=2)
            names = ("destination", "prefix", "keep_vars")
            given = dict(zip(names, args))
            destination = given.get("destination", destination)
            prefix = given.get("prefix", prefix)
            keep_vars = given.get("keep_vars", keep_vars)
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            if hook(self, destination, prefix, local_metadata) is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    # -- loading ----------------------------------------------------------------------------------
    def _load_from_state_dict(self, state_dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        assign = local_metadata.get("assign_to_params_buffers", False)
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        local_state.update((k, v) for k, v in self._buffers.items()
                           if v is not None and k not in self._non_persistent_buffers_set)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected tinytorch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(value)}")
                continue
            if param.ndim == 0 and value.ndim == 1 and value.shape[0] == 1:
                value = value[0]  # checkpoints from before 0-dim tensors stored scalars as [1]
            if value.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                                  f"the shape in current model is {param.shape}.")
                continue
            try:
                with no_grad():
                    if _future.get_swap_module_params_on_conversion():
                        _swap_in_loaded(param, value, assign)
                    elif assign:
                        if isinstance(param, Parameter):
                            if isinstance(value, Parameter):
                                value.requires_grad_(param.requires_grad)
                            else:
                                value = Parameter(value, requires_grad=param.requires_grad)
                        setattr(self, name, value)
                    else:
                        param.copy_(value)
            except Exception as ex:
                action = "swapping" if _future.get_swap_module_params_on_conversion() else "copying"
                error_msgs.append(f'While {action} the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.size()} and whose dimensions in the checkpoint are {value.size()}, an "
                                  f"exception occurred : {ex.args}.")
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if _has_extra_state(self):
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if not key.startswith(prefix) or key == extra_key:
                    continue
                head, dot, _ = key[len(prefix):].partition(".")
                # a dotted key must name a child module; a plain one, a local tensor
                if (dot and head not in self._modules) or (not dot and head not in local_state):
                    unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping, strict: bool = True, assign: bool = False):
        """Copy tensors from ``state_dict`` into this module's parameters and buffers, in place."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list = []
        unexpected: list = []
        errors: list = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        keys = _IncompatibleKeys(missing, unexpected)

        def load(module, local, prefix: str) -> None:
            local_metadata = dict(metadata.get(prefix[:-1], {})) if metadata is not None else {}
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(local, prefix, local_metadata, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local.items() if k.startswith(child_prefix)}, child_prefix)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, keys) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if incompatible_keys need to be modified, "
                                         "it should be done inplace.")

        load(self, state_dict, "")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__,
                                                                                     "\n\t".join(errors)))
        return keys

    # -- conversion -------------------------------------------------------------------------------
    def _apply(self, fn, recurse: bool = True):
        """Replace every parameter's and buffer's data with ``fn`` of it; parameters keep their identity."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        swap = _future.get_swap_module_params_on_conversion()
        with no_grad():
            for key, param in self._parameters.items():
                if param is None:
                    continue
                new = fn(param)
                grad = param._grad
                if swap:  # the converted tensor swapped into the parameter's object (a subclass's payload follows)
                    try:
                        param._grad = None
                        swap_tensors(param, Parameter(new, requires_grad=param.requires_grad))
                    except Exception as e:
                        param._grad = grad
                        raise RuntimeError(f"_apply(): Couldn't swap {self._get_name()}.{key}") from e
                elif new is not param:
                    param.data = new
                if grad is not None:
                    new_grad = fn(grad)
                    if swap:
                        swap_tensors(grad, new_grad)
                        param._grad = grad
                    elif new_grad is not grad:
                        grad.data = new_grad
            for key, buf in self._buffers.items():
                if buf is not None:
                    self._buffers[key] = fn(buf)
        return self

    def to_empty(self, *, device=None, recurse: bool = True):
        """Every parameter and buffer replaced by an uninitialised tensor of its shape and dtype, on ``device``
        (the CPU, or the meta device): how a model built on the meta device gets real storage."""
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)


    def to(self, *args, **kwargs):
        """Cast floating-point parameters and buffers to a dtype, and move them to the meta device (or keep
        them on the CPU; other devices raise, a meta module refuses to come back: "no data")."""
        dev, dtype, _, _ = parse_to(*args, **kwargs)
        if dev is not None and not _meta_data.is_meta_device(dev):
            _require_cpu(dev)  # raises for anything but the CPU and the meta device
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")
        if dev is not None:
            def move(t):
                t = t.to(dtype) if dtype is not None and t.is_floating_point() else t
                return t.to(dev)
            return self._apply(move)
        if dtype is None:
            return self
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self):
        """Cast floating-point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Cast floating-point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def bfloat16(self):
        """Cast floating-point parameters and buffers to bfloat16."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def half(self):
        """Cast floating-point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def type(self, dst_type):
        """Cast all parameters and buffers to ``dst_type``."""
        return self._apply(lambda t: t.type(dst_type))

    def cpu(self):
        """Everything already lives on the CPU; returns self."""
        return self

    def cuda(self, device=None):
        raise AssertionError("Torch not compiled with CUDA enabled")

    def share_memory(self):
        return self

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

