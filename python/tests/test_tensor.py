"""ember.Tensor's metadata, conversions, copies, autograd slots and memory lifetime, against NumPy and
PyTorch 1.13's documented behaviour."""

import gc
import math

import numpy as np
import pytest
from conftest import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    assert_equal,
    bf16_round,
    contiguous_strides,
    dtype_name,
    from_np,
    np_dtype,
    random_array,
    to_np,
)

import ember

SHAPES = [(), (0,), (5,), (2, 3), (2, 0, 4), (3, 1, 2), (2, 3, 4, 5)]


# ---------------------------------------------------------------------------------------------- metadata


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [ember.bool, ember.int16, ember.float32, ember.float64], ids=dtype_name)
def test_metadata_of_contiguous_tensor(shape, dtype):
    t = ember.zeros(shape, dtype=dtype)
    numel = math.prod(shape)
    itemsize = np.dtype(np_dtype(dtype)).itemsize
    assert t.shape == shape and t.size() == shape
    assert isinstance(t.shape, ember.Size) and isinstance(t.size(), ember.Size)
    for d in range(-len(shape), len(shape)):
        assert t.size(d) == shape[d]
        assert t.stride(d) == contiguous_strides(shape)[d]
    assert t.stride() == contiguous_strides(shape)
    assert t.dim() == t.ndim == t.ndimension() == len(shape)
    assert t.numel() == t.nelement() == ember.numel(t) == numel
    assert t.element_size() == t.itemsize == dtype.itemsize == itemsize
    assert t.nbytes == numel * itemsize
    assert t.storage_offset() == 0
    assert t.is_contiguous()
    assert t.dtype is dtype


@pytest.mark.parametrize("dtype", [ember.uint8, ember.float16, ember.int32, ember.float64], ids=dtype_name)
def test_view_metadata_and_data_ptr_arithmetic(dtype):
    x = ember.zeros(4, 5, 6, dtype=dtype)
    es = x.element_size()
    assert x[1].data_ptr() == x.data_ptr() + 30 * es
    assert x[1].storage_offset() == 30
    assert x[2, 3].data_ptr() == x.data_ptr() + (2 * 30 + 3 * 6) * es
    assert x[:, 2].data_ptr() == x.data_ptr() + 12 * es
    assert x[:, 2].stride() == (30, 1) and not x[:, 2].is_contiguous()
    assert x[..., 1::2].stride() == (30, 6, 2) and x[..., 1::2].storage_offset() == 1
    assert x[..., 1::2].shape == (4, 5, 3)
    t = x.transpose(0, 2)
    assert t.stride() == (1, 6, 30) and t.data_ptr() == x.data_ptr() and not t.is_contiguous()
    assert x[3, 4, 5].data_ptr() == x.data_ptr() + (x.numel() - 1) * es
    assert x[1:2].is_contiguous() and x[:, :, 0:6].is_contiguous()
    assert not x[:, 1:2, :].is_contiguous()  # dim 0 steps over the rows left out
    # a dim of size 1 does not make a tensor non-contiguous, whatever its stride
    assert x.unsqueeze(1).stride(1) == 30 and x.unsqueeze(1).is_contiguous()


def test_nbytes_of_a_view_counts_its_own_elements():
    x = ember.zeros(10, 10, dtype=ember.float64)
    assert x[::2, 3].nbytes == 5 * 8 and x[::2, 3].numel() == 5


# ------------------------------------------------------------------------------------- dtypes and devices


def test_device_objects():
    cpu = ember.device("cpu")
    assert cpu.type == "cpu" and cpu.index is None
    assert repr(cpu) == "device(type='cpu')" and str(cpu) == "cpu"
    cuda1 = ember.device("cuda:1")
    assert cuda1.type == "cuda" and cuda1.index == 1
    assert repr(cuda1) == "device(type='cuda', index=1)" and str(cuda1) == "cuda:1"
    assert cuda1 == ember.device("cuda", 1) == ember.device(1) == ember.device(cuda1)
    assert ember.device("cuda") != cuda1 and ember.device("cuda").index is None
    assert cpu != ember.device("cpu", 0)  # as in PyTorch: an explicit index makes a different device
    assert ember.device("cpu", 0).index == 0 and str(ember.device("cpu", 0)) == "cpu:0"
    assert cpu != "cpu"
    assert len({ember.device("cuda:1"), ember.device("cuda", 1), cpu}) == 2


