"""The Tensor's own files, behind ``tinytorch/tensor.py`` (the class, its state and its autograd-facing
methods): how a tensor prints (``printing``), hands its values to Python and numpy (``conversion``),
reports where it lives and copies itself (``placement``), swaps its state with another's (``swap``), and the
legacy tensor types (``legacy_types``: ``FloatTensor``...). Its members that are not ops but built on them
(memory, layouts, subclasses) are ``tinytorch/_ops/_core/members.py``."""


def parsed(method):
    """Marks a hand-written ``Tensor`` method that PyTorch writes in C++, whose arguments its argument parser reads:
    ``_ops/_core/members.py`` gives it the other spellings of its keywords (``x.size(axis=0)``) and PyTorch's name
    in its errors, as the registry gives the ops' methods (``_ops/_core/arguments.parsed_method``)."""
    method.parsed = True
    return method
