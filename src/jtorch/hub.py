"""torch.hub: the cache directory, local hub repositories and checkpoint downloads.

``load``/``list``/``help`` work with ``source="local"`` (a directory holding a
``hubconf.py``); GitHub sources need a download jtorch does not make, and raise saying so.
``load_state_dict_from_url`` reads a cached file or a ``file://`` URL offline and otherwise
tries the download, raising a RuntimeError that names the URL when it cannot be fetched.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load",
           "load_state_dict_from_url", "set_dir"]

ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_hub_dir: list = [None]


def _torch_home() -> str:
    default = os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, default))


def get_dir() -> str:
    """The hub cache: set_dir's, else $TORCH_HOME/hub (default ~/.cache/torch/hub)."""
    if os.getenv("TORCH_HUB"):
        import warnings

        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead",
                      stacklevel=2)
    if _hub_dir[0] is not None:
        return _hub_dir[0]
    return os.path.join(_torch_home(), "hub")


def set_dir(d) -> None:
    _hub_dir[0] = os.path.expanduser(d)


def _no_github(repo: str):
    return RuntimeError(f"torch.hub: loading '{repo}' from GitHub needs a download that jtorch "
                        "does not make (not supported in jtorch); clone the repository and "
                        "pass its directory with source='local'")


def _hubconf(repo_or_dir: str, source: str):
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        raise _no_github(repo_or_dir)
    path = os.path.join(repo_or_dir, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, repo_or_dir)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_or_dir)
    missing = [d for d in getattr(module, VAR_DEPENDENCY, []) if importlib.util.find_spec(d)
               is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(module, model: str):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    func = getattr(module, model, None)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def list(github, force_reload=False, skip_validation=False, trust_repo=None, verbose=True,
         source="github"):
    """The entrypoints (public callables) of a hub repository's hubconf.py."""
    module = _hubconf(github, source)
    return [f for f in dir(module) if callable(getattr(module, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo=None,
         source="github"):
    """The docstring of one entrypoint."""
    return _entry(_hubconf(github, source), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo=None, force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """Call ``model(*args, **kwargs)`` from a repository's hubconf.py."""
    return _entry(_hubconf(repo_or_dir, source.lower()), model)(*args, **kwargs)


def download_url_to_file(url, dst, hash_prefix=None, progress=True) -> None:
    """Download ``url`` (``file://`` included) to ``dst``, checking a SHA-256 prefix."""
    sha = hashlib.sha256()
    tmp = tempfile.NamedTemporaryFile(delete=False, dir=os.path.dirname(os.path.abspath(dst)))
    try:
        with urllib.request.urlopen(url) as response, tmp:
            while chunk := response.read(READ_DATA_CHUNK):
                tmp.write(chunk)
                sha.update(chunk)
        if hash_prefix is not None and not sha.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got '
                               f'"{sha.hexdigest()}")')
        shutil.move(tmp.name, dst)
    except OSError as e:
        raise RuntimeError(f"torch.hub: could not download {url}: {e} (is the network "
                           "reachable?)") from e
    finally:
        if os.path.exists(tmp.name):
            os.remove(tmp.name)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """``torch.load`` of the file at ``url``, cached under ``<hub dir>/checkpoints``."""
    import jtorch

    model_dir = model_dir or os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress)
    return jtorch.load(cached, map_location=map_location, weights_only=weights_only)
