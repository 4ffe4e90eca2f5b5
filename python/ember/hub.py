"""ember.hub, as torch.hub: models from hubconf.py repositories and checkpoints from URLs.

The cache lives in get_dir(): set_dir(d) if called, else $EMBER_HOME/hub, else $TORCH_HOME/hub, else
$XDG_CACHE_HOME/ember/hub (~/.cache/ember/hub). GitHub repositories are downloaded as zip archives from
`_GITHUB_URL` (https://github.com) into that cache; downloads use urllib, so file:// URLs work as well.
Checkpoints are read with ember.load, which never runs code from the file.
"""

import builtins
import contextlib
import importlib.util
import os
import re
import shutil
import sys
import warnings

# urllib.request, hashlib and zipfile are imported where they are used: `import ember` imports this module, and
# urllib.request alone (http.client, ssl) costs tens of milliseconds

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

ENV_EMBER_HOME = "EMBER_HOME"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")
_GITHUB_URL = "https://github.com"  # where archives come from (tests point it at a file:// folder)
_GITHUB_API_URL = "https://api.github.com"

_hub_dir = None

try:
    from tqdm.auto import tqdm as _tqdm
except ImportError:
    _tqdm = None


class _Progress:
    """tqdm when it is installed, else a percentage (or byte count) on stderr."""

    def __init__(self, total, enabled):
        self.total, self.enabled, self.n = total, enabled, 0
        self.bar = _tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024) if enabled and _tqdm else None

    def update(self, n):
        self.n += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.enabled:
            sys.stderr.write("\r%.1f%%" % (100.0 * self.n / self.total) if self.total else "\r%d bytes" % self.n)
            sys.stderr.flush()

    def close(self):
        if self.bar is not None:
            self.bar.close()
        elif self.enabled:
            sys.stderr.write("\n")


def _ember_home():
    """Base folder of ember's caches: $EMBER_HOME, else $TORCH_HOME, else $XDG_CACHE_HOME/ember."""
    home = os.getenv(ENV_EMBER_HOME) or os.getenv(ENV_TORCH_HOME)
    if not home:
        home = os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "ember")
    return os.path.expanduser(home)


def get_dir():
    """The hub cache folder: set_dir()'s argument, else <EMBER_HOME or TORCH_HOME>/hub, else
    ~/.cache/ember/hub (PyTorch's default is ~/.cache/torch/hub)."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead")
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_ember_home(), "hub")


def set_dir(d):
    """Use folder `d` as the hub cache from now on."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


# ---- downloads


