"""Error paths of the public API: each raises the exception type PyTorch 1.13 raises, with a message
naming the op and the offending shapes, dims or dtypes. Where ember's message is worded like
PyTorch's, the pattern is PyTorch's text."""

import re

import pytest

import ember


def raises(exc, pattern):
    return pytest.raises(exc, match=pattern)


# ------------------------------------------------------------------------------------------- view/reshape


@pytest.mark.parametrize(
    "call, pattern",
    [
        (lambda: ember.arange(6).view(4, 2), re.escape("shape '[4, 2]' is invalid for input of size 6")),
        (lambda: ember.arange(6).view(-1, 4), re.escape("shape '[-1, 4]' is invalid for input of size 6")),
        (lambda: ember.arange(6).reshape(5), re.escape("shape '[5]' is invalid for input of size 6")),
        (lambda: ember.arange(6).view(-1, -1), "only one dimension can be inferred"),
        (lambda: ember.arange(6).reshape(2, -1, -1), "only one dimension can be inferred"),
        (lambda: ember.arange(6).view(-2, 3), "invalid shape dimension -2"),
        (lambda: ember.arange(0).view(-1, 0), re.escape("[-1, 0]")),
        (
            lambda: ember.arange(6).view(2, 3).t().view(6),
            "view size is not compatible with input tensor's size and "
            r"stride.*Use \.reshape\(\.\.\.\) instead",
        ),
        (lambda: ember.arange(24).view(2, 3, 4).transpose(0, 1).view(3, 8), "view size is not compatible"),
        (lambda: ember.arange(6).view(2, 3)[:, ::2].view(4), "view size is not compatible"),
        (lambda: ember.arange(6).view(2, 3).view_as(ember.zeros(4)), re.escape("shape '[4]' is invalid")),
        (lambda: ember.arange(6).view(2, 3).unflatten(1, (2, 2)), "unflatten"),
        (lambda: ember.arange(6).view(2, 3).unflatten(1, (-1, -1)), "only one dimension can be inferred"),
    ],
    ids=lambda v: "" if callable(v) else v[:40],
)
def test_view_and_reshape_errors(call, pattern):
    with raises(RuntimeError, pattern):
        call()


def test_view_error_names_the_shapes_and_strides():
    with raises(RuntimeError, re.escape("input shape [3, 2], strides [1, 3]")):
        ember.arange(6).view(2, 3).t().view(6)


def test_view_as_dtype_names_the_rule_it_breaks():
    with raises(RuntimeError, "view\\(dtype\\): self.size\\(-1\\) must be divisible by 2 to view int16 as int32"):
        ember.ones(3, dtype=ember.int16).view(ember.int32)


# --------------------------------------------------------------------------------------- negative sizes


@pytest.mark.parametrize(
    "call",
    [
        lambda: ember.empty(-1, 2),
        lambda: ember.zeros(2, -3),
        lambda: ember.zeros((2, -3)),
        lambda: ember.ones([-1]),
        lambda: ember.full((-2,), 1.0),
        lambda: ember.rand(3, -1),
        lambda: ember.randn(-5),
        lambda: ember.empty((4, -1)),
        lambda: ember.randint(0, 5, (-1,)),
        lambda: ember.empty_strided((-1, 2), (2, 1)),
        lambda: ember.zeros(3).new_zeros(-1),
    ],
    ids=[
        "empty",
        "zeros",
        "zeros-tuple",
        "ones",
        "full",
        "rand",
        "randn",
        "empty-tuple",
        "randint",
        "empty_strided",
        "new_zeros",
    ],
)
def test_negative_dimensions(call):
    with raises(RuntimeError, "Trying to create tensor with negative dimension -[0-9]+: \\[.*\\]"):
        call()


# --------------------------------------------------------------------------------------------- dims


