"""ember.nn.Module and the containers: registration, traversal, state_dict (keys and shapes equal to PyTorch
1.13's for the same constructor arguments), load_state_dict errors, modes, conversions, hooks, printing."""

import copy

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember import ones

# state_dict keys and shapes, and repr, that PyTorch 1.13 (Debian's python3-torch) produces for these constructors.
PYTORCH_STATE_DICTS = {
    "Linear(3, 4)": [("weight", (4, 3)), ("bias", (4,))],
    "Linear(3, 4, bias=False)": [("weight", (4, 3))],
    "Bilinear(2, 3, 4)": [("weight", (4, 2, 3)), ("bias", (4,))],
    "Conv1d(3, 8, 3)": [("weight", (8, 3, 3)), ("bias", (8,))],
    "Conv2d(3, 8, 3, bias=False)": [("weight", (8, 3, 3, 3))],
    "Conv3d(2, 4, 3)": [("weight", (4, 2, 3, 3, 3)), ("bias", (4,))],
    "ConvTranspose2d(4, 2, 3)": [("weight", (4, 2, 3, 3)), ("bias", (2,))],
    "BatchNorm1d(5)": [
        ("weight", (5,)),
        ("bias", (5,)),
        ("running_mean", (5,)),
        ("running_var", (5,)),
        ("num_batches_tracked", ()),
    ],
    "BatchNorm2d(5, affine=False)": [("running_mean", (5,)), ("running_var", (5,)), ("num_batches_tracked", ())],
    "BatchNorm2d(5, track_running_stats=False)": [("weight", (5,)), ("bias", (5,))],
    "InstanceNorm2d(3, affine=True, track_running_stats=True)": [
        ("weight", (3,)),
        ("bias", (3,)),
        ("running_mean", (3,)),
        ("running_var", (3,)),
        ("num_batches_tracked", ()),
    ],
    "InstanceNorm1d(3)": [],
    "LayerNorm(6)": [("weight", (6,)), ("bias", (6,))],
    "LayerNorm([2, 3], elementwise_affine=False)": [],
    "GroupNorm(2, 4)": [("weight", (4,)), ("bias", (4,))],
    "Embedding(10, 3)": [("weight", (10, 3))],
    "EmbeddingBag(10, 3)": [("weight", (10, 3))],
    "PReLU(3)": [("weight", (3,))],
    "CrossEntropyLoss(weight=ones(3))": [("weight", (3,))],
    "BCEWithLogitsLoss(pos_weight=ones(3))": [("pos_weight", (3,))],
    "Sequential(Linear(2, 3), ReLU(), Linear(3, 1))": [
        ("0.weight", (3, 2)),
        ("0.bias", (3,)),
        ("2.weight", (1, 3)),
        ("2.bias", (1,)),
    ],
    "ModuleList([Linear(1, 1), BatchNorm1d(1)])": [
        ("0.weight", (1, 1)),
        ("0.bias", (1,)),
        ("1.weight", (1,)),
        ("1.bias", (1,)),
        ("1.running_mean", (1,)),
        ("1.running_var", (1,)),
        ("1.num_batches_tracked", ()),
    ],
    "ModuleDict({'a': Linear(1, 2), 'b': Conv1d(1, 1, 1)})": [
        ("a.weight", (2, 1)),
        ("a.bias", (2,)),
        ("b.weight", (1, 1, 1)),
        ("b.bias", (1,)),
    ],
}
PYTORCH_REPRS = {
    "Linear(3, 4)": "Linear(in_features=3, out_features=4, bias=True)",
    "Linear(3, 4, bias=False)": "Linear(in_features=3, out_features=4, bias=False)",
    "Bilinear(2, 3, 4)": "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)",
    "Conv1d(3, 8, 3)": "Conv1d(3, 8, kernel_size=(3,), stride=(1,))",
    "Conv2d(3, 8, 3, bias=False)": "Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), bias=False)",
    "Conv3d(2, 4, 3)": "Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1))",
    "ConvTranspose2d(4, 2, 3)": "ConvTranspose2d(4, 2, kernel_size=(3, 3), stride=(1, 1))",
    "BatchNorm1d(5)": "BatchNorm1d(5, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)",
    "BatchNorm2d(5, affine=False)": "BatchNorm2d(5, eps=1e-05, momentum=0.1, affine=False, track_running_stats=True)",
    "BatchNorm2d(5, track_running_stats=False)": "BatchNorm2d(5, eps=1e-05, momentum=0.1, affine=True, track_running_stats=False)",
    "InstanceNorm2d(3, affine=True, track_running_stats=True)": "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)",
    "InstanceNorm1d(3)": "InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False)",
    "LayerNorm(6)": "LayerNorm((6,), eps=1e-05, elementwise_affine=True)",
    "LayerNorm([2, 3], elementwise_affine=False)": "LayerNorm((2, 3), eps=1e-05, elementwise_affine=False)",
    "GroupNorm(2, 4)": "GroupNorm(2, 4, eps=1e-05, affine=True)",
    "Embedding(10, 3)": "Embedding(10, 3)",
    "EmbeddingBag(10, 3)": "EmbeddingBag(10, 3, mode=mean)",
    "PReLU(3)": "PReLU(num_parameters=3)",
    "CrossEntropyLoss(weight=ones(3))": "CrossEntropyLoss()",
    "BCEWithLogitsLoss(pos_weight=ones(3))": "BCEWithLogitsLoss()",
    "Sequential(Linear(2, 3), ReLU(), Linear(3, 1))": "Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n  (1): ReLU()\n  (2): Linear(in_features=3, out_features=1, bias=True)\n)",
    "ModuleList([Linear(1, 1), BatchNorm1d(1)])": "ModuleList(\n  (0): Linear(in_features=1, out_features=1, bias=True)\n  (1): BatchNorm1d(1, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n)",
    "ModuleDict({'a': Linear(1, 2), 'b': Conv1d(1, 1, 1)})": "ModuleDict(\n  (a): Linear(in_features=1, out_features=2, bias=True)\n  (b): Conv1d(1, 1, kernel_size=(1,), stride=(1,))\n)",
}

