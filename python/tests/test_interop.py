"""NumPy and DLPack interop against NumPy and PyTorch's semantics: zero-copy sharing checked by writing on
either side, lifetimes checked by deleting one side and collecting garbage, every dtype, strided layouts,
round trips, error paths. A small DLPack producer and consumer written with ctypes exercise what NumPy
can't: bfloat16, byte_offset, strides=NULL, deleter calls, unsupported dtypes, devices and versions."""

import ctypes
import gc
import sys
import warnings

import numpy as np
import pytest
from conftest import ALL_DTYPES, assert_equal, bf16_round, dtype_name, from_np, np_dtype, random_array, to_np

import ember
import ember.utils.dlpack

NUMPY_DTYPES = [d for d in ALL_DTYPES if d is not ember.bfloat16]
NP_OF = {d: np.dtype(np_dtype(d)) for d in NUMPY_DTYPES}


def memory_stats():
    return ember._C._cpu_memory_stats()


def allocated():
    gc.collect()
    return memory_stats()["allocated_bytes"]


def shares(t, a):
    """Whether tensor t and array a view the same first element."""
    return t.data_ptr() == a.__array_interface__["data"][0]


def write_through_tensor(t, index, value):
    """Writes `value` at `index` (a tuple) of t through ember (no arithmetic in ember: select + fill_)."""
    v = t
    for i in index:
        v = v.select(0, i)
    v.fill_(value)


LAYOUTS = [
    ("contiguous", lambda a: a),
    ("transposed", lambda a: a.T),
    ("stepped", lambda a: a[::2, 1::2]),
    ("column", lambda a: a[:, 1]),
    ("fortran", lambda a: np.asfortranarray(a)),
    ("0-d", lambda a: a[1, 2]),
    ("zero-size", lambda a: a[:0]),
    ("zero-size-cols", lambda a: a[:, 3:3]),
]


def np_layout(a, fn):
    r = fn(a)
    return r if isinstance(r, np.ndarray) else a[1:2, 2:3].reshape(())  # a[1, 2] is a scalar: keep a 0-d view


# ---------------------------------------------------------------------------------------- from_numpy


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=dtype_name)
def test_from_numpy_every_dtype(rng, dtype):
    a = random_array(rng, (3, 4), dtype)
    t = ember.from_numpy(a)
    assert t.dtype is dtype and t.shape == (3, 4) and t.stride() == (4, 1)
    assert shares(t, a)
    assert_equal(t, a)


@pytest.mark.parametrize("layout", [f for _, f in LAYOUTS], ids=[n for n, _ in LAYOUTS])
def test_from_numpy_layouts(rng, layout):
    base = random_array(rng, (4, 6), ember.float64)
    a = np_layout(base, layout)
    t = ember.from_numpy(a)
    assert t.shape == a.shape
    assert_equal(t, a)
    if a.size:
        assert shares(t, a)
        for i, s in enumerate(a.strides):
            if a.shape[i] > 1:
                assert t.stride(i) == s // a.itemsize


def test_from_numpy_strides_of_size_one_dims_and_empty_arrays_are_ignored():
    a = np.arange(3.0).reshape(1, 3)[::-1]  # size-1 dim with a negative stride: addresses nothing
    assert a.strides[0] < 0
    t = ember.from_numpy(a)
    assert t.tolist() == [[0.0, 1.0, 2.0]] and shares(t, a)
    e = np.zeros((0, 3))[:, ::-1]
    assert ember.from_numpy(e).shape == (0, 3)


def test_from_numpy_shares_memory_both_ways():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    t = ember.from_numpy(a)
    a[1, 2] = -7  # numpy -> ember
    assert t.tolist()[1][2] == -7
    v = t._version
    write_through_tensor(t, (2, 3), 99)  # ember -> numpy
    assert a[2, 3] == 99
    assert t._version == v + 1
    t.fill_(5)
    assert (a == 5).all()


def test_from_numpy_keeps_the_array_alive():
    a = np.arange(6, dtype=np.float32)
    rc = sys.getrefcount(a)
    t = ember.from_numpy(a)
    assert sys.getrefcount(a) > rc
    view = t.narrow(0, 2, 3)
    del a
    gc.collect()
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    t.fill_(2.5)
    del t
    gc.collect()
    assert view.tolist() == [2.5, 2.5, 2.5]  # a view keeps the array alive too


def test_from_numpy_releases_the_array_with_its_storage():
    a = np.arange(6, dtype=np.float32)
    rc = sys.getrefcount(a)
    t = ember.from_numpy(a)
    v = t.reshape(2, 3).t()
    del t
    gc.collect()
    assert sys.getrefcount(a) > rc
    del v
    gc.collect()
    assert sys.getrefcount(a) == rc


