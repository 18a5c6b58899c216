"""``tinytorch.hub``: the hub directory is kept as PyTorch keeps it (``$TORCH_HOME/hub``, default
``~/.cache/torch/hub``), but nothing is downloaded: ``load``/``list``/``help`` raise, because hub
entry points are PyTorch programs fetched from GitHub, and tinytorch neither fetches nor runs them."""
from __future__ import annotations

import os
import re

from tqdm import tqdm  # noqa: F401  (torch.hub.tqdm: the progress bar of downloads)

__all__ = ["get_dir", "set_dir", "load", "list", "help", "load_state_dict_from_url", "download_url_to_file"]

_hub_dir = [None]
# the hash prefix in a checkpoint's file name (``resnet18-f37072fd.pth``), which check_hash compares
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_UNSUPPORTED = ("tinytorch.hub.{} is not supported: tinytorch does not download hub repositories or weights "
                "(no network access, and hub code is written for PyTorch). Load a local checkpoint with "
                "tinytorch.load instead")


def _get_torch_home() -> str:
    """``$TORCH_HOME``, else ``$XDG_CACHE_HOME/torch`` (``~/.cache/torch``): PyTorch's cache root (torchvision
    keeps its datasets' default folder under it)."""
    return os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "torch")))


def get_dir() -> str:
    if _hub_dir[0] is not None:
        return _hub_dir[0]
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d) -> None:
    _hub_dir[0] = os.path.expanduser(d)


def load(repo_or_dir, model, *args, **kwargs):
    raise RuntimeError(_UNSUPPORTED.format("load"))


def list(github, force_reload: bool = False, skip_validation: bool = False, trust_repo=None, verbose: bool = True):  # noqa: A001
    raise RuntimeError(_UNSUPPORTED.format("list"))


def help(github, model, force_reload: bool = False, skip_validation: bool = False, trust_repo=None):  # noqa: A001
    raise RuntimeError(_UNSUPPORTED.format("help"))


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress: bool = True, check_hash: bool = False,
                             file_name=None, weights_only: bool = False):
    raise RuntimeError(_UNSUPPORTED.format("load_state_dict_from_url"))


def download_url_to_file(url, dst, hash_prefix=None, progress: bool = True):
    raise RuntimeError(_UNSUPPORTED.format("download_url_to_file"))
