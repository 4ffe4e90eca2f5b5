"""repr(tensor) against PyTorch 1.13: every expected string below is PyTorch's own repr of the same
expression, pasted once. ember names its dtypes ember.*, so "dtype=torch." reads "dtype=ember." in ember."""

from math import inf, nan

import pytest

import ember


def expected(torch_repr):
    return torch_repr.replace("dtype=torch.", "dtype=ember.")


@pytest.fixture(autouse=True)
def _default_printoptions():
    ember.set_printoptions(profile="default")
    yield
    ember.set_printoptions(profile="default")
    ember.set_default_dtype(ember.float32)


# The expected reprs keep PyTorch's line breaks, one string per printed line.
# fmt: off
CASES = [
    ("float_1d", lambda: ember.arange(6.),
     "tensor([0., 1., 2., 3., 4., 5.])"),
    ("float_1d_frac", lambda: ember.tensor([1.5, -2.25, 3.0]),
     "tensor([ 1.5000, -2.2500,  3.0000])"),
    ("float_2d", lambda: ember.arange(6.).view(2, 3),
     "tensor([[0., 1., 2.],\n"
     "        [3., 4., 5.]])"),
    ("float_3d", lambda: ember.arange(24.).view(2, 3, 4),
     "tensor([[[ 0.,  1.,  2.,  3.],\n"
     "         [ 4.,  5.,  6.,  7.],\n"
     "         [ 8.,  9., 10., 11.]],\n"
     "\n"
     "        [[12., 13., 14., 15.],\n"
     "         [16., 17., 18., 19.],\n"
     "         [20., 21., 22., 23.]]])"),
    ("float_3d_frac", lambda: ember.arange(0., 6., 0.5).view(2, 3, 2),
     "tensor([[[0.0000, 0.5000],\n"
     "         [1.0000, 1.5000],\n"
     "         [2.0000, 2.5000]],\n"
     "\n"
     "        [[3.0000, 3.5000],\n"
     "         [4.0000, 4.5000],\n"
     "         [5.0000, 5.5000]]])"),
    ("transposed", lambda: ember.arange(6.).view(2, 3).t(),
     "tensor([[0., 3.],\n"
     "        [1., 4.],\n"
     "        [2., 5.]])"),
    ("int64", lambda: ember.arange(10),
     "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"),
    ("int32", lambda: ember.tensor([[-1, 20], [300, 4]], dtype=ember.int32),
     "tensor([[ -1,  20],\n"
     "        [300,   4]], dtype=torch.int32)"),
    ("int8", lambda: ember.tensor([-128, 0, 127], dtype=ember.int8),
     "tensor([-128,    0,  127], dtype=torch.int8)"),
    ("uint8", lambda: ember.tensor([0, 255], dtype=ember.uint8),
     "tensor([  0, 255], dtype=torch.uint8)"),
    ("int64_exact", lambda: ember.tensor([9007199254740993, -9223372036854775808]),
     "tensor([    9007199254740993, -9223372036854775808])"),
    ("bool", lambda: ember.tensor([[True, False], [False, True]]),
     "tensor([[ True, False],\n"
     "        [False,  True]])"),
    ("float64", lambda: ember.tensor([0.1, 2.5, -3.75], dtype=ember.float64),
     "tensor([ 0.1000,  2.5000, -3.7500], dtype=torch.float64)"),
    ("float64_large", lambda: ember.tensor([123456789.0, 1.0], dtype=ember.float64),
     "tensor([1.2346e+08, 1.0000e+00], dtype=torch.float64)"),
    ("float64_huge_int", lambda: ember.tensor([1e20, -3.0, 0.0], dtype=ember.float64),
     "tensor([ 1.0000e+20, -3.0000e+00,  0.0000e+00], dtype=torch.float64)"),
    ("float64_large_frac", lambda: ember.tensor([[12345.678, -0.5], [99999.25, 7.0]], dtype=ember.float64),
     "tensor([[ 1.2346e+04, -5.0000e-01],\n"
     "        [ 9.9999e+04,  7.0000e+00]], dtype=torch.float64)"),
    ("float16", lambda: ember.tensor([0.1, 0.2, 65504.0], dtype=ember.float16),
     "tensor([9.9976e-02, 1.9995e-01, 6.5504e+04], dtype=torch.float16)"),
    ("float16_small", lambda: ember.tensor([0.1, 0.2, 0.3], dtype=ember.float16),
     "tensor([0.1000, 0.2000, 0.3000], dtype=torch.float16)"),
    ("bfloat16", lambda: ember.tensor([0.1, 1.5, -2.0], dtype=ember.bfloat16),
     "tensor([ 0.1001,  1.5000, -2.0000], dtype=torch.bfloat16)"),
    ("requires_grad", lambda: ember.tensor([1., 2.], requires_grad=True),
     "tensor([1., 2.], requires_grad=True)"),
    ("requires_grad_wrapped", lambda: ember.tensor(
         [[1.5 * i for i in range(25 * r, 25 * r + 25)] for r in range(4)], requires_grad=True),
     "tensor([[  0.0000,   1.5000,   3.0000,   4.5000,   6.0000,   7.5000,   9.0000,\n"
     "          10.5000,  12.0000,  13.5000,  15.0000,  16.5000,  18.0000,  19.5000,\n"
     "          21.0000,  22.5000,  24.0000,  25.5000,  27.0000,  28.5000,  30.0000,\n"
     "          31.5000,  33.0000,  34.5000,  36.0000],\n"
     "        [ 37.5000,  39.0000,  40.5000,  42.0000,  43.5000,  45.0000,  46.5000,\n"
     "          48.0000,  49.5000,  51.0000,  52.5000,  54.0000,  55.5000,  57.0000,\n"
     "          58.5000,  60.0000,  61.5000,  63.0000,  64.5000,  66.0000,  67.5000,\n"
     "          69.0000,  70.5000,  72.0000,  73.5000],\n"
     "        [ 75.0000,  76.5000,  78.0000,  79.5000,  81.0000,  82.5000,  84.0000,\n"
     "          85.5000,  87.0000,  88.5000,  90.0000,  91.5000,  93.0000,  94.5000,\n"
     "          96.0000,  97.5000,  99.0000, 100.5000, 102.0000, 103.5000, 105.0000,\n"
     "         106.5000, 108.0000, 109.5000, 111.0000],\n"
     "        [112.5000, 114.0000, 115.5000, 117.0000, 118.5000, 120.0000, 121.5000,\n"
     "         123.0000, 124.5000, 126.0000, 127.5000, 129.0000, 130.5000, 132.0000,\n"
     "         133.5000, 135.0000, 136.5000, 138.0000, 139.5000, 141.0000, 142.5000,\n"
     "         144.0000, 145.5000, 147.0000, 148.5000]], requires_grad=True)"),
    ("empty_rows", lambda: ember.zeros(0, 3),
     "tensor([], size=(0, 3))"),
    ("empty_1d", lambda: ember.zeros(0),
     "tensor([])"),
    ("empty_int64", lambda: ember.zeros(0, dtype=ember.int64),
     "tensor([], dtype=torch.int64)"),
    ("empty_3d_float64", lambda: ember.zeros(2, 0, 1, dtype=ember.float64),
     "tensor([], size=(2, 0, 1), dtype=torch.float64)"),
    ("zero_dim", lambda: ember.tensor(3.5),
     "tensor(3.5000)"),
    ("zero_dim_int", lambda: ember.tensor(7),
     "tensor(7)"),
    ("zero_dim_int_valued", lambda: ember.tensor(2.),
     "tensor(2.)"),
    ("zero_dim_bool", lambda: ember.tensor(True),
     "tensor(True)"),
    ("zero_dim_float64", lambda: ember.tensor(-0.125, dtype=ember.float64),
     "tensor(-0.1250, dtype=torch.float64)"),
    ("nan_inf", lambda: ember.tensor([nan, inf, -inf, 1.5]),
     "tensor([   nan,    inf,   -inf, 1.5000])"),
    ("nan_int_mode", lambda: ember.tensor([nan, 1., -20.]),
     "tensor([ nan,   1., -20.])"),
    ("all_nan", lambda: ember.tensor([nan, nan]),
     "tensor([nan, nan])"),
    ("all_zero", lambda: ember.zeros(2, 2),
     "tensor([[0., 0.],\n"
     "        [0., 0.]])"),
    ("negative", lambda: ember.tensor([[-1.5, -0.25], [3.0, -100.125]]),
     "tensor([[  -1.5000,   -0.2500],\n"
     "        [   3.0000, -100.1250]])"),
    ("negative_zero", lambda: ember.tensor([-0.0, 1.0]),
     "tensor([-0., 1.])"),
    ("negative_zero_frac", lambda: ember.tensor([-0.0, 0.5]),
     "tensor([-0.0000, 0.5000])"),
    ("sci_large", lambda: ember.tensor([1e10, 1.0]),
     "tensor([1.0000e+10, 1.0000e+00])"),
    ("sci_small", lambda: ember.tensor([1e-5, 1.0]),
     "tensor([1.0000e-05, 1.0000e+00])"),
    ("sci_ratio", lambda: ember.tensor([0.5, 2000.5]),
     "tensor([5.0000e-01, 2.0005e+03])"),
    ("sci_int_ratio", lambda: ember.tensor([100000000., 1.]),
     "tensor([1.0000e+08, 1.0000e+00])"),
    ("sci_nan", lambda: ember.tensor([1e-5, nan, -inf]),
     "tensor([1.0000e-05,        nan,       -inf])"),
    ("int_valued", lambda: ember.tensor([1., 10., 100., -5.]),
     "tensor([  1.,  10., 100.,  -5.])"),
    ("int_valued_2d", lambda: ember.tensor([[1., 10.], [100., 1000.]]),
     "tensor([[   1.,   10.],\n"
     "        [ 100., 1000.]])"),
    ("summarized_1d", lambda: ember.arange(2000.),
     "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
     "        1.9990e+03])"),
    ("summarized_1d_int", lambda: ember.arange(2000),
     "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    ("summarized_2d_int", lambda: ember.arange(10000).view(100, 100),
     "tensor([[   0,    1,    2,  ...,   97,   98,   99],\n"
     "        [ 100,  101,  102,  ...,  197,  198,  199],\n"
     "        [ 200,  201,  202,  ...,  297,  298,  299],\n"
     "        ...,\n"
     "        [9700, 9701, 9702,  ..., 9797, 9798, 9799],\n"
     "        [9800, 9801, 9802,  ..., 9897, 9898, 9899],\n"
     "        [9900, 9901, 9902,  ..., 9997, 9998, 9999]])"),
    ("summarized_2d_float", lambda: ember.arange(10000.).view(100, 100),
     "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.7000e+01, 9.8000e+01,\n"
     "         9.9000e+01],\n"
     "        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.9700e+02, 1.9800e+02,\n"
     "         1.9900e+02],\n"
     "        [2.0000e+02, 2.0100e+02, 2.0200e+02,  ..., 2.9700e+02, 2.9800e+02,\n"
     "         2.9900e+02],\n"
     "        ...,\n"
     "        [9.7000e+03, 9.7010e+03, 9.7020e+03,  ..., 9.7970e+03, 9.7980e+03,\n"
     "         9.7990e+03],\n"
     "        [9.8000e+03, 9.8010e+03, 9.8020e+03,  ..., 9.8970e+03, 9.8980e+03,\n"
     "         9.8990e+03],\n"
     "        [9.9000e+03, 9.9010e+03, 9.9020e+03,  ..., 9.9970e+03, 9.9980e+03,\n"
     "         9.9990e+03]])"),
    ("summarized_3d", lambda: ember.arange(0., 600., 0.25).view(20, 10, 12),
     "tensor([[[0.0000e+00, 2.5000e-01, 5.0000e-01,  ..., 2.2500e+00,\n"
     "          2.5000e+00, 2.7500e+00],\n"
     "         [3.0000e+00, 3.2500e+00, 3.5000e+00,  ..., 5.2500e+00,\n"
     "          5.5000e+00, 5.7500e+00],\n"
     "         [6.0000e+00, 6.2500e+00, 6.5000e+00,  ..., 8.2500e+00,\n"
     "          8.5000e+00, 8.7500e+00],\n"
     "         ...,\n"
     "         [2.1000e+01, 2.1250e+01, 2.1500e+01,  ..., 2.3250e+01,\n"
     "          2.3500e+01, 2.3750e+01],\n"
     "         [2.4000e+01, 2.4250e+01, 2.4500e+01,  ..., 2.6250e+01,\n"
     "          2.6500e+01, 2.6750e+01],\n"
     "         [2.7000e+01, 2.7250e+01, 2.7500e+01,  ..., 2.9250e+01,\n"
     "          2.9500e+01, 2.9750e+01]],\n"
     "\n"
     "        [[3.0000e+01, 3.0250e+01, 3.0500e+01,  ..., 3.2250e+01,\n"
     "          3.2500e+01, 3.2750e+01],\n"
     "         [3.3000e+01, 3.3250e+01, 3.3500e+01,  ..., 3.5250e+01,\n"
     "          3.5500e+01, 3.5750e+01],\n"
     "         [3.6000e+01, 3.6250e+01, 3.6500e+01,  ..., 3.8250e+01,\n"
     "          3.8500e+01, 3.8750e+01],\n"
     "         ...,\n"
     "         [5.1000e+01, 5.1250e+01, 5.1500e+01,  ..., 5.3250e+01,\n"
     "          5.3500e+01, 5.3750e+01],\n"
     "         [5.4000e+01, 5.4250e+01, 5.4500e+01,  ..., 5.6250e+01,\n"
     "          5.6500e+01, 5.6750e+01],\n"
     "         [5.7000e+01, 5.7250e+01, 5.7500e+01,  ..., 5.9250e+01,\n"
     "          5.9500e+01, 5.9750e+01]],\n"
     "\n"
     "        [[6.0000e+01, 6.0250e+01, 6.0500e+01,  ..., 6.2250e+01,\n"
     "          6.2500e+01, 6.2750e+01],\n"
     "         [6.3000e+01, 6.3250e+01, 6.3500e+01,  ..., 6.5250e+01,\n"
     "          6.5500e+01, 6.5750e+01],\n"
     "         [6.6000e+01, 6.6250e+01, 6.6500e+01,  ..., 6.8250e+01,\n"
     "          6.8500e+01, 6.8750e+01],\n"
     "         ...,\n"
     "         [8.1000e+01, 8.1250e+01, 8.1500e+01,  ..., 8.3250e+01,\n"
     "          8.3500e+01, 8.3750e+01],\n"
     "         [8.4000e+01, 8.4250e+01, 8.4500e+01,  ..., 8.6250e+01,\n"
     "          8.6500e+01, 8.6750e+01],\n"
     "         [8.7000e+01, 8.7250e+01, 8.7500e+01,  ..., 8.9250e+01,\n"
     "          8.9500e+01, 8.9750e+01]],\n"
     "\n"
     "        ...,\n"
     "\n"
     "        [[5.1000e+02, 5.1025e+02, 5.1050e+02,  ..., 5.1225e+02,\n"
     "          5.1250e+02, 5.1275e+02],\n"
     "         [5.1300e+02, 5.1325e+02, 5.1350e+02,  ..., 5.1525e+02,\n"
     "          5.1550e+02, 5.1575e+02],\n"
     "         [5.1600e+02, 5.1625e+02, 5.1650e+02,  ..., 5.1825e+02,\n"
     "          5.1850e+02, 5.1875e+02],\n"
     "         ...,\n"
     "         [5.3100e+02, 5.3125e+02, 5.3150e+02,  ..., 5.3325e+02,\n"
     "          5.3350e+02, 5.3375e+02],\n"
     "         [5.3400e+02, 5.3425e+02, 5.3450e+02,  ..., 5.3625e+02,\n"
     "          5.3650e+02, 5.3675e+02],\n"
     "         [5.3700e+02, 5.3725e+02, 5.3750e+02,  ..., 5.3925e+02,\n"
     "          5.3950e+02, 5.3975e+02]],\n"
     "\n"
     "        [[5.4000e+02, 5.4025e+02, 5.4050e+02,  ..., 5.4225e+02,\n"
     "          5.4250e+02, 5.4275e+02],\n"
     "         [5.4300e+02, 5.4325e+02, 5.4350e+02,  ..., 5.4525e+02,\n"
     "          5.4550e+02, 5.4575e+02],\n"
     "         [5.4600e+02, 5.4625e+02, 5.4650e+02,  ..., 5.4825e+02,\n"
     "          5.4850e+02, 5.4875e+02],\n"
     "         ...,\n"
     "         [5.6100e+02, 5.6125e+02, 5.6150e+02,  ..., 5.6325e+02,\n"
     "          5.6350e+02, 5.6375e+02],\n"
     "         [5.6400e+02, 5.6425e+02, 5.6450e+02,  ..., 5.6625e+02,\n"
     "          5.6650e+02, 5.6675e+02],\n"
     "         [5.6700e+02, 5.6725e+02, 5.6750e+02,  ..., 5.6925e+02,\n"
     "          5.6950e+02, 5.6975e+02]],\n"
     "\n"
     "        [[5.7000e+02, 5.7025e+02, 5.7050e+02,  ..., 5.7225e+02,\n"
     "          5.7250e+02, 5.7275e+02],\n"
     "         [5.7300e+02, 5.7325e+02, 5.7350e+02,  ..., 5.7525e+02,\n"
     "          5.7550e+02, 5.7575e+02],\n"
     "         [5.7600e+02, 5.7625e+02, 5.7650e+02,  ..., 5.7825e+02,\n"
     "          5.7850e+02, 5.7875e+02],\n"
     "         ...,\n"
     "         [5.9100e+02, 5.9125e+02, 5.9150e+02,  ..., 5.9325e+02,\n"
     "          5.9350e+02, 5.9375e+02],\n"
     "         [5.9400e+02, 5.9425e+02, 5.9450e+02,  ..., 5.9625e+02,\n"
     "          5.9650e+02, 5.9675e+02],\n"
     "         [5.9700e+02, 5.9725e+02, 5.9750e+02,  ..., 5.9925e+02,\n"
     "          5.9950e+02, 5.9975e+02]]])"),
    ("summarized_3d_small_rows", lambda: ember.arange(2000).view(2, 10, 100),
     "tensor([[[   0,    1,    2,  ...,   97,   98,   99],\n"
     "         [ 100,  101,  102,  ...,  197,  198,  199],\n"
     "         [ 200,  201,  202,  ...,  297,  298,  299],\n"
     "         ...,\n"
     "         [ 700,  701,  702,  ...,  797,  798,  799],\n"
     "         [ 800,  801,  802,  ...,  897,  898,  899],\n"
     "         [ 900,  901,  902,  ...,  997,  998,  999]],\n"
     "\n"
     "        [[1000, 1001, 1002,  ..., 1097, 1098, 1099],\n"
     "         [1100, 1101, 1102,  ..., 1197, 1198, 1199],\n"
     "         [1200, 1201, 1202,  ..., 1297, 1298, 1299],\n"
     "         ...,\n"
     "         [1700, 1701, 1702,  ..., 1797, 1798, 1799],\n"
     "         [1800, 1801, 1802,  ..., 1897, 1898, 1899],\n"
     "         [1900, 1901, 1902,  ..., 1997, 1998, 1999]]])"),
    ("wrap_30_floats", lambda: ember.arange(0., 45., 1.5),
     "tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
     "        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n"
     "        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,\n"
     "        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000])"),
    ("wrap_int", lambda: ember.arange(100, 130),
     "tensor([100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113,\n"
     "        114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127,\n"
     "        128, 129])"),
    ("suffix_wrap", lambda: ember.arange(0., 18., 1.5, dtype=ember.float64),
     "tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
     "        12.0000, 13.5000, 15.0000, 16.5000], dtype=torch.float64)"),
    ("suffix_wrap_2d", lambda: ember.arange(0., 12012., 1001.25, dtype=ember.float64).view(2, 6),
     "tensor([[    0.0000,  1001.2500,  2002.5000,  3003.7500,  4005.0000,  5006.2500],\n"
     "        [ 6007.5000,  7008.7500,  8010.0000,  9011.2500, 10012.5000, 11013.7500]],\n"
     "       dtype=torch.float64)"),
]
# fmt: on