def test_tensor_device_and_dtype_properties():
    t = ember.ones(2, 3, dtype=ember.int16)
    assert t.device == ember.device("cpu") and t.device.type == "cpu"
    assert t.is_cpu and not t.is_cuda and t.get_device() == -1
    assert t.dtype is ember.int16 and repr(t.dtype) == "ember.int16"
    assert ember.float is ember.float32 and ember.double is ember.float64 and ember.half is ember.float16
    assert ember.long is ember.int64 and ember.int is ember.int32 and ember.short is ember.int16
    assert t.is_floating_point() is False and ember.ones(1).is_floating_point() is True


def test_size_behaves_like_a_tuple():
    s = ember.Size([2, 3])
    assert repr(s) == "ember.Size([2, 3])" and str(s) == "ember.Size([2, 3])"
    assert s == (2, 3) and isinstance(s, tuple) and hash(s) == hash((2, 3))
    assert s[1:] == (3,) and isinstance(s[1:], ember.Size) and isinstance(s[0], int)
    assert s[::-1] == (3, 2) and isinstance(s[::-1], ember.Size)
    assert s + (4,) == (2, 3, 4) and isinstance(s + (4,), ember.Size)
    assert s.numel() == 6 and ember.Size([]).numel() == 1 and ember.Size([3, 0]).numel() == 0
    assert repr(ember.Size([])) == "ember.Size([])"
    assert ember.ones(4, 1).shape == ember.Size([4, 1])
    assert list(ember.ones(4, 1).shape) == [4, 1]


# ---------------------------------------------------------------------------------------- conversions

CAST_METHODS = {
    ember.float32: "float",
    ember.float64: "double",
    ember.float16: "half",
    ember.bfloat16: "bfloat16",
    ember.int64: "long",
    ember.int32: "int",
    ember.int16: "short",
    ember.int8: "char",
    ember.uint8: "byte",
    ember.bool: "bool",
}


def cast_source(rng, src):
    """Values of dtype src whose casts to every dtype are defined: floats are kept in (-100, 100) so
    that after truncation they fit every integer type (the caller takes abs() for uint8)."""
    if src not in FLOAT_DTYPES:
        return random_array(rng, (4, 6), src)
    a = rng.uniform(-100, 100, (4, 6))
    a[0, :] = [0.0, -0.0, 0.5, -0.75, 99.9, -99.9]
    if src is ember.bfloat16:
        return bf16_round(a.astype(np.float32))
    return a.astype(np_dtype(src))


def expected_cast(a, src, dst):
    """NumPy's astype, with PyTorch's choices where NumPy has none: float -> uint8 only from
    non-negative values, and bfloat16 as round-to-nearest-even of the float32 value (PyTorch converts
    float64 to bfloat16 and float16 through float32)."""
    if dst is ember.bfloat16:
        return bf16_round(a.astype(np.float32))
    if dst is ember.float16 and src is ember.float64:
        return a.astype(np.float32).astype(np.float16)
    if dst is ember.bool:
        return a != 0
    return a.astype(np_dtype(dst))


LAYOUTS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.t(),
    "stepped": lambda t: t[::2, 1::2],
}
NP_LAYOUTS = {
    "contiguous": lambda a: a,
    "transposed": lambda a: a.T,
    "stepped": lambda a: a[::2, 1::2],
}


