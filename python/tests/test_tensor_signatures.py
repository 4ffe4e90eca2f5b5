"""The Python surface of the tensor core (Note [Python surface]): PyTorch's keyword forms of Tensor's metadata, view,
conversion and autograd methods, of the dtype and device functions, and of interop, against the positional calls and
NumPy; the class constructors; and the examples of their docstrings, run as doctests."""

import array
import doctest
import inspect

import numpy as np
import pytest
from conftest import assert_equal, to_np

import ember


def arange(*shape):
    return ember.arange(int(np.prod(shape)), dtype=ember.float32).reshape(shape)


def np_arange(*shape):
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


# ------------------------------------------------------------------------------------------------- views


@pytest.mark.parametrize(
    "by_keyword, positional, expected",
    [
        (lambda x: x.view(size=(3, 2)), lambda x: x.view(3, 2), lambda a: a.reshape(3, 2)),
        (lambda x: x.reshape(shape=(6,)), lambda x: x.reshape(6), lambda a: a.reshape(6)),
        (lambda x: x.permute(dims=(1, 0)), lambda x: x.permute(1, 0), lambda a: a.T),
        (lambda x: x.expand(size=(2, 2, 3)), lambda x: x.expand(2, 2, 3), lambda a: np.broadcast_to(a, (2, 2, 3))),
        (lambda x: x.narrow(dimension=1, start=1, length=2), lambda x: x.narrow(1, 1, 2), lambda a: a[:, 1:3]),
        (lambda x: x.narrow(dim=1, start=1, length=2), lambda x: x.narrow(1, 1, 2), lambda a: a[:, 1:3]),
        (lambda x: x.select(dim=1, index=2), lambda x: x.select(1, 2), lambda a: a[:, 2]),
        (
            lambda x: x.unfold(dimension=1, size=2, step=1),
            lambda x: x.unfold(1, 2, 1),
            lambda a: np.stack([a[:, 0:2], a[:, 1:3]], 1),
        ),
        (lambda x: x.swapaxes(axis0=0, axis1=1), lambda x: x.swapaxes(0, 1), lambda a: a.T),
        (lambda x: x.swapdims(dim0=0, dim1=1), lambda x: x.swapdims(0, 1), lambda a: a.T),
        (lambda x: x.transpose(dim0=1, dim1=0), lambda x: x.transpose(1, 0), lambda a: a.T),
        (lambda x: x.squeeze(dim=(0,)), lambda x: x.squeeze(0), lambda a: a),
        (lambda x: x.unsqueeze(dim=-1), lambda x: x.unsqueeze(-1), lambda a: a[..., None]),
        (lambda x: x.unflatten(dim=1, sizes=(3, 1)), lambda x: x.unflatten(1, (3, 1)), lambda a: a.reshape(2, 3, 1)),
        (lambda x: x.flatten(start_dim=0, end_dim=1), lambda x: x.flatten(), lambda a: a.reshape(6)),
        (lambda x: x.diagonal(offset=1, dim1=0, dim2=1), lambda x: x.diagonal(1), lambda a: np.diagonal(a, 1)),
        (
            lambda x: x.as_strided(size=(2,), stride=(2,), storage_offset=1),
            lambda x: x.as_strided((2,), (2,), 1),
            lambda a: a.reshape(6)[1:4:2],
        ),
        (lambda x: x.view_as(other=ember.empty(3, 2)), lambda x: x.view(3, 2), lambda a: a.reshape(3, 2)),
        (lambda x: x.reshape_as(other=ember.empty(6)), lambda x: x.reshape(6), lambda a: a.reshape(6)),
        (lambda x: x[:1].expand_as(other=ember.empty(2, 3)), lambda x: x[:1].expand(2, 3), lambda a: a[[0, 0]]),
    ],
    ids=lambda v: "",
)
def test_tensor_methods_take_pytorchs_keywords(by_keyword, positional, expected):
    x, a = arange(2, 3), np_arange(2, 3)
    assert_equal(by_keyword(x), expected(a))
    assert_equal(positional(x), expected(a))


def test_view_as_dtype_by_keyword():
    x = ember.tensor([1.0, -2.0])
    assert_equal(x.view(dtype=ember.int32), np.array([1.0, -2.0], np.float32).view(np.int32))
    assert_equal(x.view(ember.int32), np.array([1.0, -2.0], np.float32).view(np.int32))


