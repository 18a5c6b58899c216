"""``tinytorch.__future__``: PyTorch's switches for how ``nn.Module`` conversions (``to``, ``float``, ...) and
``load_state_dict`` put the new tensors in place: by default a parameter keeps its object and takes the new data
(``param.data = new``); with ``set_swap_module_params_on_conversion(True)`` the new tensor is swapped into the
parameter's object (``torch.utils.swap_tensors``), class and attributes included, which keeps a tensor subclass's
payload converted too."""

_overwrite_module_params_on_conversion: bool = False
_swap_module_params_on_conversion: bool = False


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Convert by assigning new parameters rather than setting ``.data`` (superseded by swapping)."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion() -> bool:
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value: bool) -> None:
    """Convert and load by ``swap_tensors`` (keeps every parameter object, its class and attributes follow)."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion() -> bool:
    return _swap_module_params_on_conversion