@pytest.mark.parametrize("src", ALL_DTYPES, ids=dtype_name)
@pytest.mark.parametrize("dst", ALL_DTYPES, ids=dtype_name)
def test_cast_methods_match_numpy_astype(rng, src, dst):
    a = cast_source(rng, src)
    if src in FLOAT_DTYPES and dst is ember.uint8:
        a = np.abs(a)
    base = from_np(a, src)
    assert_equal(base, a, src)
    for layout, make in LAYOUTS.items():
        x = make(base)
        expected = expected_cast(NP_LAYOUTS[layout](a), src, dst)
        for r in (getattr(x, CAST_METHODS[dst])(), x.to(dst), x.to(dtype=dst), x.type(dst)):
            assert_equal(r, expected, dst)
        # dense inputs keep their layout (torch.preserve_format); others come out contiguous
        r = x.to(dst)
        if src is dst:
            assert r.data_ptr() == x.data_ptr() and r.stride() == x.stride()  # no copy
        elif layout == "stepped":
            assert r.is_contiguous() and r.stride() == contiguous_strides(r.shape)
        else:
            assert r.stride() == x.stride()


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_cast_to_own_dtype_does_not_copy(dtype):
    x = ember.zeros(2, 3, dtype=dtype)
    for r in (x.to(dtype), getattr(x, CAST_METHODS[dtype])(), x.to("cpu"), x.to(ember.device("cpu"), dtype)):
        assert r.data_ptr() == x.data_ptr()
        r.fill_(1)
        assert_equal(x, np.ones((2, 3), np_dtype(dtype)))
        x.zero_()
    c = x.to(dtype, copy=True)
    assert c is not x and c.data_ptr() != x.data_ptr()
    assert_equal(c, to_np(x), dtype)


def test_to_another_tensor_takes_its_dtype():
    x = ember.tensor([1.5, -2.5])
    assert_equal(x.to(ember.zeros(1, dtype=ember.int32)), np.array([1, -2], np.int32), ember.int32)
    assert_equal(x.to("cpu", ember.float64), np.array([1.5, -2.5]), ember.float64)
    assert_equal(x.to(int), np.array([1, -2]), ember.int64)  # Python types name dtypes too
    assert_equal(x.to(bool), np.array([True, True]), ember.bool)
    assert x.to(float).dtype is ember.float64


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
def test_item_returns_the_python_type_of_the_dtype(dtype):
    values = {
        ember.bool: True,
        ember.uint8: 200,
        ember.int8: -7,
        ember.int16: -300,
        ember.int32: 70000,
        ember.int64: -(2**40),
        ember.float16: 1.5,
        ember.bfloat16: -2.25,
        ember.float32: 0.1,
        ember.float64: 0.1,
    }
    v = values[dtype]
    for t in (ember.tensor(v, dtype=dtype), ember.tensor([[v]], dtype=dtype)):
        r = t.item()
        expected_type = bool if dtype is ember.bool else int if dtype in INT_DTYPES else float
        assert type(r) is expected_type
        if dtype is ember.float32:
            assert r == float(np.float32(v))
        else:
            assert r == v


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", [ember.bool, ember.int32, ember.float16, ember.float64], ids=dtype_name)
def test_tolist_nests_like_numpy(rng, shape, dtype):
    a = random_array(rng, shape, dtype)
    t = from_np(a, dtype)
    assert t.tolist() == a.tolist()
    if len(shape) <= 2:
        assert t.t().tolist() == a.T.tolist()
    leaf = t.tolist()
    while isinstance(leaf, list) and leaf:
        leaf = leaf[0]
    if not isinstance(leaf, list):
        assert type(leaf) is {ember.bool: bool, ember.int32: int}.get(dtype, float)


def test_tolist_of_non_contiguous_views():
    a = np.arange(60).reshape(3, 4, 5)
    t = from_np(a)
    assert t.permute(2, 0, 1).tolist() == a.transpose(2, 0, 1).tolist()
    assert t[::2, 1, ::3].tolist() == a[::2, 1, ::3].tolist()
    assert t.expand(2, 3, 4, 5).tolist() == np.broadcast_to(a, (2, 3, 4, 5)).tolist()


# ------------------------------------------------------------------------------- clone and contiguous


def test_clone_copies_values_into_new_memory(rng):
    a = rng.standard_normal((3, 4)).astype(np.float32)
    x = from_np(a)
    c = x.clone()
    assert_equal(c, a, ember.float32)
    assert c.data_ptr() != x.data_ptr() and c.stride() == (4, 1)
    c.fill_(0)
    assert_equal(x, a)
    assert_equal(ember.clone(x), a)