@pytest.mark.parametrize(
    "by_keyword, expected",
    [
        (lambda x: ember.reshape(x, shape=(3, 2)), lambda a: a.reshape(3, 2)),
        (lambda x: ember.permute(x, dims=(1, 0)), lambda a: a.T),
        (lambda x: ember.transpose(x, dim0=0, dim1=1), lambda a: a.T),
        (lambda x: ember.swapaxes(x, axis0=1, axis1=0), lambda a: a.T),
        (lambda x: ember.t(input=x), lambda a: a.T),
        (lambda x: ember.adjoint(input=x), lambda a: a.T),
        (lambda x: ember.squeeze(input=x[None], dim=0), lambda a: a),
        (lambda x: ember.unsqueeze(input=x, dim=0), lambda a: a[None]),
        (lambda x: ember.flatten(input=x, start_dim=0), lambda a: a.reshape(6)),
        (lambda x: ember.unflatten(x, dim=1, sizes=(1, 3)), lambda a: a.reshape(2, 1, 3)),
        (lambda x: ember.narrow(x, dim=1, start=0, length=1), lambda a: a[:, :1]),
        (lambda x: ember.select(x, dim=0, index=1), lambda a: a[1]),
        (lambda x: ember.diagonal(x, offset=-1, dim1=0, dim2=1), lambda a: np.diagonal(a, -1)),
        (lambda x: ember.as_strided(x, size=(3,), stride=(2,)), lambda a: a.reshape(6)[::2]),
        (lambda x: ember.clone(input=x, memory_format=ember.contiguous_format), lambda a: a),
    ],
    ids=lambda v: "",
)
def test_view_functions_take_pytorchs_keywords(by_keyword, expected):
    assert_equal(by_keyword(arange(2, 3)), expected(np_arange(2, 3)))


# ------------------------------------------------------------------------------------- metadata, conversions


def test_metadata_keywords():
    x = arange(2, 3)
    assert x.size(dim=1) == 3 and x.size(-1) == 3 and x.size() == (2, 3)
    assert x.stride(dim=0) == 3 and x.stride() == (3, 1)
    assert ember.numel(input=x) == 6 and ember.is_floating_point(input=x) and not ember.is_floating_point(x.long())
    assert ember.is_tensor(obj=x) and not ember.is_tensor(obj=[1])
    assert x.is_contiguous(memory_format=ember.contiguous_format)
    assert ember.broadcast_shapes((2, 1), 3, (1, 1, 1)) == (1, 2, 3)


def test_to_takes_non_blocking_and_copy_positionally():
    x = ember.tensor([1.5, -2.5])
    y = x.to(ember.float64, False, True)
    assert y.dtype is ember.float64
    assert_equal(y, np.array([1.5, -2.5]))
    assert x.to(ember.float32, False, False) is x
    c = x.to(ember.float32, False, True)  # copy=True: a new tensor even though nothing changes
    assert c is not x
    c[0] = 9
    assert float(x[0]) == 1.5
    assert x.to("cpu", ember.int64, False, True).dtype is ember.int64
    with pytest.raises(TypeError, match="at most two bools"):
        x.to(ember.float64, True, True, True)


def test_cpu_and_casts_take_memory_format():
    x = ember.zeros(1, 2, 3, 4)
    y = x.cpu(memory_format=ember.channels_last)
    assert y.stride() == (24, 1, 8, 2) and y.is_contiguous(memory_format=ember.channels_last)
    assert x.double(memory_format=ember.channels_last).stride() == (24, 1, 8, 2)
    assert x.cpu() is x


def test_in_place_methods_take_pytorchs_keywords():
    x = ember.zeros(2, 2)
    assert x.fill_(value=2.5) is x
    assert_equal(x, np.full((2, 2), 2.5, np.float32))
    assert ember.zero_(input=x) is x
    assert_equal(x, np.zeros((2, 2), np.float32))
    assert ember.fill_(input=x, value=ember.tensor(3)) is x
    assert_equal(x, np.full((2, 2), 3, np.float32))
    assert x.copy_(src=ember.tensor([1, 2]), non_blocking=False) is x
    assert_equal(x, np.array([[1, 2], [1, 2]], np.float32))
    assert x.requires_grad_(requires_grad=True) is x and x.requires_grad
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        ember.fill_(x, ember.ones(2))


def test_detach_functions_and_hooks_take_pytorchs_keywords():
    w = ember.tensor([1.0, 2.0], requires_grad=True)
    y = w * 3
    d = ember.detach(input=y)
    assert not d.requires_grad and d.grad_fn is None
    assert_equal(d, np.array([3, 6], np.float32))
    z = w * 2
    assert ember.detach_(input=z) is z and not z.requires_grad
    seen = []
    h = w.register_hook(hook=lambda g: g * 10)
    p = w.register_post_accumulate_grad_hook(hook=lambda t: seen.append(to_np(t.grad)))
    (w * w).sum().backward()
    assert_equal(w.grad, np.array([20, 40], np.float32))
    np.testing.assert_array_equal(seen[0], np.array([20, 40], np.float32))
    h.remove()
    p.remove()