@pytest.mark.parametrize(
    "call, got, low, high",
    [
        (lambda x: x.size(2), 2, -2, 1),
        (lambda x: x.stride(-3), -3, -2, 1),
        (lambda x: x.transpose(0, 2), 2, -2, 1),
        (lambda x: x.swapaxes(-3, 0), -3, -2, 1),
        (lambda x: x.permute(0, 2), 2, -2, 1),
        (lambda x: x.squeeze(2), 2, -2, 1),
        (lambda x: x.squeeze((0, 5)), 5, -2, 1),
        (lambda x: x.unsqueeze(3), 3, -3, 2),
        (lambda x: x.unsqueeze(-4), -4, -3, 2),
        (lambda x: x.flatten(2), 2, -2, 1),
        (lambda x: x.flatten(0, -3), -3, -2, 1),
        (lambda x: x.select(2, 0), 2, -2, 1),
        (lambda x: x.narrow(-3, 0, 1), -3, -2, 1),
        (lambda x: x.diagonal(dim1=0, dim2=2), 2, -2, 1),
        (lambda x: x.unfold(2, 1, 1), 2, -2, 1),
        (lambda x: x.unflatten(2, (1,)), 2, -2, 1),
        (lambda x: ember.transpose(x, 5, 0), 5, -2, 1),
        (lambda x: ember.select(x, -3, 0), -3, -2, 1),
        (lambda x: x[None].t(), None, None, None),
    ],
    ids=str,
)
def test_dimension_out_of_range_is_an_index_error(call, got, low, high):
    x = ember.zeros(2, 3)
    if got is None:  # t() of a 3-D tensor is a RuntimeError instead
        with raises(RuntimeError, "t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"):
            call(x)
        return
    with raises(
        IndexError, re.escape(f"Dimension out of range (expected to be in range of [{low}, {high}], but got {got})")
    ):
        call(x)


def test_dims_of_0d_tensors():
    x = ember.tensor(1.0)
    with raises(IndexError, re.escape("Dimension out of range (expected to be in range of [-1, 0], but got 1)")):
        x.transpose(0, 1)
    with raises(IndexError, "select\\(\\) cannot be applied to a 0-dim tensor"):
        x.select(0, 0)
    with raises(RuntimeError, "narrow\\(\\) cannot be applied to a 0-dim tensor"):
        x.narrow(0, 0, 1)
    with raises(IndexError, "Dimension out of range"):
        x.diagonal()


# ------------------------------------------------------------------------------------ permute, expand


@pytest.mark.parametrize(
    "dims, pattern",
    [
        (
            (0,),
            "number of dimensions in the tensor input does not match the length of the desired ordering of "
            "dimensions i.e. input.dim\\(\\) = 2 is not equal to len\\(dims\\) = 1",
        ),
        ((0, 1, 2), "input.dim\\(\\) = 2 is not equal to len\\(dims\\) = 3"),
        ((0, 0), "duplicate dims are not allowed"),
        ((1, -1), "duplicate dims are not allowed"),
    ],
)
def test_permute_errors(dims, pattern):
    with raises(RuntimeError, pattern):
        ember.zeros(2, 3).permute(*dims)


@pytest.mark.parametrize(
    "shape, size, pattern",
    [
        (
            (2, 3),
            (3, 3),
            re.escape(
                "The expanded size of the tensor (3) must match the existing size (2) at "
                "non-singleton dimension 0.  Target sizes: [3, 3].  Tensor sizes: [2, 3]"
            ),
        ),
        (
            (3,),
            (2, 4),
            re.escape(
                "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1"
            ),
        ),
        (
            (1, 2),
            (2,),
            re.escape(
                "the number of sizes provided (1) must be greater or equal to the number of dimensions "
                "in the tensor (2)"
            ),
        ),
        ((3,), (-1, 3), "isn't allowed in a leading, non-existing dimension 0"),
        ((1,), (2, -2), "invalid size -2|must match"),
    ],
)
def test_expand_errors(shape, size, pattern):
    with raises(RuntimeError, pattern):
        ember.zeros(shape).expand(*size)


def test_expand_error_names_the_input():
    with raises(RuntimeError, re.escape("expand(int64 tensor of shape [1, 2], size=[2])")):
        ember.tensor([[1, 2]]).expand(2)