PYTORCH_STATE_DICTS.update(
    {
        "MultiheadAttention(8, 2)": [
            ("in_proj_weight", (24, 8)),
            ("in_proj_bias", (24,)),
            ("out_proj.weight", (8, 8)),
            ("out_proj.bias", (8,)),
        ],
        "MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True)": [
            ("q_proj_weight", (8, 8)),
            ("k_proj_weight", (8, 4)),
            ("v_proj_weight", (8, 6)),
            ("in_proj_bias", (24,)),
            ("bias_k", (1, 1, 8)),
            ("bias_v", (1, 1, 8)),
            ("out_proj.weight", (8, 8)),
            ("out_proj.bias", (8,)),
        ],
        "TransformerEncoderLayer(8, 2, 16)": [
            ("self_attn.in_proj_weight", (24, 8)),
            ("self_attn.in_proj_bias", (24,)),
            ("self_attn.out_proj.weight", (8, 8)),
            ("self_attn.out_proj.bias", (8,)),
            ("linear1.weight", (16, 8)),
            ("linear1.bias", (16,)),
            ("linear2.weight", (8, 16)),
            ("linear2.bias", (8,)),
            ("norm1.weight", (8,)),
            ("norm1.bias", (8,)),
            ("norm2.weight", (8,)),
            ("norm2.bias", (8,)),
        ],
        "TransformerDecoderLayer(8, 2, 16)": [
            ("self_attn.in_proj_weight", (24, 8)),
            ("self_attn.in_proj_bias", (24,)),
            ("self_attn.out_proj.weight", (8, 8)),
            ("self_attn.out_proj.bias", (8,)),
            ("multihead_attn.in_proj_weight", (24, 8)),
            ("multihead_attn.in_proj_bias", (24,)),
            ("multihead_attn.out_proj.weight", (8, 8)),
            ("multihead_attn.out_proj.bias", (8,)),
            ("linear1.weight", (16, 8)),
            ("linear1.bias", (16,)),
            ("linear2.weight", (8, 16)),
            ("linear2.bias", (8,)),
            ("norm1.weight", (8,)),
            ("norm1.bias", (8,)),
            ("norm2.weight", (8,)),
            ("norm2.bias", (8,)),
            ("norm3.weight", (8,)),
            ("norm3.bias", (8,)),
        ],
        "Transformer(8, 2, 1, 1, 16)": [
            ("encoder.layers.0.self_attn.in_proj_weight", (24, 8)),
            ("encoder.layers.0.self_attn.in_proj_bias", (24,)),
            ("encoder.layers.0.self_attn.out_proj.weight", (8, 8)),
            ("encoder.layers.0.self_attn.out_proj.bias", (8,)),
            ("encoder.layers.0.linear1.weight", (16, 8)),
            ("encoder.layers.0.linear1.bias", (16,)),
            ("encoder.layers.0.linear2.weight", (8, 16)),
            ("encoder.layers.0.linear2.bias", (8,)),
            ("encoder.layers.0.norm1.weight", (8,)),
            ("encoder.layers.0.norm1.bias", (8,)),
            ("encoder.layers.0.norm2.weight", (8,)),
            ("encoder.layers.0.norm2.bias", (8,)),
            ("encoder.norm.weight", (8,)),
            ("encoder.norm.bias", (8,)),
            ("decoder.layers.0.self_attn.in_proj_weight", (24, 8)),
            ("decoder.layers.0.self_attn.in_proj_bias", (24,)),
            ("decoder.layers.0.self_attn.out_proj.weight", (8, 8)),
            ("decoder.layers.0.self_attn.out_proj.bias", (8,)),
            ("decoder.layers.0.multihead_attn.in_proj_weight", (24, 8)),
            ("decoder.layers.0.multihead_attn.in_proj_bias", (24,)),
            ("decoder.layers.0.multihead_attn.out_proj.weight", (8, 8)),
            ("decoder.layers.0.multihead_attn.out_proj.bias", (8,)),
            ("decoder.layers.0.linear1.weight", (16, 8)),
            ("decoder.layers.0.linear1.bias", (16,)),
            ("decoder.layers.0.linear2.weight", (8, 16)),
            ("decoder.layers.0.linear2.bias", (8,)),
            ("decoder.layers.0.norm1.weight", (8,)),
            ("decoder.layers.0.norm1.bias", (8,)),
            ("decoder.layers.0.norm2.weight", (8,)),
            ("decoder.layers.0.norm2.bias", (8,)),
            ("decoder.layers.0.norm3.weight", (8,)),
            ("decoder.layers.0.norm3.bias", (8,)),
            ("decoder.norm.weight", (8,)),
            ("decoder.norm.bias", (8,)),
        ],
        "LSTM(3, 4, 2, bidirectional=True)": [
            ("weight_ih_l0", (16, 3)),
            ("weight_hh_l0", (16, 4)),
            ("bias_ih_l0", (16,)),
            ("bias_hh_l0", (16,)),
            ("weight_ih_l0_reverse", (16, 3)),
            ("weight_hh_l0_reverse", (16, 4)),
            ("bias_ih_l0_reverse", (16,)),
            ("bias_hh_l0_reverse", (16,)),
            ("weight_ih_l1", (16, 8)),
            ("weight_hh_l1", (16, 4)),
            ("bias_ih_l1", (16,)),
            ("bias_hh_l1", (16,)),
            ("weight_ih_l1_reverse", (16, 8)),
            ("weight_hh_l1_reverse", (16, 4)),
            ("bias_ih_l1_reverse", (16,)),
            ("bias_hh_l1_reverse", (16,)),
        ],
        "GRU(3, 4, bias=False)": [("weight_ih_l0", (12, 3)), ("weight_hh_l0", (12, 4))],
        "RNN(3, 4, nonlinearity='relu')": [
            ("weight_ih_l0", (4, 3)),
            ("weight_hh_l0", (4, 4)),
            ("bias_ih_l0", (4,)),
            ("bias_hh_l0", (4,)),
        ],
        "LSTMCell(3, 4)": [("weight_ih", (16, 3)), ("weight_hh", (16, 4)), ("bias_ih", (16,)), ("bias_hh", (16,))],
        "GRUCell(3, 4, bias=False)": [("weight_ih", (12, 3)), ("weight_hh", (12, 4))],
    }
)
PYTORCH_REPRS.update(
    {
        "MultiheadAttention(8, 2)": "MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)\n)",
        "MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True)": "MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)\n)",
        "LSTM(3, 4, 2, bidirectional=True)": "LSTM(3, 4, num_layers=2, bidirectional=True)",
        "GRU(3, 4, bias=False)": "GRU(3, 4, bias=False)",
        "RNN(3, 4, nonlinearity='relu')": "RNN(3, 4)",
        "LSTMCell(3, 4)": "LSTMCell(3, 4)",
        "GRUCell(3, 4, bias=False)": "GRUCell(3, 4, bias=False)",
    }
)

