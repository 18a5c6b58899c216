"""Real torchvision, einops and torchmetrics, unchanged, on tinytorch: each case runs in an interpreter that has
them installed beside tinytorch WITHOUT PyTorch (tests/ecosystem/_ecosystem.py says which); skipped when there is
none. The script calls ``tinytorch.install_as_torch()`` and prints JSON; where PyTorch (and einops/torchmetrics)
are installed here, the same computation on PyTorch gives the numbers to compare with."""
from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
import textwrap

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from conftest import data_root  # noqa: E402
from _ecosystem import ecosystem_python, run_on_pytorch, run_on_tinytorch  # noqa: E402


def test_fashion_mnist_to_tensor_dataloader(tmp_path):
    raw = os.path.join(data_root(), "FashionMNIST", "raw")
    if not os.path.isdir(raw):
        pytest.skip("the shared FashionMNIST subset is not here")
    dest = tmp_path / "FashionMNIST" / "raw"
    dest.mkdir(parents=True)
    for name in os.listdir(raw):  # what torchvision's download leaves: the IDX files, unpacked
        if name.endswith(".gz"):
            with gzip.open(os.path.join(raw, name)) as f, open(dest / name[:-3], "wb") as g:
                shutil.copyfileobj(f, g)
    out = run_on_tinytorch(f"""
        from torchvision import datasets
        from torchvision.transforms import ToTensor
        from torch.utils.data import DataLoader
        ds = datasets.FashionMNIST({str(tmp_path)!r}, train=False, download=False, transform=ToTensor())
        x, y = next(iter(DataLoader(ds, batch_size=64)))
        print(json.dumps({{"n": len(ds), "shape": list(x.shape), "dtype": str(x.dtype), "sum": float(x.double().sum()),
                          "y": y.tolist(), "classes": ds.classes}}))
    """)
    import tinytorch
    from tinytorch.data import DataLoader, datasets
    from tinytorch.data.transforms import ToTensor

    ours = datasets.FashionMNIST(data_root(), train=False, download=False, transform=ToTensor())
    x, y = next(iter(DataLoader(ours, batch_size=64)))
    # under install_as_torch() the dtype prints as PyTorch prints it
    assert out["n"] == len(ours) and out["shape"] == list(x.shape) and out["dtype"] == "torch.float32"
    assert x.dtype == tinytorch.float32
    assert out["y"] == y.tolist() and out["sum"] == float(x.to(tinytorch.float64).sum())  # the IDX bytes, bit for bit
    assert out["classes"][9] == "Ankle boot"


def test_transforms_v1_v2_and_io():
    out = run_on_tinytorch("""
        import numpy as np
        from torchvision import transforms, tv_tensors
        from torchvision.transforms import v2
        from torchvision.io import decode_image, encode_png, encode_jpeg
        from torchvision.utils import make_grid
        from PIL import Image
        rng = np.random.default_rng(0)
        a = rng.integers(0, 256, (3, 40, 50)).astype(np.uint8)
        img = torch.from_numpy(a)
        res = {}
        res["resize_u8"] = transforms.Resize(20)(img).numpy().tolist()
        res["resize_f"] = transforms.Resize(20)(img.float() / 255).numpy().tolist()
        res["bicubic_u8"] = transforms.Resize((17, 23), interpolation=transforms.InterpolationMode.BICUBIC)(img).numpy().tolist()
        t1 = transforms.Compose([transforms.CenterCrop(28), transforms.ConvertImageDtype(torch.float),
                                 transforms.Normalize([0.5] * 3, [0.2] * 3)])
        res["compose"] = t1(img).numpy().tolist()
        pil = Image.fromarray(a.transpose(1, 2, 0))
        res["pil"] = transforms.Compose([transforms.Resize(16), transforms.ToTensor()])(pil).numpy().tolist()
        im = tv_tensors.Image(img)
        res["image_type"] = [type(im).__name__, str(im.dtype)]
        boxes = tv_tensors.BoundingBoxes([[2., 3., 20., 30.]], format="XYXY", canvas_size=(40, 50))
        out_im, out_boxes = v2.Compose([v2.Resize((20, 25)), v2.RandomHorizontalFlip(p=1.0),
                                        v2.ToDtype(torch.float32, scale=True)])(im, boxes)
        res["v2"] = [type(out_im).__name__, list(out_im.shape), out_boxes.tolist(), float(out_im.double().sum())]
        res["decode"] = bool((decode_image(encode_png(img)) == img).all())
        res["jpeg_shape"] = list(decode_image(encode_jpeg(img, quality=90)).shape)
        res["grid"] = list(make_grid(torch.rand(5, 3, 8, 8), nrow=3, padding=2).shape)
        print(json.dumps(res))
    """)
    assert out["image_type"] == ["Image", "torch.uint8"]
    assert out["v2"][0] == "Image" and out["v2"][1] == [3, 20, 25]
    assert out["v2"][2] == [[15.0, 1.5, 24.0, 15.0]]  # half the size, flipped
    assert out["decode"] and out["jpeg_shape"] == [3, 40, 50] and out["grid"] == [3, 22, 32]
    torch = pytest.importorskip("torch")
    # the same transforms' arithmetic on PyTorch: torchvision's v1 tensor resize interpolates in float32 (bicubic
    # clamped), then rounds back to uint8
    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, (3, 40, 50)).astype(np.uint8)
    t = torch.from_numpy(a)
    F = torch.nn.functional
    ref_u8 = F.interpolate(t[None].float(), size=(20, 25), mode="bilinear", antialias=True, align_corners=False)[0]
    # bit for bit on PyTorch's FMA builds, whose window walk tinytorch follows; elsewhere a float an ulp off .5
    # may round the other way
    from _paths import FMA_PATHS, running
    got, want = np.array(out["resize_u8"]), ref_u8.round().to(torch.uint8).numpy()
    if running(FMA_PATHS):
        np.testing.assert_array_equal(got, want)
    else:
        assert np.abs(got.astype(int) - want).max() <= 1
    ref_f = F.interpolate((t.float() / 255)[None], size=(20, 25), mode="bilinear", antialias=True, align_corners=False)[0]
    np.testing.assert_allclose(np.array(out["resize_f"]), ref_f.numpy(), atol=1e-6)
    ref_c = F.interpolate(t[None].float(), size=(17, 23), mode="bicubic", antialias=True, align_corners=False)[0]
    got, want = np.array(out["bicubic_u8"]), ref_c.clamp(0, 255).round().to(torch.uint8).numpy()
    if running(FMA_PATHS):
        np.testing.assert_array_equal(got, want)
    else:
        assert np.abs(got.astype(int) - want).max() <= 1
    crop = t[:, 6:34, 11:39].float() / 255
    np.testing.assert_allclose(np.array(out["compose"]), ((crop - 0.5) / 0.2).numpy(), rtol=1e-6, atol=1e-6)


