"""The Tensor's own files, behind ``tinytorch/tensor.py`` (the class, its state and its autograd-facing
methods): how a tensor prints (``printing``), hands its values to Python and numpy (``conversion``),
reports where it lives and copies itself (``placement``), its members that are not ops (``members``:
memory, layouts, subclasses), and the legacy tensor types (``legacy_types``: ``FloatTensor``...)."""
