"""dtypes: PyTorch 1.13's promotion and casting tables, result_type with weak scalars and 0-d tensors,
dtype attributes, and the value conversions between dtypes (truncation, float16/bfloat16 rounding).

The tables below were printed once by PyTorch 1.13 (torch.promote_types / torch.can_cast over every
pair) and pasted here; ember never imports torch."""

import math
import pickle

import numpy as np
import pytest
from conftest import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    assert_equal,
    bf16_round,
    dtype_name,
    from_np,
    np_dtype,
    to_np,
)

import ember

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]

# PROMOTE[a][i]: torch.promote_types(a, NAMES[i])
PROMOTE = {
    "bool": ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"],
    "uint8": ["uint8", "uint8", "int16", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"],
    "int8": ["int8", "int16", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"],
    "int16": ["int16", "int16", "int16", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"],
    "int32": ["int32", "int32", "int32", "int32", "int32", "int64", "float16", "bfloat16", "float32", "float64"],
    "int64": ["int64", "int64", "int64", "int64", "int64", "int64", "float16", "bfloat16", "float32", "float64"],
    "float16": [
        "float16",
        "float16",
        "float16",
        "float16",
        "float16",
        "float16",
        "float16",
        "float32",
        "float32",
        "float64",
    ],
    "bfloat16": [
        "bfloat16",
        "bfloat16",
        "bfloat16",
        "bfloat16",
        "bfloat16",
        "bfloat16",
        "float32",
        "bfloat16",
        "float32",
        "float64",
    ],
    "float32": [
        "float32",
        "float32",
        "float32",
        "float32",
        "float32",
        "float32",
        "float32",
        "float32",
        "float32",
        "float64",
    ],
    "float64": [
        "float64",
        "float64",
        "float64",
        "float64",
        "float64",
        "float64",
        "float64",
        "float64",
        "float64",
        "float64",
    ],
}

# CAN_CAST[a][i]: torch.can_cast(a, NAMES[i])
CAN_CAST = {
    "bool": [1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "uint8": [0, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "int8": [0, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "int16": [0, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "int32": [0, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "int64": [0, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    "float16": [0, 0, 0, 0, 0, 0, 1, 1, 1, 1],
    "bfloat16": [0, 0, 0, 0, 0, 0, 1, 1, 1, 1],
    "float32": [0, 0, 0, 0, 0, 0, 1, 1, 1, 1],
    "float64": [0, 0, 0, 0, 0, 0, 1, 1, 1, 1],
}


def dt(name):
    return getattr(ember, name)


@pytest.mark.parametrize("a", NAMES)
def test_promote_types_matches_pytorch_table(a):
    got = [dtype_name(ember.promote_types(dt(a), dt(b))) for b in NAMES]
    assert got == PROMOTE[a]
    for b in NAMES:
        assert ember.promote_types(dt(a), dt(b)) is ember.promote_types(dt(b), dt(a))


@pytest.mark.parametrize("a", NAMES)
def test_can_cast_matches_pytorch_table(a):
    assert [int(ember.can_cast(dt(a), dt(b))) for b in NAMES] == CAN_CAST[a]


def test_promotion_accepts_python_types_as_dtypes():
    assert ember.promote_types(ember.int32, float) is ember.float64
    assert ember.promote_types(bool, int) is ember.int64
    assert ember.can_cast(float, int) is False


# Each expectation was checked against torch.result_type in PyTorch 1.13.
RESULT_TYPE_CASES = [
    ("int64 tensor, 2.5", lambda: (ember.tensor([1, 2]), 2.5), "float32"),
    ("float16 tensor, 1.0", lambda: (ember.tensor([1.0], dtype=ember.float16), 1.0), "float16"),
    ("bfloat16 tensor, 2.5", lambda: (ember.tensor([1.0], dtype=ember.bfloat16), 2.5), "bfloat16"),
    ("uint8 tensor, 1000", lambda: (ember.tensor([1], dtype=ember.uint8), 1000), "uint8"),
    ("uint8 tensor, -1", lambda: (ember.tensor([1], dtype=ember.uint8), -1), "uint8"),
    ("bool tensor, 1", lambda: (ember.tensor([True]), 1), "int64"),
    ("bool tensor, 1.5", lambda: (ember.tensor([True]), 1.5), "float32"),
    ("bool tensor, True", lambda: (ember.tensor([True]), True), "bool"),
    ("int64 tensor, True", lambda: (ember.tensor([1]), True), "int64"),
    ("2.5, int32 tensor", lambda: (2.5, ember.tensor([1], dtype=ember.int32)), "float32"),
    ("int8 tensor, 0-d int64 tensor", lambda: (ember.tensor([1], dtype=ember.int8), ember.tensor(1000)), "int8"),
    (
        "int32 tensor, 0-d float64 tensor",
        lambda: (ember.tensor([1], dtype=ember.int32), ember.tensor(1.0, dtype=ember.float64)),
        "float64",
    ),
    (
        "float16 tensor, 0-d float64 tensor",
        lambda: (ember.tensor([1.0], dtype=ember.float16), ember.tensor(1.0, dtype=ember.float64)),
        "float16",
    ),
    (
        "int16 tensor, 0-d float16 tensor",
        lambda: (ember.tensor([1], dtype=ember.int16), ember.tensor(1.0, dtype=ember.float16)),
        "float16",
    ),
    (
        "uint8 tensor, 0-d int8 tensor",
        lambda: (ember.tensor([1], dtype=ember.uint8), ember.tensor(1, dtype=ember.int8)),
        "uint8",
    ),
    ("bool tensor, 0-d uint8 tensor", lambda: (ember.tensor([True]), ember.tensor(1, dtype=ember.uint8)), "uint8"),
    ("int32 tensor, int64 tensor", lambda: (ember.tensor([1], dtype=ember.int32), ember.tensor([1])), "int64"),
    ("0-d int8, 1000", lambda: (ember.tensor(1, dtype=ember.int8), 1000), "int8"),
    ("0-d int8, 2.5", lambda: (ember.tensor(1, dtype=ember.int8), 2.5), "float32"),
    ("0-d int64, 2.5", lambda: (ember.tensor(1), 2.5), "float32"),
    ("0-d float16, 1", lambda: (ember.tensor(1.0, dtype=ember.float16), 1), "float16"),
    ("0-d float64, 0-d int64", lambda: (ember.tensor(1.0, dtype=ember.float64), ember.tensor(1)), "float64"),
    ("0-d bool, 0-d bool", lambda: (ember.tensor(True), ember.tensor(False)), "bool"),
]


@pytest.mark.parametrize("make, expected", [c[1:] for c in RESULT_TYPE_CASES], ids=[c[0] for c in RESULT_TYPE_CASES])
def test_result_type_with_weak_scalars_and_0d_tensors(make, expected):
    assert ember.result_type(*make()) is dt(expected)


def test_result_type_of_tensors_of_equal_rank_is_promote_types():
    for a in NAMES:
        for b in NAMES:
            x, y = ember.zeros(2, dtype=dt(a)), ember.zeros(1, dtype=dt(b))
            assert ember.result_type(x, y) is ember.promote_types(dt(a), dt(b))
            assert ember.result_type(x[0], y[0]) is ember.promote_types(dt(a), dt(b))


# ------------------------------------------------------------------------------------ dtype attributes


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_dtype_attributes(dtype):
    name = dtype_name(dtype)
    assert repr(dtype) == str(dtype) == "ember." + name
    assert dtype.is_floating_point == (dtype in FLOAT_DTYPES)
    assert dtype.is_signed == (dtype not in (ember.bool, ember.uint8))
    assert dtype.is_complex is False  # ALL_DTYPES are the real ones (complex: test_complex.py)
    expected_size = 2 if dtype is ember.bfloat16 else np.dtype(np_dtype(dtype)).itemsize
    assert dtype.itemsize == expected_size == ember.zeros(1, dtype=dtype).element_size()
    assert pickle.loads(pickle.dumps(dtype)) is dtype
    assert ember.zeros(1, dtype=dtype).is_floating_point() == dtype.is_floating_point
    assert ember.is_floating_point(ember.zeros(1, dtype=dtype)) == dtype.is_floating_point


def test_dtypes_are_singletons_usable_as_keys():
    assert ember.float32 == ember.float32 and ember.float32 != ember.float64
    assert ember.tensor([1.0]).dtype is ember.float32
    assert len({d: 1 for d in ALL_DTYPES + ALL_DTYPES}) == 10


# -------------------------------------------------------------------------------------- conversions


@pytest.mark.parametrize("src", FLOAT_DTYPES, ids=dtype_name)
@pytest.mark.parametrize("dst", INT_DTYPES, ids=dtype_name)
def test_float_to_int_truncates_toward_zero(src, dst):
    values = [-99.75, -2.5, -1.0, -0.99, -0.5, -0.0, 0.0, 0.25, 0.5, 0.99, 1.0, 1.5, 2.5, 99.5]
    if dst is ember.uint8:
        values = [v for v in values if v >= 0]
    t = ember.tensor(values, dtype=src)
    expected = np.trunc(to_np(t)).astype(np_dtype(dst))
    assert_equal(t.to(dst), expected, dst)
    assert_equal(t.to(dst), np.array([int(v) for v in to_np(t)], np_dtype(dst)))


@pytest.mark.parametrize("src", ALL_DTYPES, ids=dtype_name)
def test_to_bool_is_nonzero(src):
    values = (
        [0, 1, 2, 0, 5]
        if src in INT_DTYPES + [ember.bool]
        else [0.0, -0.0, 1e-30 if src is ember.float64 else 1e-3, float("nan"), -2.5, float("inf")]
    )
    if src is ember.bool:
        values = [bool(v) for v in values]
    t = ember.tensor(values, dtype=src)
    assert_equal(t.bool(), to_np(t) != 0, ember.bool)


@pytest.mark.parametrize("src", [ember.int16, ember.int32, ember.int64], ids=dtype_name)
@pytest.mark.parametrize("dst", [ember.uint8, ember.int8, ember.int16, ember.int32], ids=dtype_name)
def test_narrowing_integer_casts_wrap_like_numpy(src, dst):
    info = np.iinfo(np_dtype(src))
    values = np.array([0, 1, -1, 127, 128, 255, 256, -129, 300, -300, 32767, info.min, info.max], dtype=np.int64)
    values = values[(values >= info.min) & (values <= info.max)].astype(np_dtype(src))
    assert_equal(from_np(values).to(dst), values.astype(np_dtype(dst)), dst)


def _wrapped(v, dst):
    """convert<dst>(v) for a float v: truncated to int64 (x86 gives INT64_MIN for NaN, infinities and values outside
    int64), then wrapped to dst's width."""
    i = int(v) if math.isfinite(v) and -(2.0**63) <= v < 2.0**63 else -(2**63)
    bits = np.iinfo(np_dtype(dst)).bits
    i %= 2**bits
    return i - 2**bits if np.iinfo(np_dtype(dst)).min < 0 and i >= 2 ** (bits - 1) else i


@pytest.mark.parametrize("src", [ember.float32, ember.float64], ids=dtype_name)
@pytest.mark.parametrize("dst", [ember.uint8, ember.int8, ember.int16, ember.int32], ids=dtype_name)
def test_float_to_narrow_int_wraps_through_int64_in_every_chunk(src, dst, rng):
    # Runs long enough for the vectorized chunks: in-range chunks, and chunks with one value out of int32's range
    # (which must take the wrapping element path for all their values).
    values = rng.uniform(-200, 200, 300)
    odd = [
        3e9,
        -3e9,
        2.0**31,
        -(2.0**31),
        2.0**31 - 1 if src is ember.float64 else 2.0**30,
        1e20,
        -1e19,
        float("nan"),
        float("inf"),
        float("-inf"),
        4294967296.0 + 5,
    ]
    for k, v in enumerate(odd):
        values[10 + 25 * k] = v
    t = ember.tensor(values.tolist(), dtype=src)
    got = t.to(dst).tolist()
    assert got == [_wrapped(v, dst) for v in to_np(t).tolist()]


@pytest.mark.parametrize("half", [ember.float16, ember.bfloat16], ids=dtype_name)
@pytest.mark.parametrize(
    "other",
    [ember.float64, ember.int64, ember.int32, ember.int16, ember.int8, ember.uint8, ember.bool, ember.complex64],
    ids=dtype_name,
)
def test_16bit_float_casts_equal_the_cast_through_float32(half, other, rng):
    # Every conversion to a 16-bit float rounds the float32 value, and every one from it widens to float32 first
    # (ember/half.h): the staged kernel must give those bits, for runs over several blocks and with a tail.
    wide = np.concatenate([rng.standard_normal(600) * 300, [0.0, -0.0, 65504.0, 7e4, -1e6, 1e-7, 3.3e38]])
    nonfinite = [float("nan"), float("inf"), float("-inf")]
    h = ember.tensor(wide.tolist() + nonfinite, dtype=half)
    if other in (ember.int64, ember.int32, ember.int16, ember.int8, ember.uint8):
        h = ember.tensor(wide.tolist(), dtype=half)  # (NaN and infinities to integers are tested above)
    got, ref = h.to(other), h.to(ember.float32).to(other)
    np.testing.assert_array_equal(got.numpy(), ref.numpy())
    if half is ember.float16 and other is ember.float64:
        np.testing.assert_array_equal(got.numpy(), h.numpy().astype(np.float64))
    if other is ember.bool:
        src = ember.tensor(rng.integers(0, 2, 700).astype(bool))
    elif other is ember.complex64:
        src = ember.tensor((wide + 1j * wide[::-1]).astype(np.complex64))
    elif other is ember.float64:
        src = ember.tensor(wide)
    else:
        info = np.iinfo(np_dtype(other))
        src = ember.tensor(rng.integers(max(info.min, -(2**40)), min(info.max, 2**40), 700).astype(np_dtype(other)))
    got, ref = src.to(half), src.to(ember.float32).to(half)
    np.testing.assert_array_equal(got.view(ember.int16).numpy(), ref.view(ember.int16).numpy())


@pytest.mark.parametrize("dst", [ember.int16, ember.int32, ember.int64, ember.float32, ember.float64], ids=dtype_name)
def test_bool_widening_casts(dst, rng):
    b = rng.integers(0, 2, 1000).astype(bool)
    assert_equal(ember.tensor(b).to(dst), b.astype(np_dtype(dst)), dst)
    stray = ember.tensor([0, 1, 2, 255] * 20, dtype=ember.uint8).view(ember.bool)
    assert stray.to(dst).tolist() == [0, 1, 1, 1] * 20


def special_float32_values(rng):
    """Random float32s across the exponent range, plus ties, subnormals, overflow, signed zeros, NaN."""
    bits = rng.integers(0, 2**32, 4000, dtype=np.uint64).astype(np.uint32)
    x = bits.view(np.float32)
    x = x[np.isfinite(x)]
    fixed = np.array(
        [
            0.0,
            -0.0,
            1.0,
            -1.0,
            65504.0,
            65519.99,
            65520.0,
            1e5,
            -1e5,
            6.1e-5,
            6e-8,
            3e-8,
            2.9e-8,
            1e-10,
            1.0 + 2**-11,
            1.0 + 3 * 2**-11,
            1.0 + 2**-8,
            1.0 + 3 * 2**-8,
            3.4e38,
            -3.4e38,
            1e-39,
            float("inf"),
            float("-inf"),
            float("nan"),
            0.1,
            1 / 3,
        ],
        dtype=np.float32,
    )
    scaled = (rng.standard_normal(2000) * np.exp2(rng.integers(-30, 20, 2000))).astype(np.float32)
    return np.concatenate([fixed, x, scaled])


def test_float16_rounding_matches_numpy(rng):
    x = special_float32_values(rng)
    with np.errstate(over="ignore"):
        expected = x.astype(np.float16)
    assert_equal(from_np(x).half(), expected, ember.float16)
    assert_equal(from_np(x).half().float(), expected.astype(np.float32), ember.float32)  # widening is exact
    # float64 -> float16 goes through float32 in PyTorch
    d = x.astype(np.float64)
    assert_equal(from_np(d).half(), expected, ember.float16)
    assert_equal(from_np(np.array([1 + 2**-11 + 2**-40])).half(), np.array([1.0], np.float16))


def test_bfloat16_rounds_to_nearest_even(rng):
    x = special_float32_values(rng)
    expected = bf16_round(x)
    b = from_np(x).bfloat16()
    assert_equal(b, expected, ember.bfloat16)
    assert_equal(b.float(), expected, ember.float32)
    assert_equal(b.double(), expected.astype(np.float64), ember.float64)
    # ties go to even; 1 + 2^-8 is halfway between 1 and 1 + 2^-7
    ties = np.array([1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8), 2**20 * (1 + 2**-8)], np.float32)
    assert_equal(from_np(ties).bfloat16(), np.array([1, 1 + 2**-6, -1, 2**20], np.float32))
    # float64 -> bfloat16 goes through float32: 1 + 2^-8 + 2^-30 first rounds to the tie, then to 1
    assert_equal(from_np(np.array([1 + 2**-8 + 2**-30])).bfloat16(), np.array([1.0], np.float32))


def test_bfloat16_special_values():
    t = ember.tensor([3.4e38, float("inf"), float("-inf"), float("nan"), -0.0, 1e-40], dtype=ember.bfloat16)
    v = to_np(t)
    assert v[0] == np.inf and v[1] == np.inf and v[2] == -np.inf and np.isnan(v[3])
    assert v[4] == 0 and np.signbit(v[4])
    assert v[5] == bf16_round(np.float32(1e-40))  # subnormals are kept


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16], ids=dtype_name)
def test_integers_into_half_types_round_like_float32_then_half(dtype):
    values = np.array([0, 1, 255, 256, 257, 2047, 2048, 2049, 2051, 65504, 65520, 100000, -4097, 2**40], np.int64)
    t = from_np(values).to(dtype)
    with np.errstate(over="ignore"):
        expected = (
            values.astype(np.float32).astype(np.float16)
            if dtype is ember.float16
            else bf16_round(values.astype(np.float32))
        )
    assert_equal(t, expected, dtype)


def test_large_integers_into_float32_and_float64():
    values = np.array([2**24 + 1, 2**53 + 1, -(2**63), 2**63 - 1, 123456789], np.int64)
    assert_equal(from_np(values).float(), values.astype(np.float32))
    assert_equal(from_np(values).double(), values.astype(np.float64))


def test_bool_and_uint8_to_float():
    assert_equal(ember.tensor([True, False]).float(), np.array([1, 0], np.float32))
    assert_equal(ember.tensor([0, 255], dtype=ember.uint8).half(), np.array([0, 255], np.float16))
    assert_equal(ember.tensor([-128, 127], dtype=ember.int8).bfloat16(), np.array([-128, 127], np.float32))