# -------------------------------------------------------------------------------- select/narrow/strided


@pytest.mark.parametrize(
    "call, exc, pattern",
    [
        (
            lambda x: x.select(0, 3),
            IndexError,
            re.escape("select(): index 3 out of range for tensor of size [3, 4] at dimension 0"),
        ),
        (
            lambda x: x.select(1, -5),
            IndexError,
            re.escape("index -5 out of range for tensor of size [3, 4] at dimension 1"),
        ),
        (lambda x: x.narrow(0, 2, 2), RuntimeError, re.escape("start (2) + length (2) exceeds dimension size (3).")),
        (lambda x: x.narrow(1, -5, 1), IndexError, "out of range"),
        (lambda x: x.narrow(1, 5, 0), IndexError, "out of range"),
        (lambda x: x.narrow(0, 0, -1), RuntimeError, "length must be non-negative"),
        (lambda x: x.diagonal(0, 1, 1), RuntimeError, "diagonal dimensions cannot be identical 1, 1"),
        (lambda x: x.unfold(1, 5, 1), RuntimeError, "maximum size for tensor at dimension 1 is 4 but size is 5"),
        (lambda x: x.unfold(1, 2, 0), RuntimeError, "step is 0 but must be > 0"),
        (lambda x: x.unfold(1, -1, 1), RuntimeError, "size is -1 but must be >= 0"),
        (
            lambda x: x.flatten(1, 0),
            RuntimeError,
            "flatten\\(\\) has invalid args: start_dim cannot come after end_dim",
        ),
        (
            lambda x: x[0].mT,
            RuntimeError,
            "tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor",
        ),
    ],
    ids=str,
)
def test_select_narrow_and_friends(call, exc, pattern):
    with raises(exc, pattern):
        call(ember.zeros(3, 4))


@pytest.mark.parametrize(
    "size, stride, offset, pattern",
    [
        (
            (3, 3),
            (1, 1),
            2,
            re.escape(
                "sizes [3, 3], strides [1, 1], storage offset 2, and itemsize 8 requiring a "
                "storage size of 56 are out of bounds for storage of size 48"
            ),
        ),
        ((7,), (1,), 0, "out of bounds for storage of size 48"),
        ((2,), (10,), None, "out of bounds"),
        ((3,), (1,), -1, "invalid storage offset -1"),
        ((3,), (-1,), 0, "Negative strides are not supported at the moment, got strides: \\[-1\\]"),
        ((2, 2), (1,), 0, "mismatch in length of strides and shape"),
    ],
    ids=str,
)
def test_as_strided_errors(size, stride, offset, pattern):
    x = ember.arange(6)
    with raises(RuntimeError, pattern):
        x.as_strided(size, stride, offset) if offset is not None else x.as_strided(size, stride)


def test_as_strided_bound_counts_the_whole_storage_not_the_view():
    x = ember.arange(6)
    v = x[4:]  # 2 elements, but the storage has 6
    assert v.as_strided((6,), (1,), 0).tolist() == list(range(6))
    with raises(RuntimeError, "out of bounds"):
        v.as_strided((3,), (1,))  # from offset 4 the storage ends after 2


def test_empty_strided_errors():
    with raises(RuntimeError, "mismatch in length of strides and shape"):
        ember.empty_strided((2, 3), (1,))
    with raises(RuntimeError, "negative strides"):
        ember.empty_strided((2, 3), (1, -1))


# ------------------------------------------------------------------------------------ values and autograd


@pytest.mark.parametrize("dtype", [ember.int64, ember.int8, ember.uint8, ember.bool], ids=repr)
def test_requires_grad_on_integer_tensors(dtype):
    with raises(RuntimeError, "only Tensors of floating point and complex dtype can require gradients"):
        ember.zeros(2, dtype=dtype).requires_grad_()
    with raises(RuntimeError, "floating point"):
        ember.tensor([1], dtype=dtype, requires_grad=True)
    with raises(RuntimeError, "floating point"):
        ember.zeros(2, dtype=dtype, requires_grad=True)


