"""ember.hub with local folders and file:// URLs (no network here)."""

import hashlib
import os
import shutil
import sys
import textwrap
import zipfile
from urllib.error import URLError

import numpy as np
import pytest

import ember
import ember.hub as hub

HUBCONF = '''
dependencies = ["numpy"]

import ember.nn as _nn
from hub_helper_mod import scale as _scale


def tiny(out_features=2, bias=True):
    """A Linear(3, out_features) model."""
    m = _nn.Linear(3, out_features, bias=bias)
    m.tag = _scale(2)
    return m


def answer(x):
    return x + 1


_hidden = 5
'''


def write_repo(folder, deps=None):
    os.makedirs(folder, exist_ok=True)
    text = HUBCONF if deps is None else HUBCONF.replace('["numpy"]', repr(deps))
    with open(os.path.join(folder, "hubconf.py"), "w") as f:
        f.write(text)
    with open(os.path.join(folder, "hub_helper_mod.py"), "w") as f:
        f.write("def scale(x):\n    return 10 * x\n")
    return folder


@pytest.fixture
def hub_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "_hub_dir", None)
    d = tmp_path / "hubcache"
    hub.set_dir(d)
    monkeypatch.delitem(sys.modules, "hub_helper_mod", raising=False)
    yield d
    sys.modules.pop("hub_helper_mod", None)


@pytest.fixture
def fake_github(tmp_path, monkeypatch):
    """A folder laid out like github.com's archive URLs: <owner>/<repo>/zipball/<ref> is a zip whose one top
    folder holds the repository."""
    root = tmp_path / "github"
    src = write_repo(str(tmp_path / "src"))
    archive = root / "alice" / "models" / "zipball" / "main"
    archive.parent.mkdir(parents=True)
    with zipfile.ZipFile(archive, "w") as z:
        for name in ("hubconf.py", "hub_helper_mod.py"):
            z.write(os.path.join(src, name), "alice-models-0abc123/" + name)
    monkeypatch.setattr(hub, "_GITHUB_URL", root.as_uri())
    return archive


