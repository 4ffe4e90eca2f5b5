"""Unchanged PyTorch programs on ember: python -m ember.run, ember.install_as_torch, and the PyTorch 2 names that
programs use at start-up (accelerator, compiler, _dynamo, xpu, mps)."""

import os
import subprocess
import sys
import textwrap

import pytest

import ember

# A PyTorch program as pytorch/examples writes them: the accelerator check, torch.nn, F, torch.utils.data and
# torchvision.transforms, trained for a few steps on data whose labels a linear model can fit exactly.
PROGRAM = textwrap.dedent(
    """
    import argparse
    import sys

    import numpy as np
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torch.optim as optim
    from torch.utils.data import DataLoader, TensorDataset
    from torchvision import transforms

    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--no-accel", action="store_true")
    args = parser.parse_args()

    use_accel = not args.no_accel and torch.accelerator.is_available()
    device = torch.accelerator.current_accelerator() if use_accel else torch.device("cpu")
    torch.manual_seed(0)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)

        def forward(self, x):
            return F.log_softmax(self.fc(x), dim=1)

    normalize = transforms.Normalize((0.5,), (0.25,))
    x = torch.randn(64, 4)
    y = (x[:, 0] > 0).long()
    loader = DataLoader(TensorDataset(x, y), batch_size=16, shuffle=True)
    model = Net().to(device)
    opt = optim.SGD(model.parameters(), lr=0.5)
    losses = []
    for epoch in range(args.epochs):
        for data, target in loader:
            data, target = data.to(device), target.to(device)
            opt.zero_grad()
            loss = F.nll_loss(model(data), target)
            loss.backward()
            opt.step()
            losses.append(loss.item())
    assert isinstance(normalize(torch.ones(1, 2, 2)), torch.Tensor)
    print("module", type(model).__mro__[1].__module__, "name", __name__, "argv", sys.argv[1:])
    print("first %.4f last %.4f" % (losses[0], losses[-1]))
    """
)


