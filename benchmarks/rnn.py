"""LSTM, GRU and RNN forward and forward+backward, ember beside PyTorch (issue 5: 2 layers x 256, seq 35, batch 20, as
the word-language-model example). A float32 LSTM or GRU runs fused (Note [Fused CPU LSTM] and Note [Fused CPU GRU] in
ember/nn/functional/rnn_layer.cpp), an RNN by the C++ time loop (rnn.cpp). Run: scripts/bench rnn"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main  # noqa: E402

SETUP = """
lib.manual_seed(0)
m = lib.nn.LSTM(256, 256, num_layers=2)
x = lib.randn(35, 20, 256)
"""
CASES = [
    ("LSTM 2x256 seq35 b20 fwd (no_grad)", SETUP, "with lib.no_grad():\n    m(x)"),
    ("LSTM 2x256 seq35 b20 fwd+bwd", SETUP, "m(x)[0].sum().backward()"),
    ("GRU 2x256 seq35 b20 fwd+bwd", SETUP.replace("LSTM", "GRU"), "m(x)[0].sum().backward()"),
    ("RNN 2x256 seq35 b20 fwd+bwd", SETUP.replace("LSTM", "RNN"), "m(x)[0].sum().backward()"),
    (
        "LSTMCell 256 b20 x35 fwd+bwd",
        "lib.manual_seed(0)\ncell = lib.nn.LSTMCell(256, 256)\nx = lib.randn(35, 20, 256)",
        "h = c = None\nout = []\nfor t in range(35):\n    h, c = cell(x[t], None if h is None else (h, c))\n"
        "    out.append(h)\nlib.stack(out).sum().backward()",
    ),
]

if __name__ == "__main__":
    main(__file__, CASES, unit=1e-3, unit_name="ms")
