"""``tinytorch.hub``: PyTorch's hub cache (``$TORCH_HOME/hub``, default ``~/.cache/torch/hub``) and its
checkpoint loading.

``load_state_dict_from_url`` reads a checkpoint already in ``<hub dir>/checkpoints`` (where PyTorch would
have left it) without any network, and otherwise downloads it as PyTorch does (``download_url_to_file``:
a temporary file, the ``sha256`` prefix of ``check_hash`` checked, then renamed); a download that cannot
reach the host raises a RuntimeError that names the URL and the path where the file would be used from.
``load(dir, model, source="local")`` runs a local ``hubconf.py`` entry point. Hub repositories on GitHub
(``load``/``list``/``help`` with ``source="github"``) are refused: their code is fetched and run as
programs written for PyTorch, which tinytorch does not fetch."""
from __future__ import annotations

import contextlib
import hashlib
import http.client
import importlib.util
import os
import re
import sys
import urllib.error
import zipfile
from urllib.parse import urlparse  # noqa: F401  (torch.hub.urlparse: timm imports it from here)
from urllib.request import Request, urlopen  # noqa: F401  (torch.hub's names)

from tqdm import tqdm  # noqa: F401  (torch.hub.tqdm: the progress bar of downloads)

from .data.datasets._download import _fetch, _reason
from .serialization import load as _load

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

# PyTorch's names: the checkpoint file's hash part (``resnet18-f37072fd.pth``) and the hub's conventions
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024

_hub_dir = [None]
_GITHUB = ("tinytorch.hub.{} of a GitHub repository is not supported: tinytorch does not fetch hub repositories "
           "(their hubconf.py is a program written for PyTorch). Clone it and call "
           "tinytorch.hub.load(path, model, source='local'), or load a local checkpoint with tinytorch.load")
_DOWNLOAD_TIMEOUT_S, _DOWNLOAD_DEADLINE_S = 60, 3600


def _get_torch_home() -> str:
    """``$TORCH_HOME``, else ``$XDG_CACHE_HOME/torch`` (``~/.cache/torch``): PyTorch's cache root (torchvision
    keeps its datasets' default folder under it)."""
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR),
                                                                      "torch")))


def get_dir() -> str:
    """The hub folder: ``set_dir``'s, else ``<torch home>/hub``."""
    if _hub_dir[0] is not None:
        return _hub_dir[0]
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d) -> None:
    """Use ``d`` as the hub folder from now on."""
    _hub_dir[0] = os.path.expanduser(d)


def load(repo_or_dir, model, *args, source: str = "github", trust_repo=None, force_reload: bool = False,
         verbose: bool = True, skip_validation: bool = False, **kwargs):
    """Call the entry point ``model`` of ``repo_or_dir/hubconf.py`` (``source="local"``) with ``args``/``kwargs``."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        raise RuntimeError(_GITHUB.format("load"))
    with _on_sys_path(repo_or_dir):
        hub_module = _import_module(MODULE_HUBCONF, os.path.join(repo_or_dir, MODULE_HUBCONF))
        return _load_entry_from_hubconf(hub_module, model)(*args, **kwargs)


def list(github, force_reload: bool = False, skip_validation: bool = False, trust_repo=None, verbose: bool = True):  # noqa: A001
    """The entry points of a GitHub hub repository: refused (nothing is fetched)."""
    raise RuntimeError(_GITHUB.format("list"))


def help(github, model, force_reload: bool = False, skip_validation: bool = False, trust_repo=None):  # noqa: A001
    """An entry point's docstring from a GitHub hub repository: refused (nothing is fetched)."""
    raise RuntimeError(_GITHUB.format("help"))


@contextlib.contextmanager
def _on_sys_path(path):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_module(name: str, path: str):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise AssertionError(f"failed to load spec from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_entry_from_hubconf(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    missing = [pkg for pkg in getattr(module, VAR_DEPENDENCY, None) or ()
               if importlib.util.find_spec(pkg) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    func = getattr(module, model, None) if model in dir(module) else None
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Download ``url`` to ``dst`` through a temporary file beside it; with ``hash_prefix``, the file's SHA-256 must
    start with it (PyTorch's RuntimeError otherwise, and no file is left)."""
    dst = os.path.expanduser(dst)
    try:
        _fetch(url, dst, None, _DOWNLOAD_TIMEOUT_S, _DOWNLOAD_DEADLINE_S, None, progress)
    except (urllib.error.URLError, http.client.HTTPException, OSError) as err:
        raise RuntimeError(f"tinytorch.hub could not download {url} ({_reason(err)}). Without network access, "
                           f"place the file at {dst} and it is used from there") from err
    if hash_prefix is not None:
        # checked once the file is complete (the download helper checks MD5s only); a wrong file is removed
        digest = hashlib.sha256()
        with open(dst, "rb") as f:
            while chunk := f.read(READ_DATA_CHUNK):
                digest.update(chunk)
        if not digest.hexdigest().startswith(hash_prefix):
            os.remove(dst)
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest.hexdigest()}")')


def _is_legacy_zip_format(filename: str) -> bool:
    """A checkpoint zipped by hand around one file (PyTorch < 1.6 releases), not a ``torch.save`` zip."""
    if zipfile.is_zipfile(filename):
        with zipfile.ZipFile(filename) as zf:
            infolist = zf.infolist()
        return len(infolist) == 1 and not infolist[0].is_dir()
    return False


def _legacy_zip_load(filename: str, model_dir: str, map_location, weights_only: bool):
    with zipfile.ZipFile(filename) as f:
        member = f.infolist()[0]
        target = os.path.realpath(os.path.join(model_dir, member.filename))
        if os.path.commonpath([target, os.path.realpath(model_dir)]) != os.path.realpath(model_dir):
            raise ValueError(f"Zip file {filename} contains a path outside {model_dir}: {member.filename}")
        f.extract(member, model_dir)
    return _load(target, map_location=map_location, weights_only=weights_only)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None, progress: bool = True,
                             check_hash: bool = False, file_name: str | None = None, weights_only: bool = False):
    """The object saved in the checkpoint at ``url``: read from ``<model_dir>/<file name>`` (``model_dir`` defaults
    to ``<hub dir>/checkpoints``), downloaded there first when it is not yet there."""
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        if progress:  # PyTorch's line, on stderr beside the bar: the library writes nothing to stdout
            sys.stderr.write(f'Downloading: "{url}" to {cached_file}\n')
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached_file, match.group(1) if match else None, progress=progress)
    if _is_legacy_zip_format(cached_file):
        return _legacy_zip_load(cached_file, model_dir, map_location, weights_only)
    return _load(cached_file, map_location=map_location, weights_only=weights_only)