def test_from_numpy_does_not_allocate():
    a = np.ones((256, 256))
    before = memory_stats()
    t = ember.from_numpy(a)
    after = memory_stats()
    assert after["num_allocs"] == before["num_allocs"] and after["allocated_bytes"] == before["allocated_bytes"]
    del t


def test_from_numpy_of_read_only_array_warns_and_shares():
    a = np.arange(4.0)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):
        t = ember.from_numpy(a)
    assert shares(t, a) and t.tolist() == [0.0, 1.0, 2.0, 3.0]
    b = np.broadcast_to(np.arange(3), (2, 3))  # read-only, stride 0
    with pytest.warns(UserWarning):
        tb = ember.from_numpy(b)
    assert tb.stride() == (0, 1) and tb.tolist() == [[0, 1, 2], [0, 1, 2]]


def test_from_numpy_accepts_ndarray_subclasses():
    class Sub(np.ndarray):
        pass

    m = np.arange(4.0).view(Sub)
    t = ember.from_numpy(m)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0] and shares(t, m)


@pytest.mark.parametrize(
    "np_type",
    [np.uint16, np.uint32, np.uint64, np.object_, np.longdouble, np.str_, "datetime64[s]"],
    ids=str,
)
def test_from_numpy_unsupported_dtype_is_a_type_error(np_type):
    a = np.zeros(3, dtype=np_type)
    name = a.dtype.type.__name__
    with pytest.raises(
        TypeError,
        match=rf"can't convert np\.ndarray of type numpy\.{name}\. The only supported "
        r"types are: .*uint8, and bool",
    ):
        ember.from_numpy(a)


def test_from_numpy_negative_strides_are_a_value_error():
    with pytest.raises(ValueError, match="At least one stride in the given numpy array is negative"):
        ember.from_numpy(np.arange(5)[::-1])
    with pytest.raises(ValueError, match="At least one stride in the given numpy array is negative"):
        ember.from_numpy(np.ones((2, 3))[:, ::-2])


def test_from_numpy_strides_not_a_multiple_of_the_itemsize():
    rec = np.zeros(4, dtype=[("a", "i1"), ("b", "<i4")])  # packed: items 5 bytes apart
    with pytest.raises(ValueError, match="not a multiple of the element byte size"):
        ember.from_numpy(rec["b"])


def test_from_numpy_non_native_byte_order():
    with pytest.raises(ValueError, match="byte order"):
        ember.from_numpy(np.arange(3, dtype=">i4" if sys.byteorder == "little" else "<i4"))


@pytest.mark.parametrize("obj", [[1, 2], (1.0,), 3, None, "abc"], ids=repr)
def test_from_numpy_of_a_non_array_is_a_type_error(obj):
    with pytest.raises(TypeError, match="expected np.ndarray"):
        ember.from_numpy(obj)


# --------------------------------------------------------------------------------------- Tensor.numpy


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=dtype_name)
def test_numpy_every_dtype(rng, dtype):
    expected = random_array(rng, (2, 5), dtype)
    t = from_np(expected)
    a = t.numpy()
    assert a.dtype == NP_OF[dtype] and a.dtype.type is NP_OF[dtype].type
    assert a.shape == (2, 5) and a.flags.writeable
    np.testing.assert_array_equal(a, expected)
    assert shares(t, a)


@pytest.mark.parametrize(
    "make",
    [
        lambda: ember.arange(24.0).reshape(4, 6),
        lambda: ember.arange(24.0).reshape(4, 6).t(),
        lambda: ember.arange(24.0).reshape(4, 6)[::2, 1::3],
        lambda: ember.arange(24.0).reshape(4, 6).select(1, 2),
        lambda: ember.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1),
        lambda: ember.arange(24.0).reshape(4, 6).diagonal(),
        lambda: ember.arange(3.0).expand(4, 3),
        lambda: ember.tensor(2.5),
        lambda: ember.arange(24.0)[5],
        lambda: ember.zeros(0, 3),
        lambda: ember.zeros(2, 0).t(),
    ],
    ids=[
        "contiguous",
        "transposed",
        "stepped",
        "select",
        "permuted",
        "diagonal",
        "expanded",
        "0-d",
        "0-d-offset",
        "zero-size",
        "zero-size-t",
    ],
)
def test_numpy_layouts(make):
    t = make()
    a = t.numpy()
    assert a.shape == tuple(t.shape)
    assert a.strides == tuple(s * 4 for s in t.stride())
    np.testing.assert_array_equal(a, to_np(t))
    if t.numel():
        assert shares(t, a)


def test_numpy_shares_memory_both_ways():
    base = ember.arange(12).reshape(3, 4)
    t = base.t()
    a = t.numpy()
    a[0, 2] = 100  # numpy -> ember: a[0, 2] is base[2, 0]
    assert base.tolist()[2][0] == 100
    write_through_tensor(base, (1, 3), -4)  # ember -> numpy
    assert a[3, 1] == -4
    base.fill_(7)
    assert (a == 7).all()