# More modules: convolutions with padding='same'/groups, norms, every activation with non-default arguments,
# pooling, padding, dropout, reshaping, upsampling, embeddings, losses with non-default arguments, cells.
# Generated once with Debian's python3-torch 1.13 (/usr/bin/python3, in its own process):
#   m = eval(expr, vars(torch.nn)); [(k, tuple(v.shape)) for k, v in m.state_dict().items()], repr(m)
# (ones -> torch.ones there). Left out: LSTM(3, 4, proj_size=2) -- ember's LSTM has no proj_size.
PYTORCH_STATE_DICTS.update(
    {
        "Conv1d(4, 8, 3, padding='same', groups=2)": [("weight", (8, 2, 3)), ("bias", (8,))],
        "Conv1d(4, 8, 3, padding='same', groups=2, padding_mode='reflect', dilation=2)": [
            ("weight", (8, 2, 3)),
            ("bias", (8,)),
        ],
        "Conv2d(4, 4, (3, 5), stride=2, padding=1, groups=4, bias=False)": [("weight", (4, 1, 3, 5))],
        "ConvTranspose1d(4, 6, 3, stride=2, output_padding=1, groups=2)": [("weight", (4, 3, 3)), ("bias", (6,))],
        "ConvTranspose3d(2, 3, 2)": [("weight", (2, 3, 2, 2, 2)), ("bias", (3,))],
        "BatchNorm3d(4)": [
            ("weight", (4,)),
            ("bias", (4,)),
            ("running_mean", (4,)),
            ("running_var", (4,)),
            ("num_batches_tracked", ()),
        ],
        "BatchNorm1d(3, momentum=None)": [
            ("weight", (3,)),
            ("bias", (3,)),
            ("running_mean", (3,)),
            ("running_var", (3,)),
            ("num_batches_tracked", ()),
        ],
        "InstanceNorm3d(3, affine=True)": [("weight", (3,)), ("bias", (3,))],
        "InstanceNorm1d(3, eps=0.001, momentum=0.2)": [],
        "LocalResponseNorm(2)": [],
        "LocalResponseNorm(3, alpha=0.001, beta=0.5, k=2.0)": [],
        "GroupNorm(2, 4, affine=False)": [],
        "LayerNorm(4, eps=1e-6)": [("weight", (4,)), ("bias", (4,))],
        "ReLU(inplace=True)": [],
        "ReLU6()": [],
        "LeakyReLU(0.2)": [],
        "LeakyReLU(0.2, inplace=True)": [],
        "ELU(alpha=0.5)": [],
        "CELU(alpha=2.0)": [],
        "SELU()": [],
        "Hardtanh(-2, 2)": [],
        "Hardtanh()": [],
        "Softplus(beta=2)": [],
        "Softplus(beta=2, threshold=10)": [],
        "Threshold(0.1, 20)": [],
        "GELU('tanh')": [],
        "GELU()": [],
        "Softmax(dim=1)": [],
        "Softmax()": [],
        "LogSoftmax(dim=-1)": [],
        "Softmin(dim=0)": [],
        "PReLU()": [("weight", (1,))],
        "PReLU(4, init=0.1)": [("weight", (4,))],
        "GLU()": [],
        "GLU(dim=1)": [],
        "Hardshrink(0.3)": [],
        "Softshrink(0.3)": [],
        "Tanhshrink()": [],
        "Softsign()": [],
        "Sigmoid()": [],
        "Tanh()": [],
        "SiLU()": [],
        "Mish()": [],
        "Hardswish()": [],
        "Hardsigmoid()": [],
        "LogSigmoid()": [],
        "Identity()": [],
        "MaxPool1d(2)": [],
        "MaxPool2d(3, stride=2, padding=1, dilation=1, ceil_mode=True)": [],
        "MaxPool2d(2, return_indices=True)": [],
        "MaxPool3d(2)": [],
        "AvgPool1d(3, stride=2)": [],
        "AvgPool2d(2, count_include_pad=False, divisor_override=3)": [],
        "AvgPool2d(3, stride=1, padding=1, ceil_mode=True)": [],
        "AdaptiveAvgPool1d(4)": [],
        "AdaptiveAvgPool2d((2, 3))": [],
        "AdaptiveAvgPool2d(1)": [],
        "AdaptiveMaxPool2d((2, 2))": [],
        "AdaptiveMaxPool2d(3, return_indices=True)": [],
        "MaxUnpool2d(2)": [],
        "MaxUnpool2d(3, stride=2, padding=1)": [],
        "ConstantPad1d(2, 3.5)": [],
        "ConstantPad2d((1, 2, 3, 4), 0.0)": [],
        "ConstantPad3d(1, 1.0)": [],
        "ZeroPad2d(2)": [],
        "ZeroPad2d((1, 0, 2, 0))": [],
        "ReflectionPad1d(2)": [],
        "ReflectionPad2d((1, 1, 2, 0))": [],
        "ReflectionPad3d(1)": [],
        "ReplicationPad1d((3, 1))": [],
        "ReplicationPad2d(2)": [],
        "ReplicationPad3d(1)": [],
        "Dropout()": [],
        "Dropout(0.2, inplace=True)": [],
        "Dropout1d(0.3)": [],
        "Dropout2d(0.3)": [],
        "Dropout3d()": [],
        "AlphaDropout(0.1)": [],
        "FeatureAlphaDropout(0.4)": [],
        "Flatten()": [],
        "Flatten(0, 2)": [],
        "Unflatten(1, (2, 3))": [],
        "Upsample(scale_factor=2)": [],
        "Upsample(size=(4, 5), mode='bilinear', align_corners=True)": [],
        "Upsample(scale_factor=2.0, mode='nearest')": [],
        "UpsamplingNearest2d(scale_factor=2)": [],
        "UpsamplingBilinear2d(size=4)": [],
        "PixelShuffle(2)": [],
        "PixelUnshuffle(3)": [],
        "ChannelShuffle(2)": [],
        "Fold(output_size=(4, 5), kernel_size=2)": [],
        "Unfold(kernel_size=(2, 3), dilation=1, padding=1, stride=2)": [],
        "CosineSimilarity(dim=0, eps=1e-6)": [],
        "PairwiseDistance(p=1.0, keepdim=True)": [],
        "Embedding(10, 3, padding_idx=0)": [("weight", (10, 3))],
        "Embedding(10, 3, max_norm=1.0, scale_grad_by_freq=True, sparse=True)": [("weight", (10, 3))],
        "EmbeddingBag(10, 3, mode='sum')": [("weight", (10, 3))],
        "EmbeddingBag(10, 3, mode='max', padding_idx=2)": [("weight", (10, 3))],
        "L1Loss(reduction='sum')": [],
        "MSELoss(reduction='none')": [],
        "CrossEntropyLoss(ignore_index=1, label_smoothing=0.1)": [],
        "NLLLoss(weight=ones(3), reduction='sum')": [("weight", (3,))],
        "BCELoss(weight=ones(3))": [("weight", (3,))],
        "BCEWithLogitsLoss(reduction='sum')": [],
        "KLDivLoss(reduction='batchmean', log_target=True)": [],
        "HuberLoss(delta=0.5)": [],
        "SmoothL1Loss(beta=0.5)": [],
        "PoissonNLLLoss(log_input=False, full=True)": [],
        "MarginRankingLoss(margin=0.5)": [],
        "HingeEmbeddingLoss(margin=2.0)": [],
        "CosineEmbeddingLoss(margin=0.1)": [],
        "SoftMarginLoss()": [],
        "MultiLabelSoftMarginLoss(weight=ones(3))": [("weight", (3,))],
        "MultiMarginLoss(p=2, margin=0.5, weight=ones(3))": [("weight", (3,))],
        "TripletMarginLoss(margin=2.0, p=1)": [],
        "CTCLoss(blank=1, zero_infinity=True)": [],
        "GRUCell(3, 4)": [("weight_ih", (12, 3)), ("weight_hh", (12, 4)), ("bias_ih", (12,)), ("bias_hh", (12,))],
        "RNNCell(3, 4, nonlinearity='relu')": [
            ("weight_ih", (4, 3)),
            ("weight_hh", (4, 4)),
            ("bias_ih", (4,)),
            ("bias_hh", (4,)),
        ],
        "RNNCell(3, 4, bias=False)": [("weight_ih", (4, 3)), ("weight_hh", (4, 4))],
        "LSTMCell(3, 4, bias=False)": [("weight_ih", (16, 3)), ("weight_hh", (16, 4))],
        "GRU(3, 4, num_layers=2, batch_first=True, dropout=0.5)": [
            ("weight_ih_l0", (12, 3)),
            ("weight_hh_l0", (12, 4)),
            ("bias_ih_l0", (12,)),
            ("bias_hh_l0", (12,)),
            ("weight_ih_l1", (12, 4)),
            ("weight_hh_l1", (12, 4)),
            ("bias_ih_l1", (12,)),
            ("bias_hh_l1", (12,)),
        ],
        "RNN(3, 4, nonlinearity='relu', bias=False, bidirectional=True)": [
            ("weight_ih_l0", (4, 3)),
            ("weight_hh_l0", (4, 4)),
            ("weight_ih_l0_reverse", (4, 3)),
            ("weight_hh_l0_reverse", (4, 4)),
        ],
    }
)
PYTORCH_REPRS.update(
    {
        "Conv1d(4, 8, 3, padding='same', groups=2)": "Conv1d(4, 8, kernel_size=(3,), stride=(1,), padding=same, groups=2)",
        "Conv1d(4, 8, 3, padding='same', groups=2, padding_mode='reflect', dilation=2)": "Conv1d(4, 8, kernel_size=(3,), stride=(1,), padding=same, dilation=(2,), groups=2, padding_mode=reflect)",
        "Conv2d(4, 4, (3, 5), stride=2, padding=1, groups=4, bias=False)": "Conv2d(4, 4, kernel_size=(3, 5), stride=(2, 2), padding=(1, 1), groups=4, bias=False)",
        "ConvTranspose1d(4, 6, 3, stride=2, output_padding=1, groups=2)": "ConvTranspose1d(4, 6, kernel_size=(3,), stride=(2,), output_padding=(1,), groups=2)",
        "ConvTranspose3d(2, 3, 2)": "ConvTranspose3d(2, 3, kernel_size=(2, 2, 2), stride=(1, 1, 1))",
        "BatchNorm3d(4)": "BatchNorm3d(4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)",
        "BatchNorm1d(3, momentum=None)": "BatchNorm1d(3, eps=1e-05, momentum=None, affine=True, track_running_stats=True)",
        "InstanceNorm3d(3, affine=True)": "InstanceNorm3d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=False)",
        "InstanceNorm1d(3, eps=0.001, momentum=0.2)": "InstanceNorm1d(3, eps=0.001, momentum=0.2, affine=False, track_running_stats=False)",
        "LocalResponseNorm(2)": "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)",
        "LocalResponseNorm(3, alpha=0.001, beta=0.5, k=2.0)": "LocalResponseNorm(3, alpha=0.001, beta=0.5, k=2.0)",
        "GroupNorm(2, 4, affine=False)": "GroupNorm(2, 4, eps=1e-05, affine=False)",
        "LayerNorm(4, eps=1e-6)": "LayerNorm((4,), eps=1e-06, elementwise_affine=True)",
        "ReLU(inplace=True)": "ReLU(inplace=True)",
        "ReLU6()": "ReLU6()",
        "LeakyReLU(0.2)": "LeakyReLU(negative_slope=0.2)",
        "LeakyReLU(0.2, inplace=True)": "LeakyReLU(negative_slope=0.2, inplace=True)",
        "ELU(alpha=0.5)": "ELU(alpha=0.5)",
        "CELU(alpha=2.0)": "CELU(alpha=2.0)",
        "SELU()": "SELU()",
        "Hardtanh(-2, 2)": "Hardtanh(min_val=-2, max_val=2)",
        "Hardtanh()": "Hardtanh(min_val=-1.0, max_val=1.0)",
        "Softplus(beta=2)": "Softplus(beta=2, threshold=20)",
        "Softplus(beta=2, threshold=10)": "Softplus(beta=2, threshold=10)",
        "Threshold(0.1, 20)": "Threshold(threshold=0.1, value=20)",
        "GELU('tanh')": "GELU(approximate='tanh')",
        "GELU()": "GELU(approximate='none')",
        "Softmax(dim=1)": "Softmax(dim=1)",
        "Softmax()": "Softmax(dim=None)",
        "LogSoftmax(dim=-1)": "LogSoftmax(dim=-1)",
        "Softmin(dim=0)": "Softmin(dim=0)",
        "PReLU()": "PReLU(num_parameters=1)",
        "PReLU(4, init=0.1)": "PReLU(num_parameters=4)",
        "GLU()": "GLU(dim=-1)",
        "GLU(dim=1)": "GLU(dim=1)",
        "Hardshrink(0.3)": "Hardshrink(0.3)",
        "Softshrink(0.3)": "Softshrink(0.3)",
        "Tanhshrink()": "Tanhshrink()",
        "Softsign()": "Softsign()",
        "Sigmoid()": "Sigmoid()",
        "Tanh()": "Tanh()",
        "SiLU()": "SiLU()",
        "Mish()": "Mish()",
        "Hardswish()": "Hardswish()",
        "Hardsigmoid()": "Hardsigmoid()",
        "LogSigmoid()": "LogSigmoid()",
        "Identity()": "Identity()",
        "MaxPool1d(2)": "MaxPool1d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)",
        "MaxPool2d(3, stride=2, padding=1, dilation=1, ceil_mode=True)": "MaxPool2d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True)",
        "MaxPool2d(2, return_indices=True)": "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)",
        "MaxPool3d(2)": "MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)",
        "AvgPool1d(3, stride=2)": "AvgPool1d(kernel_size=(3,), stride=(2,), padding=(0,))",
        "AvgPool2d(2, count_include_pad=False, divisor_override=3)": "AvgPool2d(kernel_size=2, stride=2, padding=0)",
        "AvgPool2d(3, stride=1, padding=1, ceil_mode=True)": "AvgPool2d(kernel_size=3, stride=1, padding=1)",
        "AdaptiveAvgPool1d(4)": "AdaptiveAvgPool1d(output_size=4)",
        "AdaptiveAvgPool2d((2, 3))": "AdaptiveAvgPool2d(output_size=(2, 3))",
        "AdaptiveAvgPool2d(1)": "AdaptiveAvgPool2d(output_size=1)",
        "AdaptiveMaxPool2d((2, 2))": "AdaptiveMaxPool2d(output_size=(2, 2))",
        "AdaptiveMaxPool2d(3, return_indices=True)": "AdaptiveMaxPool2d(output_size=3)",
        "MaxUnpool2d(2)": "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))",
        "MaxUnpool2d(3, stride=2, padding=1)": "MaxUnpool2d(kernel_size=(3, 3), stride=(2, 2), padding=(1, 1))",
        "ConstantPad1d(2, 3.5)": "ConstantPad1d(padding=(2, 2), value=3.5)",
        "ConstantPad2d((1, 2, 3, 4), 0.0)": "ConstantPad2d(padding=(1, 2, 3, 4), value=0.0)",
        "ConstantPad3d(1, 1.0)": "ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=1.0)",
        "ZeroPad2d(2)": "ZeroPad2d((2, 2, 2, 2))",
        "ZeroPad2d((1, 0, 2, 0))": "ZeroPad2d((1, 0, 2, 0))",
        "ReflectionPad1d(2)": "ReflectionPad1d((2, 2))",
        "ReflectionPad2d((1, 1, 2, 0))": "ReflectionPad2d((1, 1, 2, 0))",
        "ReflectionPad3d(1)": "ReflectionPad3d((1, 1, 1, 1, 1, 1))",
        "ReplicationPad1d((3, 1))": "ReplicationPad1d((3, 1))",
        "ReplicationPad2d(2)": "ReplicationPad2d((2, 2, 2, 2))",
        "ReplicationPad3d(1)": "ReplicationPad3d((1, 1, 1, 1, 1, 1))",
        "Dropout()": "Dropout(p=0.5, inplace=False)",
        "Dropout(0.2, inplace=True)": "Dropout(p=0.2, inplace=True)",
        "Dropout1d(0.3)": "Dropout1d(p=0.3, inplace=False)",
        "Dropout2d(0.3)": "Dropout2d(p=0.3, inplace=False)",
        "Dropout3d()": "Dropout3d(p=0.5, inplace=False)",
        "AlphaDropout(0.1)": "AlphaDropout(p=0.1, inplace=False)",
        "FeatureAlphaDropout(0.4)": "FeatureAlphaDropout(p=0.4, inplace=False)",
        "Flatten()": "Flatten(start_dim=1, end_dim=-1)",
        "Flatten(0, 2)": "Flatten(start_dim=0, end_dim=2)",
        "Unflatten(1, (2, 3))": "Unflatten(dim=1, unflattened_size=(2, 3))",
        "Upsample(scale_factor=2)": "Upsample(scale_factor=2.0, mode=nearest)",
        "Upsample(size=(4, 5), mode='bilinear', align_corners=True)": "Upsample(size=(4, 5), mode=bilinear)",
        "Upsample(scale_factor=2.0, mode='nearest')": "Upsample(scale_factor=2.0, mode=nearest)",
        "UpsamplingNearest2d(scale_factor=2)": "UpsamplingNearest2d(scale_factor=2.0, mode=nearest)",
        "UpsamplingBilinear2d(size=4)": "UpsamplingBilinear2d(size=4, mode=bilinear)",
        "PixelShuffle(2)": "PixelShuffle(upscale_factor=2)",
        "PixelUnshuffle(3)": "PixelUnshuffle(downscale_factor=3)",
        "ChannelShuffle(2)": "ChannelShuffle(groups=2)",
        "Fold(output_size=(4, 5), kernel_size=2)": "Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)",
        "Unfold(kernel_size=(2, 3), dilation=1, padding=1, stride=2)": "Unfold(kernel_size=(2, 3), dilation=1, padding=1, stride=2)",
        "CosineSimilarity(dim=0, eps=1e-6)": "CosineSimilarity()",
        "PairwiseDistance(p=1.0, keepdim=True)": "PairwiseDistance()",
        "Embedding(10, 3, padding_idx=0)": "Embedding(10, 3, padding_idx=0)",
        "Embedding(10, 3, max_norm=1.0, scale_grad_by_freq=True, sparse=True)": "Embedding(10, 3, max_norm=1.0, scale_grad_by_freq=True, sparse=True)",
        "EmbeddingBag(10, 3, mode='sum')": "EmbeddingBag(10, 3, mode=sum)",
        "EmbeddingBag(10, 3, mode='max', padding_idx=2)": "EmbeddingBag(10, 3, mode=max, padding_idx=2)",
        "L1Loss(reduction='sum')": "L1Loss()",
        "MSELoss(reduction='none')": "MSELoss()",
        "CrossEntropyLoss(ignore_index=1, label_smoothing=0.1)": "CrossEntropyLoss()",
        "NLLLoss(weight=ones(3), reduction='sum')": "NLLLoss()",
        "BCELoss(weight=ones(3))": "BCELoss()",
        "BCEWithLogitsLoss(reduction='sum')": "BCEWithLogitsLoss()",
        "KLDivLoss(reduction='batchmean', log_target=True)": "KLDivLoss()",
        "HuberLoss(delta=0.5)": "HuberLoss()",
        "SmoothL1Loss(beta=0.5)": "SmoothL1Loss()",
        "PoissonNLLLoss(log_input=False, full=True)": "PoissonNLLLoss()",
        "MarginRankingLoss(margin=0.5)": "MarginRankingLoss()",
        "HingeEmbeddingLoss(margin=2.0)": "HingeEmbeddingLoss()",
        "CosineEmbeddingLoss(margin=0.1)": "CosineEmbeddingLoss()",
        "SoftMarginLoss()": "SoftMarginLoss()",
        "MultiLabelSoftMarginLoss(weight=ones(3))": "MultiLabelSoftMarginLoss()",
        "MultiMarginLoss(p=2, margin=0.5, weight=ones(3))": "MultiMarginLoss()",
        "TripletMarginLoss(margin=2.0, p=1)": "TripletMarginLoss()",
        "CTCLoss(blank=1, zero_infinity=True)": "CTCLoss()",
        "GRUCell(3, 4)": "GRUCell(3, 4)",
        "RNNCell(3, 4, nonlinearity='relu')": "RNNCell(3, 4, nonlinearity=relu)",
        "RNNCell(3, 4, bias=False)": "RNNCell(3, 4, bias=False)",
        "LSTMCell(3, 4, bias=False)": "LSTMCell(3, 4, bias=False)",
        "GRU(3, 4, num_layers=2, batch_first=True, dropout=0.5)": "GRU(3, 4, num_layers=2, batch_first=True, dropout=0.5)",
        "RNN(3, 4, nonlinearity='relu', bias=False, bidirectional=True)": "RNN(3, 4, bias=False, bidirectional=True)",
    }
)