@pytest.mark.parametrize(
    "make, np_make",
    [
        (lambda x: x.t(), lambda a: a.T),
        (lambda x: x.view(2, 3, 4).permute(2, 0, 1), lambda a: a.reshape(2, 3, 4).transpose(2, 0, 1)),
        (lambda x: x.view(2, 3, 4).transpose(0, 1), lambda a: a.reshape(2, 3, 4).transpose(1, 0, 2)),
    ],
    ids=["t", "permute", "transpose"],
)
def test_clone_preserves_strides_of_dense_non_contiguous_input(rng, make, np_make):
    a = rng.integers(-50, 50, (6, 4))
    x = make(from_np(a))
    c = x.clone()
    assert c.stride() == x.stride() and not c.is_contiguous()
    assert c.data_ptr() != x.data_ptr()
    assert_equal(c, np_make(a))
    assert ember.zeros_like(x).stride() == x.stride()  # *_like preserve the layout as clone does


@pytest.mark.parametrize(
    "make, np_make",
    [
        (lambda x: x[:, ::2], lambda a: a[:, ::2]),
        (lambda x: x[1:, :3], lambda a: a[1:, :3]),
        (lambda x: x[:1].expand(3, 4), lambda a: np.broadcast_to(a[:1], (3, 4))),
    ],
    ids=["stepped", "narrowed", "expanded"],
)
def test_clone_of_non_dense_input_is_contiguous(rng, make, np_make):
    a = rng.integers(-50, 50, (6, 4))
    x = make(from_np(a))
    c = x.clone()
    assert c.is_contiguous() and c.stride() == contiguous_strides(c.shape)
    assert_equal(c, np_make(a))


def test_contiguous_returns_self_when_already_contiguous(rng):
    a = rng.standard_normal((3, 4))
    x = from_np(a)
    assert x.contiguous().data_ptr() == x.data_ptr()
    assert x[1:].contiguous().data_ptr() == x[1].data_ptr()
    t = x.t()
    c = t.contiguous()
    assert c.is_contiguous() and c.stride() == (3, 1) and c.data_ptr() != x.data_ptr()
    assert_equal(c, a.T)
    c.fill_(0)
    assert_equal(x, a)  # a real copy


# ------------------------------------------------------------------------------------------- copy_ fill_


def test_copy_broadcasts_and_casts(rng):
    dst = ember.zeros(2, 3, dtype=ember.int32)
    src = ember.tensor([1.9, -2.9, 3.5], dtype=ember.float64)
    r = dst.copy_(src)
    assert r is dst
    assert_equal(dst, np.array([[1, -2, 3], [1, -2, 3]], np.int32), ember.int32)
    dst.copy_(ember.tensor(7.0))
    assert_equal(dst, np.full((2, 3), 7, np.int32))
    dst.copy_(ember.tensor([[True], [False]]))
    assert_equal(dst, np.array([[1, 1, 1], [0, 0, 0]], np.int32))


@pytest.mark.parametrize("src_dtype", ALL_DTYPES, ids=dtype_name)
@pytest.mark.parametrize(
    "dst_dtype", [ember.bool, ember.int8, ember.int64, ember.float16, ember.bfloat16, ember.float64], ids=dtype_name
)
def test_copy_into_non_contiguous_destination(rng, src_dtype, dst_dtype):
    a = cast_source(rng, src_dtype)
    base = ember.full((6, 8), 5, dtype=dst_dtype)
    expected = np.full((6, 8), 5, dtype=np_dtype(dst_dtype))
    view = base[::1, 1::2].t()  # shape (4, 6), strides (2, 8)
    src = from_np(a, src_dtype)
    view.copy_(src)
    expected[:, 1::2] = expected_cast(a, src_dtype, dst_dtype).T
    assert_equal(base, expected, dst_dtype)


def test_copy_from_overlapping_memory_reads_before_writing():
    x = ember.arange(10)
    x[1:].copy_(x[:-1])
    assert_equal(x, np.array([0, 0, 1, 2, 3, 4, 5, 6, 7, 8]))
    y = ember.arange(10)
    y[:-1].copy_(y[1:])
    assert_equal(y, np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 9]))
    z = ember.arange(9).view(3, 3)
    z.copy_(z.t())
    assert_equal(z, np.arange(9).reshape(3, 3).T)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_name)
@pytest.mark.parametrize("value", [True, 3, -2, 2.75, -0.5], ids=repr)
def test_fill_casts_the_value_like_numpy(dtype, value):
    if dtype is ember.uint8:
        value = abs(value)  # negative values are outside uint8
    t = ember.zeros(2, 3, dtype=dtype)
    r = t.fill_(value)
    assert r is t
    if dtype is ember.bool:
        expected = np.full((2, 3), bool(value))
    elif dtype is ember.bfloat16:
        expected = bf16_round(np.full((2, 3), value, np.float32))
    else:
        expected = np.full((2, 3), value).astype(np_dtype(dtype))
    assert_equal(t, expected, dtype)