def test_numpy_keeps_the_storage_alive():
    start = allocated()
    t = ember.arange(1 << 16, dtype=ember.float64)
    nbytes = t.nbytes
    a = t[10:20].numpy()
    del t
    assert allocated() >= start + nbytes  # the array holds the storage
    np.testing.assert_array_equal(a, np.arange(10, 20, dtype=np.float64))
    a[:] = -1
    np.testing.assert_array_equal(a, -np.ones(10))
    b = a[::3]  # a NumPy view of the array holds it too
    del a
    assert allocated() >= start + nbytes
    assert b.tolist() == [-1.0] * 4
    del b
    assert allocated() == start


def test_numpy_of_tensor_requiring_grad():
    t = ember.ones(3, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=r"Can't call numpy\(\) on Tensor that requires grad. Use "
        r"tensor.detach\(\).numpy\(\) instead.",
    ):
        t.numpy()
    a = t.detach().numpy()
    assert shares(t, a)
    f = t.numpy(force=True)
    assert shares(t, f) and f.tolist() == [1.0, 1.0, 1.0]


def test_numpy_of_bfloat16_is_a_type_error():
    t = ember.ones(2, dtype=ember.bfloat16)
    with pytest.raises(TypeError, match="bfloat16"):
        t.numpy()
    with pytest.raises(TypeError, match="bfloat16"):
        t.numpy(force=True)
    with pytest.raises(TypeError, match="bfloat16"):
        np.asarray(t)


def test_numpy_force_is_keyword_only():
    with pytest.raises(TypeError):
        ember.ones(2).numpy(True)


@pytest.mark.skipif(not ember.cuda.is_available(), reason="needs CUDA")
def test_numpy_of_cuda_tensor():
    t = ember.arange(4.0, device="cuda")
    with pytest.raises(
        TypeError,
        match=r"can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu\(\) to "
        r"copy the tensor to host memory first.",
    ):
        t.numpy()
    np.testing.assert_array_equal(t.numpy(force=True), np.arange(4.0, dtype=np.float32))
    g = ember.ones(2, device="cuda", requires_grad=True)
    assert g.numpy(force=True).tolist() == [1.0, 1.0]


def test_from_numpy_numpy_round_trip_is_the_same_memory(rng):
    a = random_array(rng, (3, 5), ember.int16)[:, ::2]
    t = ember.from_numpy(a)
    b = t.numpy()
    assert b.__array_interface__["data"][0] == a.__array_interface__["data"][0] and b.strides == a.strides
    t2 = ember.from_numpy(t.t().numpy())
    assert t2.data_ptr() == t.data_ptr() and t2.stride() == t.t().stride()
    b[0, 0] = 1234
    assert a[0, 0] == 1234 and t2.tolist()[0][0] == 1234


def test_round_trips_do_not_leak():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    base = allocated()
    t = ember.arange(1000.0)
    gc.collect()
    rc_a = sys.getrefcount(a)
    stats = memory_stats()
    for _ in range(10_000):
        x = ember.from_numpy(a)
        y = x.numpy()
        z = ember.from_numpy(y)
        w = np.asarray(z.t())
        v = t.numpy()
        u = ember.from_numpy(v)
    del x, y, z, w, v, u
    gc.collect()
    assert sys.getrefcount(a) == rc_a
    after = memory_stats()
    for k in ("allocated_bytes", "num_allocs", "num_frees", "reserved_bytes"):
        assert after[k] == stats[k], k
    del t
    assert allocated() == base  # nothing left holding t's storage


def test_dlpack_round_trips_do_not_leak():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    base = allocated()
    t = ember.arange(1000.0)
    gc.collect()
    rc_a = sys.getrefcount(a)
    stats = memory_stats()
    for _ in range(3000):
        x = ember.from_dlpack(a)
        y = np.from_dlpack(x)
        z = ember.from_dlpack(np.from_dlpack(t))
        c = ember.utils.dlpack.to_dlpack(t)  # never consumed: the capsule frees it
        d = t.__dlpack__(max_version=(1, 0))
    del x, y, z, c, d
    gc.collect()
    assert sys.getrefcount(a) == rc_a
    after = memory_stats()
    assert after["allocated_bytes"] == stats["allocated_bytes"] and after["num_allocs"] == stats["num_allocs"]
    del t
    assert allocated() == base


# ------------------------------------------------------------------------------------- __array__


def test_asarray_shares_memory():
    t = ember.arange(6, dtype=ember.int32).reshape(2, 3).t()
    a = np.asarray(t)
    assert a.dtype == np.int32 and a.shape == (3, 2) and shares(t, a)
    a[0, 1] = 50
    assert t.tolist()[0][1] == 50
    assert np.asarray(t, copy=False).__array_interface__["data"][0] == t.data_ptr()