def build(expr):
    """The module a constructor expression of the tables names (Linear, Sequential, ... resolve in ember.nn)."""
    return eval(expr, {**{k: getattr(nn, k) for k in dir(nn)}, "ones": ones})


@pytest.mark.parametrize("expr", sorted(PYTORCH_STATE_DICTS))
def test_state_dict_keys_match_pytorch(expr):
    m = build(expr)
    got = [(k, tuple(v.shape)) for k, v in m.state_dict().items()]
    assert got == list(PYTORCH_STATE_DICTS[expr])


@pytest.mark.parametrize("expr", sorted(PYTORCH_REPRS))
def test_repr_matches_pytorch(expr):
    assert repr(build(expr)) == PYTORCH_REPRS[expr]


class Quadratic(nn.Module):
    """y = a * x^2 + b * x + c with elementwise ops only."""

    def __init__(self):
        super().__init__()
        self.a = nn.Parameter(ember.zeros(3))
        self.b = nn.Parameter(ember.zeros(3))
        self.register_buffer("c", ember.ones(3))
        self.register_buffer("scratch", ember.zeros(1), persistent=False)
        self.inner = nn.Sequential(nn.Tanh(), nn.Identity())

    def forward(self, x):
        return self.inner(self.a * x * x + self.b * x) + self.c