def test_fill_and_zero_on_views_touch_only_the_view(rng):
    a = rng.standard_normal((4, 5)).astype(np.float32)
    x = from_np(a)
    x[:, 1::2].fill_(ember.tensor(9))
    a[:, 1::2] = 9
    assert_equal(x, a)
    x.t()[1].zero_()
    a.T[1] = 0
    assert_equal(x, a)
    assert x.zero_() is x
    assert_equal(x, np.zeros((4, 5)))


# -------------------------------------------------------------------------------------------- autograd


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=dtype_name)
def test_requires_grad_on_floating_tensors(dtype):
    t = ember.zeros(3, dtype=dtype)
    assert t.requires_grad is False and t.is_leaf
    assert t.requires_grad_() is t and t.requires_grad is True
    t.requires_grad_(False)
    assert t.requires_grad is False
    t.requires_grad = True
    assert t.requires_grad is True
    assert ember.ones(2, dtype=dtype, requires_grad=True).requires_grad
    assert ember.tensor([1.0], dtype=dtype, requires_grad=True).requires_grad


@pytest.mark.parametrize("dtype", [ember.bool] + INT_DTYPES, ids=dtype_name)
def test_requires_grad_is_refused_for_integer_tensors(dtype):
    t = ember.zeros(3, dtype=dtype)
    with pytest.raises(RuntimeError, match="floating point"):
        t.requires_grad_()
    with pytest.raises(RuntimeError, match="floating point"):
        t.requires_grad = True
    with pytest.raises(RuntimeError, match="floating point"):
        ember.zeros(3, dtype=dtype, requires_grad=True)
    t.requires_grad_(False)  # turning it off is always allowed
    assert t.requires_grad is False


def test_grad_slot_checks_shape_and_dtype():
    x = ember.zeros(2, 3, requires_grad=True)
    assert x.grad is None
    g = ember.ones(2, 3)
    x.grad = g
    assert x.grad.data_ptr() == g.data_ptr()
    assert_equal(x.grad, np.ones((2, 3)))
    x.grad = None
    assert x.grad is None
    with pytest.raises(RuntimeError, match="different size"):
        x.grad = ember.ones(3, 2)
    with pytest.raises(RuntimeError, match="different type"):
        x.grad = ember.ones(2, 3, dtype=ember.float64)
    assert x.grad is None


def test_version_counts_in_place_changes_and_is_shared_with_views():
    x = ember.zeros(4, 3)
    assert x._version == 0
    x.fill_(1)
    assert x._version == 1
    x.copy_(ember.ones(3))
    assert x._version == 2
    x[0] = 5
    assert x._version == 3
    x[1, 2] = ember.tensor(2.0)
    assert x._version == 4
    x.zero_()
    assert x._version == 5
    v = x[1:]
    assert v._version == 5
    v.fill_(3)
    assert x._version == v._version == 6
    d = x.detach()
    d.uniform_()
    assert x._version == d._version == 7
    x.t()[0].copy_(ember.ones(4))
    assert v._version == 8
    assert ember.zeros(2)._version == 0  # a new tensor has its own counter


def test_every_in_place_op_bumps_the_version_even_when_it_writes_nothing():
    e = ember.zeros(2, 0)
    e.copy_(ember.zeros(0))
    assert e._version == 1
    e.fill_(1)
    assert e._version == 2
    e[0] = ember.zeros(0)
    assert e._version == 3
    x = ember.zeros(3)
    x.copy_(x)
    assert x._version == 1


def test_new_tensors_start_at_version_0():
    x = ember.zeros(2, 3)
    made = [
        ember.ones(3),
        ember.arange(3),
        ember.tensor([1, 2]),
        ember.eye(2),
        x.clone(),
        x.int(),
        x.t().contiguous(),
        x.to(ember.float64),
        ember.rand(3),
        ember.randn(3),
    ]
    assert [t._version for t in made] == [0] * len(made)