def test_dtype_functions_take_pytorchs_keywords():
    assert ember.promote_types(type1=ember.int32, type2=ember.float16) is ember.float16
    assert ember.can_cast(from_=ember.int32, to=ember.float32)
    assert not ember.can_cast(from_=ember.float32, to=ember.int8)
    assert ember.result_type(tensor1=ember.tensor([1], dtype=ember.int32), tensor2=1.0) is ember.float32
    ember.set_default_dtype(d=ember.float64)
    try:
        assert ember.tensor([1.5]).dtype is ember.float64
    finally:
        ember.set_default_dtype(ember.float32)


def test_interop_keywords():
    a = np.arange(3)
    t = ember.from_numpy(ndarray=a)
    t[0] = 7
    assert a[0] == 7
    x = ember.ones(2, requires_grad=True)
    assert_equal(ember.tensor(x.numpy(force=True)), np.ones(2, np.float32))
    with pytest.raises(RuntimeError, match="requires grad"):
        x.numpy()
    assert_equal(ember.from_dlpack(ext_tensor=np.arange(4)), np.arange(4))
    buf = array.array("i", [1, 2, 3])
    assert_equal(ember.frombuffer(buffer=buf, dtype=ember.int32, count=2, offset=4), np.array([2, 3], np.int32))


# ------------------------------------------------------------------------------------------------- classes


def test_class_constructors_and_their_signatures():
    assert list(inspect.signature(ember.device).parameters) == ["type", "index"]
    assert ember.device(type="cuda", index=1) == ember.device("cuda:1")
    assert list(inspect.signature(ember.Generator).parameters) == ["device"]
    assert ember.Generator(device="cpu").device == ember.device("cpu")
    params = inspect.signature(ember.Tensor).parameters
    assert list(params) == ["args", "device"] and params["device"].kind is inspect.Parameter.KEYWORD_ONLY
    assert_equal(ember.Tensor([1, 2]), np.array([1, 2], np.float32))
    assert ember.Tensor(2, 3).shape == (2, 3)
    assert list(inspect.signature(ember.dtype).parameters) == []
    with pytest.raises(TypeError, match="cannot create 'ember.dtype' instances"):
        ember.dtype()
    with pytest.raises(TypeError, match="cannot create 'ember.Node' instances"):
        ember.Node()


# ----------------------------------------------------------------------------------- docstring examples

# The callables of the tensor core, creation, random and interop bindings whose docstrings have examples.
DOCUMENTED = [
    "tensor",
    "as_tensor",
    "empty",
    "zeros",
    "ones",
    "full",
    "empty_strided",
    "empty_like",
    "zeros_like",
    "ones_like",
    "full_like",
    "arange",
    "linspace",
    "logspace",
    "eye",
    "Generator",
    "manual_seed",
    "rand",
    "randn",
    "randint",
    "randperm",
    "normal",
    "bernoulli",
    "multinomial",
    "rand_like",
    "randn_like",
    "randint_like",
    "get_rng_state",
    "poisson",
    "binomial",
    "from_numpy",
    "from_dlpack",
    "frombuffer",
    "reshape",
    "permute",
    "transpose",
    "swapaxes",
    "t",
    "adjoint",
    "squeeze",
    "unsqueeze",
    "flatten",
    "unflatten",
    "narrow",
    "select",
    "diagonal",
    "as_strided",
    "clone",
    "fill_",
    "numel",
    "broadcast_shapes",
    "is_tensor",
    "set_printoptions",
    "promote_types",
    "can_cast",
    "result_type",
    "set_default_dtype",
    "detach",
    "dtype",
    "device",
    "Tensor",
    "Tensor.size",
    "Tensor.stride",
    "Tensor.view",
    "Tensor.expand",
    "Tensor.unfold",
    "Tensor.contiguous",
    "Tensor.requires_grad_",
    "Tensor.to",
    "Tensor.item",
    "Tensor.tolist",
    "Tensor.copy_",
    "Tensor.new_empty",
    "Tensor.new_zeros",
    "Tensor.new_ones",
    "Tensor.new_full",
    "Tensor.new_tensor",
    "Tensor.new",
    "Tensor.numpy",
    "Tensor.uniform_",
    "Tensor.random_",
    "Tensor.register_hook",
]


@pytest.mark.parametrize("name", DOCUMENTED)
def test_docstring_examples_run(name):
    import api_surface

    obj = ember
    for part in name.split("."):
        obj = getattr(obj, part)
    doc = api_surface.docstring(obj)
    assert ">>>" in doc, name
    ember.manual_seed(0)
    test = doctest.DocTestParser().get_doctest(doc, {"ember": ember, "numpy": np}, name, None, 0)
    runner = doctest.DocTestRunner(verbose=False)
    out = []
    try:
        runner.run(test, out=out.append)
    finally:
        ember.set_printoptions(profile="default")
        ember.set_default_dtype(ember.float32)
    assert runner.failures == 0, "".join(out)
