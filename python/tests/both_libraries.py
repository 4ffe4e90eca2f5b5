"""Runs one program under ember (in this process, `torch` bound to ember and `torchvision` to ember.vision) and under
the reference PyTorch (its own process), so that tests compare what the two print. The program sets `result` to a
JSON-serialisable value."""

import json
import os
import subprocess
import textwrap

import pytest

TORCH_PY = "/opt/torch2/py"
needs_torch = pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")


def run_ember(source):
    import ember
    import ember.vision

    namespace = {"torch": ember, "torchvision": ember.vision, "__name__": "ember_program"}
    exec(compile(textwrap.dedent(source), "<ember program>", "exec"), namespace)  # noqa: S102
    return json.loads(json.dumps(namespace["result"]))


def run_torch(source, vision=False):
    head = "import json\nimport torch\n" + ("import torchvision\n" if vision else "")
    tail = "\nprint(json.dumps(result))\n"
    proc = subprocess.run(
        [TORCH_PY, "-c", head + textwrap.dedent(source) + tail], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])