def test_grad_assignment_errors():
    x = ember.zeros(2, 3)
    with raises(RuntimeError, re.escape("assigned grad has data of a different size: expected [2, 3], got [3]")):
        x.grad = ember.zeros(3)
    with raises(RuntimeError, "assigned grad has data of a different type"):
        x.grad = ember.zeros(2, 3, dtype=ember.float16)


@pytest.mark.parametrize(
    "call", [lambda t: t.item(), lambda t: float(t), lambda t: int(t)], ids=["item", "float", "int"]
)
@pytest.mark.parametrize("shape", [(3,), (2, 2), (0,)], ids=str)
def test_python_scalars_need_one_element(call, shape):
    with raises(ValueError, "only one element tensors can be converted to Python scalars"):
        call(ember.zeros(shape))


def test_number_protocol_errors():
    with raises(RuntimeError, "Boolean value of Tensor with more than one value is ambiguous"):
        bool(ember.zeros(2))
    with raises(TypeError, "len\\(\\) of a 0-d tensor"):
        len(ember.tensor(1))
    with raises(TypeError, "iteration over a 0-d tensor"):
        iter(ember.tensor(1))
    with raises(TypeError, "only integer tensors of a single element can be converted to an index"):
        [1, 2][ember.tensor(1.0)]
    with raises(TypeError, "only integer tensors of a single element can be converted to an index"):
        [1, 2][ember.tensor([0, 1])]


# ---------------------------------------------------------------------------------------------- tensor()


@pytest.mark.parametrize(
    "data, pattern",
    [
        ([[1, 2], [3]], re.escape("expected sequence of length 2 at dim 1 (got 1)")),
        ([[1, 2], [3, 4, 5]], re.escape("expected sequence of length 2 at dim 1 (got 3)")),
        ([[[1], [2]], [[3], [4, 5]]], re.escape("expected sequence of length 1 at dim 2 (got 2)")),
        ([[], [1]], re.escape("expected sequence of length 0 at dim 1 (got 1)")),
    ],
    ids=str,
)
def test_ragged_lists_are_value_errors(data, pattern):
    with raises(ValueError, pattern):
        ember.tensor(data)


@pytest.mark.parametrize("data", [[1, [2]], [[1], 2], [[1, 2], 3], [1, "a"], "abc"], ids=str)
def test_mixing_numbers_and_sequences_is_a_type_error(data):
    with raises(TypeError, "sequence|could not convert"):
        ember.tensor(data)


@pytest.mark.parametrize("data", [[1, None], [object()], [[1.5, {}]]], ids=["None", "object", "dict"])
def test_elements_of_unknown_type(data):
    with raises(RuntimeError, "Could not infer dtype of (NoneType|object|dict)"):
        ember.tensor(data)


def test_tensor_of_a_list_of_multi_element_tensors():
    with pytest.raises((ValueError, TypeError)):
        ember.tensor([ember.tensor([1, 2])])


def test_integers_beyond_int64():
    with raises(RuntimeError, "Overflow when unpacking long"):
        ember.tensor(2**63)
    with raises(RuntimeError, "Overflow when unpacking long"):
        ember.tensor([1, -(2**64)])


# ---------------------------------------------------------------------------------------- wrong types


