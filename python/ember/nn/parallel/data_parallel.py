"""DataParallel, as PyTorch's nn.DataParallel for the machines ember runs on: without CUDA, or with one device in
device_ids, it calls the wrapped module (moving the inputs to device_ids[0] first, as PyTorch's scatter does), and
keeps PyTorch's checks, attribute names and state_dict keys ("module." prefixes). Splitting a batch over several GPUs
in one process is not implemented: it raises NotImplementedError rather than silently using one device."""

from ... import cuda
from ..._C import Tensor
from ..modules.module import Module


def _to_device(obj, device):
    if isinstance(obj, Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple keeps its type
        return type(obj)(*(_to_device(o, device) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_to_device(o, device) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _to_device(v, device)) for k, v in obj.items())
    return obj


def _device_index(d):
    if isinstance(d, int):
        return d
    from ..._C import device as _device

    d = _device(d) if not isinstance(d, _device) else d
    if d.type != "cuda":
        raise ValueError("DataParallel: device_ids must be CUDA devices, got %s" % d)
    return d.index if d.index is not None else cuda.current_device()


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.dim = dim
        if not cuda.is_available():
            self.device_ids = []
            self.output_device = None
            self.src_device_obj = None
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.device_ids = [_device_index(d) for d in device_ids]
        self.output_device = _device_index(output_device)
        from ..._C import device as _device

        self.src_device_obj = _device("cuda", self.device_ids[0])

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError(
                    "module must have its parameters and buffers on device {} (device_ids[0]) but "
                    "found one of them on device: {}".format(self.src_device_obj, t.device)
                )
        if len(self.device_ids) > 1:
            raise NotImplementedError(
                "DataParallel over %d GPUs: ember does not split a batch over several devices in one process; pass "
                "device_ids=[%d] to run on one" % (len(self.device_ids), self.device_ids[0])
            )
        return self.module(*_to_device(inputs, self.src_device_obj), **_to_device(kwargs, self.src_device_obj))
