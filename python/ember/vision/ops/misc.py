"""Building blocks of torchvision.ops.misc with its names, arguments and state_dict keys; the models use them."""

import warnings

import ember

from ... import nn

__all__ = [
    "FrozenBatchNorm2d",
    "ConvNormActivation",
    "Conv2dNormActivation",
    "Conv3dNormActivation",
    "SqueezeExcitation",
    "MLP",
    "Permute",
]


class FrozenBatchNorm2d(nn.Module):
    """BatchNorm2d whose batch statistics and affine parameters are fixed buffers.

    Args:
        num_features (int): number of features ``C`` from an expected input of size ``(N, C, H, W)``.
        eps (float): a value added to the denominator for numerical stability. Default: 1e-5
    """

    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", ember.ones(num_features))
        self.register_buffer("bias", ember.zeros(num_features))
        self.register_buffer("running_mean", ember.zeros(num_features))
        self.register_buffer("running_var", ember.ones(num_features))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors):
        state_dict.pop(prefix + "num_batches_tracked", None)  # a BatchNorm2d's checkpoint loads as is
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors)

    def forward(self, x):
        scale = self.weight.reshape(1, -1, 1, 1) * (self.running_var.reshape(1, -1, 1, 1) + self.eps).rsqrt()
        bias = self.bias.reshape(1, -1, 1, 1) - self.running_mean.reshape(1, -1, 1, 1) * scale
        return x * scale + bias

    def __repr__(self):
        return f"{self.__class__.__name__}({self.weight.shape[0]}, eps={self.eps})"


def _ntuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


class ConvNormActivation(nn.Sequential):
    """Convolution -> normalization -> activation; use Conv2dNormActivation or Conv3dNormActivation."""

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size=3,
        stride=1,
        padding=None,
        groups=1,
        norm_layer=nn.BatchNorm2d,
        activation_layer=nn.ReLU,
        dilation=1,
        inplace=True,
        bias=None,
        conv_layer=nn.Conv2d,
    ):
        if padding is None:  # 'same' padding for odd kernels
            if isinstance(kernel_size, int) and isinstance(dilation, int):
                padding = (kernel_size - 1) // 2 * dilation
            else:
                n = len(kernel_size) if isinstance(kernel_size, (list, tuple)) else len(dilation)
                kernel_size, dilation = _ntuple(kernel_size, n), _ntuple(dilation, n)
                padding = tuple((kernel_size[i] - 1) // 2 * dilation[i] for i in range(n))
        if bias is None:
            bias = norm_layer is None
        layers = [
            conv_layer(
                in_channels, out_channels, kernel_size, stride, padding, dilation=dilation, groups=groups, bias=bias
            )
        ]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer() if inplace is None else activation_layer(inplace=inplace))
        super().__init__(*layers)
        self.out_channels = out_channels
        if self.__class__ == ConvNormActivation:
            warnings.warn(
                "Don't use ConvNormActivation directly, please use Conv2dNormActivation and Conv3dNormActivation "
                "instead.",
                stacklevel=2,
            )


class Conv2dNormActivation(ConvNormActivation):
    """Conv2d -> normalization (default BatchNorm2d) -> activation (default ReLU), keys ``0.weight``, ``1.weight``...

    Args:
        in_channels (int): channels of the input.
        out_channels (int): channels produced by the block.
        kernel_size (int or tuple): size of the convolving kernel. Default: 3
        stride (int or tuple): stride of the convolution. Default: 1
        padding (int, tuple or str, optional): padding; None gives ``(kernel_size - 1) // 2 * dilation``.
        groups (int): blocked connections from input to output channels. Default: 1
        norm_layer (Callable, optional): the normalization layer, or None. Default: ``BatchNorm2d``
        activation_layer (Callable, optional): the activation, or None. Default: ``ReLU``
        dilation (int): spacing between kernel elements. Default: 1
        inplace (bool, optional): the activation's ``inplace``; None leaves it to the layer. Default: True
        bias (bool, optional): whether the convolution has a bias; None: only without a norm layer.
    """

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size=3,
        stride=1,
        padding=None,
        groups=1,
        norm_layer=nn.BatchNorm2d,
        activation_layer=nn.ReLU,
        dilation=1,
        inplace=True,
        bias=None,
    ):
        super().__init__(
            in_channels, out_channels, kernel_size, stride, padding, groups, norm_layer, activation_layer, dilation,
            inplace, bias, nn.Conv2d,
        )  # fmt: skip


class Conv3dNormActivation(ConvNormActivation):
    """Conv3d -> normalization (default BatchNorm3d) -> activation (default ReLU); the arguments of
    :class:`Conv2dNormActivation`."""

    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size=3,
        stride=1,
        padding=None,
        groups=1,
        norm_layer=nn.BatchNorm3d,
        activation_layer=nn.ReLU,
        dilation=1,
        inplace=True,
        bias=None,
    ):
        super().__init__(
            in_channels, out_channels, kernel_size, stride, padding, groups, norm_layer, activation_layer, dilation,
            inplace, bias, nn.Conv3d,
        )  # fmt: skip


class SqueezeExcitation(nn.Module):
    """Squeeze-and-excitation (Hu et al.): ``x * scale_activation(fc2(activation(fc1(avgpool(x)))))``.

    Args:
        input_channels (int): channels of the input.
        squeeze_channels (int): channels of the bottleneck.
        activation (Callable): the bottleneck's activation. Default: ``ReLU``
        scale_activation (Callable): the scale's activation. Default: ``Sigmoid``
    """

    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU, scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def _scale(self, input):
        return self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(input)))))

    def forward(self, input):
        return self._scale(input) * input


class MLP(nn.Sequential):
    """The multi-layer perceptron: (Linear -> norm -> activation -> Dropout) per hidden layer, then Linear ->
    Dropout.

    Args:
        in_channels (int): features of the input.
        hidden_channels (List[int]): the width of each layer, the last one's being the output's.
        norm_layer (Callable, optional): a normalization after each hidden Linear. Default: None
        activation_layer (Callable, optional): the activation after each hidden layer. Default: ``ReLU``
        inplace (bool, optional): the activation's and dropout's ``inplace``. Default: None
        bias (bool): whether the Linear layers have biases. Default: True
        dropout (float): the dropout probability. Default: 0.0
    """

    def __init__(
        self,
        in_channels,
        hidden_channels,
        norm_layer=None,
        activation_layer=nn.ReLU,
        inplace=None,
        bias=True,
        dropout=0.0,
    ):
        params = {} if inplace is None else {"inplace": inplace}
        layers = []
        in_dim = in_channels
        for hidden_dim in hidden_channels[:-1]:
            layers.append(nn.Linear(in_dim, hidden_dim, bias=bias))
            if norm_layer is not None:
                layers.append(norm_layer(hidden_dim))
            layers.append(activation_layer(**params))
            layers.append(nn.Dropout(dropout, **params))
            in_dim = hidden_dim
        layers.append(nn.Linear(in_dim, hidden_channels[-1], bias=bias))
        layers.append(nn.Dropout(dropout, **params))
        super().__init__(*layers)


class Permute(nn.Module):
    """Permutes the dims of its input.

    Args:
        dims (List[int]): the desired ordering of dimensions.
    """

    def __init__(self, dims):
        super().__init__()
        self.dims = dims

    def forward(self, x):
        return ember.permute(x, self.dims)
