"""Shared helpers for the Python tests.

ember has no NumPy interop yet, so values cross over through Python lists: `to_np(t)` is
`np.array(t.tolist())` with the NumPy dtype that matches t's (bfloat16 compares through float32, which
holds every bfloat16 exactly), and `from_np(a)` is `ember.tensor(a.tolist())`.
"""

import itertools
import time

import numpy as np
import pytest

import ember

ALL_DTYPES = [
    ember.bool,
    ember.uint8,
    ember.int8,
    ember.int16,
    ember.int32,
    ember.int64,
    ember.float16,
    ember.bfloat16,
    ember.float32,
    ember.float64,
]
INT_DTYPES = [ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64]
FLOAT_DTYPES = [ember.float16, ember.bfloat16, ember.float32, ember.float64]

NP_DTYPES = {
    ember.bool: np.bool_,
    ember.uint8: np.uint8,
    ember.int8: np.int8,
    ember.int16: np.int16,
    ember.int32: np.int32,
    ember.int64: np.int64,
    ember.float16: np.float16,
    ember.bfloat16: np.float32,  # compared through float32, which holds every bfloat16 exactly
    ember.float32: np.float32,
    ember.float64: np.float64,
}
EMBER_DTYPES = {np.dtype(v): k for k, v in NP_DTYPES.items() if k is not ember.bfloat16}


def wait_until(cond, timeout=5.0):
    """Polls cond() until it is true or `timeout` seconds pass; returns its last value (process and IPC tests)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def dtype_name(dtype):
    return repr(dtype).split(".")[-1]


def np_dtype(dtype):
    return NP_DTYPES[dtype]


def to_np(t):
    """t's values as a NumPy array of the matching dtype and t's shape."""
    return np.array(t.tolist(), dtype=np_dtype(t.dtype)).reshape(tuple(t.shape))


def from_np(a, dtype=None):
    """An ember tensor holding a's values, of a's dtype unless `dtype` is given."""
    a = np.asarray(a)
    if dtype is None:
        dtype = EMBER_DTYPES[a.dtype]
    return ember.tensor(a.tolist(), dtype=dtype).reshape(a.shape)


def bf16_round(x):
    """float32 -> the nearest bfloat16 (round to nearest, ties to even), returned as float32.

    bfloat16 is the top 16 bits of a float32; rounding adds 0x7FFF plus the lowest kept bit and drops
    the low 16 bits. NaNs stay NaN."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), out).astype(np.float32)


def random_array(rng, shape, dtype):
    """Random values that every dtype holds exactly: small signed ints, non-negative for uint8, and
    floats with a fractional part, rounded to the dtype (bfloat16 returned as float32)."""
    shape = tuple(shape)
    if dtype is ember.bool:
        a = rng.random(shape) < 0.5
    elif dtype is ember.uint8:
        a = rng.integers(0, 200, shape)
    elif dtype in INT_DTYPES:
        a = rng.integers(-100, 100, shape)
    else:
        a = rng.standard_normal(shape) * 20
        if dtype is ember.bfloat16:
            a = bf16_round(a.astype(np.float32))
    # (arithmetic on 0-d arrays gives NumPy scalars, which are not writable views: keep an array)
    return np.array(a, dtype=np_dtype(dtype), ndmin=0)


# Layouts a test input can take: each is a view of a larger or differently shaped root.
LAYOUTS = ["contiguous", "transposed", "stepped", "expanded"]


def tie_array(rng, shape, dtype):
    """Values from a small range (many ties), with some NaNs for floating dtypes."""
    if dtype is ember.bool:
        return rng.random(shape) < 0.5
    a = rng.integers(0 if dtype is ember.uint8 else -3, 4, shape).astype(np_dtype(dtype))
    if dtype.is_floating_point:
        a[rng.random(shape) < 0.15] = np.nan
    return np.array(a, ndmin=0)


def make_layout(rng, shape, dtype=ember.float32, layout="contiguous", values=random_array):
    """A tensor of `shape` laid out as `layout` (a view of a larger or differently shaped root), and its values
    in NumPy. "expanded" broadcasts a size-1 dim 0."""
    shape = tuple(shape)
    if not shape or layout == "contiguous":
        a = values(rng, shape, dtype)
        return from_np(a, dtype), a
    if layout == "transposed":
        a = values(rng, shape[::-1], dtype)
        return from_np(a, dtype).permute(*reversed(range(len(shape)))), a.transpose()
    if layout == "stepped":
        a = values(rng, shape[:-1] + (shape[-1] * 2,), dtype)
        return from_np(a, dtype)[..., ::2], a[..., ::2]
    a = values(rng, (1,) + shape[1:], dtype)
    return from_np(a, dtype).expand(*shape), np.broadcast_to(a, shape)


def assert_equal(t, expected, dtype=None):
    """t has `expected`'s shape and values (NaNs compare equal), and `dtype` when given."""
    expected = np.asarray(expected)
    assert isinstance(t, ember.Tensor), type(t)
    if dtype is not None:
        assert t.dtype == dtype, (t.dtype, dtype)
    assert tuple(t.shape) == expected.shape, (tuple(t.shape), expected.shape)
    np.testing.assert_array_equal(to_np(t), expected)


def contiguous_strides(shape):
    """PyTorch's strides for a contiguous tensor of `shape` (sizes of 0 count as 1)."""
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


_fills = itertools.cycle(range(7, 100))


def check_view(base, view, np_base, fn):
    """`view` was made from `base` by the op NumPy's `fn` mirrors. Checks that its values are
    fn(np_base), and that writing through it changes exactly the elements of base that fn selects:
    running fn on an array of element numbers tells which elements those are. np_base is updated in
    place, so that it keeps matching base for the next check."""
    assert_equal(view, fn(np_base))
    positions = np.asarray(fn(np.arange(np_base.size).reshape(np_base.shape))).ravel()
    fill = next(_fills)  # a new value each time, so that repeated checks of one base stay meaningful
    np_base.flat[positions] = fill
    before = base._version
    view.fill_(fill)
    assert_equal(base, np_base)
    assert base._version == before + 1  # a view shares its base's version counter


@pytest.fixture(autouse=True)
def _restore_global_state():
    """Tests that change the default dtype or device must not leak them into others."""
    yield
    ember.set_default_dtype(ember.float32)
    ember.set_default_device(None)


@pytest.fixture
def rng(request):
    """A NumPy generator seeded from the test's name, so that each test sees fixed inputs."""
    import zlib

    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def pytest_unconfigure(config):
    """Hypothesis installs a gc callback (to time garbage collection) that stays registered after the
    tests. At interpreter exit it keeps the final collections from freeing the test modules' ember
    objects before nanobind's leak check, which then prints false "leaked instances" reports."""
    import gc

    gc.callbacks[:] = [cb for cb in gc.callbacks if not getattr(cb, "__module__", "").startswith("hypothesis")]


@pytest.fixture
def four_threads():
    """More threads than cores, so that every parallel path runs split."""
    before = ember.get_num_threads()
    ember.set_num_threads(4)
    yield
    ember.set_num_threads(before)


def assert_bits(got, want):
    """got and want are the same float values bit for bit (signed zeros included), or both NaN."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    same = (got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}")) | (np.isnan(got) & np.isnan(want))
    assert same.all(), (got[~same][:5], want[~same][:5])