MODELS = """
    import numpy as np
    from torchvision import models
    res = {}
    for name, kw, size in (("resnet18", {}, 32), ("mobilenet_v2", {}, 32), ("vit_b_16", {"image_size": 32}, 32)):
        torch.manual_seed(0)
        # eval: batch statistics of two images on a 1x1 map would amplify rounding past any tolerance
        m = getattr(models, name)(num_classes=10, **kw).eval()
        x = torch.from_numpy(np.random.default_rng(1).standard_normal((2, 3, size, size)).astype(np.float32))
        out = m(x)
        out.sum().backward()
        g = sum(float(p.grad.double().abs().sum()) for p in m.parameters() if p.grad is not None)
        path = f"{sys.argv[1]}/{name}.pt"
        torch.save(m.state_dict(), path)
        res[name] = {"out": out.tolist(), "gradsum": g, "state": path}
    print(json.dumps(res))
"""


def test_classification_models_forward_backward(tmp_path):
    python = ecosystem_python()
    if python is None:
        pytest.skip("no interpreter with torchvision beside tinytorch: see README, PyTorch's ecosystem")
    code = MODELS.replace("sys.argv[1]", repr(str(tmp_path)))
    out = run_on_tinytorch(code)
    for name, r in out.items():
        assert np.isfinite(np.array(r["out"])).all() and r["gradsum"] > 0, name
        assert np.array(r["out"]).shape == (2, 10)
    # the same state dicts and inputs on PyTorch, running the same torchvision package (its Python is the
    # models): torchvision 0.29.1's compiled extension does not load into PyTorch 2.13 here, so its operator
    # schemas are defined first (no kernels: classification models call none)
    pytest.importorskip("torch")
    theirs = run_on_pytorch(code.replace("torch.save(m.state_dict(), path)",
                                         "m.load_state_dict(torch.load(path)); m.zero_grad(); out = m(x); "
                                         "out.sum().backward(); g = sum(float(p.grad.double().abs().sum()) "
                                         "for p in m.parameters() if p.grad is not None)")
                            .replace('"state": path', '"state": path'))
    for name, r in out.items():
        np.testing.assert_allclose(np.array(r["out"]), np.array(theirs[name]["out"]), rtol=1e-4, atol=1e-5,
                                   err_msg=name)
        np.testing.assert_allclose(r["gradsum"], theirs[name]["gradsum"], rtol=1e-4, err_msg=name)


