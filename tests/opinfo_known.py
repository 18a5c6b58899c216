"""Known differences of the OpInfo walk (tests/opinfo/test_opinfo.py): entry -> {"dtype:sample:fwd|bwd": reason}.

Each row is a sample of PyTorch's op_db where tinytorch's result differs from PyTorch's; the reason says
what differs. ``KNOWN``: rows that differ on every CPU path walked (``PATHS``); the list only shrinks:
a listed row that matches on a machine is reported there (tests/_known_rows.py) and moved or deleted by a
maintainer. ``PATH_DEPENDENT``: rows that differ on some paths
and match on others (PyTorch's kernels round differently per path, and so do numpy's SIMD kernels and
OpenBLAS's per-CPU kernels under tinytorch): "differs on" names the paths; such a row may match or
differ. Regenerate with ``python tests/_opinfo_update.py`` after fixing ops."""

# the CPU paths walked (tests/_paths.py's walk_paths), on every machine the lists were walked on
PATHS = ['AMD EPYC: PyTorch AVX2, oneDNN AVX2, MKL None, numpy AVX2, BLAS Haswell',
 'AMD EPYC: PyTorch AVX2, oneDNN AVX512, MKL None, numpy AVX512, BLAS SkylakeX',
 'AMD EPYC: PyTorch AVX512, oneDNN AVX512, MKL None, numpy AVX512, BLAS SkylakeX',
 'AMD EPYC: PyTorch DEFAULT, oneDNN AVX512, MKL None, numpy AVX512, BLAS SkylakeX',
 'PyTorch AVX2, oneDNN AVX2, MKL AVX2, numpy AVX2, BLAS Haswell',
 'PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
 'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
 'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
 'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX',
 'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
 'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
 'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX',
 'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
 'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
 'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX']