def _open(request, doing):
    """urlopen, with an error that says what was being fetched when the network is unreachable."""
    from urllib.error import HTTPError, URLError
    from urllib.request import urlopen

    try:
        return urlopen(request)
    except HTTPError:
        raise
    except URLError as e:
        raise URLError(
            "ember.hub: cannot {}: {} (is the network reachable? without one, use source='local' or a "
            "file:// URL)".format(doing, e.reason)
        ) from e


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Download `url` (http(s), file, ...) to `dst`. The bytes go to a temporary file beside `dst` that is
    renamed only when complete and, given `hash_prefix`, only when the SHA-256 digest starts with it
    (RuntimeError otherwise)."""
    import hashlib
    import uuid
    from urllib.request import Request

    response = _open(Request(url, headers={"User-Agent": "ember.hub"}), "download " + url)
    dst = os.path.expanduser(os.fspath(dst))
    tmp = "%s.%s.partial" % (dst, uuid.uuid4().hex)
    length = response.headers.get("Content-Length")
    sha256 = hashlib.sha256() if hash_prefix is not None else None
    bar = _Progress(int(length) if length and length.isdigit() else None, progress)
    try:
        with response, open(tmp, "wb") as f:
            while True:
                chunk = response.read(READ_DATA_CHUNK)
                if not chunk:
                    break
                f.write(chunk)
                if sha256 is not None:
                    sha256.update(chunk)
                bar.update(len(chunk))
        bar.close()
        if sha256 is not None:
            digest = sha256.hexdigest()
            if digest[: len(hash_prefix)] != hash_prefix:
                raise RuntimeError('invalid hash value (expected "{}", got "{}")'.format(hash_prefix, digest))
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _is_legacy_zip_format(filename):
    import zipfile

    if zipfile.is_zipfile(filename):
        with zipfile.ZipFile(filename) as z:
            members = z.infolist()
        return len(members) == 1 and not members[0].is_dir()
    return False


def load_state_dict_from_url(
    url, model_dir=None, map_location=None, progress=True, check_hash=False, file_name=None, weights_only=False
):
    """Download a checkpoint into `model_dir` (default <get_dir()>/checkpoints) unless it is already there,
    and return ember.load(file, map_location). check_hash: the file name's `-<hex>.` part must prefix the
    SHA-256 of the file (torchvision's naming). weights_only is accepted and ignored: the file is loaded with
    weights_only=True, so it never runs code."""
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead")
    import zipfile
    from urllib.parse import urlparse

    import ember

    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stderr.write('Downloading: "{}" to {}\n'.format(url, cached_file))
        hash_prefix = None
        if check_hash:
            m = HASH_REGEX.search(filename)
            hash_prefix = m.group(1) if m else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    if _is_legacy_zip_format(cached_file):
        # a zip holding one checkpoint (the format before PyTorch 1.6): unpack it beside the archive
        with zipfile.ZipFile(cached_file) as z:
            member = z.infolist()[0]
            z.extract(member, model_dir)
        cached_file = os.path.join(model_dir, member.filename)
    return ember.load(cached_file, map_location=map_location)


# ---- repositories


def _parse_repo_info(github):
    """'owner/name[:ref]' -> (owner, name, ref); without a ref, 'main' if that branch exists, else 'master'."""
    repo_info, _, ref = github.partition(":")
    parts = repo_info.split("/")
    if len(parts) != 2 or not all(parts):
        raise ValueError('Invalid GitHub repository "{}": expected "repo_owner/repo_name[:ref]"'.format(github))
    owner, name = parts
    if not ref:
        from urllib.error import HTTPError

        try:
            with _open(
                "{}/{}/{}/tree/main/".format(_GITHUB_URL, owner, name),
                "reach {} to find the default branch of {}/{}".format(_GITHUB_URL, owner, name),
            ):
                ref = "main"
        except HTTPError as e:
            if e.code != 404:
                raise
            ref = "master"
    return owner, name, ref


def _read_json(url):
    import json
    from urllib.request import Request

    headers = {"Accept": "application/vnd.github.v3+json"}
    token = os.environ.get(ENV_GITHUB_TOKEN)
    if token is not None:
        headers["Authorization"] = "token " + token
    with _open(Request(url, headers=headers), "ask the GitHub API " + url) as r:
        return json.loads(r.read().decode(r.headers.get_content_charset("utf-8")))


def _validate_not_a_forked_repo(owner, name, ref):
    """The ref must be a branch, tag or commit of owner/name itself (GitHub serves forks' commits too)."""
    for kind in ("branches", "tags"):
        page = 0
        while True:
            page += 1
            items = _read_json(
                "{}/repos/{}/{}/{}?per_page=100&page={}".format(_GITHUB_API_URL, owner, name, kind, page)
            )
            if not items:
                break
            if any(it["name"] == ref or it["commit"]["sha"].startswith(ref) for it in items):
                return
    raise ValueError(
        "Cannot find {} in https://github.com/{}/{}. If it's a commit from a forked repo, please call "
        "hub.load() with forked repo directly.".format(ref, owner, name)
    )


def _check_repo_is_trusted(owner, name, owner_name_branch, trust_repo, calling_fn="load"):
    hub_dir = get_dir()
    path = os.path.join(hub_dir, "trusted_list")
    trusted = ()
    if os.path.exists(path):
        with open(path) as f:
            trusted = tuple(line.strip() for line in f)
    cached = next(os.walk(hub_dir))[1]
    owner_name = owner + "_" + name
    is_trusted = owner_name in trusted or owner_name_branch in cached or owner in _TRUSTED_REPO_OWNERS
    if trust_repo is None:
        if not is_trusted:
            warnings.warn(
                "You are about to download and run code from an untrusted repository. In a future release, this "
                "won't be allowed. To add the repository to your trusted list, change the command to {0}(..., "
                "trust_repo=False) and a command prompt will appear asking for an explicit confirmation of trust, "
                "or {0}(..., trust_repo=True), which will assume that the prompt is to be answered with 'yes'. You "
                "can also use {0}(..., trust_repo='check') which will only prompt for confirmation if the repo is "
                "not already trusted. This will eventually be the default behaviour".format(calling_fn)
            )
        return
    if trust_repo is False or (trust_repo == "check" and not is_trusted):
        answer = builtins.input(
            "The repository {} does not belong to the list of trusted repositories and as such cannot be "
            "downloaded. Do you trust this repository and wish to add it to the trusted list of repositories "
            "(y/N)?".format(owner_name)
        )
        if answer.lower() in ("y", "yes"):
            if is_trusted:
                print("The repository is already trusted.")
        elif answer.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")
        else:
            raise ValueError("Unrecognized response {}.".format(answer))
    if not is_trusted:
        with open(path, "a") as f:
            f.write(owner_name + "\n")


def _remove_if_exists(path):
    if os.path.isfile(path) or os.path.islink(path):
        os.remove(path)
    elif os.path.exists(path):
        shutil.rmtree(path)


def _get_cache_or_reload(github, force_reload, trust_repo, calling_fn, verbose=True, skip_validation=False):
    """The local folder of GitHub repo `github` ('owner/name[:ref]'), downloaded into get_dir() if needed."""
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    owner, name, ref = _parse_repo_info(github)
    normalized_ref = ref.replace("/", "_")
    owner_name_branch = "_".join([owner, name, normalized_ref])
    repo_dir = os.path.join(hub_dir, owner_name_branch)
    _check_repo_is_trusted(owner, name, owner_name_branch, trust_repo=trust_repo, calling_fn=calling_fn)
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write("Using cache found in {}\n".format(repo_dir))
        return repo_dir
    if not skip_validation:
        _validate_not_a_forked_repo(owner, name, ref)
    import zipfile
    from urllib.error import HTTPError

    archive = os.path.join(hub_dir, normalized_ref + ".zip")
    _remove_if_exists(archive)
    url = "{}/{}/{}/zipball/{}".format(_GITHUB_URL, owner, name, ref)
    if verbose:
        sys.stderr.write('Downloading: "{}" to {}\n'.format(url, archive))
    try:
        download_url_to_file(url, archive, progress=False)
    except HTTPError as e:
        if e.code != 300:
            raise
        warnings.warn(
            "The ref {} is ambiguous. Perhaps it is both a tag and a branch in the repo? Torchhub will now "
            "assume that it's a branch. You can disambiguate tags and branches by explicitly passing "
            "refs/heads/branch_name or refs/tags/tag_name as the ref. That might require using "
            "skip_validation=True.".format(ref)
        )
        url = "{}/{}/{}/zipball/refs/heads/{}".format(_GITHUB_URL, owner, name, ref)
        download_url_to_file(url, archive, progress=False)
    with zipfile.ZipFile(archive) as z:
        top = z.infolist()[0].filename.split("/")[0]
        extracted = os.path.join(hub_dir, top)
        _remove_if_exists(extracted)
        z.extractall(hub_dir)
    _remove_if_exists(archive)
    _remove_if_exists(repo_dir)
    shutil.move(extracted, repo_dir)
    return repo_dir


@contextlib.contextmanager
def _on_sys_path(path):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(path)


def _import_hubconf(repo_dir):
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    if not os.path.isfile(path):
        raise FileNotFoundError("ember.hub: no {} in {}".format(MODULE_HUBCONF, repo_dir))
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _check_dependencies(m):
    deps = getattr(m, VAR_DEPENDENCY, None)
    if deps is not None:
        missing = [pkg for pkg in deps if importlib.util.find_spec(pkg) is None]
        if missing:
            raise RuntimeError("Missing dependencies: {}".format(", ".join(missing)))


def _load_entry_from_hubconf(m, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    _check_dependencies(m)
    func = getattr(m, model, None)
    if func is None or not callable(func):
        raise RuntimeError("Cannot find callable {} in hubconf".format(model))
    return func


def _check_source(source):
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError('Unknown source: "{}". Allowed values: "github" | "local".'.format(source))
    return source


def _repo_dir(repo_or_dir, source, force_reload, skip_validation, trust_repo, calling_fn, verbose=True):
    if _check_source(source) == "local":
        return os.fspath(repo_or_dir)
    return _get_cache_or_reload(
        repo_or_dir, force_reload, trust_repo, calling_fn, verbose=verbose, skip_validation=skip_validation
    )


def list(github, force_reload=False, skip_validation=False, trust_repo=None, verbose=True, *, source="github"):  # noqa: A001
    """Names of the entrypoints (public callables) of a hubconf.py. `source='local'` (an ember extension)
    reads a local folder."""
    repo_dir = _repo_dir(github, source, force_reload, skip_validation, trust_repo, "list", verbose)
    with _on_sys_path(repo_dir):
        module = _import_hubconf(repo_dir)
    return [f for f in dir(module) if callable(getattr(module, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo=None, *, source="github"):  # noqa: A001
    """The docstring of entrypoint `model`."""
    repo_dir = _repo_dir(github, source, force_reload, skip_validation, trust_repo, "help")
    with _on_sys_path(repo_dir):
        module = _import_hubconf(repo_dir)
    return _load_entry_from_hubconf(module, model).__doc__


def load(
    repo_or_dir,
    model,
    *args,
    source="github",
    trust_repo=None,
    force_reload=False,
    verbose=True,
    skip_validation=False,
    **kwargs,
):
    """Call entrypoint `model` of the hubconf.py in `repo_or_dir` with *args, **kwargs and return the result.
    source='github': repo_or_dir is 'owner/name[:ref]', downloaded into get_dir() (cached); source='local': a
    folder. The entrypoint's code runs: only load repositories you trust."""
    repo_dir = _repo_dir(repo_or_dir, source, force_reload, skip_validation, trust_repo, "load", verbose)
    return _load_local(repo_dir, model, *args, **kwargs)


def _load_local(hubconf_dir, model, *args, **kwargs):
    with _on_sys_path(hubconf_dir):
        module = _import_hubconf(hubconf_dir)
        entry = _load_entry_from_hubconf(module, model)
        return entry(*args, **kwargs)