def test_fasterrcnn_mobilenet_v3_large_fpn_forward_backward():
    out = run_on_tinytorch("""
        from torchvision.models.detection import fasterrcnn_mobilenet_v3_large_fpn
        torch.manual_seed(0)
        m = fasterrcnn_mobilenet_v3_large_fpn(weights=None, weights_backbone=None, min_size=64, max_size=64)
        imgs = [torch.rand(3, 64, 64), torch.rand(3, 64, 64)]
        targets = [{"boxes": torch.tensor([[5., 5., 30., 30.]]), "labels": torch.tensor([1])},
                   {"boxes": torch.tensor([[10., 12., 50., 40.], [1., 1., 9., 9.]]), "labels": torch.tensor([2, 3])}]
        losses = m(imgs, targets)
        sum(losses.values()).backward()
        grads = [p.grad for p in m.parameters() if p.grad is not None]
        m.eval()
        with torch.no_grad():
            det = m(imgs)
        print(json.dumps({"losses": {k: float(v) for k, v in losses.items()}, "n_grads": len(grads),
                          "finite": all(bool(g.isfinite().all()) for g in grads),
                          "det": [sorted(d.keys()) for d in det], "box_cols": [list(d["boxes"].shape[1:]) for d in det]}))
    """)
    assert set(out["losses"]) == {"loss_classifier", "loss_box_reg", "loss_objectness", "loss_rpn_box_reg"}
    assert all(np.isfinite(v) for v in out["losses"].values()) and out["n_grads"] > 50 and out["finite"]
    assert out["det"] == [["boxes", "labels", "scores"]] * 2 and out["box_cols"] == [[4], [4]]


EINOPS_METRICS = """
    import numpy as np
    import einops
    from einops import rearrange, reduce, repeat, pack, einsum
    from einops.layers.torch import Rearrange, Reduce
    from torchmetrics import MetricCollection
    from torchmetrics.classification import MulticlassAccuracy, MulticlassF1Score, MulticlassConfusionMatrix, MulticlassAUROC
    from torchmetrics.regression import MeanSquaredError, R2Score, PearsonCorrCoef
    from torchmetrics.image import StructuralSimilarityIndexMeasure, PeakSignalNoiseRatio
    rng = np.random.default_rng(0)
    t = lambda a: torch.from_numpy(np.ascontiguousarray(a))
    x = t(rng.standard_normal((2, 3, 4)).astype(np.float32)).requires_grad_()
    res = {}
    res["rearrange"] = rearrange(x, "b c w -> b (w c)").tolist()
    res["reduce"] = reduce(x, "b c w -> b c", "max").tolist()
    res["repeat"] = repeat(x[0, 0], "w -> k w", k=2).tolist()
    res["pack"] = list(pack([x, x[:, 0]], "b *")[0].shape)
    res["einsum"] = einsum(x, x, "b c w, b d w -> b c d").tolist()
    lin = torch.nn.Linear(12, 2)
    with torch.no_grad():
        lin.weight.copy_(t(np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 12)))
        lin.bias.zero_()
    m = torch.nn.Sequential(Rearrange("b c w -> b (c w)"), lin, Reduce("b k -> k", "sum"))
    m(x).pow(2).sum().backward()
    res["layer_grad"] = x.grad.tolist()
    logits = t(rng.standard_normal((50, 4)).astype(np.float32))
    preds = torch.softmax(logits, 1)
    target = t(rng.integers(0, 4, 50))
    for M in (MulticlassAccuracy, MulticlassF1Score, MulticlassAUROC):
        res[M.__name__] = float(M(num_classes=4)(preds, target))
    res["confusion"] = MulticlassConfusionMatrix(num_classes=4)(preds, target).tolist()
    a, b = t(rng.standard_normal(40).astype(np.float32)), t(rng.standard_normal(40).astype(np.float32))
    res["mse"], res["r2"], res["pearson"] = float(MeanSquaredError()(a, b)), float(R2Score()(a, b)), float(PearsonCorrCoef()(a, b))
    i1 = t(rng.uniform(0, 1, (2, 3, 16, 16)).astype(np.float32))
    i2 = (i1 + t(rng.normal(0, 0.1, (2, 3, 16, 16)).astype(np.float32))).clamp(0, 1)
    res["ssim"] = float(StructuralSimilarityIndexMeasure(data_range=1.0)(i1, i2))
    res["psnr"] = float(PeakSignalNoiseRatio(data_range=1.0)(i1, i2))
    mc = MetricCollection([MulticlassAccuracy(num_classes=4), MulticlassF1Score(num_classes=4)])
    mc.update(preds[:25], target[:25]); mc.update(preds[25:], target[25:])
    res["collection"] = {k: float(v) for k, v in mc.compute().items()}
    print(json.dumps(res))
"""


def test_einops_and_torchmetrics_match_pytorch():
    ours = run_on_tinytorch(EINOPS_METRICS)
    assert ours["pack"] == [2, 16] and len(ours["confusion"]) == 4
    torch = pytest.importorskip("torch")
    pytest.importorskip("einops")
    pytest.importorskip("torchmetrics")
    env = {"torch": torch, "json": json, "sys": sys}
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(textwrap.dedent(EINOPS_METRICS), env)
    theirs = json.loads(buf.getvalue().strip().splitlines()[-1])
    assert ours.keys() == theirs.keys()
    for k in ours:
        if k == "collection":
            for name in ours[k]:
                np.testing.assert_allclose(ours[k][name], theirs[k][name], rtol=1e-5, err_msg=name)
        else:
            np.testing.assert_allclose(np.array(ours[k], dtype=float), np.array(theirs[k], dtype=float), rtol=2e-5,
                                       atol=2e-6, err_msg=k)
