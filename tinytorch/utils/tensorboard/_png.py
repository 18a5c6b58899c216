"""Images for TensorBoard: layouts to HWC uint8, grids of images, PNG encoding (zlib only, no PIL)."""
from __future__ import annotations

import struct
import zlib

import numpy as np


def to_numpy(x) -> np.ndarray:
    """A tinytorch tensor, a PyTorch tensor, a number or an array as a numpy array (detached)."""
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        return np.asarray(x.detach().numpy())
    return np.asarray(x)


def encode_png(img: np.ndarray) -> bytes:
    """PNG bytes of an (H, W, C) uint8 image, C in 1 (gray), 3 (RGB), 4 (RGBA)."""
    h, w, c = img.shape
    color_type = {1: 0, 3: 2, 4: 6}[c]
    rows = np.concatenate([np.zeros((h, 1), np.uint8), np.ascontiguousarray(img, np.uint8).reshape(h, w * c)], 1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6))
            + chunk(b"IEND", b""))


def make_grid(images: np.ndarray, ncols: int = 8) -> np.ndarray:
    """NCHW images tiled row by row onto one CHW canvas (gray images become RGB)."""
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, 1)
    n, c, h, w = images.shape
    ncols = min(n, ncols)
    nrows = -(-n // ncols)
    canvas = np.zeros((c, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        r, col = divmod(i, ncols)
        canvas[:, r * h:(r + 1) * h, col * w:(col + 1) * w] = images[i]
    return canvas


def convert_to_hwc(tensor: np.ndarray, dataformats: str) -> np.ndarray:
    """Any of PyTorch's layouts (NCHW, NHWC, CHW, HWC, HW, ...) as one HWC image with 3 or 4 channels."""
    dataformats = dataformats.upper()
    if len(set(dataformats)) != len(dataformats):
        raise AssertionError(f"You can not use the same dimension shordhand twice.         input_format: {dataformats}")
    if tensor.ndim != len(dataformats):
        raise AssertionError(f"size of input tensor and input format are different.         "
                             f"tensor shape: {tensor.shape}, input_format: {dataformats}")
    if len(dataformats) == 4:
        nchw = tensor.transpose([dataformats.find(c) for c in "NCHW"])
        return make_grid(nchw).transpose(1, 2, 0)
    if len(dataformats) == 3:
        hwc = tensor.transpose([dataformats.find(c) for c in "HWC"])
        if hwc.shape[2] == 1:
            hwc = np.concatenate([hwc] * 3, 2)
        return hwc
    if len(dataformats) == 2:
        hw = tensor.transpose([dataformats.find(c) for c in "HW"])
        return np.stack([hw] * 3, 2)
    raise AssertionError(f"unsupported dataformats {dataformats}")


def to_uint8(tensor: np.ndarray) -> np.ndarray:
    """Floats in [0, 1] scaled to 0..255 (PyTorch's rule: uint8 images are taken as they are)."""
    scale = 1 if tensor.dtype == np.uint8 else 255
    return (tensor.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
