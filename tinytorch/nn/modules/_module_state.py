"""Module methods that move state: state_dict / load_state_dict and dtype conversion (``to``).

They are bound into ``Module``'s class body (module.py), so ``self`` is always a Module.
Loading copies into the existing tensors under no_grad, so an optimizer holding the parameters
keeps working; conversion swaps a parameter's data in place, so the Parameter objects survive."""
from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import _dtype
from ...autograd.grad_mode import no_grad
from ...factory import empty_like
from ... import _meta_data
from ..._size import _require_cpu
from ...tensor import Tensor, device as _device
from ..parameter import Parameter
from ... import __future__ as _future
from ...utils._swap import swap_tensors

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


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
    from .module import Module
    return type(module).get_extra_state is not Module.get_extra_state


# -- saving ---------------------------------------------------------------------------------------
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


# -- loading --------------------------------------------------------------------------------------
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
            error_msgs.append(f'While copying the parameter named "{key}", expected tinytorch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(value)}")
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
                raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not expected "
                                     "to return new values, if incompatible_keys need to be modified, it should be "
                                     "done inplace.")

    load(self, state_dict, "")
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
    if errors:
        raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__,
                                                                                 "\n\t".join(errors)))
    return keys


# -- conversion -----------------------------------------------------------------------------------
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


def to(self, *args, **kwargs):
    """Cast floating-point parameters and buffers to a dtype, and move them to the meta device (or keep
    them on the CPU; other devices raise, a meta module refuses to come back: "no data")."""
    dev, dtype, _, _ = parse_to(*args, **kwargs)
    if dev is not None and not _meta_data.is_meta_device(dev):
        _require_cpu(dev)  # raises for anything but the CPU and the meta device
    if dtype is not None and not dtype.is_floating_point:
        raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={dtype}")
    if dev is not None:
        def move(t):
            t = t.to(dtype) if dtype is not None and t.is_floating_point() else t
            return t.to(dev)
        return self._apply(move)
    if dtype is None:
        return self
    return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)


def to_float(self):
    """Cast floating-point parameters and buffers to float32."""
    return self._apply(lambda t: t.float() if t.is_floating_point() else t)


def to_double(self):
    """Cast floating-point parameters and buffers to float64."""
    return self._apply(lambda t: t.double() if t.is_floating_point() else t)


def to_bfloat16(self):
    """Cast floating-point parameters and buffers to bfloat16."""
    return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)


def to_half(self):
    """Cast floating-point parameters and buffers to float16."""
    return self._apply(lambda t: t.half() if t.is_floating_point() else t)


def to_type(self, dst_type):
    """Cast all parameters and buffers to ``dst_type``."""
    return self._apply(lambda t: t.type(dst_type))


def cpu(self):
    """Everything already lives on the CPU; returns self."""
    return self


def cuda(self, device=None):
    raise AssertionError("Torch not compiled with CUDA enabled")


def share_memory(self):
    return self
