"""``torch.fx.experimental``: only ``proxy_tensor.get_proxy_mode``, which libraries ask before taking a
path that tracing cannot follow."""
