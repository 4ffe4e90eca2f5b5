"""Gradient cases of the convolutions and poolings (ember/nn/conv.cpp, ember/nn/pooling.cpp). float64 runs the im2col
path; every convolution derivative is one of the three convolution maps (Note [Convolution as three maps]),
so gradgradcheck runs everywhere. Pooling inputs are random (distinct values: no ties for max pooling to break)."""

import ember
import ember.nn.functional as F

from . import Case, make

CASES = []


def add(op, fn, inputs, **kw):
    CASES.append(Case(op, fn, inputs, id=kw.pop("id", None) or op + "_%d" % sum(c.op == op for c in CASES), **kw))


# ---- convolutions: strides, padding (int, 'same' with an even kernel, 'valid'), dilation, groups, unbatched
add("conv2d", lambda x, w, b: ember.conv2d(x, w, b, padding=1), lambda: (make(2, 3, 5, 4), make(4, 3, 3, 3), make(4)))
add(
    "conv2d",
    lambda x, w: F.conv2d(x, w, stride=2, dilation=(1, 2), groups=2),
    lambda: (make(1, 4, 6, 7, noncontig=True), make(4, 2, 2, 2)),
)
add(
    "conv2d", lambda x, w: F.conv2d(x, w, padding="same", dilation=(1, 3)), lambda: (make(1, 2, 5, 6), make(2, 2, 2, 2))
)
add(
    "conv2d",
    lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=3),
    lambda: (make(3, 4, 4), make(3, 1, 3, 3), make(3)),
    id="conv2d_depthwise_unbatched",
)
add("conv2d", lambda x, w: F.conv2d(x, w, padding="valid", stride=(1, 3)), lambda: (make(2, 2, 4, 7), make(3, 2, 1, 2)))
add(
    "conv1d",
    lambda x, w, b: ember.conv1d(x, w, b, stride=2, padding=2, dilation=2),
    lambda: (make(2, 2, 9), make(3, 2, 3), make(3)),
)
add("conv1d", lambda x, w: F.conv1d(x, w, groups=2, padding="same"), lambda: (make(2, 4, 7), make(4, 2, 4)))
add(
    "conv3d",
    lambda x, w, b: ember.conv3d(x, w, b, stride=(1, 2, 1), padding=(1, 0, 1)),
    lambda: (make(1, 2, 3, 4, 3), make(2, 2, 2, 2, 2), make(2)),
)

# ---- transposed convolutions: output_padding (within the stride, and past it with dilation: the crop path)
add(
    "conv_transpose2d",
    lambda x, w, b: ember.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
    lambda: (make(2, 3, 3, 3), make(3, 2, 3, 3), make(2)),
)
add(
    "conv_transpose2d",
    lambda x, w: F.conv_transpose2d(x, w, groups=2, stride=(1, 2), dilation=2, output_padding=1),
    lambda: (make(1, 4, 3, 3, noncontig=True), make(4, 1, 2, 2)),
)
add(
    "conv_transpose2d",
    lambda x, w: F.conv_transpose2d(x, w, padding=1, dilation=3, output_padding=2),
    lambda: (make(3, 3, 3), make(3, 2, 2, 2)),
    id="conv_transpose2d_crop_unbatched",
)
add(
    "conv_transpose1d",
    lambda x, w, b: ember.conv_transpose1d(x, w, b, stride=3, padding=1, output_padding=2),
    lambda: (make(2, 2, 4), make(2, 3, 3), make(3)),
)
add(
    "conv_transpose3d",
    lambda x, w: ember.conv_transpose3d(x, w, stride=2, padding=(0, 1, 0), output_padding=(1, 0, 0)),
    lambda: (make(1, 2, 2, 2, 2), make(2, 2, 2, 2, 2)),
)

# ---- pooling
add("max_pool2d", lambda x: ember.max_pool2d(x, 2), lambda: (make(2, 2, 4, 5),))
add(
    "max_pool2d",
    lambda x: F.max_pool2d(x, 3, stride=2, padding=1, dilation=(1, 2), ceil_mode=True),
    lambda: (make(1, 2, 6, 7, noncontig=True),),
)
add(
    "max_pool2d",
    lambda x: F.max_pool2d(x, 3, stride=1, padding=1),
    lambda: (make(2, 4, 4),),
    id="max_pool2d_overlapping_unbatched",
)
add("max_pool1d", lambda x: ember.max_pool1d(x, 3, 2, 1), lambda: (make(2, 3, 8),))
add(
    "max_pool1d_with_indices",
    lambda x: ember.max_pool1d_with_indices(x, 2, ceil_mode=True)[0],
    lambda: (make(2, 2, 7),),
)
add("max_pool3d", lambda x: ember.max_pool3d(x, 2, (1, 2, 2)), lambda: (make(1, 2, 3, 4, 4),))
add(
    "avg_pool1d",
    lambda x: ember.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda: (make(2, 3, 8),),
)
add("avg_pool2d", lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True), lambda: (make(2, 2, 6, 5),))
add("avg_pool2d", lambda x: F.avg_pool2d(x, (2, 3), divisor_override=5), lambda: (make(2, 4, 6, noncontig=True),))
add("avg_pool3d", lambda x: F.avg_pool3d(x, 2, padding=1, count_include_pad=False), lambda: (make(1, 2, 3, 3, 4),))
add("adaptive_avg_pool1d", lambda x: ember.adaptive_avg_pool1d(x, 4), lambda: (make(2, 3, 7),))
add("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (3, 2)), lambda: (make(2, 2, 7, 5),))
add("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, 2), lambda: (make(1, 2, 3, 4, 5),))
add("adaptive_max_pool1d", lambda x: ember.adaptive_max_pool1d(x, 3)[0], lambda: (make(2, 3, 8),))
add("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3)), lambda: (make(2, 2, 5, 7),))
add("max_unpool2d", lambda x: F.max_unpool2d(x, ember.tensor([[[[0, 3], [9, 15]]]]), 2), lambda: (make(1, 1, 2, 2),))
add(
    "max_unpool1d",
    lambda x: F.max_unpool1d(x, ember.tensor([[[1, 2, 5]]]), 2, output_size=(7,)),
    lambda: (make(1, 1, 3),),
)
# The Python compositions PyTorch has as functions: lp_pool (avg_pool of x^p), channel_shuffle, fractional max pooling
# (fixed random samples: the windows are fixed, as for max_pool).
add("lp_pool1d", lambda x: F.lp_pool1d(x, 2.0, 3, 2), lambda: (make(2, 3, 8, low=0.2, high=2.0),))
add("lp_pool2d", lambda x: F.lp_pool2d(x, 3.0, (2, 3), ceil_mode=True), lambda: (make(1, 2, 5, 7, low=0.2, high=2),))
add("channel_shuffle", lambda x: F.channel_shuffle(x, 2), lambda: (make(2, 4, 3, noncontig=True),))
add(
    "fractional_max_pool2d",
    lambda x: F.fractional_max_pool2d(
        x, 2, output_size=(3, 4), _random_samples=ember.tensor([[[0.3, 0.7], [0.9, 0.1]]], dtype=ember.float64)
    ),
    lambda: (make(1, 2, 6, 7),),
)
add(
    "fractional_max_pool3d",
    lambda x: F.fractional_max_pool3d(
        x, 2, output_ratio=0.5, _random_samples=ember.tensor([[[0.3, 0.7, 0.5]]], dtype=ember.float64)
    ),
    lambda: (make(1, 1, 4, 5, 6),),
)
