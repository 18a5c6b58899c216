"""``tinytorch.fx.proxy``: ``Proxy`` (the name annotations use; no proxy is ever made)."""


class Proxy:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("tinytorch has no FX (symbolic tracing into graphs): torch.fx.Proxy is not "
                                  "implemented")
