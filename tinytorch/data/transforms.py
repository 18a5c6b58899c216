"""torchvision-style transforms: ``ToTensor``, ``Normalize``, ``Compose``, ``Lambda``.

Besides the per-image call, ``ToTensor``, ``Normalize`` and a ``Compose`` of such offer a private
``_batch(images)`` that transforms a whole stacked batch in a few numpy calls, with results equal
to the per-image calls stacked. ``_batch`` returns ``NotImplemented`` for input it cannot take; the
dataset then falls back to per-image calls, so errors and values are always the per-image ones."""
from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

import numpy as np

from .. import _dtype
from ._tensors import Tensor, wrap

__all__ = ["Compose", "ToTensor", "Normalize", "Lambda", "to_tensor", "normalize"]


class ImageBatch:
    """N single-channel 8-bit images as one uint8 N x H x W array: what N PIL "L" images hold."""

    __slots__ = ("pixels",)

    def __init__(self, pixels: np.ndarray) -> None:
        self.pixels = pixels


def _is_pil_image(x) -> bool:
    image_module = sys.modules.get("PIL.Image")  # never import PIL just to ask
    return image_module is not None and isinstance(x, image_module.Image)


def _pil_to_hwc(pic) -> np.ndarray:
    # the numpy dtypes torchvision reads each PIL mode as; everything else is 8 bits per channel
    wide = {"I": np.int32, "F": np.float32,
            "I;16": np.int16 if sys.byteorder == "little" else np.dtype(">i2")}
    arr = np.array(pic, dtype=wide.get(pic.mode, np.uint8), copy=True)
    if pic.mode == "1":
        arr = 255 * arr
    return arr.reshape(pic.size[1], pic.size[0], len(pic.getbands()))


def _bytes_to_float(chw: np.ndarray) -> np.ndarray:
    return chw.astype(_dtype.get_default_dtype().np) / np.float32(255)


class ToTensor:
    """PIL image or H x W (x C) array -> C x H x W tensor; uint8 scaled to [0, 1], others kept."""

    def __call__(self, pic) -> Tensor:
        if not (_is_pil_image(pic) or isinstance(pic, np.ndarray)):
            raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
        if isinstance(pic, np.ndarray):
            if pic.ndim not in (2, 3):
                raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
            hwc = pic[:, :, None] if pic.ndim == 2 else pic
        else:
            hwc = _pil_to_hwc(pic)
        chw = np.ascontiguousarray(hwc.transpose(2, 0, 1))
        return wrap(_bytes_to_float(chw) if chw.dtype == np.uint8 else chw)

    def _batch(self, images):
        if type(images) is not ImageBatch:
            return NotImplemented
        return wrap(_bytes_to_float(images.pixels[:, None, :, :]))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _broadcast_error(a: tuple, b: tuple) -> RuntimeError:
    """PyTorch's message for shapes that do not broadcast, naming the first clash from the right."""
    n = max(len(a), len(b))
    a_full, b_full = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    for dim in range(n - 1, -1, -1):
        if a_full[dim] != b_full[dim] and 1 not in (a_full[dim], b_full[dim]):
            return RuntimeError(f"The size of tensor a ({a_full[dim]}) must match the size of "
                                f"tensor b ({b_full[dim]}) at non-singleton dimension {dim}")
    return RuntimeError(f"shapes {list(a)} and {list(b)} do not broadcast")


class Normalize:
    """``(tensor - mean) / std`` per channel of a (..., C, H, W) float tensor."""

    def __init__(self, mean: Sequence[float], std: Sequence[float], inplace: bool = False) -> None:
        self.mean = mean
        self.std = std
        self.inplace = inplace

    def __call__(self, tensor: Tensor) -> Tensor:
        if not isinstance(tensor, Tensor):
            raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
        if not tensor.dtype.is_floating_point:
            raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
        if tensor.ndim < 3:
            raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). Got "
                             f"tensor.size() = {tensor.shape}")
        x = tensor._data
        mean = np.asarray(self.mean, dtype=x.dtype)
        std = np.asarray(self.std, dtype=x.dtype)
        if (std == 0).any():
            raise ValueError(f"std evaluated to zero after conversion to {tensor.dtype}, leading "
                             "to division by zero.")
        if mean.ndim == 1:
            mean = mean.reshape(-1, 1, 1)
        if std.ndim == 1:
            std = std.reshape(-1, 1, 1)
        for stat in (mean, std):
            try:
                out_shape = np.broadcast_shapes(x.shape, stat.shape)
            except ValueError:
                raise _broadcast_error(x.shape, stat.shape) from None
            if out_shape != x.shape:
                raise RuntimeError(f"output with shape {list(x.shape)} doesn't match the broadcast "
                                   f"shape {list(out_shape)}")
        if self.inplace:
            np.subtract(x, mean, out=x)
            np.divide(x, std, out=x)
            return tensor
        return wrap((x - mean) / std)

    def _batch(self, images):
        # per-image inputs are C x H x W, so a stacked N x C x H x W batch broadcasts the same way
        if not isinstance(images, Tensor) or images.ndim != 4:
            return NotImplemented
        return self(images)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(mean={self.mean}, std={self.std})"


class Lambda:
    """Wraps any function of one image as a transform (and so has no batched form)."""

    def __init__(self, lambd: Callable) -> None:
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Compose:
    """Applies ``transforms`` one after the other."""

    def __init__(self, transforms: Sequence[Callable]) -> None:
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def _batch(self, images):
        steps = [getattr(t, "_batch", None) for t in self.transforms]
        if any(step is None for step in steps):
            return NotImplemented
        for step in steps:
            images = step(images)
            if images is NotImplemented:
                return NotImplemented
        return images

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__}("]
        lines += [f"    {t}" for t in self.transforms]
        return "\n".join(lines) + "\n)"


def batch_transform(transform, images: ImageBatch):
    """``transform`` applied to a whole batch at once; NotImplemented if it has no batched form."""
    if transform is None:
        return NotImplemented
    step = getattr(transform, "_batch", None)
    return NotImplemented if step is None else step(images)


def to_tensor(pic) -> Tensor:
    """Functional form of ``ToTensor``."""
    return ToTensor()(pic)


def normalize(tensor: Tensor, mean: Sequence[float], std: Sequence[float],
              inplace: bool = False) -> Tensor:
    """Functional form of ``Normalize``."""
    return Normalize(mean, std, inplace)(tensor)
