"""``compatibility``: PyTorch marks its fx API with it; libraries decorate their own fx code with it too."""
__all__ = ["compatibility"]


def compatibility(is_backward_compatible: bool):
    """A decorator that records the promise on the object and returns it unchanged."""
    def mark(fn):
        fn._is_backward_compatible = is_backward_compatible
        return fn

    return mark