@pytest.mark.parametrize("name,make,want", CASES, ids=[c[0] for c in CASES])
def test_repr_matches_pytorch(name, make, want):
    assert repr(make()) == expected(want)


# fmt: off
OPTION_CASES = [
    ("precision_2", dict(precision=2), lambda: ember.tensor([1.12345, -2.5]),
     "tensor([ 1.12, -2.50])"),
    ("precision_2_sci", dict(precision=2), lambda: ember.tensor([1e-5, 1.0]),
     "tensor([1.00e-05, 1.00e+00])"),
    ("precision_2_wrap", dict(precision=2), lambda: ember.arange(0., 45., 1.5),
     "tensor([ 0.00,  1.50,  3.00,  4.50,  6.00,  7.50,  9.00, 10.50, 12.00, 13.50,\n"
     "        15.00, 16.50, 18.00, 19.50, 21.00, 22.50, 24.00, 25.50, 27.00, 28.50,\n"
     "        30.00, 31.50, 33.00, 34.50, 36.00, 37.50, 39.00, 40.50, 42.00, 43.50])"),
    ("sci_mode_on", dict(sci_mode=True), lambda: ember.tensor([1.5, 2.0]),
     "tensor([1.5000e+00, 2.0000e+00])"),
    ("sci_mode_on_zeros", dict(sci_mode=True), lambda: ember.tensor([0., 0.]),
     "tensor([0., 0.])"),
    ("sci_mode_on_int_valued", dict(sci_mode=True), lambda: ember.arange(3.),
     "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00])"),
    ("sci_mode_off_large", dict(sci_mode=False), lambda: ember.tensor([1e10, 1.0]),
     "tensor([10000000000.,         1.])"),
    ("sci_mode_off_small", dict(sci_mode=False), lambda: ember.tensor([1e-5, 1.0]),
     "tensor([    0.0000,     1.0000])"),
    ("threshold_edgeitems", dict(threshold=5, edgeitems=2), lambda: ember.arange(10),
     "tensor([0, 1,  ..., 8, 9])"),
    ("threshold_edgeitems_2d", dict(threshold=5, edgeitems=2), lambda: ember.arange(30.).view(5, 6),
     "tensor([[ 0.,  1.,  ...,  4.,  5.],\n"
     "        [ 6.,  7.,  ..., 10., 11.],\n"
     "        ...,\n"
     "        [18., 19.,  ..., 22., 23.],\n"
     "        [24., 25.,  ..., 28., 29.]])"),
    ("threshold_edgeitems_2d_fits", dict(threshold=5, edgeitems=2), lambda: ember.arange(12.).view(3, 4),
     "tensor([[ 0.,  1.,  2.,  3.],\n"
     "        [ 4.,  5.,  6.,  7.],\n"
     "        [ 8.,  9., 10., 11.]])"),
    ("linewidth", dict(linewidth=20), lambda: ember.arange(10.),
     "tensor([0., 1., 2.,\n"
     "        3., 4., 5.,\n"
     "        6., 7., 8.,\n"
     "        9.])"),
    ("linewidth_suffix", dict(linewidth=20), lambda: ember.arange(6.).view(2, 3).double(),
     "tensor([[0., 1., 2.],\n"
     "        [3., 4., 5.]],\n"
     "       dtype=torch.float64)"),
    ("profile_short", dict(profile="short"), lambda: ember.tensor([1.12345, 2.5]),
     "tensor([1.12, 2.50])"),
    ("profile_short_summarized", dict(profile="short"), lambda: ember.arange(2000),
     "tensor([   0,    1,  ..., 1998, 1999])"),
]
# fmt: on


@pytest.mark.parametrize("name,opts,make,want", OPTION_CASES, ids=[c[0] for c in OPTION_CASES])
def test_repr_with_printoptions(name, opts, make, want):
    ember.set_printoptions(**opts)
    assert repr(make()) == expected(want)


def test_printoptions_reset_by_default_profile():
    ember.set_printoptions(precision=2, threshold=5, edgeitems=1, linewidth=30)
    ember.set_printoptions(profile="default")
    assert repr(ember.tensor([1.12345])) == "tensor([1.1235])"
    assert repr(ember.arange(1001)) == ("tensor([   0,    1,    2,  ...,  998,  999, 1000])")


def test_default_dtype_float64():
    ember.set_default_dtype(ember.float64)
    assert repr(ember.tensor([1.5, 2.0])) == "tensor([1.5000, 2.0000])"
    assert repr(ember.tensor([1.5, 2.0], dtype=ember.float32)) == expected(
        "tensor([1.5000, 2.0000], dtype=torch.float32)"
    )
    assert repr(ember.zeros(0, dtype=ember.float32)) == expected("tensor([], dtype=torch.float32)")
