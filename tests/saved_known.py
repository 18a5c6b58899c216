"""Where tinytorch's ``_saved_<name>`` attributes and saved-tensor hooks are known to differ from PyTorch's
over op_db's samples (``tests/_saved_compare.py``), each with its reason.
``tests/autograd/test_autograd_saved.py`` fails on any difference not listed here."""

# node class -> why its saved values differ (names and the values of the others agree)
VALUES = {
    "FftC2RBackward0": "hfft2/hfftn: tinytorch's c2r transforms all dims in one node, PyTorch's the last "
                       "one after a c2c over the others",
    "LinalgEigBackward0": "eigenvectors: numpy's LAPACK call normalises their phase otherwise",
    "LinalgEighBackward0": "eigenvectors: the sign LAPACK's driver gives differs from PyTorch's",
    "MmBackward0": "matrix_power multiplies in another order; pinv's products see other strides",
    "PermuteBackward0": "tensordot permutes with non-negative dims (PyTorch passes -2, -1)",
    "PreluKernelBackward0": "a 0-d input: the weight is viewed as 0-d before the kernel",
    "UnsqueezeBackward0": "vander unsqueezes at 0 where PyTorch's does at -1",
    "ViewBackward0": "bilinear and inner are composed of other views than PyTorch's",
    "CtcLossBackward0": "ctc_loss keeps its own intermediates (no log_alpha/neg_log_likelihood tensors)",
}

# (node class, op_db entry) -> why that entry's values of the node class differ (the class's other entries
# agree)
ENTRY_VALUES = {
    ("LinalgSvdBackward0", "svd_lowrank"): "the singular vectors' signs: LAPACK's driver gives the other sign "
                                           "for the nearly diagonal matrix svd_lowrank factors",
}

# op_db entry -> why the tensors its graph hands a pack hook differ (in count, shape or dtype: the order
# of the tensors of each node class is PyTorch's; tests/_saved_compare.py's ``orders`` walk checks it)
_RECOMPUTED = "PyTorch packs values its kernel computed (LU and pivots, argmax indices, batch statistics, " \
              "index tensors) that tinytorch's node recomputes when asked"
_COMPOSED = "tinytorch's graph is composed of other nodes (or the same nodes over other shapes) than PyTorch's"
_EXTRA = "tinytorch's node saves tensors PyTorch's does not (or fewer)"
PACKS = {
    **dict.fromkeys([
        "__getitem__", "index_put", "put", "combinations", "linalg.det", "linalg.slogdet", "logdet", "linalg.solve",
        "linalg.solve_ex", "linalg.tensorsolve", "linalg.lu", "linalg.lu_factor", "linalg.lu_factor_ex", "lu",
        "nn.functional.adaptive_max_pool1d", "nn.functional.adaptive_max_pool2d", "nn.functional.max_pool1d",
        "nn.functional.max_pool2d", "max_pool2d_with_indices_backward", "nn.functional.fractional_max_pool2d",
        "nn.functional.fractional_max_pool3d",
        "nn.functional.adaptive_max_pool3d", "nn.functional.max_pool3d",
        "nn.functional.batch_norm", "nn.functional.instance_norm", "nn.functional.group_norm",
        "nn.functional.layer_norm", "native_batch_norm", "native_group_norm", "native_layer_norm",
        "nn.functional.logsigmoid", "nn.functional.nll_loss", "sparse.mm.reduce",
        "nn.functional.cross_entropy", "nn.functional.ctc_loss", "index_reduce.amax", "index_reduce.amin",
        "index_reduce.mean", "index_reduce.prod",
    ], _RECOMPUTED),
    **dict.fromkeys([
        "__rdiv__", "addr", "inner", "ormqr", "grid_sampler_3d", "cholesky_inverse", "cholesky_solve", "corrcoef", "cov",
        "linalg.cond", "linalg.lu_solve", "lu_solve", "masked.normalize", "nanquantile", "quantile",
        "nn.functional.bilinear", "nn.functional.conv3d",
        "nn.functional.conv_transpose1d", "nn.functional.conv_transpose3d", "nn.functional.embedding_bag",
        "nn.functional.grid_sample", "nn.functional.kl_div", "nn.functional.linear_cross_entropy",
        "nn.functional.linear_cross_entropy.chunked", "nn.functional.linear_cross_entropy.chunked_none",
        "nn.functional.max_unpool1d", "nn.functional.max_unpool1d.grad", "nn.functional.max_unpool2d",
        "nn.functional.max_unpool2d.grad", "nn.functional.max_unpool3d", "nn.functional.max_unpool3d.grad",
        "nn.functional.multi_head_attention_forward", "nn.functional.multilabel_margin_loss",
        "nn.functional.multilabel_soft_margin_loss", "nn.functional.normalize",
        "nn.functional.scaled_dot_product_attention", "nn.functional.triplet_margin_loss", "stft",
        "triangular_solve",
    ], _COMPOSED),
    **dict.fromkeys([
        "copysign", "frexp", "ldexp", "renorm", "std_mean", "std_mean.unbiased", "var_mean", "var_mean.unbiased",
    ], _EXTRA),
    "nn.functional.linear": "linear's node keeps W, PyTorch's addmm/mm keeps (and packs) W.t()",
    "nn.functional.prelu": "a 0-d input: the weight is viewed as 0-d before the kernel",
}
