"""Streaming stores (Note [Streaming stores] in ember/backend/cpu/stream_store.h): outputs at least as large as the
last-level cache are written a block at a time through non-temporal stores. A child process with
EMBER_STREAM_STORE_BYTES=1 streams every output, so small tensors exercise the path: unaligned starts and odd lengths
(the plain-store edges), every output width, in-place ops, broadcast scalars, fills and casts, at 1 and 2 threads;
each result is checked against NumPy."""

import os
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent(
    """
    import numpy as np
    import ember

    rng = np.random.default_rng(0)
    checks = 0
    for threads in (1, 2):
        ember.set_num_threads(threads)
        for n in (1, 7, 31, 33, 1000, 4099, 70001):
            for off in (0, 1, 3):  # views starting 4, 12 bytes past an aligned block: unaligned streaming starts
                a = rng.standard_normal(n + off).astype(np.float32)
                b = rng.standard_normal(n + off).astype(np.float32)
                ta, tb = ember.tensor(a)[off:], ember.tensor(b)[off:]
                a, b = a[off:], b[off:]
                np.testing.assert_array_equal((ta + tb).numpy(), a + b)
                np.testing.assert_array_equal(ember.relu(ta).numpy(), np.maximum(a, 0))
                np.testing.assert_array_equal(ta.to(ember.float64).numpy(), a.astype(np.float64))
                np.testing.assert_array_equal(ta.to(ember.float16).numpy(), a.astype(np.float16))
                np.testing.assert_array_equal((ta > 0).numpy(), a > 0)  # 1-byte outputs
                y = ember.empty(n + off)[off:]
                y.copy_(ta)
                np.testing.assert_array_equal(y.numpy(), a)
                y.fill_(2.5)
                np.testing.assert_array_equal(y.numpy(), np.full(n, 2.5, np.float32))
                y.copy_(ember.tensor(1.5))  # a broadcast scalar source
                np.testing.assert_array_equal(y.numpy(), np.full(n, 1.5, np.float32))
                c = ta.clone()
                c.mul_(tb).add_(1.0)  # in place: the output is an input
                np.testing.assert_array_equal(c.numpy(), a * b + np.float32(1.0))
                w = ember.tensor(rng.integers(-9, 9, n + off))[off:]
                np.testing.assert_array_equal((w * 3).numpy(), w.numpy() * 3)
                checks += 1
    print("checked", checks)
    """
)


@pytest.mark.parametrize("bytes_", ["1", "0"], ids=["every-output-streams", "streaming-off"])
def test_streaming_stores_write_what_plain_stores_do(bytes_):
    env = {**os.environ, "EMBER_STREAM_STORE_BYTES": bytes_}
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["checked", str(2 * 7 * 3)]
