"""torchvision's operators as tinytorch registers them (``tinytorch/_vision_ops.py``), checked without
torchvision: nms against a greedy reference in PyTorch, roi_align/ps_roi_align against a scalar transcription
of the CPU kernel's arithmetic in PyTorch float32, roi_pool/ps_roi_pool against region max/means,
deform_conv2d against PyTorch's conv2d (zero and integer offsets), every backward against finite differences
in float64, and the image operators round-tripping through Pillow."""
from __future__ import annotations

import math

import numpy as np
import pytest

import tinytorch
from tinytorch import _vision_ops as V


def T(a):
    return tinytorch.from_numpy(np.ascontiguousarray(a))


def boxes_scores(rng, n, dtype=np.float32):
    xy = rng.uniform(0, 50, (n, 2))
    wh = rng.uniform(1, 30, (n, 2))
    return np.concatenate([xy, xy + wh], 1).astype(dtype), rng.uniform(0, 1, n).astype(dtype)


def test_nms_against_greedy_reference(torch):
    rng = np.random.default_rng(0)
    for n, thr in ((0, 0.5), (1, 0.5), (60, 0.3), (200, 0.5), (200, 0.7)):
        b, s = boxes_scores(rng, n)
        s[:n // 4] = s[n // 2:n // 2 + n // 4]  # ties: the stable descending sort decides
        tb, ts = torch.from_numpy(b), torch.from_numpy(s)
        order = torch.sort(ts, descending=True, stable=True).indices
        area = (tb[:, 2] - tb[:, 0]) * (tb[:, 3] - tb[:, 1])
        keep, dead = [], torch.zeros(n, dtype=torch.bool)
        for i in order.tolist():
            if dead[i]:
                continue
            keep.append(i)
            lt = torch.maximum(tb[i, :2], tb[:, :2])
            rb = torch.minimum(tb[i, 2:], tb[:, 2:])
            wh = (rb - lt).clamp(min=0)
            inter = wh[:, 0] * wh[:, 1]
            dead |= (inter / (area[i] + area - inter)).double() > thr
        got = V.nms(T(b), T(s), thr)
        assert got.dtype == tinytorch.int64 and got.tolist() == keep


def _roi_align_ref(torch, x, rois, scale, ph, pw, sr, aligned):
    """The CPU kernel's loops, one float32 scalar at a time (torch.float32 0-d tensors)."""
    f = lambda v: torch.tensor(v, dtype=torch.float32)  # noqa: E731
    K, (_, C, H, W) = rois.shape[0], x.shape
    out = torch.zeros(K, C, ph, pw)
    scale = f(scale)
    for n in range(K):
        r = rois[n]
        b = int(r[0])
        off = f(0.5 if aligned else 0.0)
        sw, sh, ew, eh = r[1] * scale - off, r[2] * scale - off, r[3] * scale - off, r[4] * scale - off
        rw, rh = ew - sw, eh - sh
        if not aligned:
            rw, rh = torch.maximum(rw, f(1.)), torch.maximum(rh, f(1.))
        bh, bw = rh / f(ph), rw / f(pw)
        gh = sr if sr > 0 else int(math.ceil(float(rh / f(ph))))
        gw = sr if sr > 0 else int(math.ceil(float(rw / f(pw))))
        count = f(max(gh * gw, 1))
        for c in range(C):
            for py in range(ph):
                for px in range(pw):
                    acc = f(0.)
                    for iy in range(gh):
                        y = sh + f(py) * bh + f(iy + .5) * bh / f(gh)
                        for ix in range(gw):
                            xx = sw + f(px) * bw + f(ix + .5) * bw / f(gw)
                            if not (y >= -1.0 and y <= H and xx >= -1.0 and xx <= W):
                                acc = acc + f(0.) * x[b, c, 0, 0]
                                continue
                            yy, xv = torch.clamp(y, min=0), torch.clamp(xx, min=0)
                            yl, xl = int(yy), int(xv)
                            if yl >= H - 1:
                                yl = yhh = H - 1
                                yy = f(yl)
                            else:
                                yhh = yl + 1
                            if xl >= W - 1:
                                xl = xhh = W - 1
                                xv = f(xl)
                            else:
                                xhh = xl + 1
                            ly, lx = yy - f(yl), xv - f(xl)
                            hy, hx = f(1.) - ly, f(1.) - lx
                            v = hy * hx * x[b, c, yl, xl] + hy * lx * x[b, c, yl, xhh]
                            v = v + ly * hx * x[b, c, yhh, xl]
                            v = v + ly * lx * x[b, c, yhh, xhh]
                            acc = acc + v
                    out[n, c, py, px] = acc / count
    return out


def _rois(rng, k, batch, size, dtype=np.float32):
    xy = rng.uniform(-3, size, (k, 2))
    wh = rng.uniform(0.2, size / 1.5, (k, 2))
    idx = rng.integers(0, batch, (k, 1))
    return np.concatenate([idx, xy, xy + wh], 1).astype(dtype)


@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("sampling_ratio", [-1, 2])
def test_roi_align_against_the_kernels_arithmetic(torch, aligned, sampling_ratio):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 2, 9, 11)).astype(np.float32)
    rois = _rois(rng, 5, 2, 10)
    ref = _roi_align_ref(torch, torch.from_numpy(x), torch.from_numpy(rois), 0.75, 3, 2, sampling_ratio, aligned)
    got = V.roi_align(T(x), T(rois), 0.75, 3, 2, sampling_ratio, aligned).numpy()
    np.testing.assert_allclose(got, ref.numpy(), rtol=2e-6, atol=2e-6)


