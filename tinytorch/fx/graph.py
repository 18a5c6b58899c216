"""``tinytorch.fx.graph``: ``Graph`` (not implemented: constructing one raises)."""
_MISSING = "tinytorch has no FX (symbolic tracing into graphs): {} is not implemented"


class Graph:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_MISSING.format("torch.fx.Graph"))