def test_array_copies():
    t = ember.arange(4, dtype=ember.int64)
    a = np.array(t)
    assert a.dtype == np.int64 and a.tolist() == [0, 1, 2, 3] and not shares(t, a)
    a[0] = 9
    assert t.tolist()[0] == 0
    c = np.asarray(t, copy=True)
    assert not shares(t, c)


def test_asarray_with_dtype():
    t = ember.arange(4, dtype=ember.int32)
    a = np.asarray(t, dtype=np.float64)
    assert a.dtype == np.float64 and a.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert shares(t, np.asarray(t, dtype=np.int32))
    with pytest.raises(ValueError):
        np.asarray(t, dtype=np.float64, copy=False)
    assert t.__array__(np.int32).dtype == np.int32
    assert t.__array__(np.int16, copy=True).dtype == np.int16


def test_asarray_of_every_dtype_and_of_0d(rng):
    for dtype in NUMPY_DTYPES:
        expected = random_array(rng, (3,), dtype)
        np.testing.assert_array_equal(np.asarray(from_np(expected)), expected)
    assert np.asarray(ember.tensor(1.5)).shape == ()
    assert float(np.asarray(ember.tensor(1.5))) == 1.5


def test_asarray_of_tensor_requiring_grad():
    with pytest.raises(RuntimeError, match="requires grad"):
        np.asarray(ember.ones(2, requires_grad=True))


def test_numpy_functions_accept_tensors():
    t = ember.arange(6.0).reshape(2, 3)
    assert np.sum(np.asarray(t)) == 15.0
    np.testing.assert_array_equal(np.add(np.asarray(t), 1), np.arange(1.0, 7.0).reshape(2, 3))


# ---------------------------------------------------------------------------------- tensor, as_tensor


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=dtype_name)
def test_tensor_of_array_copies_every_dtype(rng, dtype):
    a = random_array(rng, (3, 4), dtype)
    t = ember.tensor(a)
    assert t.dtype is dtype and not shares(t, a)
    assert_equal(t, a)
    expected = a.copy()
    a[...] = ~a if dtype is ember.bool else a + 1  # the copy does not see writes to the array
    assert_equal(t, expected)


@pytest.mark.parametrize(
    "layout", [f for _, f in LAYOUTS] + [lambda a: a[::-1, ::-2]], ids=[n for n, _ in LAYOUTS] + ["negative-strides"]
)
def test_tensor_of_array_layouts(rng, layout):
    a = np_layout(random_array(rng, (4, 6), ember.float32), layout)
    assert_equal(ember.tensor(a), a, ember.float32)


def test_tensor_of_array_with_dtype_and_device():
    a = np.array([[1.5, -2.25], [3.0, 0.5]])
    assert_equal(ember.tensor(a, dtype=ember.float32), a.astype(np.float32), ember.float32)
    assert_equal(ember.tensor(a, dtype=ember.int64), a.astype(np.int64), ember.int64)
    b = ember.tensor(a, dtype=ember.bfloat16)
    assert b.dtype is ember.bfloat16 and b.tolist() == bf16_round(a.astype(np.float32)).tolist()
    assert ember.tensor(a, device="cpu").device == ember.device("cpu")
    assert ember.tensor(a, requires_grad=True).requires_grad


def test_tensor_of_special_arrays():
    be = np.arange(4, dtype=">i4" if sys.byteorder == "little" else "<i4")
    assert_equal(ember.tensor(be), np.arange(4), ember.int32)
    ro = np.arange(3.0)
    ro.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # tensor() copies: no warning for read-only arrays
        assert_equal(ember.tensor(ro), ro, ember.float64)
    rec = np.zeros(3, dtype=[("a", "i1"), ("b", "<i4")])
    rec["b"] = [4, 5, 6]
    assert_equal(ember.tensor(rec["b"]), [4, 5, 6], ember.int32)
    # dtypes ember lacks go through the elements, as a sequence of NumPy scalars
    assert_equal(ember.tensor(np.array([1, 60000], dtype=np.uint16)), [1, 60000], ember.int64)


def test_tensor_of_numpy_scalars_keeps_their_dtype():
    for value, dtype in [
        (np.float32(1.5), ember.float32),
        (np.float64(2.5), ember.float64),
        (np.float16(0.5), ember.float16),
        (np.int16(-3), ember.int16),
        (np.uint8(200), ember.uint8),
        (np.int64(7), ember.int64),
        (np.bool_(True), ember.bool),
    ]:
        t = ember.tensor(value)
        assert t.dtype is dtype and t.shape == () and t.item() == value.item(), (value, dtype)
    assert ember.tensor([np.float32(1.5), np.float32(2.0)]).tolist() == [1.5, 2.0]  # the generic path


