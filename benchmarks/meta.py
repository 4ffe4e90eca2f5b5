"""Building a 7-billion-parameter GPT (LLaMA-7B's shapes: 32 layers, d_model 4096, ffn 11008, vocab 32000) on the
meta device, as large-model loaders do before loading weights: the time and the extra resident memory it takes in
ember and in PyTorch (its own process, through common.TORCH_PYTHON), each in a fresh process.

    TORCH_PYTHON=/opt/torch2/py build/NAME/env .venv/bin/python benchmarks/meta.py
"""

import json
import os
import subprocess
import sys
import time

from common import TORCH_PYTHON

LAYERS, D, FFN, VOCAB, HEADS = 32, 4096, 11008, 32000, 32


def model_classes(lib):
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn_norm = nn.RMSNorm(D)
            self.q, self.k, self.v, self.o = (nn.Linear(D, D, bias=False) for _ in range(4))
            self.mlp_norm = nn.RMSNorm(D)
            self.gate, self.up = nn.Linear(D, FFN, bias=False), nn.Linear(D, FFN, bias=False)
            self.down = nn.Linear(FFN, D, bias=False)

        def forward(self, x):
            b, t, _ = x.shape
            h = self.attn_norm(x)
            q, k, v = (f(h).view(b, t, HEADS, D // HEADS).transpose(1, 2) for f in (self.q, self.k, self.v))
            a = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.o(a.transpose(1, 2).reshape(b, t, D))
            h = self.mlp_norm(x)
            return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(VOCAB, D)
            self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
            self.norm = nn.RMSNorm(D)
            self.head = nn.Linear(D, VOCAB, bias=False)

        def forward(self, idx):
            x = self.embed(idx)
            for b in self.blocks:
                x = b(x)
            return self.head(self.norm(x))

    return GPT


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measure(lib_name):
    lib = __import__(lib_name)
    GPT = model_classes(lib)
    times, extra = [], []
    for _ in range(3):
        rss0 = rss_bytes()
        t0 = time.perf_counter()
        with lib.device("meta"):
            model = GPT()
        times.append(time.perf_counter() - t0)
        extra.append(rss_bytes() - rss0)
        params = sum(p.numel() for p in model.parameters())
        assert all(p.is_meta for p in model.parameters())
        # A forward on meta too: the shapes of the logits of a batch of 2 x 2048 tokens.
        t0 = time.perf_counter()
        logits = model(lib.zeros(2, 2048, dtype=lib.int64, device="meta"))
        forward = time.perf_counter() - t0
        assert tuple(logits.shape) == (2, 2048, VOCAB) and logits.is_meta
        del model, logits
    best = min(times)
    return {"first_s": times[0], "best_s": best, "rss_mb": extra[0] / 2**20, "params": params, "forward_s": forward}


def child(python, lib_name):
    proc = subprocess.run([python, __file__, "--child", lib_name], capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    if "--child" in sys.argv:
        print(json.dumps(measure(sys.argv[sys.argv.index("--child") + 1])))
        return
    ours = child(sys.executable, "ember")
    try:
        theirs = child(TORCH_PYTHON, "torch")
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"(PyTorch not available through {TORCH_PYTHON}: {e}; showing ember only)")
        theirs = None
    print(f"meta.py: a GPT of {ours['params'] / 1e9:.2f} billion parameters built on the meta device")
    print(f"{'case':<34}{'ember':>10}{'torch':>10}{'ratio':>8}")
    rows = [
        ("build, first (s)", "first_s"),
        ("build, best of 3 (s)", "best_s"),
        ("extra RSS of the first build (MB)", "rss_mb"),
        ("forward 2 x 2048 tokens (s)", "forward_s"),
    ]
    for label, key in rows:
        e = ours[key]
        if theirs:
            t = theirs[key]
            ratio = f"{e / t:>8.2f}" if t > 0 else f"{'-':>8}"
            print(f"{label:<34}{e:>10.4f}{t:>10.4f}{ratio}")
        else:
            print(f"{label:<34}{e:>10.4f}{'-':>10}{'-':>8}")


if __name__ == "__main__":
    main()