def test_registration_and_traversal():
    m = Quadratic()
    assert [n for n, _ in m.named_parameters()] == ["a", "b"]
    assert [n for n, _ in m.named_buffers()] == ["c", "scratch"]
    assert list(m.state_dict()) == ["a", "b", "c"]  # non-persistent buffers are not saved
    assert [n for n, _ in m.named_modules()] == ["", "inner", "inner.0", "inner.1"]
    assert [n for n, _ in m.named_children()] == ["inner"]
    assert isinstance(m.a, nn.Parameter) and m.a.requires_grad and m.a.is_leaf
    m.a = nn.Parameter(ember.ones(3))  # reassignment replaces the registration
    assert m.get_parameter("a").tolist() == [1.0, 1.0, 1.0]
    m.plain = 5
    assert "plain" not in m._parameters and m.plain == 5
    with pytest.raises(TypeError, match="cannot assign 'ember.Tensor' object to parameter 'x'"):
        m.register_parameter("x", ember.ones(1))
    with pytest.raises(TypeError, match="cannot assign 'ember.Tensor' as parameter 'a'"):
        m.a = ember.ones(3)
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.register_buffer("plain", ember.ones(1))
    with pytest.raises(AttributeError, match="'Quadratic' object has no attribute 'nothing'"):
        m.nothing
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, shared)
    assert len(list(seq.parameters())) == 2  # duplicates are listed once