def _numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(*x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


def test_roi_ops_backward_against_finite_differences():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 8, 7, 6))
    rois = _rois(rng, 4, 2, 6, np.float64)
    w = rng.standard_normal((4, 8, 2, 2))
    f = lambda a: float((V.roi_align(T(a), T(rois), 1.0, 2, 2, 2, True).numpy() * w).sum())  # noqa: E731
    got = V._roi_align_backward(T(w), T(rois), 1.0, 2, 2, 2, 8, 7, 6, 2, True).numpy()
    np.testing.assert_allclose(got, _numeric_grad(f, x), atol=1e-6)
    wp = rng.standard_normal((4, 2, 2, 2))
    f = lambda a: float((V.ps_roi_align(T(a), T(rois), 1.0, 2, 2, 2)[0].numpy() * wp).sum())  # noqa: E731
    mapping = V.ps_roi_align(T(x), T(rois), 1.0, 2, 2, 2)[1]
    got = V._ps_roi_align_backward(T(wp), T(rois), mapping, 1.0, 2, 2, 2, 2, 8, 7, 6).numpy()
    np.testing.assert_allclose(got, _numeric_grad(f, x), atol=1e-6)
    out, arg = V.roi_pool(T(x), T(rois), 1.0, 2, 2)
    f = lambda a: float((V.roi_pool(T(a), T(rois), 1.0, 2, 2)[0].numpy() * w).sum())  # noqa: E731
    got = V._roi_pool_backward(T(w), T(rois), arg, 1.0, 2, 2, 2, 8, 7, 6).numpy()
    np.testing.assert_allclose(got, _numeric_grad(f, x), atol=1e-6)


def test_roi_pool_and_ps_roi_pool_against_regions(torch):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 4, 8, 8)).astype(np.float32)
    rois = np.array([[0, 1, 1, 6, 5], [0, 0, 0, 7, 7], [0, 3.4, 2.6, 3.4, 2.6]], dtype=np.float32)
    out, arg = V.roi_pool(T(x), T(rois), 1.0, 2, 2)
    tx = torch.from_numpy(x)
    # roi 0: x 1..6, y 1..5 (inclusive, rounded) split in 2x2 bins of ceil/floor bounds
    region = tx[0, :, 1:4, 1:4].reshape(4, -1)
    assert np.allclose(out.numpy()[0, :, 0, 0], region.max(1).values.numpy())
    assert arg.dtype == tinytorch.int32 and (arg.numpy() >= 0).all()
    po, mapping = V.ps_roi_pool(T(x), T(rois), 1.0, 2, 2)
    assert po.shape == (3, 1, 2, 2) and mapping.numpy()[0].ravel().tolist() == [0, 1, 2, 3]
    # roi 1: 7x7 in bins [0, 4) x [0, 4) ... (clipped to 7 in the forward kernel); channel c_in = ph * 2 + pw
    np.testing.assert_allclose(po.numpy()[1, 0, 0, 0], tx[0, 0, 0:4, 0:4].mean().item(), rtol=1e-6)
    np.testing.assert_allclose(po.numpy()[1, 0, 1, 1], tx[0, 3, 3:7, 3:7].mean().item(), rtol=1e-6)