@pytest.mark.parametrize(
    "call, pattern",
    [
        (lambda: ember.zeros(2, dtype="float32"), "expected an ember.dtype.*got str"),
        (lambda: ember.ones(2).to(dtype="float64"), "expected an ember.dtype"),
        (lambda: ember.tensor([1], dtype=3), "expected an ember.dtype"),
        (lambda: ember.promote_types(ember.float32, "int"), "expected an ember.dtype"),
        (lambda: ember.zeros("abc"), "zeros\\(\\): size must be an int, not str"),
        (lambda: ember.zeros(2.5), "size must be an int, not float"),
        (lambda: ember.ones((2, "3")), "size must be an int, not str"),
        (lambda: ember.arange(6).view(2, 3.0), "view\\(\\): size must be an int, not float"),
        (lambda: ember.arange(6).reshape("6"), "reshape\\(\\): size must be an int"),
        (lambda: ember.zeros(2, 3).permute(0, None), "permute\\(\\): size must be an int"),
        (lambda: ember.zeros(2, 3).expand(2, 3.0), "expand\\(\\)"),
        (lambda: ember.full(2.5, 1), "full\\(\\): size must be"),
        (lambda: ember.zeros(3).new_full(2, 3), "new_full\\(\\): size must be a tuple of ints, not int"),
        (lambda: ember.zeros(2, bogus=1), "zeros\\(\\) got an unexpected keyword argument 'bogus'"),
        (lambda: ember.zeros(2).to(bogus=1), "to\\(\\) got an unexpected keyword argument 'bogus'"),
        (lambda: ember.zeros(2).fill_("a"), "fill_\\(\\): expected a number, got str"),
        (lambda: ember.set_default_dtype(ember.int64), "only floating-point types are supported as the default type"),
        (lambda: ember.device(1.5), "device\\(\\): expected a str, int or device, got float"),
        (lambda: ember.zeros(2, device=1.5), "expected a device"),
        (lambda: ember.arange(), "arange\\(\\) missing required argument 'end'"),
        (lambda: ember.arange(1, 2, 3, 4), "arange\\(\\) takes at most 3 positional arguments"),
        (lambda: ember.randint(5), "randint\\(\\) expects \\(high, size\\) or \\(low, high, size\\)"),
        (lambda: ember.manual_seed(1.5), "manual_seed expected an int, got float"),
        (lambda: ember.Generator().set_state(ember.zeros(16)), "expected a CPU uint8 tensor of 16 elements"),
        (lambda: ember.zeros(2, layout="sparse"), "only the strided layout"),
    ],
    ids=lambda v: "" if callable(v) else v[:40],
)
def test_type_errors(call, pattern):
    with raises(TypeError, pattern):
        call()


# -------------------------------------------------------------------------------------------- devices


@pytest.mark.parametrize(
    "spec, pattern",
    [
        ("cuda:x", "Invalid device string: 'cuda:x'"),
        ("cuda:-1", "Invalid device string: 'cuda:-1'"),
        ("cuda:1:1", "Invalid device string: 'cuda:1:1'"),
        ("tpu", "Expected one of cpu, cuda, meta device type at start of device string: tpu"),
        ("CUDA", "Expected one of cpu, cuda, meta device type at start of device string: CUDA"),
        ("", "device string"),
    ],
)
def test_invalid_device_strings(spec, pattern):
    with raises(RuntimeError, pattern):
        ember.device(spec)
    with raises(RuntimeError, pattern):
        ember.zeros(2, device=spec)


def test_device_index_errors():
    with raises(RuntimeError, "Device index must not be negative"):
        ember.device("cuda", -1)
    with raises(RuntimeError, "type \\(string\\) must not include an index because index was passed explicitly"):
        ember.device("cuda:0", 1)
    with raises(RuntimeError, "CPU device index must be 0"):
        ember.zeros(2, device="cpu:1")


@pytest.mark.skipif(ember.cuda.is_available(), reason="needs a machine without a CUDA device")
@pytest.mark.parametrize(
    "call",
    [
        lambda: ember.zeros(2, device="cuda"),
        lambda: ember.zeros(2, device="cuda:0"),
        lambda: ember.ones(2).cuda(),
        lambda: ember.ones(2).to("cuda"),
        lambda: ember.tensor([1.0], device="cuda"),
        lambda: ember.rand(2, device="cuda"),
        lambda: ember.ones(2).to(ember.device("cuda", 0)),
        lambda: ember.zeros(2, pin_memory=True),
    ],
    ids=["zeros", "zeros:0", "cuda()", "to", "tensor", "rand", "to-device", "pin_memory"],
)
def test_cuda_tensors_without_a_gpu(call):
    with raises(RuntimeError, "CUDA"):
        call()


