"""``TorchVersion`` (PyTorch's ``torch.torch_version``): a ``str`` that compares as a version, so that
``torch.__version__ >= "2.1"`` and ``torch.__version__ < (2, 0)`` give the answers a version gate expects."""
from __future__ import annotations

import re

__all__ = ["TorchVersion"]

_RELEASE = re.compile(r"^\s*v?(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.?(post)(\d+))?(?:\.?(dev)(\d+))?(?:\+(\S+))?\s*$")
_PRE_RANK = {"dev": -3, "a": -2, "b": -1, "rc": 0}


def _key(version) -> tuple:
    """A sort key with PEP 440's order for the common forms (release, pre-, post-, dev-release, local label)."""
    if isinstance(version, (tuple, list)):
        version = ".".join(str(v) for v in version)
    try:
        from packaging.version import Version  # the exact rules, where packaging is installed
    except ImportError:
        Version = None
    if Version is not None:
        return (Version(str(version)),)
    m = _RELEASE.match(str(version))
    if m is None:
        raise ValueError(f"Invalid version: {version!r}")
    release = tuple(int(p) for p in m.group(1).split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    if m.group(2):
        pre = (_PRE_RANK[m.group(2)], int(m.group(3)))
    elif m.group(6) and not m.group(4):
        pre = (_PRE_RANK["dev"], 0)
    else:
        pre = (1, 0)
    post = int(m.group(5)) if m.group(4) else -1
    dev = int(m.group(7)) if m.group(6) else 1 << 62
    local = tuple((0, int(p), "") if p.isdigit() else (-1, 0, p) for p in re.split(r"[.\-_]", m.group(8))) \
        if m.group(8) else ()
    return (release, pre, post, dev, local)


class TorchVersion(str):
    """A version string whose comparisons (with strings, tuples or versions) are version comparisons."""

    def _cmp_key(self, other):
        if not isinstance(other, (str, tuple, list)) and type(other).__name__ == "Version":
            other = str(other)
        return _key(str(self)), _key(other)

    def __eq__(self, other):
        try:
            a, b = self._cmp_key(other)
        except (ValueError, TypeError):
            return str.__eq__(self, other)
        return a == b

    def __ne__(self, other):
        return not self.__eq__(other)

    def __lt__(self, other):
        a, b = self._cmp_key(other)
        return a < b

    def __le__(self, other):
        a, b = self._cmp_key(other)
        return a <= b

    def __gt__(self, other):
        a, b = self._cmp_key(other)
        return a > b

    def __ge__(self, other):
        a, b = self._cmp_key(other)
        return a >= b

    __hash__ = str.__hash__