def test_deform_conv2d_is_conv2d_for_zero_and_integer_offsets(torch):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 4, 7, 8)).astype(np.float32)
    w = rng.standard_normal((6, 2, 3, 3)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    off = np.zeros((2, 2 * 2 * 9, 7, 8), dtype=np.float32)
    mask = np.ones((2, 2 * 9, 7, 8), dtype=np.float32)
    got = V.deform_conv2d(T(x), T(w), T(off), T(mask), T(b), 1, 1, 1, 1, 1, 1, 2, 2, True).numpy()
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), 1, 1, 1, 2)
    np.testing.assert_allclose(got, ref.numpy(), rtol=1e-5, atol=1e-5)
    # every tap one row further down: output row y reads rows y..y+2 (zero past the image), columns as padding 1
    off[:, 0::2] = 1.0
    got = V.deform_conv2d(T(x), T(w), T(off), T(mask), T(b), 1, 1, 1, 1, 1, 1, 2, 2, False).numpy()
    padded = torch.nn.functional.pad(torch.from_numpy(x), (1, 1, 0, 2))
    ref = torch.nn.functional.conv2d(padded, torch.from_numpy(w), torch.from_numpy(b), 1, 0, 1, 2)
    np.testing.assert_allclose(got, ref.numpy(), rtol=1e-5, atol=1e-5)


def test_deform_conv2d_backward_against_finite_differences():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 2, 5, 5))
    w = rng.standard_normal((2, 2, 2, 2))
    b = rng.standard_normal(2)
    off = rng.uniform(-1.3, 1.3, (1, 2 * 4, 4, 4))
    mask = rng.uniform(0.2, 1.0, (1, 4, 4, 4))
    g = rng.standard_normal((1, 2, 4, 4))

    def loss(x_=x, w_=w, o_=off, m_=mask, b_=b):
        return float((V.deform_conv2d(T(x_), T(w_), T(o_), T(m_), T(b_), 1, 1, 0, 0, 1, 1, 1, 1, True).numpy()
                      * g).sum())

    gi, gw, go, gm, gb = (t.numpy() for t in V._deform_conv2d_backward(T(g), T(x), T(w), T(off), T(mask), T(b),
                                                                      1, 1, 0, 0, 1, 1, 1, 1, True))
    np.testing.assert_allclose(gi, _numeric_grad(lambda a: loss(x_=a), x), atol=1e-5)
    np.testing.assert_allclose(gw, _numeric_grad(lambda a: loss(w_=a), w), atol=1e-5)
    np.testing.assert_allclose(go, _numeric_grad(lambda a: loss(o_=a), off), atol=1e-5)
    np.testing.assert_allclose(gm, _numeric_grad(lambda a: loss(m_=a), mask), atol=1e-5)
    np.testing.assert_allclose(gb, g.sum((0, 2, 3)), atol=1e-9)


def test_load_library_registers_torchvision_ops_and_image_codecs(tmp_path):
    pytest.importorskip("PIL")
    folder = tmp_path / "torchvision"
    folder.mkdir()
    for name in ("_C_stable.so", "image_stable.so"):
        (folder / name).write_bytes(b"")
        tinytorch.ops.load_library(str(folder / name))
    assert str(folder / "_C_stable.so") in tinytorch.ops.loaded_libraries
    b, s = boxes_scores(np.random.default_rng(6), 20)
    assert tinytorch.ops.torchvision.nms(T(b), T(s), 0.5).tolist() == V.nms(T(b), T(s), 0.5).tolist()
    assert tinytorch.ops.torchvision._cuda_version() == -1
    with pytest.raises(NotImplementedError, match="quantized tensors"):
        tinytorch.ops.torchvision.qnms(T(b), T(s), 0.5)
    img = tinytorch.from_numpy(np.random.default_rng(7).integers(0, 256, (3, 9, 11)).astype(np.uint8))
    png = tinytorch.ops.image.encode_png(img, 6)
    assert tinytorch.ops.image.decode_image(png, 0, False).tolist() == img.tolist()
    assert tinytorch.ops.image.decode_png(png, 1, False).shape == (1, 9, 11)
    path = str(tmp_path / "x.png")
    tinytorch.ops.image.write_file(path, png)
    assert tinytorch.ops.image.read_file(path).tolist() == png.tolist()
    smooth = np.add.outer(np.arange(9) * 20, np.arange(11) * 10)[None].repeat(3, 0).astype(np.uint8)
    img = tinytorch.from_numpy(smooth)
    jpg = tinytorch.ops.image.encode_jpeg(img, 95)
    back = tinytorch.ops.image.decode_jpeg(jpg, 0, False)
    assert back.shape == (3, 9, 11) and np.abs(back.numpy().astype(int) - smooth).max() < 8
