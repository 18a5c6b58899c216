"""``tinytorch.amp.GradScaler``: PyTorch's loss scaling on the CPU. ``scale`` multiplies the loss,
``unscale_`` divides the gradients back and records whether any is inf/nan, ``step`` skips the
optimizer step when one was, and ``update`` grows the scale after ``growth_interval`` clean steps or
backs it off after an overflow. ``device='cuda'`` (the default) without CUDA disables it with
PyTorch's warning, and a disabled scaler passes everything through."""
from __future__ import annotations

import math
import warnings
from collections import defaultdict
from enum import Enum

import numpy as np

# whether CUDA is there is the accelerator's question (tinytorch.cuda builds its deprecated amp spelling on this
# package, so this package does not ask it)
from .. import accelerator as _accelerator
from .._quiet_fp import cast
from ..tensor import Tensor, _make


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state():
    return {"stage": OptState.READY, "found_inf": None}


class GradScaler:
    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled and not _accelerator.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None  # a float32 value, made on the first scale() as PyTorch's lazy tensor
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_fresh_state)

    def _check_scale_growth_tracker(self, funcname: str):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)

    def scale(self, outputs):
        """``outputs`` (a tensor, or nested lists/tuples of them) times the current scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = float(np.float32(self._init_scale))
            self._growth_tracker = self._init_growth_tracker

        def apply(value):
            if isinstance(value, Tensor):
                return value * _make(np.array(self._scale, dtype=np.float32))
            if isinstance(value, (list, tuple)):
                return type(value)(apply(v) for v in value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply(outputs)

    def _unscale_grads(self, optimizer, inv_scale: float, allow_fp16: bool) -> bool:
        found_inf = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if not allow_fp16 and p.grad.dtype.name == "float16":
                    raise ValueError("Attempting to unscale FP16 gradients.")
                g = p.grad._data
                g *= np.asarray(inv_scale, dtype=g.dtype)
                if not np.isfinite(g).all():
                    found_inf = True
        return found_inf

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale, in place (once per step)."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = float(np.float32(1.0 / np.float64(self._scale)))
        state["found_inf"] = self._unscale_grads(optimizer, inv_scale, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` unless the unscaled gradients held an inf or nan (then None)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if state["found_inf"] is None:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None) -> None:
        """Back the scale off after an overflow, grow it after ``growth_interval`` clean steps."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale = float(np.float32(new_scale))
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if not (isinstance(new_scale, Tensor) and new_scale.numel() == 1 and not new_scale.requires_grad):
                    raise AssertionError(reason)
                self._scale = float(np.float32(new_scale.item()))
        else:
            found = [s["found_inf"] for s in self._per_optimizer_states.values() if s["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(found):
                self._scale = float(np.float32(self._scale * self._backoff_factor))
                self._growth_tracker = 0
            else:
                successful = self._growth_tracker + 1
                if successful == self._growth_interval:
                    grown = float(cast(np.float64(self._scale * self._growth_factor), np.float32))  # inf: kept
                    if math.isfinite(grown):
                        self._scale = grown
                    self._growth_tracker = 0
                else:
                    self._growth_tracker = successful
        self._per_optimizer_states = defaultdict(_fresh_state)

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale = float(np.float32(state_dict["scale"]))
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker = state_dict["_growth_tracker"]