def test_train_eval_zero_grad_apply_requires_grad():
    m = Quadratic()
    assert m.training and m.inner[0].training
    m.eval()
    assert not m.training and not m.inner[0].training
    m.train()
    assert m.inner[1].training
    (m(ember.ones(3)) * ember.ones(3)).backward(ember.ones(3))
    assert m.a.grad is not None
    m.zero_grad()
    assert m.a.grad is None
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Tanh", "Identity", "Sequential", "Quadratic"]
    m.requires_grad_(False)
    assert not m.a.requires_grad


def test_to_double_keeps_parameter_objects():
    m = Quadratic()
    a = m.a
    m.double()
    assert m.a is a and a.dtype == ember.float64 and m.c.dtype == ember.float64
    m.to(ember.float32)
    assert a.dtype == ember.float32
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point dtypes"):
        m.to(ember.int64)


def test_load_state_dict_round_trip_and_errors():
    src, dst = Quadratic(), Quadratic()
    with ember.no_grad():
        src.a.copy_(ember.tensor([1.0, 2.0, 3.0]))
    result = dst.load_state_dict(src.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert dst.a.tolist() == [1.0, 2.0, 3.0]
    sd = src.state_dict()
    del sd["b"]
    sd["extra"] = ember.ones(1)
    with pytest.raises(
        RuntimeError,
        match=r"Error\(s\) in loading state_dict for Quadratic:\n\tMissing key\(s\) in "
        r'state_dict: "b". \n\tUnexpected key\(s\) in state_dict: "extra".',
    ):
        dst.load_state_dict(sd)
    keys = dst.load_state_dict(sd, strict=False)
    assert keys.missing_keys == ["b"] and keys.unexpected_keys == ["extra"]  # reported, not raised
    bad = src.state_dict()
    bad["a"] = ember.ones(4)
    with pytest.raises(
        RuntimeError,
        match=r"size mismatch for a: copying a param with shape ember.Size\(\[4\]\) "
        r"from checkpoint, the shape in current model is ember.Size\(\[3\]\)",
    ):
        dst.load_state_dict(bad)


def test_forward_hooks_and_full_backward_hook():
    m = Quadratic()
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    h2 = m.register_forward_hook(lambda mod, args, out: out + 100)
    grads = {}

    def bw(mod, grad_input, grad_output):
        grads["in"] = grad_input[0].tolist()
        grads["out"] = grad_output[0].tolist()
        return (grad_input[0] * 0,)

    h3 = m.register_full_backward_hook(bw)
    x = ember.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with ember.no_grad():
        m.b.fill_(1.0)
    y = m(x)
    np.testing.assert_allclose(y.tolist(), np.tanh(2 * np.array([1.0, 2, 3])) + 1 + 100, rtol=1e-6)
    y.backward(ember.ones(3))
    assert grads["out"] == [1.0, 1.0, 1.0]
    np.testing.assert_allclose(grads["in"], 1 - np.tanh([2.0, 4.0, 6.0]) ** 2, atol=2e-7)
    assert x.grad.tolist() == [0.0, 0.0, 0.0]  # the hook replaced the input's gradient
    for h in (h1, h2, h3):
        h.remove()
    calls.append(m(ember.ones(3)).tolist())
    np.testing.assert_allclose(calls[0], np.tanh([1.0, 1.0, 1.0]) + 1, rtol=1e-6)


def test_parameter_and_deepcopy():
    p = nn.Parameter(ember.ones(2))
    assert repr(p).startswith("Parameter containing:\ntensor([1., 1.], requires_grad=True)")
    assert isinstance(p * 2, ember.Tensor) and not isinstance(p * 2, nn.Parameter)
    m = Quadratic()
    m2 = copy.deepcopy(m)
    assert isinstance(m2.a, nn.Parameter) and m2.a is not m.a
    with ember.no_grad():
        m2.a.fill_(5.0)
    assert m.a.tolist() == [0.0, 0.0, 0.0]
    assert not nn.Parameter(ember.ones(1), requires_grad=False).requires_grad


def test_containers():
    seq = nn.Sequential(nn.Tanh(), nn.Sigmoid(), nn.Identity())
    assert len(seq) == 3 and isinstance(seq[1], nn.Sigmoid) and isinstance(seq[-1], nn.Identity)
    assert [type(m).__name__ for m in seq[1:]] == ["Sigmoid", "Identity"]
    del seq[0]
    assert list(seq._modules) == ["0", "1"]
    seq.append(nn.ReLU())
    np.testing.assert_allclose(seq(ember.tensor([0.0, 2.0])).tolist(), [0.5, 1 / (1 + np.exp(-2))], rtol=1e-6)
    ml = nn.ModuleList([nn.Tanh()])
    ml.append(nn.ReLU())
    ml.extend([nn.Identity()])
    ml.insert(1, nn.Sigmoid())
    assert [type(m).__name__ for m in ml] == ["Tanh", "Sigmoid", "ReLU", "Identity"]
    with pytest.raises(IndexError, match="index 4 is out of range"):
        ml[4]
    md = nn.ModuleDict({"act": nn.ReLU()})
    md["lin"] = nn.Linear(2, 2)
    assert list(md.keys()) == ["act", "lin"] and "lin" in md
    assert [n for n, _ in md.named_parameters()] == ["lin.weight", "lin.bias"]
    pl = nn.ParameterList([ember.ones(2), nn.Parameter(ember.zeros(3))])
    assert len(pl) == 2 and isinstance(pl[0], nn.Parameter) and [n for n, _ in pl.named_parameters()] == ["0", "1"]
    pd = nn.ParameterDict({"w": ember.ones(2)})
    assert isinstance(pd["w"], nn.Parameter) and list(pd.keys()) == ["w"]


def test_training_a_small_module_with_autograd():
    ember.manual_seed(0)
    x = ember.linspace(-1, 1, 50)
    target = 0.5 * x * x - 0.3 * x + 1.0
    m = nn.Module()
    m.a, m.b, m.c = (nn.Parameter(ember.zeros(1)) for _ in range(3))
    for _ in range(300):
        loss = ((m.a * x * x + m.b * x + m.c - target) ** 2).mean()
        m.zero_grad()
        loss.backward()
        with ember.no_grad():
            for p in m.parameters():
                p -= 0.5 * p.grad
    assert loss.item() < 1e-4
    np.testing.assert_allclose([m.a.item(), m.b.item(), m.c.item()], [0.5, -0.3, 1.0], atol=2e-2)


def test_load_state_dict_reports_every_problem_and_leaves_the_model_unchanged():
    m = ember.nn.Sequential(ember.nn.Linear(2, 3), ember.nn.BatchNorm1d(3), ember.nn.Linear(3, 1))
    before = {k: v.clone() for k, v in m.state_dict().items()}
    good = {k: v + 1 for k, v in before.items()}
    bad = dict(good)
    bad["0.weight"] = ember.zeros(5, 5)
    bad["extra"] = ember.zeros(1)
    del bad["2.bias"]
    with pytest.raises(RuntimeError) as e:
        m.load_state_dict(bad)
    msg = str(e.value)
    assert 'Missing key(s) in state_dict: "2.bias"' in msg and 'Unexpected key(s) in state_dict: "extra"' in msg
    assert "size mismatch for 0.weight" in msg
    for k, v in m.state_dict().items():  # nothing was copied, not even the good entries
        assert np.array_equal(v.numpy(), before[k].numpy()), k
    # A size mismatch fails even when strict=False, also without copying anything.
    with pytest.raises(RuntimeError, match="size mismatch for 0.weight"):
        m.load_state_dict({"0.weight": ember.zeros(5, 5), "0.bias": ember.ones(3)}, strict=False)
    assert np.array_equal(m[0].bias.detach().numpy(), before["0.bias"].numpy())
    assert repr(m.load_state_dict(good)) == "<All keys matched successfully>"
    for k, v in m.state_dict().items():
        assert np.array_equal(v.numpy(), good[k].numpy()), k
    r = m.load_state_dict({"0.bias": ember.zeros(3), "zzz": ember.ones(1)}, strict=False)
    assert r.missing_keys[0] == "0.weight" and r.unexpected_keys == ["zzz"]
    assert m[0].bias.tolist() == [0.0, 0.0, 0.0]
