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
