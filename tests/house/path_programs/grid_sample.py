"""Programs that reach the paths of ``tinytorch/_cpu/grid_sample.py`` (PyTorch's 2-d kernel, forward and backward,
bilinear and nearest): target -> [make(rng, dtype, shape) yielding (name, fn, arrays)]. Grids reach past [-1, 1]
(every padding mode at work), points fall on the corners, the borders and the centre, with and without
align_corners; the gradient reaches the input, the grid, or both."""
import numpy as np

import tinytorch as tt

F = tt.nn.functional


def _samples(rng, dtype, shape):
    n = 1 + len(shape) % 2
    x = np.asarray(rng.standard_normal((n, 3, 5, 7)), dtype=dtype)
    grid = rng.uniform(-1.2, 1.2, (n, 4, 6, 2))
    grid[0, 0, :5] = [[-1, -1], [1, 1], [0, 0], [0.25, -1], [1, 0.5]]  # corners, the centre, borders
    grid = np.asarray(grid, dtype=dtype)
    for mode in ("bilinear", "nearest"):
        for padding in ("zeros", "border", "reflection"):
            for align in (False, True):
                yield f"grid_sample {mode} {padding} align_corners={align}", \
                    (lambda a, g, m=mode, p=padding, al=align: F.grid_sample(a, g, m, p, al)), [x, grid]
    yield "grid_sample of a product, input gradient only", \
        (lambda a, g: F.grid_sample(a * 2.0, g.detach(), align_corners=False)), [x, grid]
    yield "grid_sample, grid gradient only", \
        (lambda a, g: F.grid_sample(a.detach(), g, padding_mode="border", align_corners=True)), [x, grid]


PROGRAMS = {"grid_sample._sample_2d_arrays": [_samples], "GridSampler2DBackward0": [_samples]}
