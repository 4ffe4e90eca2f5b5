# scripts/check_layers.py: the include layering check (docs/architecture.md, "Layers"), run on small fake trees
# and on the repository itself.
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "check_layers.py")


def run(root):
    r = subprocess.run([sys.executable, SCRIPT, "--root", str(root)], capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout.splitlines()


def tree(tmp_path, files):
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


def inc(*paths):
    return "".join(f'#include "{p}"\n' for p in paths)


CLEAN = {
    "ember/tensor.h": "#pragma once\n",
    "ember/backend/kernels/reduce.h": inc("ember/tensor.h"),
    "ember/ops/reduce.h": inc("ember/tensor.h"),
    "ember/ops/detail/util.h": inc("ember/tensor.h"),
    "ember/ops/reduce.cpp": inc("ember/ops/reduce.h", "ember/ops/detail/util.h", "ember/backend/kernels/reduce.h"),
    "ember/nn/functional/loss.h": inc("ember/tensor.h"),
    "ember/nn/functional/loss.cpp": inc("ember/nn/functional/loss.h", "ember/ops/detail/util.h"),
    "ember/backend/cuda/glue.h": inc("ember/tensor.h"),
    "ember/backend/cuda/reduce.cu": inc("ember/backend/cuda/glue.h", "ember/backend/kernels/reduce.h"),
    "tests/test_glue.cpp": inc("ember/backend/cuda/glue.h", "ember/nn/functional/loss.h"),
    "python/src/nn.cpp": "// no ember includes\n",
}


def test_clean_tree_is_quiet(tmp_path):
    assert run(tree(tmp_path, CLEAN)) == (0, [])


def test_lower_layer_including_a_higher_one(tmp_path):
    files = dict(CLEAN)
    files["ember/ops/reduce.cpp"] = inc("ember/ops/reduce.h") + "\n" + inc("ember/nn/functional/loss.h")
    code, lines = run(tree(tmp_path, files))
    assert code == 1
    assert lines == [
        "ember/ops/reduce.cpp:3: layer ops includes ember/nn/functional/loss.h of the higher layer nn.functional"
    ]


def test_device_private_header(tmp_path):
    files = dict(CLEAN)
    files["python/src/nn.cpp"] = inc("ember/backend/cuda/glue.h")
    files["ember/backend/cpu/reduce.cpp"] = inc("ember/backend/cuda/glue.h")
    code, lines = run(tree(tmp_path, files))
    assert code == 1
    assert lines == [
        "ember/backend/cpu/reduce.cpp:1: includes ember/backend/cuda/glue.h, a header private to backend/cuda/",
        "python/src/nn.cpp:1: includes ember/backend/cuda/glue.h, a header private to backend/cuda/",
    ]


def test_public_header_including_detail_or_kernels(tmp_path):
    files = dict(CLEAN)
    files["ember/nn/functional/loss.h"] = inc("ember/ops/detail/util.h", "ember/backend/kernels/reduce.h")
    files["ember/ops/reduce.h"] = inc("ember/ops/detail/util.h")  # its own folder's detail: allowed
    code, lines = run(tree(tmp_path, files))
    assert code == 1
    assert lines == [
        "ember/nn/functional/loss.h:1: public header includes ember/ops/detail/util.h, a detail header of ember/ops/",
        "ember/nn/functional/loss.h:2: public header includes the kernel declarations ember/backend/kernels/reduce.h",
    ]


def test_unclassified_file(tmp_path):
    files = dict(CLEAN)
    files["ember/newfolder/thing.cpp"] = inc("ember/tensor.h")
    code, lines = run(tree(tmp_path, files))
    assert code == 1
    assert lines == [
        "ember/newfolder/thing.cpp:1: no layer rule names this file (add one to RULES in scripts/check_layers.py)"
    ]


def test_repository_is_layered():
    code, lines = run(REPO)
    assert (code, lines) == (0, [])


def load_checker():
    sys.path.insert(0, os.path.dirname(SCRIPT))
    try:
        import check_layers
    finally:
        sys.path.pop(0)
    return check_layers


def test_exceptions_are_honoured_and_stale_ones_reported(tmp_path, monkeypatch):
    check_layers = load_checker()
    files = dict(CLEAN)
    files["ember/ops/reduce.cpp"] = inc("ember/nn/functional/loss.h")
    files["ember/ops/search.cpp"] = inc("ember/ops/reduce.h")
    root = tree(tmp_path, files)
    monkeypatch.setattr(check_layers, "EXCEPTIONS", {("ember/ops/reduce.cpp", "ember/nn/functional/loss.h"): "why"})
    assert check_layers.violations(str(root)) == []
    monkeypatch.setattr(check_layers, "EXCEPTIONS", {("ember/ops/search.cpp", "ember/nn/functional/loss.h"): "why"})
    assert check_layers.violations(str(root)) == [
        "ember/ops/reduce.cpp:1: layer ops includes ember/nn/functional/loss.h of the higher layer nn.functional",
        "ember/ops/search.cpp:1: the exception for including ember/nn/functional/loss.h is no longer needed: "
        "remove it from EXCEPTIONS in scripts/check_layers.py",
    ]


@pytest.mark.parametrize(
    "path, layer",
    [
        ("ember/tensor.h", "core"),
        ("ember/tensor.cpp", "ops"),
        ("ember/backend/kernels.h", "core"),
        ("ember/backend/kernels/reduce.h", "kernels"),
        ("ember/backend/kernels/nn/rnn.h", "nn.functional"),
        ("ember/autograd/node.h", "autograd"),
        ("ember/autograd/engine.cpp", "ops"),
        ("ember/ops/detail/util.h", "ops"),
        ("ember/nn/modules/module.h", "nn.modules"),
        ("ember/backend/cuda/conv.cpp", "backend"),
        ("ember/ember.h", "top"),
    ],
)
def test_layer_table(path, layer):
    assert load_checker().layer_of(path) == layer
