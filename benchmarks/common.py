"""Runs the same workload in ember and in PyTorch (each in its own processes, PyTorch through TORCH_PYTHON) and
prints both with the ratio ember / torch."""

import json
import os
import subprocess
import sys
import timeit

# PyTorch 2.15 (../shared/tools/torch2-venv /opt/torch2) when installed, else Debian's python3-torch 1.13.
TORCH_PYTHON = os.environ.get(
    "TORCH_PYTHON", "/opt/torch2/py" if os.path.exists("/opt/torch2/py") else "/usr/bin/python3"
)


def time_per_call(stmt, setup, namespace, target_s=0.2, repeats=7):
    """Median seconds per call over `repeats` runs of about `target_s` each."""
    timer = timeit.Timer(stmt, setup, globals=namespace)
    n, t = 1, 0.0
    while t < target_s / 10:
        n *= 10
        t = timer.timeit(n)
    n = max(1, int(n * target_s / max(t, 1e-9)))
    runs = sorted(timer.repeat(repeats, n))
    return runs[len(runs) // 2] / n


def run_cases(lib_name, cases, threads=None):
    lib = __import__(lib_name)
    if threads:
        lib.set_num_threads(threads)
    out = {}
    for name, setup, stmt in cases:
        ns = {"lib": lib}
        if "vision." in setup:
            ns["vision"] = __import__(
                "torchvision.models" if lib_name == "torch" else "ember.vision.models", fromlist=["models"]
            )
        out[name] = time_per_call(stmt, setup, ns)
    return out


# The configurations each library runs in (Note in scripts/bench): ember at 1 and 2 threads; PyTorch at 1 and 2
# threads, each with OpenMP's default (active) and passive waiting. PyTorch's best is the reference.
EMBER_CONFIGS = [("1T", 1, {}), ("2T", 2, {})]
TORCH_CONFIGS = [
    ("1T", 1, {}),
    ("2T", 2, {}),
    ("1T passive", 1, {"OMP_WAIT_POLICY": "PASSIVE"}),
    ("2T passive", 2, {"OMP_WAIT_POLICY": "PASSIVE"}),
]


def _child(python, script, lib_name, threads, env):
    cmd = [python, script, "--child", lib_name, "--threads", str(threads)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True, env={**os.environ, **env})
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(script, cases, unit=1e-6, unit_name="us"):
    if "--child" in sys.argv:
        threads = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else None
        print(json.dumps(run_cases(sys.argv[sys.argv.index("--child") + 1], cases, threads)))
        return
    ours = {label: _child(sys.executable, script, "ember", n, env) for label, n, env in EMBER_CONFIGS}
    theirs, version = {}, None
    try:
        for label, n, env in TORCH_CONFIGS:
            theirs[label] = _child(TORCH_PYTHON, script, "torch", n, env)
        version = subprocess.run(
            [TORCH_PYTHON, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"(PyTorch not available through {TORCH_PYTHON}: {e}; showing ember only)")
        theirs = {}
    name = os.path.basename(script)
    print(
        f"{name}: per call in {unit_name}, median of 7 runs; ember at 1 and 2 threads beside PyTorch "
        f"{version or '-'}'s best of 1 and 2 threads with active and passive waiting; ratio = ember 2T / torch best"
    )
    print(f"{'case':<32}{'ember 1T':>10}{'ember 2T':>10}{'torch best':>12}{'(config)':>13}{'ratio':>8}")
    rows = []
    for case, _, _ in cases:
        e1, e2 = ours["1T"][case] / unit, ours["2T"][case] / unit
        if theirs:
            label = min(theirs, key=lambda lab: theirs[lab][case])
            t = theirs[label][case] / unit
            print(f"{case:<32}{e1:>10.3f}{e2:>10.3f}{t:>12.3f}{label:>13}{e2 / t:>8.2f}")
            rows.append({"case": case, "ember": e2, "torch": t, "torch_config": label, "unit": unit_name})
        else:
            print(f"{case:<32}{e1:>10.3f}{e2:>10.3f}{'-':>12}{'':>13}{'-':>8}")
    summary = os.environ.get("EMBER_BENCH_SUMMARY")
    if summary and rows:  # scripts/bench prints these together at the end
        with open(summary, "a") as f:
            f.write(json.dumps({"benchmark": name, "torch": version, "rows": rows}) + "\n")
