"""ember.stft / ember.istft: frames against numpy.fft of the windowed frames (a closed form of the definition), round
trips, PyTorch's values when the reference is installed, and PyTorch's errors."""

import json
import os
import subprocess
import warnings

import numpy as np
import pytest

import ember

TORCH_PY = "/opt/torch2/py"
RNG = np.random.default_rng(0)


def reference_stft(x, n_fft, hop, window, center, pad_mode="reflect", onesided=True, normalized=False):
    if center:
        x = np.pad(x, n_fft // 2, mode=pad_mode)
    n = 1 + (len(x) - n_fft) // hop
    frames = np.stack([x[t * hop : t * hop + n_fft] * window for t in range(n)])
    spec = np.fft.rfft(frames, axis=-1) if onesided else np.fft.fft(frames, axis=-1)
    if normalized:
        spec = spec / np.sqrt(n_fft)
    return spec.T


@pytest.mark.parametrize("n_fft,hop,win_length,center", [(64, 16, 64, True), (50, 7, 40, False), (32, 32, 32, True)])
def test_stft_matches_the_definition(n_fft, hop, win_length, center):
    x = RNG.standard_normal(700)
    w = np.hanning(win_length + 1)[:-1]  # a periodic Hann window
    wt = ember.tensor(w)
    got = ember.stft(ember.tensor(x), n_fft, hop, win_length, wt, center=center, return_complex=True)
    left = (n_fft - win_length) // 2
    full = np.pad(w, (left, n_fft - win_length - left))
    want = reference_stft(x, n_fft, hop, full, center)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10)
    batch = ember.stft(ember.tensor(np.stack([x, -x])), n_fft, hop, win_length, wt, center=center, return_complex=True)
    np.testing.assert_allclose(batch.numpy(), np.stack([want, -want]), rtol=1e-10, atol=1e-10)


def test_align_to_window_starts_frames_at_the_window():
    x = RNG.standard_normal(40)
    w = np.ones(8)
    got = ember.stft(
        ember.tensor(x), 16, 4, 8, ember.tensor(w), center=False, return_complex=True, align_to_window=True
    )
    padded = np.pad(x, (4, 4))  # the window sits at offset 4 of each 16-point frame
    want = reference_stft(padded, 16, 4, np.pad(w, (4, 4)), False)
    assert got.shape == (9, 9)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-10)
    with pytest.raises(RuntimeError, match="align_to_window should only be set when center = false"):
        ember.stft(ember.tensor(x), 16, window=ember.ones(16), return_complex=True, align_to_window=True)


def test_two_sided_normalized_and_real_view():
    x = RNG.standard_normal(300)
    w = np.hamming(48)
    got = ember.stft(
        ember.tensor(x), 48, 12, window=ember.tensor(w), onesided=False, normalized=True, return_complex=True
    )
    np.testing.assert_allclose(
        got.numpy(), reference_stft(x, 48, 12, w, True, onesided=False, normalized=True), rtol=1e-10, atol=1e-10
    )
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        real = ember.stft(ember.tensor(x), 48, 12, window=ember.tensor(w), return_complex=False)
    assert real.shape == (25, 26, 2)


@pytest.mark.parametrize("n_fft,hop", [(64, 16), (100, 25), (31, 10)])
def test_istft_reconstructs_the_signal(n_fft, hop):
    x = ember.tensor(RNG.standard_normal((2, 1600)), dtype=ember.float32)
    w = ember.hann_window(n_fft)
    spec = ember.stft(x, n_fft, hop, window=w, return_complex=True)
    # magnitude and phase apart, then together again: the audio front end's round trip
    rebuilt = ember.polar(spec.abs(), spec.angle())
    y = ember.istft(rebuilt, n_fft, hop, window=w, length=1600)
    np.testing.assert_allclose(y.numpy(), x.numpy(), atol=1e-5)
    y1 = ember.istft(spec[0], n_fft, hop, window=w, length=1600)
    np.testing.assert_allclose(y1.numpy(), x[0].numpy(), atol=1e-5)


def test_gradient_flows_through_stft_and_istft():
    x = ember.randn(256, dtype=ember.float64, requires_grad=True)
    w = ember.hann_window(32, dtype=ember.float64)
    y = ember.istft(ember.stft(x, 32, 8, window=w, return_complex=True), 32, 8, window=w, length=256)
    y.pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), atol=1e-8)  # the round trip is the identity


def test_errors():
    x = ember.randn(100)
    with pytest.raises(RuntimeError, match="requires the return_complex parameter"):
        ember.stft(x, 16)
    with pytest.raises(RuntimeError, match=r"expected 0 < n_fft < 100, but got n_fft=200"):
        ember.stft(x, 200, return_complex=True, center=False, window=ember.ones(200))
    with pytest.raises(RuntimeError, match="expected hop_length > 0"):
        ember.stft(x, 16, hop_length=0, window=ember.ones(16), return_complex=True)
    with pytest.raises(RuntimeError, match="Cannot have onesided output"):
        ember.stft(x.to(ember.complex64), 16, window=ember.ones(16), return_complex=True, onesided=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="A window was not provided"):
            ember.stft(x, 16, return_complex=True)
    spec = ember.stft(x, 16, window=ember.hann_window(16), return_complex=True)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        ember.istft(spec, 16, window=ember.zeros(16))
    with pytest.raises(RuntimeError, match="complex-valued input"):
        ember.istft(x.reshape(10, 10), 16)


@pytest.mark.skipif(not os.path.exists(TORCH_PY), reason="needs the reference PyTorch at /opt/torch2/py")
def test_values_match_pytorch():
    x = RNG.standard_normal(500).tolist()
    code = """
import json, sys, torch
x = torch.tensor(json.loads(sys.stdin.read()), dtype=torch.float64)
w = torch.hann_window(60, dtype=torch.float64)
s = torch.stft(x, 64, 10, 60, w, center=True, pad_mode="constant", return_complex=True)
y = torch.istft(s, 64, 10, 60, w, length=480)
print(json.dumps([s.real.tolist(), s.imag.tolist(), y.tolist()]))
"""
    out = subprocess.run([TORCH_PY, "-c", code], input=json.dumps(x), capture_output=True, text=True, check=True)
    re, im, y = json.loads(out.stdout)
    xt = ember.tensor(x, dtype=ember.float64)
    w = ember.hann_window(60, dtype=ember.float64)
    s = ember.stft(xt, 64, 10, 60, w, center=True, pad_mode="constant", return_complex=True)
    np.testing.assert_allclose(s.real.numpy(), re, atol=1e-10)
    np.testing.assert_allclose(s.imag.numpy(), im, atol=1e-10)
    np.testing.assert_allclose(ember.istft(s, 64, 10, 60, w, length=480).numpy(), y, atol=1e-10)
