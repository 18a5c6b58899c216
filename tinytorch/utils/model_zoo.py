"""``tinytorch.utils.model_zoo`` (PyTorch's ``torch.utils.model_zoo``): ``load_url`` is ``hub``'s
``load_state_dict_from_url`` (which raises: nothing is downloaded), ``tqdm`` the progress bar."""
from ..hub import load_state_dict_from_url as load_url, tqdm  # noqa: F401

__all__ = ["load_url", "tqdm"]
