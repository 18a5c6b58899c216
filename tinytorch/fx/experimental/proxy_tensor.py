"""``torch.fx.experimental.proxy_tensor``: PyTorch's make_fx tracer records ops through a proxy mode;
tinytorch has no such mode, so none is ever active."""
from __future__ import annotations

__all__ = ["get_proxy_mode", "make_fx"]


def get_proxy_mode():
    """None: no proxy-tensor tracing runs on tinytorch."""
    return None


def make_fx(f, *args, **kwargs):
    raise NotImplementedError("tinytorch has no make_fx: its ops run eagerly and have no dispatch mode to trace "
                              "through")
