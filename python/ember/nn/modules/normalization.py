"""Normalization modules: BatchNorm, InstanceNorm, LayerNorm, GroupNorm, LocalResponseNorm."""

import numbers

from ... import _C
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from ._functions import SyncBatchNorm as _SyncBatchNormFn
from .lazy import LazyModuleMixin, lazy_class
from .module import Module


class _NormBase(Module):
    """Weight/bias (affine) and running statistics (track_running_stats), as PyTorch's _NormBase."""

    _expected_dims = ()

    def __init__(
        self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None
    ):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_C.empty(num_features, device=device, dtype=dtype))
            self.bias = Parameter(_C.empty(num_features, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _C.zeros(num_features, device=device, dtype=dtype))
            self.register_buffer("running_var", _C.ones(num_features, device=device, dtype=dtype))
            self.register_buffer("num_batches_tracked", _C.tensor(0, dtype=_C.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors):
        # Checkpoints from before PyTorch 0.4.1 (torchvision's DenseNet weights) have no num_batches_tracked: as in
        # PyTorch, the count stays what it is.
        key = prefix + "num_batches_tracked"
        if self.track_running_stats and self.num_batches_tracked is not None and key not in state_dict:
            if local_metadata.get("version") is None:
                state_dict[key] = self.num_batches_tracked.clone()
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors)

    def _check_input_dim(self, input):
        if input.dim() not in self._expected_dims:
            raise ValueError(
                "expected {} input (got {}D input)".format(
                    " or ".join("%dD" % d for d in self._expected_dims), input.dim()
                )
            )

    def extra_repr(self):
        return (
            "{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
            "track_running_stats={track_running_stats}".format(**self.__dict__)
        )


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                exponential_average_factor = 1.0 / float(self.num_batches_tracked)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        return F.batch_norm(
            input,
            self.running_mean if not self.training or self.track_running_stats else None,
            self.running_var if not self.training or self.track_running_stats else None,
            self.weight,
            self.bias,
            bn_training,
            exponential_average_factor,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    _expected_dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    _expected_dims = (4,)


class BatchNorm3d(_BatchNorm):
    _expected_dims = (5,)


class _InstanceNorm(_NormBase):
    def __init__(
        self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None, dtype=None
    ):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input):
        self._check_input_dim(input)
        unbatched = input.dim() == self._expected_dims[0]
        if unbatched:
            input = input.unsqueeze(0)
        out = F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum,
            self.eps,
        )
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    _expected_dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    _expected_dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    _expected_dims = (4, 5)


def _init_trailing_norm(m, normalized_shape, eps, elementwise_affine, affine, device, dtype):
    """The attributes LayerNorm and RMSNorm share: normalized_shape as a tuple, eps, and the affine parameters
    named in `affine` (each of that shape, or registered as None without elementwise_affine), then initialized."""
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    m.normalized_shape = tuple(normalized_shape)
    m.eps = eps
    m.elementwise_affine = elementwise_affine
    for name in affine:
        if elementwise_affine:
            setattr(m, name, Parameter(_C.empty(*m.normalized_shape, device=device, dtype=dtype)))
        else:
            m.register_parameter(name, None)
    m.reset_parameters()


class RMSNorm(Module):
    """Root-mean-square normalization over the trailing dims (PyTorch 2.4's nn.RMSNorm): x / sqrt(mean(x^2) + eps)
    * weight, eps=None meaning the input dtype's machine epsilon."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        _init_trailing_norm(self, normalized_shape, eps, elementwise_affine, ("weight",), device, dtype)

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(**self.__dict__)


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over any number of spatial dimensions whose batch statistics are reduced across the processes of a
    distributed group while training (the group's all_reduce of per-channel sums, sums of squares and counts in
    forward, of the two gradient sums in backward). Without an initialized process group, with a group of one
    process, or in eval mode it is BatchNorm. Unlike PyTorch it also runs on CPU tensors (over Gloo)."""

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        process_group=None,
        device=None,
        dtype=None,
    ):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError("expected at least 2D input (got {}D input)".format(input.dim()))

    def _sync_group(self):
        from ... import distributed as dist

        if not dist.is_initialized():
            return None, 1
        group = self.process_group if self.process_group is not None else dist.group.WORLD
        return group, dist.get_world_size(group)

    def forward(self, input):
        self._check_input_dim(input)
        if input.size(1) == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        group, world_size = self._sync_group() if self.training else (None, 1)
        if world_size <= 1:
            return super().forward(input)
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked)
        running_mean = self.running_mean if self.track_running_stats else None
        running_var = self.running_var if self.track_running_stats else None
        return _SyncBatchNormFn.apply(
            input, self.weight, self.bias, running_mean, running_var, self.eps, momentum, group, world_size
        )

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """`module` with every BatchNorm*d replaced by a SyncBatchNorm sharing its parameters and buffers."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            out = SyncBatchNorm(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
            )
            if module.affine:
                with no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            for name in ("running_mean", "running_var", "num_batches_tracked", "training"):
                setattr(out, name, getattr(module, name))
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features from the first input's channel dimension; weight, bias and the running statistics are
    uninitialized until then (PyTorch's defaults: affine=True, track_running_stats=True, for the lazy instance
    norms too)."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _C.tensor(0, dtype=_C.int64, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def _channels(self, input):
        return input.shape[1]

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            with no_grad():
                self.num_features = self._channels(input)
                if self.affine:
                    self.weight.materialize((self.num_features,))
                    self.bias.materialize((self.num_features,))
                if self.track_running_stats:
                    self.running_mean.materialize((self.num_features,))
                    self.running_var.materialize((self.num_features,))
                self.reset_parameters()


LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d = (
    lazy_class("Lazy" + c.__name__, _LazyNormBase, c, __name__) for c in (BatchNorm1d, BatchNorm2d, BatchNorm3d)
)


class _LazyInstanceNorm(_LazyNormBase):
    def _channels(self, input):
        self._check_input_dim(input)
        return input.shape[0 if input.dim() == self._expected_dims[0] else 1]  # unbatched: (C, ...)


LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d = (
    lazy_class("Lazy" + c.__name__, _LazyInstanceNorm, c, __name__)
    for c in (InstanceNorm1d, InstanceNorm2d, InstanceNorm3d)
)


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        if not bias:
            self.register_parameter("bias", None)
        affine = ("weight", "bias") if bias else ("weight",)
        _init_trailing_norm(self, normalized_shape, eps, elementwise_affine, affine, device, dtype)

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(**self.__dict__)


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(_C.empty(num_channels, device=device, dtype=dtype))
            self.bias = Parameter(_C.empty(num_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{num_groups}, {num_channels}, eps={eps}, affine={affine}".format(**self.__dict__)


class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
