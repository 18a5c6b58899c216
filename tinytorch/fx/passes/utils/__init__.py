"""Helpers of the passes (``matcher_utils.SubgraphMatcher``, which ``subgraph_rewriter`` uses)."""
