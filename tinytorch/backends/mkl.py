"""``tinytorch.backends.mkl``: Intel's MKL is not part of tinytorch (its BLAS is numpy's), so
``is_available()`` is False."""


def is_available() -> bool:
    return False


class verbose:
    """MKL's verbose messages: there is no MKL to print them; level 0 (off) is accepted."""

    def __init__(self, enable) -> None:
        self.enable = enable

    def __enter__(self):
        if self.enable:
            raise RuntimeError("tinytorch has no MKL whose verbose mode could be turned on")
        return self

    def __exit__(self, *exc):
        return False
