"""ember.stft and ember.istft, as torch.stft/torch.istft: framing (a strided view), a window and the FFT of each frame
(ember.fft, whose transforms run in C++), and for the inverse the overlap-add of the windowed frames by ``fold``,
divided by the summed squared window."""

import warnings

import ember

__all__ = ["stft", "istft"]


def _describe(name, x, n_fft, hop_length, win_length, window):
    return (
        f"{name}({x.dtype}{list(x.shape)}, n_fft={n_fft}, hop_length={hop_length}, win_length={win_length}, "
        f"window={'None' if window is None else list(window.shape)})"
    )


def _window(window, n_fft, win_length, like, name):
    """The window of n_fft points: ``window`` (win_length points) zero-padded on both sides, or a rectangle."""
    if window is None:
        window = ember.ones(win_length, dtype=like.dtype if like.is_floating_point() else None, device=like.device)
    elif window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(
            f"{name}: expected a 1D window tensor of size equal to win_length={win_length}, "
            f"but got window with size {list(window.shape)}"
        )
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = ember.nn.functional.pad(window, [left, n_fft - win_length - left])
    return window


def stft(
    input,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    pad_mode="reflect",
    normalized=False,
    onesided=None,
    return_complex=None,
    align_to_window=None,
):
    """The short-time Fourier transform of a signal ``[L]`` or a batch ``[B, L]``: ``[(B,) n_freq, n_frames]``
    complex, frames ``hop_length`` apart (default ``n_fft // 4``) of ``n_fft`` points, each multiplied by ``window``
    (``win_length`` points centred in the frame; a rectangle when not given). ``center`` pads the signal by
    ``n_fft // 2`` on both sides with ``pad_mode``. Real inputs give ``n_fft // 2 + 1`` frequencies unless
    ``onesided=False``; ``normalized`` scales by ``n_fft ** -0.5``. ``align_to_window`` (``center=False`` only)
    starts the frames at the window's first point when the window is shorter than ``n_fft``. As :func:`torch.stft`."""
    if return_complex is None and not (input.is_complex() or (window is not None and window.is_complex())):
        raise RuntimeError(
            "stft requires the return_complex parameter be given for real inputs, and will further require that "
            "return_complex=True in a future PyTorch release."
        )
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.dim()}D tensor")
    x = input.unsqueeze(0) if input.dim() == 1 else input
    if align_to_window is not None and center:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if align_to_window and win_length < n_fft:  # frames start where the window does: pad by the window's offset
        left = (n_fft - win_length) // 2
        x = ember.nn.functional.pad(x, [left, n_fft - win_length - left])
    if center:
        pad = n_fft // 2
        x = ember.nn.functional.pad(x.unsqueeze(1), [pad, pad], mode=pad_mode).squeeze(1)
    desc = _describe("stft", x, n_fft, hop_length, win_length, window)
    length = x.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"{desc} : expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop_length <= 0:
        raise RuntimeError(f"{desc} : expected hop_length > 0, but got hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"{desc} : expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if window is None:
        warnings.warn(
            "A window was not provided. A rectangular window will be applied,which is known to cause spectral "
            "leakage. Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce "
            "spectral leakage.To suppress this warning and use a rectangular window, explicitly set "
            "`window=torch.ones(n_fft, device=<device>)`.",
            UserWarning,
            stacklevel=2,
        )
    w = _window(window, n_fft, win_length, x, "stft")
    complex_case = x.is_complex() or w.is_complex()
    onesided = not complex_case if onesided is None else onesided
    if onesided and complex_case:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    frames = x.unfold(-1, n_fft, hop_length) * w  # [B, n_frames, n_fft]
    norm = "ortho" if normalized else "backward"
    spec = ember.fft.rfft(frames, norm=norm) if onesided else ember.fft.fft(frames, norm=norm)
    spec = spec.transpose(-1, -2)
    if input.dim() == 1:
        spec = spec.squeeze(0)
    if return_complex is False:
        warnings.warn(
            "stft with return_complex=False is deprecated. In a future pytorch release, stft will return complex "
            "tensors for all inputs, and return_complex=False will raise an error.\nNote: you can still call "
            "torch.view_as_real on the complex output to recover the old return format.",
            UserWarning,
            stacklevel=2,
        )
        return ember.view_as_real(spec)
    return spec


def istft(
    input,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    normalized=False,
    onesided=None,
    length=None,
    return_complex=False,
):
    """The inverse of :func:`stft`: the inverse FFT of each frame, multiplied by ``window``, overlap-added and divided
    by the overlap-added squared window, which must not vanish anywhere (the NOLA condition; PyTorch's error
    otherwise). ``length`` trims or zero-pads the result. As :func:`torch.istft`."""
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if not input.is_complex():
        raise RuntimeError(
            "istft requires a complex-valued input tensor matching the output from stft with return_complex=True."
        )
    if input.dim() not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex, but got {input.dim()}")
    spec = input.unsqueeze(0) if input.dim() == 2 else input  # [B, n_freq, n_frames]
    n_frames = spec.shape[-1]
    onesided = spec.shape[-2] != n_fft if onesided is None else onesided
    expected = n_fft // 2 + 1 if onesided else n_fft
    if spec.shape[-2] != expected:
        raise RuntimeError(
            f"istft: expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 "
            f"when onesided=True, but got {spec.shape[-2]}"
            if onesided
            else f"istft: expected the frequency dimension of the input tensor to match n_fft when onesided=False, "
            f"but got {spec.shape[-2]}"
        )
    if not 0 < hop_length <= win_length:
        raise RuntimeError(f"istft: expected 0 < hop_length <= win_length, but got hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"istft: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    w = _window(window, n_fft, win_length, ember.empty(0, device=spec.device), "istft")
    if onesided and w.is_complex():
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    frames = spec.transpose(-1, -2)  # [B, n_frames, n_freq]
    if onesided:
        if return_complex:
            raise RuntimeError("cannot have onesided output if window or input is complex")
        frames = ember.fft.irfft(frames, n=n_fft, norm=norm)
    else:
        frames = ember.fft.ifft(frames, n=n_fft, norm=norm)
        if not return_complex:
            if not ember.allclose(frames.imag, ember.zeros_like(frames.imag), atol=1e-5):
                raise RuntimeError("istft: the inverse of a two-sided STFT is not real: set return_complex=True")
            frames = frames.real
    frames = frames * w
    total = n_fft + hop_length * (n_frames - 1)

    def overlap_add(t):  # [B, n_frames, n_fft] -> [B, total]
        folded = ember.nn.functional.fold(t.transpose(1, 2), (1, total), (1, n_fft), stride=(1, hop_length))
        return folded.reshape(t.shape[0], total)

    if frames.is_complex():
        y = ember.complex(overlap_add(frames.real), overlap_add(frames.imag))
    else:
        y = overlap_add(frames)
    envelope = overlap_add((w.abs() ** 2).expand(1, n_frames, n_fft).contiguous())[0]
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else start + length
    end = min(end, total)
    y, envelope = y[:, start:end], envelope[start:end]
    if bool((envelope.abs() < 1e-11).any()):
        desc = (
            f"istft({input.dtype}{list(input.shape)}, n_fft={n_fft}, hop_length={hop_length}, "
            f"win_length={win_length}, window={'None' if window is None else list(window.shape)}, "
            f"center={int(center)}, normalized={int(normalized)}, onesided={onesided}, length={length}, "
            f"return_complex={int(return_complex)})"
        )
        raise RuntimeError(f"{desc} window overlap add min: {float(envelope.abs().min())}")
    y = y / envelope
    if length is not None and y.shape[-1] < length:
        y = ember.nn.functional.pad(y, [0, length - y.shape[-1]])
    return y.squeeze(0) if input.dim() == 2 else y