KNOWN = {'argsort': {'bool:0:fwd': 'values differ: Tensor-likes are not equal!'},
 'fft.hfft2': {'complex64:5:fwd': 'values differ: Tensor-likes are not close!'},
 'grid_sampler_2d': {'float32:12:bwd': "bicubic float32 gradients: tinytorch's bicubic is a composite of tensor ops, "
                                       "not PyTorch's kernel (bilinear is its kernel's floats, bit for bit)",
                     'float32:13:bwd': "bicubic float32 gradients: tinytorch's bicubic is a composite of tensor ops, "
                                       "not PyTorch's kernel (bilinear is its kernel's floats, bit for bit)",
                     'float32:14:bwd': "bicubic float32 gradients: tinytorch's bicubic is a composite of tensor ops, "
                                       "not PyTorch's kernel (bilinear is its kernel's floats, bit for bit)",
                     'float32:15:bwd': "bicubic float32 gradients: tinytorch's bicubic is a composite of tensor ops, "
                                       "not PyTorch's kernel (bilinear is its kernel's floats, bit for bit)",
                     'float32:16:bwd': "bicubic float32 gradients: tinytorch's bicubic is a composite of tensor ops, "
                                       "not PyTorch's kernel (bilinear is its kernel's floats, bit for bit)",
                     'float32:17:bwd': "bicubic float32 gradients: tinytorch's bicubic is a composite of tensor ops, "
                                       "not PyTorch's kernel (bilinear is its kernel's floats, bit for bit)"},
 'grid_sampler_3d': {'float32:12:bwd': "3-d float32 gradients: tinytorch's 3-d sampling is a composite of tensor "
                                       "ops, not PyTorch's kernel (2-d bilinear is its kernel's floats, bit for bit)",
                     'float32:13:bwd': "3-d float32 gradients: tinytorch's 3-d sampling is a composite of tensor "
                                       "ops, not PyTorch's kernel (2-d bilinear is its kernel's floats, bit for bit)",
                     'float32:14:bwd': "3-d float32 gradients: tinytorch's 3-d sampling is a composite of tensor "
                                       "ops, not PyTorch's kernel (2-d bilinear is its kernel's floats, bit for bit)",
                     'float32:17:bwd': "3-d float32 gradients: tinytorch's 3-d sampling is a composite of tensor "
                                       "ops, not PyTorch's kernel (2-d bilinear is its kernel's floats, bit for bit)",
                     'float32:18:bwd': "3-d float32 gradients: tinytorch's 3-d sampling is a composite of tensor "
                                       "ops, not PyTorch's kernel (2-d bilinear is its kernel's floats, bit for bit)",
                     'float32:19:bwd': "3-d float32 gradients: tinytorch's 3-d sampling is a composite of tensor "
                                       "ops, not PyTorch's kernel (2-d bilinear is its kernel's floats, bit for bit)",
                     'float32:22:bwd': "3-d float32 gradients: tinytorch's 3-d sampling is a composite of tensor "
                                       "ops, not PyTorch's kernel (2-d bilinear is its kernel's floats, bit for bit)",
                     'float32:23:bwd': "3-d float32 gradients: tinytorch's 3-d sampling is a composite of tensor "
                                       "ops, not PyTorch's kernel (2-d bilinear is its kernel's floats, bit for bit)",
                     'float32:24:bwd': "3-d float32 gradients: tinytorch's 3-d sampling is a composite of tensor "
                                       "ops, not PyTorch's kernel (2-d bilinear is its kernel's floats, bit for bit)",
                     'float32:27:bwd': "3-d float32 gradients: tinytorch's 3-d sampling is a composite of tensor "
                                       "ops, not PyTorch's kernel (2-d bilinear is its kernel's floats, bit for bit)",
                     'float32:2:bwd': "3-d float32 gradients: tinytorch's 3-d sampling is a composite of tensor ops, "
                                      "not PyTorch's kernel (2-d bilinear is its kernel's floats, bit for bit)",
                     'float32:7:bwd': "3-d float32 gradients: tinytorch's 3-d sampling is a composite of tensor ops, "
                                      "not PyTorch's kernel (2-d bilinear is its kernel's floats, bit for bit)"},
 'linalg.eigh': {'float32:4:bwd': 'gradients differ: Tensor-likes are not close!'},
 'linalg.householder_product': {'complex64:0:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:1:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:2:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:3:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:6:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:7:bwd': 'gradients differ: Tensor-likes are not close!',
                                'float32:7:bwd': 'gradients differ: Tensor-likes are not close!'},
 'linalg.lstsq': {'complex64:14:bwd': 'gradients differ: Tensor-likes are not close!',
                  'complex64:20:bwd': 'gradients differ: Tensor-likes are not close!',
                  'complex64:23:bwd': 'gradients differ: Tensor-likes are not close!',
                  'complex64:24:bwd': 'gradients differ: Tensor-likes are not close!',
                  'complex64:25:bwd': 'gradients differ: Tensor-likes are not close!',
                  'complex64:26:bwd': 'gradients differ: Tensor-likes are not close!',
                  'complex64:27:bwd': 'gradients differ: Tensor-likes are not close!',
                  'complex64:28:bwd': 'gradients differ: Tensor-likes are not close!',
                  'complex64:30:bwd': 'gradients differ: Tensor-likes are not close!',
                  'complex64:31:bwd': 'gradients differ: Tensor-likes are not close!',
                  'complex64:32:bwd': 'gradients differ: Tensor-likes are not close!',
                  'complex64:33:bwd': 'gradients differ: Tensor-likes are not close!',
                  'complex64:34:bwd': 'gradients differ: Tensor-likes are not close!',
                  'complex64:35:bwd': 'gradients differ: Tensor-likes are not close!',
                  'float32:14:bwd': 'gradients differ: Tensor-likes are not close!',
                  'float32:20:bwd': 'gradients differ: Tensor-likes are not close!',
                  'float32:26:bwd': 'gradients differ: Tensor-likes are not close!',
                  'float32:32:bwd': 'gradients differ: Tensor-likes are not close!',
                  'float32:35:bwd': 'gradients differ: Tensor-likes are not close!',
                  'float32:8:bwd': 'gradients differ: Tensor-likes are not close!'},
 'linalg.lstsq.grad_oriented': {'complex64:14:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:20:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:23:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:24:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:25:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:26:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:27:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:28:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:30:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:31:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:32:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:33:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:34:bwd': 'gradients differ: Tensor-likes are not close!',
                                'complex64:35:bwd': 'gradients differ: Tensor-likes are not close!',
                                'float32:14:bwd': 'gradients differ: Tensor-likes are not close!',
                                'float32:20:bwd': 'gradients differ: Tensor-likes are not close!',
                                'float32:26:bwd': 'gradients differ: Tensor-likes are not close!',
                                'float32:32:bwd': 'gradients differ: Tensor-likes are not close!',
                                'float32:35:bwd': 'gradients differ: Tensor-likes are not close!',
                                'float32:8:bwd': 'gradients differ: Tensor-likes are not close!'},
 'linalg.pinv.hermitian': {'complex64:0:bwd': 'gradients differ: Tensor-likes are not close!',
                           'complex64:4:bwd': 'gradients differ: Tensor-likes are not close!',
                           'complex64:6:bwd': 'gradients differ: Tensor-likes are not close!'},
 'linalg.svd': {'complex64:208:bwd': 'gradients differ: Tensor-likes are not close!',
                'complex64:210:bwd': 'gradients differ: Tensor-likes are not close!',
                'complex64:212:bwd': 'gradients differ: Tensor-likes are not close!',
                'complex64:214:bwd': 'gradients differ: Tensor-likes are not close!',
                'float32:210:bwd': 'gradients differ: Tensor-likes are not close!',
                'float32:214:bwd': 'gradients differ: Tensor-likes are not close!',
                'float32:66:bwd': 'gradients differ: Tensor-likes are not close!',
                'float32:70:bwd': 'gradients differ: Tensor-likes are not close!'},
 'matrix_exp': {'complex64:0:fwd': 'raises RuntimeError: "linalg_matrix_exp" not implemented for \'ComplexFloat\'',
                'complex64:1:fwd': 'raises RuntimeError: "linalg_matrix_exp" not implemented for \'ComplexFloat\'',
                'float32:0:bwd': 'gradients differ: Tensor-likes are not close!',
                'float32:1:fwd': 'values differ: Tensor-likes are not close!'},
 'mode': {'bool:6:fwd': 'values differ: Scalars are not equal!',
          'int64:6:fwd': 'values differ: Scalars are not equal!'},
 'nn.functional.conv2d': {'complex64:22:bwd': 'gradients differ: Tensor-likes are not close!'},
 'nn.functional.conv3d': {'complex64:12:fwd': 'values differ: Tensor-likes are not close!',
                          'complex64:13:fwd': 'values differ: Tensor-likes are not close!',
                          'float32:12:fwd': 'values differ: Tensor-likes are not close!',
                          'float32:13:fwd': 'values differ: Tensor-likes are not close!'},
 'nn.functional.conv_transpose3d': {'complex64:2:bwd': 'gradients differ: Tensor-likes are not close!',
                                    'complex64:3:bwd': 'gradients differ: Tensor-likes are not close!',
                                    'complex64:8:fwd': 'values differ: Tensor-likes are not close!',
                                    'complex64:9:fwd': 'values differ: Tensor-likes are not close!',
                                    'float32:2:bwd': 'gradients differ: Tensor-likes are not close!',
                                    'float32:3:bwd': 'gradients differ: Tensor-likes are not close!',
                                    'float32:8:fwd': 'values differ: Tensor-likes are not close!',
                                    'float32:9:fwd': 'values differ: Tensor-likes are not close!'},
 'nn.functional.grid_sample': {'float32:14:bwd': 'gradients differ: Tensor-likes are not close!',
                               'float32:15:bwd': 'gradients differ: Tensor-likes are not close!',
                               'float32:16:bwd': 'gradients differ: Tensor-likes are not close!'},
 'nn.functional.scaled_dot_product_attention': {'float32:12:bwd': 'float32 rounding: samples in [-9, 9] make near '
                                                                  "one-hot weights whose gradients PyTorch's flash "
                                                                  'kernel gets to ~3e-5 (a float64 computation '
                                                                  'differs from it as much)',
                                                'float32:14:fwd': "random: op_db's wrapper_set_seed seeds PyTorch's "
                                                                  'generator only, so the dropout masks differ (the '
                                                                  'same stream when both are seeded: '
                                                                  'tests/nn/test_nn_attention.py)',
                                                'float32:18:bwd': 'gradients differ: Tensor-likes are not close!',
                                                'float32:24:bwd': 'float32 rounding: samples in [-9, 9] make near '
                                                                  "one-hot weights whose gradients PyTorch's flash "
                                                                  'kernel gets to ~3e-5 (a float64 computation '
                                                                  'differs from it as much)',
                                                'float32:2:fwd': "random: op_db's wrapper_set_seed seeds PyTorch's "
                                                                 'generator only, so the dropout masks differ (the '
                                                                 'same stream when both are seeded: '
                                                                 'tests/nn/test_nn_attention.py)',
                                                'float32:8:bwd': 'float32 rounding: samples in [-9, 9] make near '
                                                                 "one-hot weights whose gradients PyTorch's flash "
                                                                 'kernel gets to ~3e-5 (a float64 computation '
                                                                 'differs from it as much)'},
 'pca_lowrank': {'complex64:11:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                     'amplify float32 noise (float64 and real float32 match)',
                 'complex64:12:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                     'amplify float32 noise (float64 and real float32 match)',
                 'complex64:13:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                     'amplify float32 noise (float64 and real float32 match)',
                 'complex64:14:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                     'amplify float32 noise (float64 and real float32 match)',
                 'complex64:15:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                     'amplify float32 noise (float64 and real float32 match)',
                 'complex64:1:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                    'amplify float32 noise (float64 and real float32 match)',
                 'complex64:3:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                    'amplify float32 noise (float64 and real float32 match)',
                 'complex64:4:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                    'amplify float32 noise (float64 and real float32 match)',
                 'complex64:5:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                    'amplify float32 noise (float64 and real float32 match)',
                 'complex64:6:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                    'amplify float32 noise (float64 and real float32 match)',
                 'complex64:7:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                    'amplify float32 noise (float64 and real float32 match)'},
 'pow': {'float32:4:bwd': 'gradients differ: Tensor-likes are not close!'},
 'renorm': {'complex64:3:bwd': 'gradients differ: Tensor-likes are not close!'},
 'sort': {'bool:0:fwd': 'values differ: Tensor-likes are not equal!'},
 'special.bessel_j0': {'float64:0:fwd': 'values differ: Tensor-likes are not close!'},
 'special.bessel_y1': {'float64:0:fwd': 'values differ: Tensor-likes are not close!'},
 'svd': {'complex64:208:bwd': 'gradients differ: Tensor-likes are not close!',
         'complex64:210:bwd': 'gradients differ: Tensor-likes are not close!',
         'complex64:212:bwd': 'gradients differ: Tensor-likes are not close!',
         'complex64:214:bwd': 'gradients differ: Tensor-likes are not close!',
         'float32:210:bwd': 'gradients differ: Tensor-likes are not close!',
         'float32:214:bwd': 'gradients differ: Tensor-likes are not close!',
         'float32:66:bwd': 'gradients differ: Tensor-likes are not close!',
         'float32:70:bwd': 'gradients differ: Tensor-likes are not close!'},
 'svd_lowrank': {'complex64:10:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                     'amplify float32 noise (float64 and real float32 match)',
                 'complex64:11:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                     'amplify float32 noise (float64 and real float32 match)',
                 'complex64:12:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                     'amplify float32 noise (float64 and real float32 match)',
                 'complex64:13:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                     'amplify float32 noise (float64 and real float32 match)',
                 'complex64:14:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                     'amplify float32 noise (float64 and real float32 match)',
                 'complex64:15:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                     'amplify float32 noise (float64 and real float32 match)',
                 'complex64:1:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                    'amplify float32 noise (float64 and real float32 match)',
                 'complex64:4:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                    'amplify float32 noise (float64 and real float32 match)',
                 'complex64:5:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                    'amplify float32 noise (float64 and real float32 match)',
                 'complex64:6:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                    'amplify float32 noise (float64 and real float32 match)',
                 'complex64:7:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                    'amplify float32 noise (float64 and real float32 match)',
                 'complex64:9:bwd': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - s_j^2) "
                                    'amplify float32 noise (float64 and real float32 match)'},
 'triangular_solve': {'float32:6:bwd': 'gradients differ: Tensor-likes are not close!',
                      'float32:7:bwd': 'gradients differ: Tensor-likes are not close!'}}

