"""Programs that reach ``tinytorch/_cpu/resize.py``'s paths: antialiased interpolate, shrinking (windows of
several taps) and growing, bilinear and bicubic (the cubic filter's multiply-adds), with its gradient."""
import numpy as np

import tinytorch as tt

F = tt.nn.functional


def _resizes(rng, dtype, shape):
    n = 1 + (int(np.prod(shape)) if shape else 1) % 5
    x = np.asarray(rng.standard_normal((1, 2, 9 + n, 13)) * 4, dtype=dtype)
    for mode in ("bilinear", "bicubic"):
        yield f"{mode}, shrink", (lambda v, m=mode: F.interpolate(v, size=(4, 5), mode=m, antialias=True)), [x]
        yield f"{mode}, grow", (lambda v, m=mode: F.interpolate(v, size=(20, 17), mode=m, antialias=True,
                                                              align_corners=True)), [x]


PROGRAMS = {"resize._fma": [_resizes], "resize._antialias_kernel": [_resizes]}