def test_invalid_cuda_ordinal():
    # without a GPU: no CUDA device; with one: an invalid ordinal. Either way a RuntimeError naming CUDA.
    with raises(RuntimeError, "CUDA"):
        ember.zeros(2, device="cuda:99")


# --------------------------------------------------------------------------------------------- random


@pytest.mark.parametrize(
    "call, pattern",
    [
        (lambda: ember.randint(5, 5, (3,)), "random_ expects 'from' to be less than 'to', but got from=5 >= to=5"),
        (lambda: ember.randint(6, 5, (3,)), "but got from=6 >= to=5"),
        (lambda: ember.randint(0, (3,)), "but got from=0 >= to=0"),
        (lambda: ember.zeros(3).random_(3, 3), "random_ expects 'from' to be less than 'to'"),
        (lambda: ember.randperm(-1), "randperm: n must be non-negative, got -1"),
        (lambda: ember.normal(0.0, -1.0, (2,)), "expects std >= 0.0, but found std -1"),
        (lambda: ember.zeros(2).normal_(0, -1), "normal_: expects std >= 0.0"),
        (lambda: ember.normal(ember.zeros(2), ember.tensor([-1.0, 1.0])), "normal: expects all elements of std >= 0.0"),
        (
            lambda: ember.zeros(2).uniform_(1, 0),
            "uniform_: expects to return a \\[from, to\\) range, but found from=1 > to=0",
        ),
        (lambda: ember.bernoulli(ember.tensor([1.5])), "bernoulli: expects all elements of p to be in \\[0, 1\\]"),
        (lambda: ember.zeros(2).bernoulli_(1.5), "bernoulli_ expects p to be in \\[0, 1\\], but got p=1.5"),
        (lambda: ember.bernoulli(ember.tensor([-0.5])), "to be in \\[0, 1\\]"),
        (lambda: ember.rand(2, dtype=ember.int64), "rand: expected a floating point dtype, got int64"),
        (lambda: ember.randn(2, dtype=ember.int32), "randn: expected a floating point dtype, got int32"),
        (lambda: ember.zeros(2, dtype=ember.int64).uniform_(), "uniform_: expected a floating point dtype"),
        (lambda: ember.zeros(2, dtype=ember.bool).normal_(), "normal_: expected a floating point dtype"),
        (lambda: ember.rand_like(ember.zeros(2, dtype=ember.int64)), "expected a floating point dtype"),
        (lambda: ember.normal(ember.zeros(2), ember.ones(3)), "must match the size of tensor b"),
    ],
    ids=lambda v: "" if callable(v) else v[:40],
)
def test_random_errors(call, pattern):
    with raises(RuntimeError, pattern):
        call()


@pytest.mark.parametrize(
    "probs, n, replacement, pattern",
    [
        ([0.0, 0.0], 1, False, "invalid multinomial distribution \\(sum of probabilities <= 0\\)"),
        ([1.0, -1.0], 1, True, "probability tensor contains either `inf`, `nan` or element < 0"),
        ([1.0, float("nan")], 1, True, "probability tensor contains either `inf`, `nan` or element < 0"),
        ([1.0, float("inf")], 1, False, "probability tensor contains either `inf`, `nan` or element < 0"),
        ([1.0, 1.0], 3, False, "cannot sample n_sample > prob_dist.size\\(-1\\) samples without replacement"),
        ([1.0, 1.0], 0, True, "cannot sample n_sample <= 0 samples"),
        ([1.0, 0.0, 0.0], 2, False, "not enough non-negative category to sample"),
        ([[1.0, 1.0], [0.0, 0.0]], 1, True, "sum of probabilities <= 0"),
    ],
    ids=str,
)
def test_multinomial_errors(probs, n, replacement, pattern):
    with raises(RuntimeError, pattern):
        ember.multinomial(ember.tensor(probs), n, replacement)


