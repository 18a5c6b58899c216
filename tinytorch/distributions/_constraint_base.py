"""``Constraint``, the base class of ``constraints.py``'s regions, in a module of its own so that the
matrix constraints (``_matrix_constraints.py``) can subclass it without an import cycle;
``constraints.py`` re-exports it under PyTorch's name."""
from __future__ import annotations


class Constraint:
    """A region over which a variable is valid; ``event_dim`` rightmost dims form one event."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__[1:] + "()"
