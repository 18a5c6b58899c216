"""What the binary arithmetic families (arith.py, division.py, power.py, compare.py) share: the node
base that remembers each input's shape and dtype, the spellings they are declared under, and the
half/bfloat16 operand check. A module of its own so that those families need not import each other."""
from __future__ import annotations

import numpy as np

from .._dtype import LOWP_NP
from ..autograd.node import Node
from ._util import meta

_ARITH = "function method inplace out"  # the spellings of PyTorch's binary arithmetic


class _BinaryNode(Node):
    """Remembers each input's shape/dtype only when it differs from the result's."""

    a_meta = None
    b_meta = None
    _instance_attrs = ("a_meta", "b_meta", "alpha")

    def _set_meta(self, ta, tb, out):
        self.a_meta = meta(ta, out)
        self.b_meta = meta(tb, out)


def _lowp(ad, bd):
    """The half/bfloat16 dtype of an operand array (after binary_operands), else None."""
    for x in (ad, bd):
        if type(x) is np.ndarray and x.itemsize == 2 and x.dtype in LOWP_NP:  # itemsize first: cheap
            return x.dtype
    return None
