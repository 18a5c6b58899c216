"""The Tensor's own files, behind ``tinytorch/tensor.py`` (the class, its state and its autograd-facing
methods): how a tensor prints (``printing``), hands its values to Python and numpy (``conversion``),
reports where it lives and copies itself (``placement``), swaps its state with another's (``swap``), and the
legacy tensor types (``legacy_types``: ``FloatTensor``...). Its members that are not ops but built on them
(memory, layouts, subclasses) are ``tinytorch/_ops/_core/members.py``."""
