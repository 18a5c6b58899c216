"""``torch._inductor.config``: inductor's settings that scripts set before ``torch.compile`` (gpt-fast's
``coordinate_descent_tuning``, ``triton.unique_kernel_names``, ``fx_graph_cache``...), with PyTorch 2.13's
defaults. tinytorch's compiler has no kernels of inductor's kind to tune, so none of them changes what it does;
they are kept so that such scripts run, and an unknown name is an AttributeError, as in PyTorch
(``tinytorch/_config_module.py``)."""
from __future__ import annotations

from .._config_module import install, section

debug = False
max_autotune = False
max_autotune_gemm = False
max_autotune_pointwise = False
coordinate_descent_tuning = False
coordinate_descent_check_all_directions = False
fx_graph_cache = True
fx_graph_remote_cache = None
autotune_local_cache = True
search_autotune_cache = False
benchmark_kernel = False
benchmark_fusion = False
freezing = False
freezing_discard_parameters = False
epilogue_fusion = True
aggressive_fusion = False
max_fusion_size = 64
permute_fusion = False
pattern_matcher = True
pre_grad_fusion_options: dict = {}
post_grad_fusion_options: dict = {}
conv_1x1_as_mm = False
force_fuse_int_mm_with_mul = False
use_mixed_mm = True
cpp_wrapper = False
compile_threads = 2
shape_padding = True
comprehensive_padding = True
split_reductions = True
unroll_reductions_threshold = 8
realize_opcount_threshold = None
reorder_for_compute_comm_overlap = False
size_asserts = True
emulate_precision_casts = False
fallback_random = False
generate_intermediate_hooks = False
allow_buffer_reuse = True
inplace_buffers = True
implicit_fallbacks = True
layout_optimization = True
keep_output_stride = True
dce = False
assert_indirect_indexing = True

triton = section("torch._inductor.config.triton", unique_kernel_names=True, cudagraphs=False, cudagraph_trees=True,
                 cudagraph_skip_dynamic_graphs=False, autotune_pointwise=True, max_tiles=2)
cpp = section("torch._inductor.config.cpp", threads=-1, simdlen=None, enable_kernel_profile=False,
              dynamic_threads=False, fallback_scatter_reduce_sum=True)
trace = section("torch._inductor.config.trace", enabled=False, debug_log=False, info_log=False, graph_diagram=False)

install(__name__)
