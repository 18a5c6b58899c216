"""The optimizer base class: parameter groups, per-parameter state, and checkpointing of both.

Subclasses hold only bookkeeping; the arithmetic lives in a pure update function per algorithm
(``sgd``, ``adam``) that works on the numpy arrays in place, as PyTorch splits ``SGD`` from
``sgd``."""
from __future__ import annotations

import copy
import functools
import warnings
from collections import defaultdict
from itertools import chain
from typing import Any, Callable, Iterable

import numpy as np

from .._dtype import FLOATING_NP
from ..autograd.grad_mode import NO_VERSION, _INPLACE_MSG, _State, version_counter
from ..tensor import Tensor, _make

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks a hyper-parameter that every parameter group must set itself."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj: Any) -> str:
    """The type name PyTorch's messages use: ``tinytorch.FloatTensor``, ``int``, ``list``."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qualname is None:
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _to_scalar(x: Any) -> float:
    """A hyper-parameter as a Python float: numpy rounds it to the array's dtype, never widens."""
    if isinstance(x, Tensor):
        if x.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        return float(x._data.reshape(()))
    return float(x)


def _wrap(arr: np.ndarray) -> Tensor:
    """A fresh state tensor around an array the optimizer owns."""
    return _make(arr)


def _copy_tensor(t: Tensor, dtype: np.dtype | None = None) -> Tensor:
    """A detached copy (optionally cast), sharing nothing with ``t``."""
    cast = dtype is not None and t._data.dtype != dtype
    data = t._data.astype(dtype) if cast else t._data.copy()
    return _make(data)


def _clone_state(value: Any) -> Any:
    """Deep copy of a state entry: tensors copied, containers rebuilt, other values kept."""
    if isinstance(value, Tensor):
        return _copy_tensor(value)
    if isinstance(value, dict):
        return {k: _clone_state(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_clone_state(v) for v in value)
    return value


def _refuse_inference_params(opt) -> None:
    """PyTorch's error for updating an inference tensor in place outside inference mode, raised before
    any parameter is written (the update kernels write numpy arrays before bumping versions)."""

    for group in opt.param_groups:
        for p in group["params"]:
            if p._vc is NO_VERSION and p.grad is not None:
                raise RuntimeError(_INPLACE_MSG)


def _step_without_grad(step: Callable) -> Callable:
    """Run ``step`` with graph recording off, as PyTorch does for non-differentiable optimizers."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        watch = _State.step_watch
        if watch is not None:  # a capture in this thread (tinytorch/_dynamo/train_step.py)
            return watch(self, "step", lambda: _graphless(step, self, args, kwargs), (*args, *kwargs.values()))
        return _graphless(step, self, args, kwargs)

    return wrapper


def _graphless(step: Callable, self, args: tuple, kwargs: dict):
    if not _State.inference:
        _refuse_inference_params(self)
    prev = _State.enabled
    _State.enabled = False
    try:
        return step(self, *args, **kwargs)
    finally:
        _State.enabled = prev


class Optimizer:
    """Base class of all optimizers: ``param_groups``, ``state``, ``zero_grad``, checkpoints."""

    def __init__(self, params: Iterable, defaults: dict[str, Any]) -> None:
        """Split ``params`` (tensors, or dicts of options) into groups; fill in ``defaults``."""
        self.defaults = defaults
        if defaults.get("differentiable", False):
            raise NotImplementedError("tinytorch optimizers update parameters outside autograd; "
                                      "differentiable=True is not supported")
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + _typename(params))
        self.state: defaultdict[Tensor, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Append a group of parameters with its own options (the rest from ``defaults``)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                            "the ordering of tensors in sets will change between runs. Please use "
                            "a list instead.")
        else:
            params = list(params)
        # PyTorch also accepts (name, tensor) pairs, as named_parameters() yields them
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        param_group["params"] = params
        if names:
            if len(names) != len(params):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names

        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(param))
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required optimization "
                                 f"parameter {name}")
            param_group.setdefault(name, default)

        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)

        seen: set[Tensor] = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not seen.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients: set them to None (default) or fill them with zeros."""
        watch = _State.step_watch
        if watch is not None:  # a capture in this thread (tinytorch/_dynamo/train_step.py)
            return watch(self, "zero_grad", lambda: self._zero_grad(set_to_none), (set_to_none,))
        return self._zero_grad(set_to_none)

    def _zero_grad(self, set_to_none: bool) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad._data[...] = 0
                version_counter(grad)[0] += 1

    def step(self, closure: Callable[[], Any] | None = None):
        """Update the parameters once; subclasses implement it."""
        raise NotImplementedError

    # -- checkpoints -------------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}``, copies."""
        index_of: dict[int, int] = {}
        packed_groups = []
        start = 0
        for group in self.param_groups:
            packed = {k: copy.deepcopy(v) for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                index_of.setdefault(id(p), i)
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            start += len(packed["params"])
            packed_groups.append(packed)
        # a checkpoint must not change when training goes on, so tensors are copied, not shared
        packed_state = {(index_of[id(k)] if isinstance(k, Tensor) else k): _clone_state(v)
                        for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": packed_groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore ``state_dict()``'s output: group options; state copied, cast per parameter."""
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the "
                             "size of optimizer's group")
        param_of = dict(zip(chain.from_iterable(s["params"] for s in saved_groups),
                            chain.from_iterable(g["params"] for g in groups)))

        state: defaultdict[Any, Any] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                param = param_of[key]
                keep_step = self._keeps_step_dtype(key, saved_groups)
                state[param] = _cast_state(param, value, None, keep_step)
            else:
                state[key] = value

        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})

    @staticmethod
    def _keeps_step_dtype(param_id: Any, saved_groups: list[dict]) -> bool:
        """PyTorch keeps ``step`` as saved unless the group is fused or capturable."""
        for group in saved_groups:
            if param_id in group["params"]:
                return not (group.get("fused", False) or group.get("capturable", False))
        return True


def _cast_state(param: Tensor, value: Any, key: Any, keep_step: bool) -> Any:
    """Copy a saved state entry for ``param``: float tensors take its dtype, ``step`` is kept."""
    if isinstance(value, Tensor):
        if key == "step":
            return _copy_tensor(value, None if keep_step else np.dtype(np.float32))
        if param._data.dtype in FLOATING_NP:
            return _copy_tensor(value, param._data.dtype)
        return _copy_tensor(value)
    if isinstance(value, dict):
        return {k: _cast_state(param, v, k, keep_step) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v, None, keep_step) for v in value)
    return value
