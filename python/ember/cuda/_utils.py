def _device_index(device, optional=True):
    """A CUDA device index from an int, 'cuda:1', ember.device or ember.cuda.device; None gives -1 (the current
    device, resolved by the caller). A CPU device raises ValueError, as in PyTorch."""
    from .. import device as _device

    if device is None:
        return -1
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = _device(device)
    if isinstance(device, _device):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        return -1 if device.index is None else device.index
    idx = getattr(device, "idx", None)  # an ember.cuda.device
    if isinstance(idx, int):
        return idx
    raise ValueError(f"Expected a cuda device, but got: {device!r}")