def test_ops_that_return_their_input_return_the_same_python_object():
    x = ember.zeros(2, 3)
    assert x.to(ember.float32) is x and x.float() is x and x.to("cpu") is x and x.cpu() is x
    assert x.contiguous() is x and x.type(ember.float32) is x
    assert ember.as_tensor(x) is x
    assert x.to(ember.float64) is not x and x.t().contiguous() is not x


def test_one_python_object_per_tensor():
    import gc

    x = ember.zeros(2, 3)
    g = ember.ones(2, 3)
    x.grad = g
    assert x.grad is g and x.grad is x.grad
    assert x.add_(1) is x and x[0] is not x[0]  # a view is a new tensor, so a new object
    gc.collect()  # earlier tests' cyclic garbage must not be freed inside the measurement
    before = ember._C._cpu_memory_stats()["allocated_bytes"]
    del g
    gc.collect()
    grad = x.grad  # the old wrapper is gone: a new one, same values
    assert grad.shape == (2, 3) and grad.sum().item() == 6
    assert ember._C._cpu_memory_stats()["allocated_bytes"] == before

    class Sub(ember.Tensor):
        pass

    s = Sub(ember.ones(2))
    x.grad = None
    holder = ember.zeros(2)
    holder.grad = s
    assert holder.grad is s and type(holder.grad) is Sub  # a subclass instance comes back as itself


def test_detach_shares_storage_and_drops_requires_grad():
    x = ember.arange(6.0, requires_grad=True)
    d = x.detach()
    assert d.requires_grad is False and x.requires_grad is True
    assert d.data_ptr() == x.data_ptr() and d.shape == x.shape and d is not x
    d[2] = 100
    assert_equal(x.detach(), np.array([0, 1, 100, 3, 4, 5], np.float32))
    assert x.data.data_ptr() == x.data_ptr() and x.data.requires_grad is False


# ------------------------------------------------------------------------------ Python number protocols


def test_len_and_iteration_follow_dim_0(rng):
    a = rng.integers(-9, 9, (4, 2, 3))
    t = from_np(a)
    assert len(t) == 4 and len(t[0]) == 2 and len(ember.zeros(0, 3)) == 0
    rows = list(t)
    assert len(rows) == 4
    for i, r in enumerate(rows):
        assert_equal(r, a[i])
        assert r.data_ptr() == t.data_ptr() + i * 6 * t.element_size()  # views, not copies
    assert [x.item() for x in ember.tensor([3, 1, 2])] == [3, 1, 2]
    assert list(ember.zeros(0, 2)) == []


@pytest.mark.parametrize("value", [0, 1, -3, 2.5, -0.0, True, False])
def test_bool_int_float_of_one_element_tensors(value):
    for t in (ember.tensor(value), ember.tensor([[value]])):
        assert bool(t) is bool(value)
        assert int(t) == int(value) and type(int(t)) is int
        assert float(t) == float(value) and type(float(t)) is float


def test_int_truncates_toward_zero_and_index_needs_an_integer():
    assert int(ember.tensor(-2.7)) == -2 and int(ember.tensor([2.7])) == 2
    assert [10, 20, 30][ember.tensor(1)] == 20
    assert list(range(10))[ember.tensor(2) : ember.tensor(5)] == [2, 3, 4]
    with pytest.raises(TypeError):
        [10, 20][ember.tensor(1.0)]


# ----------------------------------------------------------------------------------------- memory


def test_memory_is_released_with_the_last_reference():
    gc.collect()

    def allocated():
        return ember._C._cpu_memory_stats()["allocated_bytes"]

    size = 64 * 2**20
    start = allocated()
    x = ember.empty(size // 4, dtype=ember.float32)
    assert allocated() - start >= size
    v = x[1000:2000]
    del x
    assert allocated() - start >= size  # the view keeps the whole storage alive
    v.fill_(1)
    assert_equal(v, np.ones(1000, np.float32))
    del v
    assert allocated() == start


def test_memory_of_temporaries_is_released():
    gc.collect()
    start = ember._C._cpu_memory_stats()["allocated_bytes"]
    for _ in range(5):
        ember.ones(1000, 1000).t().contiguous().float().double().view(-1)[::3].clone()
    assert ember._C._cpu_memory_stats()["allocated_bytes"] == start