def test_tensor_of_array_reads_the_buffer_not_the_elements():
    class NoElements(np.ndarray):
        def __iter__(self):
            raise AssertionError("iterated")

        def __getitem__(self, i):
            raise AssertionError("indexed")

        def tolist(self):
            raise AssertionError("tolist")

    a = np.arange(100_000, dtype=np.int32).view(NoElements)
    t = ember.tensor(a)
    assert t.shape == (100_000,) and t.dtype is ember.int32 and t[99_999].item() == 99_999


def test_as_tensor_shares_when_it_can():
    a = np.arange(6.0).reshape(2, 3)
    t = ember.as_tensor(a)
    assert t.dtype is ember.float64 and shares(t, a)
    a[1, 1] = -1
    assert t.tolist()[1][1] == -1
    assert shares(ember.as_tensor(a, dtype=ember.float64, device="cpu"), a)
    c = ember.as_tensor(a, dtype=ember.float32)  # a conversion copies
    assert c.dtype is ember.float32 and not shares(c, a) and c.tolist() == a.tolist()
    assert shares(ember.as_tensor(a.T), a)
    ro = np.arange(3)
    ro.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):
        ember.as_tensor(ro)
    with pytest.raises(ValueError, match="negative"):
        ember.as_tensor(np.arange(3)[::-1])
    # other inputs behave as before
    e = ember.ones(2)
    assert ember.as_tensor(e) is e
    assert ember.as_tensor([1, 2]).tolist() == [1, 2]
    assert ember.as_tensor(np.float32(2.0)).dtype is ember.float32


# ------------------------------------------------------------------------------------------- DLPack


def test_dlpack_device():
    assert ember.ones(2).__dlpack_device__() == (1, 0)
    assert ember.ones(2).__dlpack_device__() == (ember.utils.dlpack.DLDeviceType.kDLCPU, 0)


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=dtype_name)
def test_numpy_from_dlpack_of_tensor(rng, dtype):
    expected = random_array(rng, (3, 4), dtype)
    t = from_np(expected)
    a = np.from_dlpack(t)
    assert a.dtype == NP_OF[dtype] and shares(t, a)
    np.testing.assert_array_equal(a, expected)


@pytest.mark.parametrize("dtype", NUMPY_DTYPES, ids=dtype_name)
def test_from_dlpack_of_numpy_array(rng, dtype):
    a = random_array(rng, (3, 4), dtype)
    t = ember.from_dlpack(a)
    assert t.dtype is dtype and shares(t, a)
    assert_equal(t, a)


@pytest.mark.parametrize("layout", [f for _, f in LAYOUTS], ids=[n for n, _ in LAYOUTS])
def test_dlpack_layouts_both_ways(rng, layout):
    a = np_layout(random_array(rng, (4, 6), ember.float32), layout)
    t = ember.from_dlpack(a)
    assert_equal(t, a)
    b = np.from_dlpack(t)
    np.testing.assert_array_equal(b, a)
    if a.size:
        assert shares(t, a) and b.__array_interface__["data"][0] == a.__array_interface__["data"][0]
        for i in range(a.ndim):
            if a.shape[i] > 1:
                assert b.strides[i] == a.strides[i] and t.stride(i) == a.strides[i] // 4


@pytest.mark.parametrize(
    "make",
    [
        lambda: ember.arange(24.0).reshape(4, 6).t(),
        lambda: ember.arange(24.0).reshape(4, 6)[1::2, ::3],
        lambda: ember.arange(3.0).expand(2, 3),
        lambda: ember.tensor(7.0),
        lambda: ember.zeros(3, 0),
    ],
    ids=["transposed", "stepped", "expanded", "0-d", "zero-size"],
)
def test_round_trip_ember_numpy_ember(make):
    t = make()
    a = np.from_dlpack(t)
    t2 = ember.from_dlpack(a)
    assert t2.shape == t.shape and t2.tolist() == t.tolist() and t2.dtype is t.dtype
    if t.numel():
        assert t2.data_ptr() == t.data_ptr() and t2.stride() == t.stride()
        a[(0,) * a.ndim] = -3  # all three views are one memory
        assert t.tolist() == t2.tolist() == a.tolist()


def test_dlpack_mutation_both_ways():
    a = np.zeros((2, 3), dtype=np.int64)
    t = ember.from_dlpack(a)
    a[1, 2] = 5
    assert t.tolist()[1][2] == 5
    write_through_tensor(t, (0, 1), 8)
    assert a[0, 1] == 8
    b = np.from_dlpack(t)
    b[0, 0] = -1
    assert t.tolist()[0][0] == -1 and a[0, 0] == -1


def test_dlpack_lifetimes():
    a = np.arange(5.0)
    rc = sys.getrefcount(a)
    t = ember.from_dlpack(a)
    del a
    gc.collect()
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    t.fill_(1.0)
    assert t.tolist() == [1.0] * 5

    a = np.arange(5.0)
    t = ember.from_dlpack(a)
    del t
    gc.collect()
    assert sys.getrefcount(a) == rc  # NumPy's deleter ran when ember's storage went

    start = allocated()
    t = ember.arange(1 << 14, dtype=ember.int64)
    b = np.from_dlpack(t)
    del t
    assert allocated() >= start + 8 * (1 << 14)
    assert b[-1] == (1 << 14) - 1
    b[:] = 3
    assert (b == 3).all()
    del b
    assert allocated() == start