def test_get_dir_environment(monkeypatch, tmp_path):
    monkeypatch.setattr(hub, "_hub_dir", None)
    for var in ("EMBER_HOME", "TORCH_HOME", "XDG_CACHE_HOME", "TORCH_HUB"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert hub.get_dir() == os.path.join(str(tmp_path), ".cache", "ember", "hub")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hub.get_dir() == os.path.join(str(tmp_path / "xdg"), "ember", "hub")
    monkeypatch.setenv("TORCH_HOME", "~/th")
    assert hub.get_dir() == os.path.join(str(tmp_path), "th", "hub")
    monkeypatch.setenv("EMBER_HOME", str(tmp_path / "eh"))
    assert hub.get_dir() == os.path.join(str(tmp_path / "eh"), "hub")
    hub.set_dir("~/mine")
    assert hub.get_dir() == os.path.join(str(tmp_path), "mine")
    assert ember.hub is hub


def test_local_load_list_help(tmp_path, hub_dir):
    repo = write_repo(str(tmp_path / "repo"))
    path_before = list(sys.path)
    m = hub.load(repo, "tiny", 4, source="local", bias=False)
    assert isinstance(m, ember.nn.Linear) and tuple(m.weight.shape) == (4, 3) and m.bias is None and m.tag == 20
    assert sys.path == path_before
    assert hub.load(repo, "answer", 41, source="LOCAL") == 42
    assert hub.list(repo, source="local") == ["answer", "tiny"]
    assert hub.help(repo, "tiny", source="local") == "A Linear(3, out_features) model."
    assert sys.path == path_before
    assert not os.path.exists(hub_dir)  # local sources never touch the cache


def test_local_errors(tmp_path, hub_dir):
    repo = write_repo(str(tmp_path / "repo"))
    with pytest.raises(ValueError, match='Unknown source: "gitlab". Allowed values: "github" \\| "local".'):
        hub.load(repo, "tiny", source="gitlab")
    with pytest.raises(RuntimeError, match="Cannot find callable missing in hubconf"):
        hub.load(repo, "missing", source="local")
    with pytest.raises(RuntimeError, match="Cannot find callable _hidden in hubconf"):
        hub.load(repo, "_hidden", source="local")
    with pytest.raises(ValueError, match="model should be a string of function name"):
        hub.load(repo, 3, source="local")
    with pytest.raises(FileNotFoundError, match="no hubconf.py"):
        hub.load(str(tmp_path), "tiny", source="local")
    bad = write_repo(str(tmp_path / "bad"), deps=["numpy", "no_such_pkg_ember_test", "nor_this_one"])
    with pytest.raises(RuntimeError, match="^Missing dependencies: no_such_pkg_ember_test, nor_this_one$"):
        hub.load(bad, "tiny", source="local")
    with pytest.raises(RuntimeError, match="Missing dependencies"):
        hub.help(bad, "tiny", source="local")


def test_github_source_through_download_path(hub_dir, fake_github, capsys):
    m = hub.load("alice/models:main", "tiny", trust_repo=True, skip_validation=True)
    assert tuple(m.weight.shape) == (2, 3) and m.tag == 20
    cached = hub_dir / "alice_models_main"
    assert sorted(os.listdir(cached)) == ["hub_helper_mod.py", "hubconf.py"]
    assert (hub_dir / "trusted_list").read_text() == "alice_models\n"
    assert not os.path.exists(hub_dir / "main.zip")  # the archive is removed after extraction
    assert "Downloading" in capsys.readouterr().err

    # the cache is used from now on, even with the source gone; force_reload goes back to the source
    os.remove(fake_github)
    assert hub.list("alice/models:main", trust_repo="check") == ["answer", "tiny"]
    assert "Using cache found in" in capsys.readouterr().err
    assert hub.load("alice/models:main", "answer", 1, verbose=False) == 2
    with pytest.raises(URLError, match="cannot download"):
        hub.load("alice/models:main", "tiny", force_reload=True, skip_validation=True)


def test_github_trust_prompts(hub_dir, fake_github, monkeypatch):
    with pytest.warns(UserWarning, match="untrusted repository"):
        hub.load("alice/models:main", "answer", 0, skip_validation=True, force_reload=True)
    answers = iter(["n", "maybe", "yes"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    with pytest.raises(Exception, match="Untrusted repository."):
        hub.load("bob/other:main", "tiny", trust_repo=False)
    with pytest.raises(ValueError, match="Unrecognized response maybe."):
        hub.load("bob/other:main", "tiny", trust_repo="check")
    shutil.rmtree(hub_dir / "alice_models_main")  # a cached download counts as trusted
    assert hub.load("alice/models:main", "answer", 0, trust_repo=False, skip_validation=True) == 1
    assert (hub_dir / "trusted_list").read_text() == "alice_models\n"
    assert hub.load("alice/models:main", "answer", 0, trust_repo="check") == 1  # trusted now: no prompt


def test_github_fork_validation(hub_dir, fake_github, monkeypatch):
    seen = []

    def fake_json(url):
        seen.append(url)
        if url.endswith("page=1") and "/branches" in url:
            return [{"name": "dev", "commit": {"sha": "ffff"}}, {"name": "main", "commit": {"sha": "0abc123"}}]
        return []

    monkeypatch.setattr(hub, "_read_json", fake_json)
    assert hub.load("alice/models:main", "answer", 1, trust_repo=True) == 2
    assert seen == ["https://api.github.com/repos/alice/models/branches?per_page=100&page=1"]
    with pytest.raises(ValueError, match="Cannot find feature in https://github.com/alice/models"):
        hub.load("alice/models:feature", "answer", 1, trust_repo=True)
    with pytest.raises(ValueError, match="repo_owner/repo_name"):
        hub.load("just-a-name", "answer", 1, trust_repo=True)


def test_github_offline_error(hub_dir, monkeypatch):
    monkeypatch.setattr(hub, "_GITHUB_URL", "http://127.0.0.1:9")  # nothing listens on the discard port
    with pytest.raises(URLError, match="cannot download http://127.0.0.1:9/alice/models/zipball/main.*network"):
        hub.load("alice/models:main", "tiny", trust_repo=True, skip_validation=True)
    with pytest.raises(URLError, match="cannot reach http://127.0.0.1:9 to find the default branch"):
        hub.list("alice/models", trust_repo=True)
    monkeypatch.setattr(hub, "_GITHUB_API_URL", "http://127.0.0.1:9")
    with pytest.raises(URLError, match="cannot ask the GitHub API http://127.0.0.1:9/repos/alice/models/branches"):
        hub.load("alice/models:main", "tiny", trust_repo=True)


def test_download_url_to_file(tmp_path, capsys):
    payload = os.urandom(300_000)
    src = tmp_path / "blob.bin"
    src.write_bytes(payload)
    digest = hashlib.sha256(payload).hexdigest()
    dst = tmp_path / "out" / "copy.bin"
    dst.parent.mkdir()
    hub.download_url_to_file(src.as_uri(), str(dst), hash_prefix=digest[:10], progress=True)
    assert dst.read_bytes() == payload
    assert "100.0%" in capsys.readouterr().err
    bad = tmp_path / "out" / "bad.bin"
    with pytest.raises(RuntimeError, match='invalid hash value \\(expected "00000", got "%s"\\)' % digest):
        hub.download_url_to_file(src.as_uri(), bad, hash_prefix="00000", progress=False)
    assert sorted(os.listdir(tmp_path / "out")) == ["copy.bin"]  # no partial file left behind
    with pytest.raises(URLError):
        hub.download_url_to_file((tmp_path / "missing").as_uri(), tmp_path / "out" / "m", progress=False)


def test_load_state_dict_from_url(tmp_path, hub_dir):
    net = ember.nn.Linear(3, 2)
    raw = tmp_path / "raw.pth"
    ember.save(net.state_dict(), raw)
    digest = hashlib.sha256(raw.read_bytes()).hexdigest()
    src = tmp_path / ("tiny-%s.pth" % digest[:8])
    os.rename(raw, src)

    state = hub.load_state_dict_from_url(src.as_uri(), check_hash=True, progress=False, weights_only=True)
    cached = hub_dir / "checkpoints" / src.name
    assert cached.exists()
    assert list(state.keys()) == ["weight", "bias"]
    np.testing.assert_array_equal(state["weight"].numpy(), net.weight.detach().numpy())
    fresh = ember.nn.Linear(3, 2)
    fresh.load_state_dict(state)
    np.testing.assert_array_equal(fresh.bias.detach().numpy(), net.bias.detach().numpy())

    os.remove(src)  # cached now: no download
    again = hub.load_state_dict_from_url(src.as_uri(), map_location="cpu")
    np.testing.assert_array_equal(again["bias"].numpy(), net.bias.detach().numpy())

    other = tmp_path / "models"
    ember.save({"x": ember.arange(4)}, tmp_path / "plain.pth")
    got = hub.load_state_dict_from_url((tmp_path / "plain.pth").as_uri(), model_dir=str(other), file_name="renamed.pt")
    assert os.listdir(other) == ["renamed.pt"] and got["x"].tolist() == [0, 1, 2, 3]

    wrong = tmp_path / "tiny-deadbeef.pth"
    ember.save(net.state_dict(), wrong)
    with pytest.raises(RuntimeError, match='invalid hash value \\(expected "deadbeef"'):
        hub.load_state_dict_from_url(wrong.as_uri(), check_hash=True, progress=False)
    assert not (hub_dir / "checkpoints" / wrong.name).exists()


def test_load_state_dict_from_legacy_zip(tmp_path, hub_dir):
    inner = tmp_path / "inner.pth"
    ember.save({"w": ember.ones(2)}, inner)
    archive = tmp_path / "legacy.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(inner, "weights.pth")
    state = hub.load_state_dict_from_url(archive.as_uri(), progress=False)
    assert state["w"].tolist() == [1.0, 1.0]
    assert sorted(os.listdir(hub_dir / "checkpoints")) == ["legacy.zip", "weights.pth"]


def test_hubconf_source_is_what_runs(tmp_path, hub_dir):
    repo = tmp_path / "r2"
    repo.mkdir()
    (repo / "hubconf.py").write_text(
        textwrap.dedent("""
        def make(**kw):
            return sorted(kw.items())
    """)
    )
    assert hub.load(str(repo), "make", source="local", a=1, b=2) == [("a", 1), ("b", 2)]
