"""kornia on tinytorch: colour conversions, filters (Gaussian, Sobel, Canny), an affine warp and its gradient,
a seeded augmentation pipeline and SSIM print PyTorch's numbers."""
from _libraries import assert_close, on_pytorch, on_tinytorch

CODE = """
import numpy as np
import kornia
import kornia.augmentation as K

rng = np.random.default_rng(0)
img = torch.from_numpy(rng.uniform(0, 1, (2, 3, 32, 32)).astype(np.float32)).requires_grad_()
res = {}
res["gray"] = float(kornia.color.rgb_to_grayscale(img).sum())
res["hsv"] = float(kornia.color.rgb_to_hsv(img).sum())
res["blur"] = float(kornia.filters.gaussian_blur2d(img, (5, 5), (1.5, 1.5)).sum())
res["sobel"] = float(kornia.filters.sobel(img).sum())
res["canny"] = float(kornia.filters.canny(img)[0].sum())
M = kornia.geometry.transform.get_rotation_matrix2d(torch.tensor([[16., 16.], [16., 16.]]), torch.tensor([30., 45.]),
                                                    torch.ones(2, 2))
warped = kornia.geometry.transform.warp_affine(img, M, (32, 32))
res["warp"] = float(warped.sum())
warped.sum().backward()
res["grad"] = float(img.grad.abs().sum())
torch.manual_seed(0)
aug = K.AugmentationSequential(K.RandomHorizontalFlip(p=1.0), K.ColorJitter(0.1, 0.1, 0.1, 0.1, p=1.0),
                               K.RandomAffine(15, p=1.0))
res["aug"] = float(aug(img.detach()).sum())
res["ssim"] = float(kornia.metrics.ssim(img.detach(), warped.detach(), 5).mean())
print(json.dumps(res))
"""


def test_filters_warp_and_augmentation_match_pytorch():
    ours = on_tinytorch(CODE, "kornia")
    assert 0 < ours["gray"] < 2 * 32 * 32
    theirs = on_pytorch(CODE)
    assert_close(ours, theirs, rtol=1e-5, atol=1e-6)


AUGMENTATIONS = """
import kornia.augmentation as K

torch.manual_seed(0)
img = torch.rand(2, 3, 32, 32)
augs = {
    "jiggle": K.ColorJiggle(0.1, 0.1, 0.1, 0.1, p=1.0),  # checks its factors with torch._assert_async
    "rrc": K.RandomResizedCrop((16, 16), p=1.0), "persp": K.RandomPerspective(0.5, p=1.0),
    "gblur": K.RandomGaussianBlur((3, 3), (0.1, 2.0), p=1.0), "erase": K.RandomErasing(p=1.0),
    "equal": K.RandomEqualize(p=1.0), "sharp": K.RandomSharpness(0.5, p=1.0), "elastic": K.RandomElasticTransform(p=1.0),
    "thin": K.RandomThinPlateSpline(p=1.0), "clahe": K.RandomClahe(p=1.0), "mixup": K.RandomMixUpV2(p=1.0),
    "mosaic": K.RandomMosaic((16, 16), p=1.0), "randaug": K.auto.RandAugment(n=2, m=10), "autoaug": K.auto.AutoAugment(),
}
res = {}
for name, aug in augs.items():
    torch.manual_seed(1)
    out = aug(img)
    out = out[0] if isinstance(out, (tuple, list)) else out
    res[name] = [float(out.sum()), list(out.shape)]
# kornia's documented pipeline: several data keys, its inverse, and the same parameters applied again
torch.manual_seed(0)
seq = K.AugmentationSequential(K.ColorJiggle(0.1, 0.1, 0.1, 0.1, p=1.0), K.RandomAffine(360, p=1.0),
                               K.RandomPerspective(0.3, p=1.0), data_keys=["input", "mask", "bbox_xyxy", "keypoints"])
mask = (torch.rand(2, 1, 32, 32) > 0.5).float()
bbox = torch.tensor([[[1., 1., 10., 10.]], [[2., 3., 20., 25.]]])
keypoints = torch.tensor([[[5., 6.]], [[10., 12.]]])
out = seq(img, mask, bbox, keypoints)
res["seq"] = [float(t.sum()) for t in out]
res["seq_inverse"] = [float(t.sum()) for t in seq.inverse(*out)]
res["seq_params"] = [float(t.sum()) for t in seq(img, mask, bbox, keypoints, params=seq._params)]
video = K.VideoSequential(K.ColorJiggle(0.1, 0.1, 0.1, 0.1, p=1.0), K.RandomAffine(10, p=1.0), data_format="BCTHW",
                          same_on_frame=True)
res["video"] = float(video(torch.rand(1, 3, 4, 16, 16)).sum())
print(json.dumps(res))
"""


def test_augmentations_and_their_documented_pipeline_match_pytorch():
    ours = on_tinytorch(AUGMENTATIONS, "kornia")
    theirs = on_pytorch(AUGMENTATIONS)
    assert_close(ours, theirs, rtol=1e-5, atol=1e-5)