def test_from_dlpack_of_ember_tensor_shares_storage_and_version():
    t = ember.arange(6.0).reshape(2, 3)[:, 1:]
    t2 = ember.from_dlpack(t)
    assert t2.data_ptr() == t.data_ptr() and t2.stride() == t.stride() and t2 is not t
    v = t._version
    t2.fill_(0.0)
    assert t.tolist() == [[0.0, 0.0], [0.0, 0.0]] and t._version == v + 1


def test_dlpack_of_read_only_numpy_array():
    a = np.arange(4.0)
    a.flags.writeable = False
    t = ember.from_dlpack(a)  # NumPy flags it read-only through the versioned protocol
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0] and shares(t, a)


def test_capsule_versions():
    t = ember.arange(3.0)
    assert capsule_name(t.__dlpack__()) == b"dltensor"
    assert capsule_name(t.__dlpack__(max_version=(0, 8))) == b"dltensor"
    assert capsule_name(t.__dlpack__(max_version=(1, 0))) == b"dltensor_versioned"
    assert capsule_name(t.__dlpack__(max_version=(1, 3))) == b"dltensor_versioned"
    assert capsule_name(t.__dlpack__(None, max_version=(2, 0))) == b"dltensor_versioned"
    assert capsule_name(ember.utils.dlpack.to_dlpack(t)) == b"dltensor"


@pytest.mark.parametrize("versioned", [False, True])
def test_capsules_can_be_consumed_once(versioned):
    t = ember.arange(3.0)
    c = t.__dlpack__(max_version=(1, 0) if versioned else None)
    t2 = ember.from_dlpack(c)
    assert t2.tolist() == [0.0, 1.0, 2.0]
    assert capsule_name(c) == (b"used_dltensor_versioned" if versioned else b"used_dltensor")
    with pytest.raises(RuntimeError, match="consumed only once"):
        ember.from_dlpack(c)
    with pytest.raises(RuntimeError, match="consumed only once"):
        ember.utils.dlpack.from_dlpack(c)


def test_unconsumed_capsule_frees_the_tensor():
    start = allocated()
    t = ember.ones(1 << 14, dtype=ember.float64)
    c1 = t.__dlpack__()
    c2 = t.__dlpack__(max_version=(1, 0))
    del t
    held = allocated()
    assert held >= start + 8 * (1 << 14)
    del c1
    assert allocated() == held
    del c2
    assert allocated() == start


def test_utils_dlpack():
    t = ember.arange(4, dtype=ember.int16)
    c = ember.utils.dlpack.to_dlpack(t)
    t2 = ember.utils.dlpack.from_dlpack(c)
    assert t2.tolist() == [0, 1, 2, 3] and t2.data_ptr() == t.data_ptr()
    assert ember.utils.dlpack.from_dlpack(np.arange(3)).tolist() == [0, 1, 2]
    assert ember.utils.dlpack.DLDeviceType.kDLCUDA == 2


def test_dlpack_copy_and_device_arguments():
    t = ember.arange(4.0)
    c = ember.from_dlpack(t, copy=True)
    assert c.tolist() == t.tolist() and c.data_ptr() != t.data_ptr()
    assert ember.from_dlpack(t, copy=False).data_ptr() == t.data_ptr()
    assert ember.from_dlpack(t, device="cpu").data_ptr() == t.data_ptr()
    a = np.arange(3.0)
    assert not shares(ember.from_dlpack(a, copy=True), a)
    cap = t.__dlpack__(max_version=(1, 0), copy=True)
    m = read_capsule(cap)
    assert m.flags & 2 and m.dl_tensor.data != t.data_ptr()  # DLPACK_FLAG_BITMASK_IS_COPIED
    assert t.__dlpack__(dl_device=(1, 0)) is not None
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))


def test_from_dlpack_of_old_producer():
    class OldProducer:  # the pre-1.0 protocol: __dlpack__ takes only stream
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    a = np.arange(4.0)
    t = ember.from_dlpack(OldProducer(a))
    assert shares(t, a) and t.tolist() == [0.0, 1.0, 2.0, 3.0]
    c = ember.from_dlpack(OldProducer(a), copy=True)
    assert not shares(c, a) and c.tolist() == t.tolist()