PATH_DEPENDENT = {'addbmm': {'complex64:0:fwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                               'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX'],
                                'reason': 'values differ: Tensor-likes are not close!'},
            'float32:1:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                              'reason': 'values differ: Tensor-likes are not close!'},
            'float32:4:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                              'reason': 'values differ: Tensor-likes are not close!'}},
 'baddbmm': {'complex64:12:fwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                 'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                 'SkylakeX'],
                                  'reason': 'values differ: Tensor-likes are not close!'},
             'complex64:1:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                'SkylakeX'],
                                 'reason': 'values differ: Tensor-likes are not close!'},
             'complex64:5:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                'SkylakeX'],
                                 'reason': 'values differ: Tensor-likes are not close!'}},
 'cov': {'complex64:24:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                             'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                             'SkylakeX'],
                              'reason': 'gradients differ: Tensor-likes are not close!'},
         'float32:24:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, MKL AVX2, numpy AVX2, BLAS Haswell',
                                           'PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                           'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                           'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                           'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                           'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                           'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                           'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                           'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                           'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX'],
                            'reason': 'gradients differ: Tensor-likes are not close!'},
         'float32:26:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                           'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                            'reason': 'gradients differ: Tensor-likes are not close!'}},
 'fft.hfft2': {'float32:5:fwd': {'differs on': ['numpy 2.x (its C++ pocketfft rounds this sample otherwise)'],
                                 'reason': 'values differ: Tensor-likes are not close! (matches with numpy 1.24)'},
               'int64:5:fwd': {'differs on': ['numpy 2.x (its C++ pocketfft rounds this sample otherwise)'],
                               'reason': 'values differ: Tensor-likes are not close! (matches with numpy 1.24)'}},
 'ldexp': {'complex64:4:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                               'reason': 'gradients differ: Tensor-likes are not close!'}},
 'linalg.cond': {'complex64:1:fwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'values differ: Tensor-likes are not close!'},
                 'complex64:2:fwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'values differ: Tensor-likes are not close!'}},
 'linalg.eig': {'float32:4:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                                  'reason': 'gradients differ: Tensor-likes are not close!'}},
 'linalg.householder_product': {'float32:2:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS '
                                                                 'Haswell'],
                                                  'reason': 'gradients differ: Tensor-likes are not close!'}},
 'linalg.ldl_solve': {'float32:2:fwd': {'differs on': ['AMD EPYC: PyTorch DEFAULT, oneDNN AVX512, MKL None, numpy '
                                                       'AVX512, BLAS SkylakeX'],
                                        'reason': 'values differ: Tensor-likes are not close!'},
                      'float32:3:fwd': {'differs on': ['AMD EPYC: PyTorch DEFAULT, oneDNN AVX512, MKL None, numpy '
                                                       'AVX512, BLAS SkylakeX'],
                                        'reason': 'values differ: Tensor-likes are not close!'}},
 'linalg.lstsq': {'complex64:11:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                      'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                      'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                      'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                      'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                      'SkylakeX'],
                                       'reason': 'gradients differ: Tensor-likes are not close!'},
                  'complex64:13:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                      'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                      'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                      'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                                       'reason': 'gradients differ: Tensor-likes are not close!'},
                  'complex64:16:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                      'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                      'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                      'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                                       'reason': 'gradients differ: Tensor-likes are not close!'},
                  'complex64:17:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                                       'reason': 'gradients differ: Tensor-likes are not close!'},
                  'complex64:19:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                      'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                      'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                      'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                                       'reason': 'gradients differ: Tensor-likes are not close!'},
                  'complex64:22:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                      'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                      'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                      'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                                       'reason': 'gradients differ: Tensor-likes are not close!'},
                  'complex64:29:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                      'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                      'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                      'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                                       'reason': 'gradients differ: Tensor-likes are not close!'},
                  'complex64:2:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                     'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                     'SkylakeX',
                                                     'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                     'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                     'SkylakeX',
                                                     'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                     'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                     'SkylakeX'],
                                      'reason': 'gradients differ: Tensor-likes are not close!'},
                  'complex64:8:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                     'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                     'SkylakeX',
                                                     'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                     'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                     'SkylakeX',
                                                     'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                     'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                     'SkylakeX'],
                                      'reason': 'gradients differ: Tensor-likes are not close!'},
                  'float32:11:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                  'float32:13:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                  'float32:16:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                  'float32:19:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                  'float32:22:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                  'float32:23:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'}},
 'linalg.lstsq.grad_oriented': {'complex64:11:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS '
                                                                    'Haswell',
                                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                                    'SkylakeX',
                                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX',
                                                                    'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX',
                                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy '
                                                                    'AVX512, BLAS SkylakeX'],
                                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                                'complex64:13:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS '
                                                                    'Haswell',
                                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                                    'SkylakeX',
                                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX',
                                                                    'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX'],
                                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                                'complex64:16:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS '
                                                                    'Haswell',
                                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                                    'SkylakeX',
                                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX',
                                                                    'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX'],
                                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                                'complex64:17:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX'],
                                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                                'complex64:19:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS '
                                                                    'Haswell',
                                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                                    'SkylakeX',
                                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX',
                                                                    'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX'],
                                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                                'complex64:22:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS '
                                                                    'Haswell',
                                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                                    'SkylakeX',
                                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX',
                                                                    'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX'],
                                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                                'complex64:29:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS '
                                                                    'Haswell',
                                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                                    'SkylakeX',
                                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX',
                                                                    'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX'],
                                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                                'complex64:2:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                                   'SkylakeX',
                                                                   'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy '
                                                                   'AVX512, BLAS SkylakeX',
                                                                   'PyTorch AVX512, oneDNN AVX512, numpy AVX512, '
                                                                   'BLAS SkylakeX',
                                                                   'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy '
                                                                   'AVX512, BLAS SkylakeX',
                                                                   'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, '
                                                                   'BLAS SkylakeX',
                                                                   'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy '
                                                                   'AVX512, BLAS SkylakeX'],
                                                    'reason': 'gradients differ: Tensor-likes are not close!'},
                                'complex64:8:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                                   'SkylakeX',
                                                                   'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy '
                                                                   'AVX512, BLAS SkylakeX',
                                                                   'PyTorch AVX512, oneDNN AVX512, numpy AVX512, '
                                                                   'BLAS SkylakeX',
                                                                   'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy '
                                                                   'AVX512, BLAS SkylakeX',
                                                                   'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, '
                                                                   'BLAS SkylakeX',
                                                                   'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy '
                                                                   'AVX512, BLAS SkylakeX'],
                                                    'reason': 'gradients differ: Tensor-likes are not close!'},
                                'float32:11:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS '
                                                                  'Haswell',
                                                                  'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                                  'SkylakeX',
                                                                  'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS '
                                                                  'SkylakeX',
                                                                  'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, '
                                                                  'BLAS SkylakeX',
                                                                  'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX'],
                                                   'reason': 'gradients differ: Tensor-likes are not close!'},
                                'float32:13:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX',
                                                                  'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX',
                                                                  'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX'],
                                                   'reason': 'gradients differ: Tensor-likes are not close!'},
                                'float32:16:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX',
                                                                  'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX',
                                                                  'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX'],
                                                   'reason': 'gradients differ: Tensor-likes are not close!'},
                                'float32:19:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX',
                                                                  'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX',
                                                                  'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX'],
                                                   'reason': 'gradients differ: Tensor-likes are not close!'},
                                'float32:22:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX',
                                                                  'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX',
                                                                  'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX'],
                                                   'reason': 'gradients differ: Tensor-likes are not close!'},
                                'float32:23:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX',
                                                                  'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX',
                                                                  'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, '
                                                                  'BLAS SkylakeX',
                                                                  'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy '
                                                                  'AVX512, BLAS SkylakeX'],
                                                   'reason': 'gradients differ: Tensor-likes are not close!'}},
 'linalg.multi_dot': {'complex64:6:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                         'SkylakeX',
                                                         'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                         'SkylakeX'],
                                          'reason': 'gradients differ: Tensor-likes are not close!'},
                      'float32:6:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                       'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                       'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                       'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                                        'reason': 'gradients differ: Tensor-likes are not close!'}},
 'linalg.pinv.hermitian': {'float32:4:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS '
                                                            'SkylakeX'],
                                             'reason': 'gradients differ: Tensor-likes are not close!'}},
 'linalg.svd': {'complex64:64:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                    'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                'complex64:66:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                    'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                'complex64:68:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                    'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                'complex64:70:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                    'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                'float32:208:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, MKL AVX2, numpy AVX2, BLAS Haswell',
                                                   'PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                   'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                   'SkylakeX',
                                                   'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                   'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                   'SkylakeX',
                                                   'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                   'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                   'SkylakeX'],
                                    'reason': 'gradients differ: Tensor-likes are not close!'},
                'float32:212:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, MKL AVX2, numpy AVX2, BLAS Haswell',
                                                   'PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                   'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                   'SkylakeX',
                                                   'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                   'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                   'SkylakeX',
                                                   'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                   'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                   'SkylakeX'],
                                    'reason': 'gradients differ: Tensor-likes are not close!'},
                'float32:64:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                  'SkylakeX'],
                                   'reason': 'gradients differ: Tensor-likes are not close!'},
                'float32:68:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                  'SkylakeX'],
                                   'reason': 'gradients differ: Tensor-likes are not close!'}},
 'matmul': {'complex64:11:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                'SkylakeX'],
                                 'reason': 'values differ: Tensor-likes are not close!'},
            'complex64:12:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                'SkylakeX'],
                                 'reason': 'gradients differ: Tensor-likes are not close!'},
            'complex64:12:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                'SkylakeX'],
                                 'reason': 'values differ: Tensor-likes are not close!'},
            'float32:12:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                              'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX'],
                               'reason': 'gradients differ: Tensor-likes are not close!'},
            'float32:13:fwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                              'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                              'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                              'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS SkylakeX'],
                               'reason': 'values differ: Tensor-likes are not close!'}},
 'native_layer_norm': {'float32:10:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, MKL AVX2, numpy AVX2, BLAS '
                                                         'Haswell',
                                                         'PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                         'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, '
                                                         'BLAS SkylakeX',
                                                         'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                         'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                         'SkylakeX',
                                                         'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, '
                                                         'BLAS SkylakeX',
                                                         'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                         'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                         'SkylakeX',
                                                         'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS '
                                                         'SkylakeX',
                                                         'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                         'BLAS SkylakeX'],
                                          'reason': "PyTorch's weight gradient of a one-element layer norm is the "
                                                    'rounding of its fused x * rstd - mean * rstd (~1e-5); '
                                                    "tinytorch's is the exact 0"}},
 'nn.functional.conv2d': {'complex64:0:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                             'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                             'SkylakeX',
                                                             'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS '
                                                             'SkylakeX'],
                                              'reason': 'values differ: Tensor-likes are not close!'},
                          'complex64:16:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell'],
                                               'reason': 'gradients differ: Tensor-likes are not close!'},
                          'complex64:18:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell'],
                                               'reason': 'gradients differ: Tensor-likes are not close!'},
                          'complex64:1:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                             'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                             'SkylakeX',
                                                             'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS '
                                                             'SkylakeX'],
                                              'reason': 'values differ: Tensor-likes are not close!'},
                          'complex64:26:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell'],
                                               'reason': 'values differ: Tensor-likes are not close!'}},
 'nn.functional.conv3d': {'complex64:8:bwd': {'differs on': ['AMD EPYC: PyTorch AVX512, oneDNN AVX512, MKL None, '
                                                             'numpy AVX512, BLAS Haswell'],
                                              'reason': "gradients differ: Tensor-likes are not close! (seen under "
                                                        "TINYTORCH_REFERENCE=1 on an AMD EPYC Zen 5, whose OpenBLAS "
                                                        "runs its Haswell kernels: the weight gradient's 1,320-term "
                                                        "complex64 sums round otherwise, 7e-7 of the largest)"},
                          'complex64:9:bwd': {'differs on': ['AMD EPYC: PyTorch AVX512, oneDNN AVX512, MKL None, '
                                                             'numpy AVX512, BLAS Haswell'],
                                              'reason': "gradients differ: Tensor-likes are not close! (seen under "
                                                        "TINYTORCH_REFERENCE=1 on an AMD EPYC Zen 5, whose OpenBLAS "
                                                        "runs its Haswell kernels: the weight gradient's 1,320-term "
                                                        "complex64 sums round otherwise, 7e-7 of the largest)"},
                          'complex64:10:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                              'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                              'SkylakeX',
                                                              'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                              'BLAS SkylakeX',
                                                              'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS '
                                                              'SkylakeX',
                                                              'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                              'BLAS SkylakeX'],
                                               'reason': 'gradients differ: Tensor-likes are not close!'},
                          'complex64:10:fwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS '
                                                              'SkylakeX',
                                                              'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy '
                                                              'AVX512, BLAS SkylakeX'],
                                               'reason': 'values differ: Tensor-likes are not close!'},
                          'complex64:11:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                              'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                              'SkylakeX',
                                                              'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                              'BLAS SkylakeX',
                                                              'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS '
                                                              'SkylakeX',
                                                              'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                              'BLAS SkylakeX'],
                                               'reason': 'gradients differ: Tensor-likes are not close!'},
                          'complex64:11:fwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS '
                                                              'SkylakeX',
                                                              'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy '
                                                              'AVX512, BLAS SkylakeX'],
                                               'reason': 'values differ: Tensor-likes are not close!'},
                          'complex64:8:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                             'SkylakeX',
                                                             'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                             'BLAS SkylakeX',
                                                             'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS '
                                                             'SkylakeX',
                                                             'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                             'BLAS SkylakeX',
                                                             'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS '
                                                             'SkylakeX',
                                                             'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                             'BLAS SkylakeX'],
                                              'reason': 'values differ: Tensor-likes are not close!'},
                          'complex64:9:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS '
                                                             'SkylakeX',
                                                             'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                             'BLAS SkylakeX',
                                                             'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS '
                                                             'SkylakeX',
                                                             'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                             'BLAS SkylakeX',
                                                             'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS '
                                                             'SkylakeX',
                                                             'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                             'BLAS SkylakeX'],
                                              'reason': 'values differ: Tensor-likes are not close!'},
                          'float32:10:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                            'BLAS SkylakeX',
                                                            'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                            'BLAS SkylakeX',
                                                            'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                            'BLAS SkylakeX',
                                                            'numpy 2.x with its OpenBLAS 0.3.31 (SkylakeX kernel '
                                                            'here)'],
                                             'reason': 'gradients differ: Tensor-likes are not close! (match under '
                                                       'numpy 1.24, OpenBLAS 0.3.21)'},
                          'float32:11:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                            'BLAS SkylakeX',
                                                            'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                            'BLAS SkylakeX',
                                                            'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                            'BLAS SkylakeX',
                                                            'numpy 2.x with its OpenBLAS 0.3.31 (SkylakeX kernel '
                                                            'here)'],
                                             'reason': 'gradients differ: Tensor-likes are not close! (match under '
                                                       'numpy 1.24, OpenBLAS 0.3.21)'},
                          'float32:8:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                           'SkylakeX',
                                                           'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                           'BLAS SkylakeX',
                                                           'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                           'BLAS SkylakeX'],
                                            'reason': 'gradients differ: Tensor-likes are not close!'},
                          'float32:9:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                           'SkylakeX',
                                                           'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                           'BLAS SkylakeX',
                                                           'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                           'BLAS SkylakeX'],
                                            'reason': 'gradients differ: Tensor-likes are not close!'}},
 'nn.functional.conv_transpose2d': {'complex64:2:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS '
                                                                       'Haswell'],
                                                        'reason': 'gradients differ: Tensor-likes are not close!'},
                                    'complex64:3:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX512, numpy AVX512, '
                                                                       'BLAS SkylakeX',
                                                                       'PyTorch AVX512, oneDNN AVX512, numpy AVX512, '
                                                                       'BLAS SkylakeX'],
                                                        'reason': 'gradients differ: Tensor-likes are not close!'}},
 'nn.functional.conv_transpose3d': {'complex64:6:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS '
                                                                       'Haswell'],
                                                        'reason': 'gradients differ: Tensor-likes are not close!'},
                                    'float32:6:bwd': {'differs on': ['AMD EPYC: PyTorch DEFAULT, oneDNN AVX512, '
                                                                     'MKL None, numpy AVX512, BLAS Haswell'],
                                                      'reason': "gradients differ: Tensor-likes are not close! "
                                                                "(PyTorch's DEFAULT path on an AMD EPYC Zen 5: "
                                                                "float32 sums in other orders)"},
                                    'float32:7:bwd': {'differs on': ['AMD EPYC: PyTorch DEFAULT, oneDNN AVX512, '
                                                                     'MKL None, numpy AVX512, BLAS Haswell'],
                                                      'reason': "gradients differ: Tensor-likes are not close! "
                                                                "(PyTorch's DEFAULT path on an AMD EPYC Zen 5: "
                                                                "float32 sums in other orders)"},
                                    'complex64:6:fwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy '
                                                                       'AVX512, BLAS SkylakeX'],
                                                        'reason': 'values differ: Tensor-likes are not close!'},
                                    'complex64:7:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS '
                                                                       'Haswell'],
                                                        'reason': 'gradients differ: Tensor-likes are not close!'},
                                    'complex64:7:fwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy '
                                                                       'AVX512, BLAS SkylakeX'],
                                                        'reason': 'values differ: Tensor-likes are not close!'}},
 'nn.functional.scaled_dot_product_attention': {'float32:13:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX',
                                                                                  'PyTorch AVX512, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX',
                                                                                  'PyTorch DEFAULT, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX'],
                                                                   'reason': 'gradients differ: Tensor-likes are not '
                                                                             'close!'},
                                                'float32:13:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy '
                                                                                  'AVX2, BLAS Haswell',
                                                                                  'PyTorch AVX2, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch AVX512, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch DEFAULT, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX'],
                                                                   'reason': 'float32 rounding: samples in [-9, 9] '
                                                                             'make near one-hot weights whose '
                                                                             "gradients PyTorch's flash kernel gets "
                                                                             'to ~3e-5 (a float64 computation '
                                                                             'differs from it as much)'},
                                                'float32:15:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy '
                                                                                  'AVX2, BLAS Haswell',
                                                                                  'PyTorch AVX2, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch AVX2, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX',
                                                                                  'PyTorch AVX512, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch AVX512, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX'],
                                                                   'reason': 'gradients differ: Tensor-likes are not '
                                                                             'close!'},
                                                'float32:19:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch DEFAULT, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX'],
                                                                   'reason': 'gradients differ: Tensor-likes are not '
                                                                             'close!'},
                                                'float32:20:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch DEFAULT, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX'],
                                                                   'reason': 'gradients differ: Tensor-likes are not '
                                                                             'close!'},
                                                'float32:20:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy '
                                                                                  'AVX2, BLAS Haswell',
                                                                                  'PyTorch AVX2, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch AVX2, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX',
                                                                                  'PyTorch AVX512, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch AVX512, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX'],
                                                                   'reason': 'float32 rounding: samples in [-9, 9] '
                                                                             'make near one-hot weights whose '
                                                                             "gradients PyTorch's flash kernel gets "
                                                                             'to ~3e-5 (a float64 computation '
                                                                             'differs from it as much)'},
                                                'float32:21:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy '
                                                                                  'AVX2, BLAS Haswell',
                                                                                  'PyTorch AVX2, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch AVX2, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX',
                                                                                  'PyTorch AVX512, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch AVX512, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX'],
                                                                   'reason': 'float32 rounding: samples in [-9, 9] '
                                                                             'make near one-hot weights whose '
                                                                             "gradients PyTorch's flash kernel gets "
                                                                             'to ~3e-5 (a float64 computation '
                                                                             'differs from it as much)'},
                                                'float32:21:fwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch DEFAULT, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX'],
                                                                   'reason': 'values differ: Tensor-likes are not '
                                                                             'close!'},
                                                'float32:22:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy '
                                                                                  'AVX2, BLAS Haswell',
                                                                                  'PyTorch AVX2, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch AVX2, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX',
                                                                                  'PyTorch AVX512, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch AVX512, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX'],
                                                                   'reason': 'gradients differ: Tensor-likes are not '
                                                                             'close!'},
                                                'float32:23:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch DEFAULT, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX'],
                                                                   'reason': 'gradients differ: Tensor-likes are not '
                                                                             'close!'},
                                                'float32:23:fwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy '
                                                                                  'AVX2, BLAS Haswell',
                                                                                  'PyTorch AVX2, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch AVX2, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX',
                                                                                  'PyTorch AVX512, oneDNN AVX512, '
                                                                                  'numpy AVX512, BLAS SkylakeX',
                                                                                  'PyTorch AVX512, oneDNN REF, MKL '
                                                                                  'AVX512, numpy AVX512, BLAS '
                                                                                  'SkylakeX'],
                                                                   'reason': "random: op_db's wrapper_set_seed seeds "
                                                                             "PyTorch's generator only, so the "
                                                                             'dropout masks differ (the same stream '
                                                                             'when both are seeded: '
                                                                             'tests/nn/test_nn_attention.py)'},
                                                'float32:6:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy '
                                                                                 'AVX2, BLAS Haswell',
                                                                                 'PyTorch AVX2, oneDNN AVX512, numpy '
                                                                                 'AVX512, BLAS SkylakeX',
                                                                                 'PyTorch AVX2, oneDNN REF, MKL '
                                                                                 'AVX512, numpy AVX512, BLAS '
                                                                                 'SkylakeX',
                                                                                 'PyTorch AVX512, oneDNN AVX512, '
                                                                                 'numpy AVX512, BLAS SkylakeX',
                                                                                 'PyTorch AVX512, oneDNN REF, MKL '
                                                                                 'AVX512, numpy AVX512, BLAS '
                                                                                 'SkylakeX'],
                                                                  'reason': 'gradients differ: Tensor-likes are not '
                                                                            'close!'},
                                                'float32:7:fwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, '
                                                                                 'numpy AVX512, BLAS SkylakeX',
                                                                                 'PyTorch DEFAULT, oneDNN REF, MKL '
                                                                                 'AVX512, numpy AVX512, BLAS '
                                                                                 'SkylakeX'],
                                                                  'reason': 'values differ: Tensor-likes are not '
                                                                            'close!'},
                                                'float32:9:bwd': {'differs on': ['PyTorch AVX512, oneDNN AVX512, '
                                                                                 'numpy AVX512, BLAS SkylakeX',
                                                                                 'PyTorch AVX512, oneDNN REF, MKL '
                                                                                 'AVX512, numpy AVX512, BLAS '
                                                                                 'SkylakeX',
                                                                                 'PyTorch DEFAULT, oneDNN REF, MKL '
                                                                                 'AVX512, numpy AVX512, BLAS '
                                                                                 'SkylakeX'],
                                                                  'reason': 'gradients differ: Tensor-likes are not '
                                                                            'close!'}},
 'pca_lowrank': {'complex64:0:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                 'complex64:10:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, MKL AVX2, numpy AVX2, BLAS Haswell',
                                                     'PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                     'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                     'SkylakeX',
                                                     'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                     'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                     'SkylakeX',
                                                     'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                     'SkylakeX',
                                                     'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                     'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                     'SkylakeX',
                                                     'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                     'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                     'SkylakeX'],
                                      'reason': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - "
                                                's_j^2) amplify float32 noise (float64 and real float32 match)'},
                 'complex64:2:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, MKL AVX2, numpy AVX2, BLAS Haswell',
                                                    'PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                    'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - "
                                               's_j^2) amplify float32 noise (float64 and real float32 match)'},
                 'complex64:8:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                 'complex64:9:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, MKL AVX2, numpy AVX2, BLAS Haswell',
                                                    'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'}},
 'special.hermite_polynomial_h': {'float32:5:fwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, '
                                                                   'BLAS SkylakeX'],
                                                    'reason': 'values differ: Tensor-likes are not close!'}},
 'special.hermite_polynomial_he': {'float32:4:fwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, '
                                                                    'BLAS SkylakeX'],
                                                     'reason': 'values differ: Tensor-likes are not close!'}},
 'stft': {'complex64:8:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                              'reason': 'gradients differ: Tensor-likes are not close!'},
          'float32:6:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                            'reason': 'gradients differ: Tensor-likes are not close!'},
          'float32:8:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX'],
                            'reason': 'gradients differ: Tensor-likes are not close!'}},
 'svd': {'complex64:64:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                             'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                             'SkylakeX'],
                              'reason': 'gradients differ: Tensor-likes are not close!'},
         'complex64:66:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                             'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                             'SkylakeX'],
                              'reason': 'gradients differ: Tensor-likes are not close!'},
         'complex64:68:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                             'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                             'SkylakeX'],
                              'reason': 'gradients differ: Tensor-likes are not close!'},
         'complex64:70:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                             'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                             'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                             'SkylakeX'],
                              'reason': 'gradients differ: Tensor-likes are not close!'},
         'float32:208:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, MKL AVX2, numpy AVX2, BLAS Haswell',
                                            'PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                            'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                            'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                            'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                            'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                            'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                            'SkylakeX'],
                             'reason': 'gradients differ: Tensor-likes are not close!'},
         'float32:212:bwd': {'differs on': ['PyTorch AVX2, oneDNN AVX2, MKL AVX2, numpy AVX2, BLAS Haswell',
                                            'PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                            'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                            'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                            'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX',
                                            'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                            'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                            'SkylakeX'],
                             'reason': 'gradients differ: Tensor-likes are not close!'},
         'float32:64:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX'],
                            'reason': 'gradients differ: Tensor-likes are not close!'},
         'float32:68:bwd': {'differs on': ['PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS SkylakeX'],
                            'reason': 'gradients differ: Tensor-likes are not close!'}},
 'svd_lowrank': {'complex64:0:bwd': {'differs on': ['AMD EPYC: PyTorch DEFAULT, oneDNN AVX512, MKL None, numpy '
                                                    'AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': 'gradients differ: Tensor-likes are not close!'},
                 'complex64:2:bwd': {'differs on': ['AMD EPYC: PyTorch AVX2, oneDNN AVX2, MKL None, numpy AVX2, BLAS '
                                                    'Haswell',
                                                    'AMD EPYC: PyTorch AVX2, oneDNN AVX512, MKL None, numpy AVX512, '
                                                    'BLAS SkylakeX',
                                                    'AMD EPYC: PyTorch AVX512, oneDNN AVX512, MKL None, numpy '
                                                    'AVX512, BLAS SkylakeX',
                                                    'AMD EPYC: PyTorch DEFAULT, oneDNN AVX512, MKL None, numpy '
                                                    'AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX2, oneDNN AVX2, MKL AVX2, numpy AVX2, BLAS Haswell',
                                                    'PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                    'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - "
                                               's_j^2) amplify float32 noise (float64 and real float32 match)'},
                 'complex64:3:bwd': {'differs on': ['AMD EPYC: PyTorch AVX2, oneDNN AVX2, MKL None, numpy AVX2, BLAS '
                                                    'Haswell',
                                                    'AMD EPYC: PyTorch DEFAULT, oneDNN AVX512, MKL None, numpy '
                                                    'AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX2, oneDNN AVX2, MKL AVX2, numpy AVX2, BLAS Haswell',
                                                    'PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                    'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - "
                                               's_j^2) amplify float32 noise (float64 and real float32 match)'},
                 'complex64:8:bwd': {'differs on': ['AMD EPYC: PyTorch AVX2, oneDNN AVX2, MKL None, numpy AVX2, BLAS '
                                                    'Haswell',
                                                    'AMD EPYC: PyTorch AVX2, oneDNN AVX512, MKL None, numpy AVX512, '
                                                    'BLAS SkylakeX',
                                                    'AMD EPYC: PyTorch AVX512, oneDNN AVX512, MKL None, numpy '
                                                    'AVX512, BLAS SkylakeX',
                                                    'AMD EPYC: PyTorch DEFAULT, oneDNN AVX512, MKL None, numpy '
                                                    'AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
                                                    'PyTorch AVX2, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
                                                    'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                    'SkylakeX'],
                                     'reason': "complex64 rounding: the SVD's and QR's backward terms 1 / (s_i^2 - "
                                               's_j^2) amplify float32 noise (float64 and real float32 match)'}},
 'torch._scaled_mm': {'float8_e4m3fn:0:fwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                             'BLAS SkylakeX',
                                                             'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                             'BLAS SkylakeX',
                                                             'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, '
                                                             'BLAS SkylakeX'],
                                              'reason': "values differ: Tensor-likes are not 'equal'! (oneDNN's "
                                                        'float8 kernel on AMX CPUs)'}},
 'triangular_solve': {'float32:4:bwd': {'differs on': ['PyTorch AVX2, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                       'SkylakeX',
                                                       'PyTorch AVX512, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                       'SkylakeX',
                                                       'PyTorch DEFAULT, oneDNN REF, MKL AVX512, numpy AVX512, BLAS '
                                                       'SkylakeX'],
                                        'reason': 'gradients differ: Tensor-likes are not close!'}}}