def _run(args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "ember.run", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_an_unchanged_pytorch_program_runs(tmp_path):
    (tmp_path / "train.py").write_text(PROGRAM)
    r = _run(["train.py", "--epochs", "6", "--no-accel"], tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    # torch.nn.Module is ember's; the program ran as __main__ with its own arguments
    assert lines[0] == "module ember.nn.modules.module name __main__ argv ['--epochs', '6', '--no-accel']"
    first, last = float(lines[1].split()[1]), float(lines[1].split()[3])
    assert last < first / 2  # it learnt: a separable problem, 24 SGD steps


def test_run_dash_m_runs_a_module(tmp_path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "main.py").write_text("import sys, torch\nprint(torch.__name__, __name__, sys.argv[1:])\n")
    r = _run(["-m", "mypkg.main", "a", "b"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[0] == "ember __main__ ['a', 'b']"


def test_run_of_a_missing_script_exits_2(tmp_path):
    r = _run(["nope.py"], tmp_path)
    assert r.returncode == 2
    assert "can't open file" in r.stderr and "nope.py" in r.stderr
    assert _run([], tmp_path).returncode == 2


def _python(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=60)


def test_install_as_torch_aliases_modules():
    r = _python(
        """
        import ember
        ember.install_as_torch()
        ember.install_as_torch()  # twice is harmless
        import torch, torch.nn as nn, torch.nn.functional as F, torchvision.transforms as T
        from torch.utils.data import DataLoader
        assert torch is ember and nn is ember.nn and F is ember.nn.functional
        assert T is ember.vision.transforms and DataLoader is ember.utils.data.DataLoader
        assert torch.Tensor is ember.Tensor and torch.nn.Linear is ember.nn.Linear
        try:
            import torch.no_such_module
        except ModuleNotFoundError as e:
            assert e.name == "torch.no_such_module" and "ember.no_such_module" in str(e), str(e)
        else:
            raise AssertionError("imported a module that does not exist")
        print("ok")
        """
    )
    assert r.stdout.strip() == "ok", r.stderr


def test_install_as_torch_refuses_when_the_real_torch_is_loaded():
    r = _python(
        """
        import sys, types, ember
        sys.modules["torch"] = types.ModuleType("torch")  # stands for a real torch imported earlier
        try:
            ember.install_as_torch()
        except RuntimeError as e:
            print("refused:", "already imported" in str(e))
        """
    )
    assert r.stdout.strip() == "refused: True", r.stderr


def test_accelerator_matches_cuda():
    a = ember.accelerator
    built = ember.cuda.is_built()
    assert a.current_accelerator() == (ember.device("cuda") if built else None)
    assert a.is_available() == ember.cuda.is_available()
    assert a.current_accelerator(check_available=True) == (ember.device("cuda") if a.is_available() else None)
    assert a.device_count() == (ember.cuda.device_count() if built else 0)
    with a.device_index(None):
        pass
    if not a.is_available():
        assert a.memory_allocated() == 0 and a.max_memory_reserved() == 0
        with pytest.raises(RuntimeError, match="synchronize"):
            a.synchronize()
        with pytest.raises(RuntimeError, match="current_device"):
            a.current_device_index()
    # a device of another type is refused (a CPU-only build refuses any device first)
    with pytest.raises(ValueError if built else RuntimeError, match="accelerator"):
        a.set_device_index("cpu")


def test_compiler_and_dynamo():
    c, d = ember.compiler, ember._dynamo

    def f(x):
        return x + 1

    assert c.disable(f) is f and c.disable()(f) is f and c.allow_in_graph(f) is f
    assert c.is_compiling() is False and d.is_compiling() is False and c.compile(f) is f
    assert c.reset() is None and d.reset() is None
    with pytest.raises(TypeError, match="callable"):
        c.disable(3)
    # config: PyTorch's names with PyTorch's defaults; the old name is an alias; unknown names raise
    assert d.config.suppress_errors is False and d.config.recompile_limit == 8
    with d.config.patch(cache_size_limit=64):
        assert d.config.recompile_limit == 64
    assert d.config.cache_size_limit == 8
    with pytest.raises(AttributeError, match="does not exist"):
        d.config.no_such_setting = 1
    # stances nest and restore
    from ember._dynamo._stance import current_stance

    with c.set_stance("force_eager"):
        assert current_stance()["stance"] == "force_eager"
    assert current_stance()["stance"] == "default"
    with pytest.raises(ValueError, match="stance"):
        c.set_stance("fastest")
    x = ember.ones(2, 3)
    d.mark_dynamic(x, 1)
    with pytest.raises(IndexError):
        d.mark_dynamic(x, 5)
    np_double = c.wrap_numpy(lambda a: a * 2)
    assert ember.equal(np_double(x), x * 2)


def test_absent_devices_answer_as_pytorch_without_them():
    assert ember.xpu.is_available() is False and ember.xpu.device_count() == 0
    assert ember.xpu.manual_seed_all(1) is None and ember.xpu.memory_allocated() == 0
    with pytest.raises(AssertionError, match="not compiled with XPU"):
        ember.xpu.current_device()
    assert ember.mps.is_available() is False and ember.backends.mps.is_available() is False
    with pytest.raises(RuntimeError, match="without MPS backend"):
        ember.mps.synchronize()
    t = ember.ones(2)
    assert (t.is_xpu, t.is_mps, t.is_sparse, t.is_quantized, t.is_nested, t.is_meta) == (False,) * 6


def test_an_optimizer_that_never_calls_init_can_step():
    # torch-optimizer's Lookahead: a wrapper optimizer that does not call Optimizer.__init__
    class Lookahead(ember.optim.Optimizer):
        def __init__(self, opt):
            self.optimizer, self.param_groups, self.state = opt, opt.param_groups, {}

        def step(self, closure=None):
            return self.optimizer.step(closure)

    p = ember.nn.Parameter(ember.ones(2))
    p.grad = ember.full((2,), 2.0)
    Lookahead(ember.optim.SGD([p], lr=0.25)).step()
    assert p.tolist() == [0.5, 0.5]


@pytest.mark.skipif(not os.path.exists("/opt/torch2/py"), reason="the PyTorch 2.15 reference is not installed")
def test_the_same_program_gives_the_same_output_under_pytorch(tmp_path):
    probes = "torch.accelerator.device_count(), torch.xpu.is_available(), torch.compiler.is_compiling()"
    probes += ", torch.ones(2).is_xpu, torch.mps.is_available()"
    (tmp_path / "p.py").write_text(f"import torch\nprint({probes})\n")
    ref = subprocess.run(["/opt/torch2/py", "p.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    mine = _run(["p.py"], tmp_path)
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout == ref.stdout