def test_dlpack_errors():
    with pytest.raises(RuntimeError, match="require gradient"):
        ember.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(TypeError, match="stream"):
        ember.ones(2).__dlpack__(stream="x")
    with pytest.raises(TypeError, match="max_version"):
        ember.ones(2).__dlpack__(max_version=1)
    with pytest.raises(TypeError, match="__dlpack__"):
        ember.from_dlpack([1, 2])
    with pytest.raises(TypeError):
        ember.from_dlpack(np.arange(3), None)  # device and copy are keyword-only
    with pytest.raises(BufferError, match="dtype"):
        ember.from_dlpack(np.zeros(2, dtype=np.uint32))
    with pytest.raises(BufferError, match="negative strides"):
        ember.from_dlpack(np.arange(4)[::-1])


def test_ember_bfloat16_and_bool_capsules_read_by_ctypes():
    for dtype, code, bits in [
        (ember.bfloat16, 4, 16),
        (ember.bool, 6, 8),
        (ember.float16, 2, 16),
        (ember.uint8, 1, 8),
        (ember.int32, 0, 32),
        (ember.float64, 2, 64),
    ]:
        t = ember.ones(2, 3, dtype=dtype).t()
        for versioned in (False, True):
            cap = t.__dlpack__(max_version=(1, 0) if versioned else None)
            m = read_capsule(cap)
            dl = m.dl_tensor
            if versioned:
                assert (m.version.major, m.version.minor) == (1, 0) and m.flags == 0
            assert (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes) == (code, bits, 1)
            assert (dl.device.device_type, dl.device.device_id) == (1, 0)
            assert dl.ndim == 2 and dl.shape[:2] == [3, 2] and dl.strides[:2] == [1, 3]
            assert dl.data == t.data_ptr() and dl.byte_offset == 0


# --- a DLPack producer written with ctypes (dlpack.h's structs)


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


VDELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [
    ("version", DLPackVersion),
    ("manager_ctx", ctypes.c_void_p),
    ("deleter", VDELETER),
    ("flags", ctypes.c_uint64),
    ("dl_tensor", DLTensor),
]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_get_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_get_name.restype = ctypes.c_char_p
_capsule_get_name.argtypes = [ctypes.py_object]

# Capsules keep a pointer to their name: these live as long as the module.
VERSIONED_NAME = b"dltensor_versioned"
UNVERSIONED_NAME = b"dltensor"


def capsule_name(cap):
    return _capsule_get_name(cap)


def read_capsule(cap):
    name = capsule_name(cap)
    struct = DLManagedTensorVersioned if name == VERSIONED_NAME else DLManagedTensor
    return struct.from_address(_capsule_get_pointer(cap, name))


class CtypesProducer:
    """Exports the memory of NumPy array `base` (held here) as a DLPack capsule with the given dtype, shape,
    strides (None: NULL), byte_offset, device, version and flags; counts the deleter's calls."""

    def __init__(
        self,
        base,
        code,
        bits,
        shape,
        strides=None,
        byte_offset=0,
        device=(1, 0),
        versioned=True,
        version=(1, 0),
        lanes=1,
        flags=0,
    ):
        self.base = base
        self.deleted = 0
        self.versioned = versioned
        self.shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * max(len(strides), 1))(*strides)
        self.managed = DLManagedTensorVersioned() if versioned else DLManagedTensor()
        dl = self.managed.dl_tensor
        dl.data = base.__array_interface__["data"][0]
        dl.device = DLDevice(*device)
        dl.ndim = len(shape)
        dl.dtype = DLDataType(code, bits, lanes)
        dl.shape = self.shape
        dl.strides = self.strides
        dl.byte_offset = byte_offset
        self._deleter = (VDELETER if versioned else DELETER)(self._on_delete)  # held: ember calls it later
        self.managed.deleter = self._deleter
        if versioned:
            self.managed.version = DLPackVersion(*version)
            self.managed.flags = flags

    def _on_delete(self, _):
        self.deleted += 1

    def capsule(self):
        name = VERSIONED_NAME if self.versioned else UNVERSIONED_NAME
        return _capsule_new(ctypes.addressof(self.managed), name, None)


def bf16_bits(values):
    return (bf16_round(np.asarray(values, np.float32)).view(np.uint32) >> 16).astype(np.uint16)


@pytest.mark.parametrize("versioned", [False, True])
def test_import_bfloat16_and_ownership(versioned):
    values = np.array([[1.5, -2.0, 3.25], [0.0, 100.0, -0.125]], np.float32)
    p = CtypesProducer(bf16_bits(values), 4, 16, (2, 3), versioned=versioned)
    cap = p.capsule()
    t = ember.from_dlpack(cap)
    assert t.dtype is ember.bfloat16 and t.shape == (2, 3) and t.stride() == (3, 1)  # strides NULL: row-major
    assert t.tolist() == values.tolist()
    assert capsule_name(cap) == (b"used_dltensor_versioned" if versioned else b"used_dltensor")
    view = t.t()
    del t, cap
    gc.collect()
    assert p.deleted == 0  # the view still holds the storage
    p.base[0, 0] = bf16_bits([7.0])[0]  # shared memory
    assert view.tolist()[0][0] == 7.0
    del view
    gc.collect()
    assert p.deleted == 1