def test_multinomial_input_errors():
    with raises(RuntimeError, re.escape("prob_dist must be 1 or 2 dim, got shape [2, 2, 2]")):
        ember.multinomial(ember.ones(2, 2, 2), 1)
    with raises(RuntimeError, "prob_dist must be 1 or 2 dim"):
        ember.multinomial(ember.tensor(1.0), 1)
    with raises(RuntimeError, "multinomial: expected a floating point dtype, got int64"):
        ember.multinomial(ember.tensor([1, 1]), 1)


# ------------------------------------------------------------------------------------------ creation


@pytest.mark.parametrize(
    "call, pattern",
    [
        (lambda: ember.arange(0, 5, 0), "step must be nonzero"),
        (lambda: ember.arange(0.0, 1.0, 0.0), "step must be nonzero"),
        (lambda: ember.arange(0, 5, -1), "upper bound and larger bound inconsistent with step sign"),
        (lambda: ember.arange(5, 0, 1), "upper bound and larger bound inconsistent with step sign"),
        (lambda: ember.arange(float("inf")), "unsupported range: 0 -> inf"),
        (lambda: ember.arange(float("nan"), 1), "unsupported range"),
        (lambda: ember.eye(-1), "n must be greater or equal to 0, got -1"),
        (lambda: ember.eye(2, -3), "m must be greater or equal to 0, got -3"),
        (lambda: ember.linspace(0, 1, -1), "number of steps must be non-negative"),
        (lambda: ember.logspace(0, 1, -2), "number of steps must be non-negative"),
        (lambda: ember.zeros(3, out=ember.zeros(4)), re.escape("out= has shape [4] but the result has shape [3]")),
        (
            lambda: ember.arange(3, dtype=ember.float64, out=ember.zeros(3)),
            "out= has dtype float32 but the result has dtype float64",
        ),
    ],
    ids=lambda v: "" if callable(v) else v[:40],
)
def test_creation_errors(call, pattern):
    with raises(RuntimeError, pattern):
        call()


# ---------------------------------------------------------------------------------------- copy, fill


@pytest.mark.parametrize(
    "make_dst",
    [
        lambda: ember.zeros(3).expand(2, 3),
        lambda: ember.zeros(1).expand(4),
        lambda: ember.zeros(4).as_strided((2, 2), (1, 1)),
        lambda: ember.zeros(2, 1).expand(2, 5)[:, 1:],
    ],
    ids=["expand-rows", "expand-1d", "overlapping-strides", "sliced-expand"],
)
def test_copy_into_a_tensor_with_internal_overlap(make_dst):
    dst = make_dst()
    with raises(
        RuntimeError,
        "unsupported operation: more than one element of the written-to tensor refers to a "
        "single memory location. Please clone\\(\\) the tensor before performing the operation",
    ):
        dst.copy_(ember.ones(dst.shape))
    with raises(RuntimeError, "more than one element of the written-to tensor"):
        dst[...] = ember.ones(dst.shape)


def test_copy_and_fill_shape_errors():
    with raises(RuntimeError, "must match the existing size \\(2\\) at non-singleton dimension 0"):
        ember.zeros(3).copy_(ember.ones(2))
    with raises(RuntimeError, "must match"):
        ember.zeros(2, 3).copy_(ember.ones(3, 2))
    with raises(RuntimeError, "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions"):
        ember.zeros(3).fill_(ember.zeros(1))


def test_a_raising_bool_argument_raises_at_once():
    # A multi-element tensor where a flag is expected must raise in that call, not leave a Python error
    # pending that surfaces at some later, unrelated line.
    flag = ember.ones(2)
    with pytest.raises(RuntimeError, match="ambiguous"):
        ember.zeros(2, requires_grad=flag)
    with pytest.raises(RuntimeError, match="ambiguous"):
        ember.ones(3).to(ember.float64, copy=flag)
    with pytest.raises(RuntimeError, match="ambiguous"):
        ember.ones(3).var(0, flag)
    assert ember.zeros(2).sum().item() == 0  # and the interpreter is in a clean state afterwards