def test_import_bool_byte_offset_and_strides():
    base = np.array([True, False, True, True, False, False, True, False])
    p = CtypesProducer(base, 6, 8, (2, 2), strides=(1, 4), byte_offset=2)
    t = ember.from_dlpack(p.capsule())
    assert t.dtype is ember.bool and t.stride() == (1, 4)
    assert t.tolist() == [[True, True], [True, False]]  # elements 2, 6 / 3, 7
    assert t.data_ptr() == base.__array_interface__["data"][0] + 2
    del t
    gc.collect()
    assert p.deleted == 1


def test_import_0d_and_zero_size():
    p = CtypesProducer(np.array([3, 4], np.int16), 0, 16, (), byte_offset=2)
    t = ember.from_dlpack(p.capsule())
    assert t.shape == () and t.item() == 4
    q = CtypesProducer(np.zeros(1, np.float32), 2, 32, (0, 5))
    z = ember.from_dlpack(q.capsule())
    assert z.shape == (0, 5) and z.tolist() == []
    del t, z
    gc.collect()
    assert p.deleted == 1 and q.deleted == 1


def test_import_read_only_flag_is_accepted():
    p = CtypesProducer(np.arange(3, dtype=np.int64), 0, 64, (3,), flags=1)  # DLPACK_FLAG_BITMASK_READ_ONLY
    assert ember.from_dlpack(p.capsule()).tolist() == [0, 1, 2]
    gc.collect()
    assert p.deleted == 1


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(code=5, bits=16), "dtype"),  # complex of two 8-bit floats (ember has complex32, 64 and 128)
        (dict(code=2, bits=8), "dtype"),  # float8
        (dict(code=1, bits=16), "dtype"),  # uint16
        (dict(code=2, bits=32, lanes=4), "dtype"),  # vector type
        (dict(code=2, bits=32, device=(4, 0)), "device"),  # OpenCL
        (dict(code=2, bits=32, version=(2, 0)), "version"),
        (dict(code=2, bits=32, strides=(-1,)), "negative strides"),
    ],
    ids=["complex", "float8", "uint16", "lanes", "opencl", "version-2", "negative-stride"],
)
def test_import_errors_leave_the_capsule_unconsumed(kwargs, match):
    kwargs = dict(kwargs)
    code, bits = kwargs.pop("code"), kwargs.pop("bits")
    p = CtypesProducer(np.zeros(4, np.float32), code, bits, (4,), **kwargs)
    cap = p.capsule()
    with pytest.raises(BufferError, match=match):
        ember.from_dlpack(cap)
    assert capsule_name(cap) == VERSIONED_NAME and p.deleted == 0


@pytest.mark.skipif(ember.cuda.is_available(), reason="checks the error without CUDA")
def test_import_cuda_without_cuda():
    p = CtypesProducer(np.zeros(4, np.float32), 2, 32, (4,), device=(2, 0))
    with pytest.raises(BufferError, match="CUDA"):
        ember.from_dlpack(p.capsule())


# ------------------------------------------------------------------------------------------- CUDA

cuda = pytest.mark.skipif(not ember.cuda.is_available(), reason="needs CUDA")


@cuda
def test_cuda_dlpack_round_trip():
    t = ember.arange(12.0, device="cuda").reshape(3, 4).t()
    assert t.__dlpack_device__() == (2, 0)
    t2 = ember.from_dlpack(t)
    assert t2.device == t.device and t2.data_ptr() == t.data_ptr() and t2.stride() == t.stride()
    cap = t.__dlpack__(max_version=(1, 0), stream=1)
    m = read_capsule(cap)
    assert (m.dl_tensor.device.device_type, m.dl_tensor.device.device_id) == (2, 0)
    t3 = ember.from_dlpack(cap)
    assert t3.tolist() == t.tolist()
    host = ember.from_dlpack(t.__dlpack__(dl_device=(1, 0), max_version=(1, 0)))
    assert host.device == ember.device("cpu") and host.tolist() == t.tolist()
    np.testing.assert_array_equal(np.from_dlpack(t, device="cpu"), np.arange(12.0, dtype=np.float32).reshape(3, 4).T)
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(1, 0), copy=False)


@cuda
def test_cuda_import_from_ctypes_is_zero_copy():
    src = ember.arange(6.0, device="cuda")
    p = CtypesProducer(np.zeros(1, np.float32), 2, 32, (2, 3), device=(2, 0))
    p.managed.dl_tensor.data = src.data_ptr()
    t = ember.from_dlpack(p.capsule())
    assert t.device == ember.device("cuda:0") and t.data_ptr() == src.data_ptr()
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    del t
    gc.collect()
    assert p.deleted == 1
