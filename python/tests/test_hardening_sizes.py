"""Sizes, dimensions and values from users that used to crash the process or wrap silently (issue 19).

Each reproducer below killed the interpreter (heap corruption, SIGSEGV, SIGFPE, a C stack overflow) or returned a
wrong value before; now each raises PyTorch's exception. The messages are PyTorch 2.15's; the scalar-conversion rules
are also compared with PyTorch itself where the reference is installed (TORCH_PYTHON, default /opt/torch2/py)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ember
import ember.nn.functional as F

OVERFLOW = "Storage size calculation overflowed"


# ---- storage sizes (Note [Checked size arithmetic])

x3 = ember.arange(3.0)

FACTORY_OVERFLOWS = {
    "zeros": lambda: ember.zeros(2**62),
    "ones": lambda: ember.ones(2**62),
    "empty": lambda: ember.empty(2**62),
    "rand": lambda: ember.rand(2**62),
    "randn": lambda: ember.randn(2**62),
    "randint": lambda: ember.randint(0, 2, (2**62,)),
    "full": lambda: ember.full((2**62,), 1.0),
    "arange": lambda: ember.arange(2**62),
    "linspace": lambda: ember.linspace(0, 1, 2**62),
    "randperm": lambda: ember.randperm(2**62),
    "eye": lambda: ember.eye(2**31),
    "new_zeros": lambda: x3.new_zeros((2**31, 2**31)),
    "new_ones": lambda: x3.new_ones(2**62),
    "new_full": lambda: x3.new_full((2**62,), 1.0),
    "new_empty_strided": lambda: x3.new_empty_strided((2,), (2**62,)),
    "empty_strided": lambda: ember.empty_strided((2,), (2**63 - 1,)),
    "pad": lambda: F.pad(ember.ones(1, 3), (2**62, 0)),
    "constant_pad_nd": lambda: ember.constant_pad_nd(ember.ones(1, 3), (2**62, 0)),
    "diag": lambda: ember.diag(ember.empty(0), 2**31),
    "diag_embed": lambda: ember.diag_embed(ember.empty(0), -(2**31)),
    "histogram": lambda: ember.histogram(x3, 2**62),
    "histc": lambda: ember.histc(x3, 2**62),
    "bincount": lambda: ember.bincount(ember.tensor([1]), minlength=2**62),
    "one_hot": lambda: F.one_hot(ember.tensor([1]), 2**62),
    "multigammaln": lambda: ember.special.multigammaln(x3, 2**62),
    "repeat_interleave": lambda: ember.ones(2).repeat_interleave(ember.tensor([2**62, 1])),
    "interpolate": lambda: F.interpolate(ember.ones(1, 1, 2), size=2**62),
    "multinomial": lambda: ember.multinomial(ember.ones(2), 2**62, True),
    "vander": lambda: ember.linalg.vander(ember.ones(2), N=2**62),
    "kron": lambda: ember.kron(ember.ones(2**31), ember.ones(2**31)),
    "block_diag": lambda: ember.block_diag(ember.ones(1, 2**62)),
    "clone": lambda: ember.ones(1).expand(2**62).clone(),
    "resize_": lambda: ember.ones(3).resize_(2**62),
    "as_strided": lambda: ember.as_strided(x3, (2**62,), (1,)),
    "as_strided_offset": lambda: ember.as_strided(x3, (2,), (1,), 2**62),
}


@pytest.mark.parametrize("name", sorted(FACTORY_OVERFLOWS))
def test_storage_size_overflow_raises(name):
    with pytest.raises(RuntimeError, match=OVERFLOW):
        FACTORY_OVERFLOWS[name]()


def test_overflow_message_names_the_op_sizes_and_strides():
    with pytest.raises(RuntimeError) as e:
        ember.empty_strided((2,), (2**63 - 1,))
    assert str(e.value) == f"empty: {OVERFLOW} with sizes=[2] and strides=[9223372036854775807]"
    with pytest.raises(RuntimeError) as e:
        ember.as_strided(x3, (2**62,), (1,))
    assert str(e.value) == f"as_strided: {OVERFLOW} with sizes=[4611686018427387904] and strides=[1]"


def test_as_strided_bounds_check_does_not_wrap():
    # (2**62 - 1 + 1) * 8 bytes wrapped to 0, which passed the bounds check: the view then read and wrote the heap.
    with pytest.raises(RuntimeError, match=OVERFLOW):
        ember.as_strided(x3, (2**62,), (1,))[10**6 : 10**6 + 10**5].fill_(7)
    with pytest.raises(RuntimeError, match=OVERFLOW):
        ember.as_strided(x3, (2**62,), (1,))[100000].item()
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 12"):
        ember.as_strided(x3, (4,), (1,))
    # Views within the storage still work, stride-0 ones of any length too.
    v = ember.as_strided(x3, (2, 2), (1, 1))
    np.testing.assert_array_equal(v.numpy(), [[0.0, 1.0], [1.0, 2.0]])
    assert ember.as_strided(x3, (2**31, 2**31), (0, 0)).shape == (2**31, 2**31)
    assert ember.as_strided(x3, (0,), (1,), 2**40).shape == (0,)  # no element is reached


def test_empty_of_many_elements_has_storage_or_raises():
    with pytest.raises(RuntimeError, match=OVERFLOW):
        ember.empty(2**62)[10**7] = 1
    t = ember.empty(0, 2**62, 2**62)  # no elements, no bytes: allowed
    assert t.shape == (0, 2**62, 2**62) and t.numel() == 0


def test_numel_of_a_view_that_overflows_raises():
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        ember.ones(1).expand(2**32, 2**32)
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        ember.ones(0).view(2**62, 2**62, 0)
    assert ember.ones(1).expand(2**62).numel() == 2**62


def test_negative_dimension_raises():
    for f in (lambda: ember.empty(-1), lambda: ember.zeros(2, -3), lambda: ember.empty_strided((-1,), (1,))):
        with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension"):
            f()


def test_fold_kernel_area_overflow_raises():  # was SIGFPE: the area wrapped to 0 and divided
    with pytest.raises(
        RuntimeError,
        match="Given kernel_width = 1099511627776 and kernel_height = 1099511627776 the product of kernel_width "
        "and kernel_height overflowed",
    ):
        F.fold(ember.randn(3, 4), 2, 2**40)
    with pytest.raises(RuntimeError, match="overflowed"):
        F.unfold(ember.randn(1, 1, 3, 3), 2**40)
    with pytest.raises(RuntimeError, match="sliding block geometry overflows"):
        F.unfold(ember.randn(1, 1, 3, 3), 1, padding=2**62)


def test_pixel_shuffle_factor_overflow_raises():  # was SIGFPE
    with pytest.raises(ValueError, match=r"upscale factor is too large, \(upscale_factor\)\^2 overflowed"):
        ember.pixel_shuffle(ember.zeros(3, 0, 4), 2**62)
    with pytest.raises(ValueError, match=r"downscale factor is too large"):
        ember.pixel_unshuffle(ember.zeros(1, 0, 0), 2**62)
    np.testing.assert_array_equal(
        ember.pixel_shuffle(ember.arange(4.0).reshape(1, 4, 1, 1), 2).numpy(), [[[[0.0, 1.0], [2.0, 3.0]]]]
    )


def test_interpolate_huge_scale_raises():
    with pytest.raises(RuntimeError, match="value cannot be converted to type int64_t without overflow"):
        F.interpolate(ember.ones(1, 1, 2), scale_factor=1e30)


# ---- out of memory (Note [Overcommit], docs/memory.md)


@pytest.mark.parametrize("make", [lambda: ember.empty(2**50), lambda: ember.zeros(2**45), lambda: ember.ones(2**40)])
def test_huge_allocation_raises_out_of_memory(make):
    # More than any machine's address space: the OS refuses it whatever the overcommit policy.
    with pytest.raises(RuntimeError, match=r"can't allocate memory: you tried to allocate \d+ bytes") as e:
        make()
    assert isinstance(e.value, ember.OutOfMemoryError)


def test_out_of_memory_message_gives_the_size():
    with pytest.raises(ember.OutOfMemoryError) as e:
        ember.empty(2**50)
    assert f"you tried to allocate {2**52} bytes (4194304.00 GiB)" in str(e.value)


def test_interpolate_out_of_memory_is_a_runtime_error():  # was MemoryError: std::bad_alloc (host tables)
    with pytest.raises(ember.OutOfMemoryError, match="interpolate: CPU out of memory"):
        F.interpolate(ember.ones(1, 1, 2), size=2**46)


# ---- dimensions and recursion


def nested(depth, leaf=1, seq=list):
    x = leaf
    for _ in range(depth):
        x = seq([x])
    return x


def test_tensor_from_deeply_nested_list_raises():  # the recursion overflowed the C stack
    with pytest.raises(ValueError, match="too many dimensions 'list'"):
        ember.tensor(nested(200000))
    with pytest.raises(ValueError, match="too many dimensions 'tuple'"):
        ember.tensor(nested(129, seq=tuple))
    with pytest.raises(ValueError, match="too many dimensions"):
        ember.as_tensor(nested(129))
    t = ember.tensor(nested(128))  # PyTorch's limit for nested sequences is 128 dims
    assert t.dim() == 128 and t.item() == 1


def test_many_dims_are_allowed_as_in_pytorch():
    # PyTorch 2.15 caps only nested data; factories and views take any number of dims.
    t = ember.ones([1] * 20001)
    assert t.dim() == 20001 and t.sum().item() == 1.0
    assert ember.ones(1).view([1] * 20001).dim() == 20001
    assert ember.ones(1).reshape([1] * 300).dim() == 300


def test_tolist_and_repr_of_many_dims():  # both recursed once per dim
    t = ember.full([1] * 20001, 2.0)
    lst = t.tolist()
    for _ in range(20001):
        assert isinstance(lst, list) and len(lst) == 1
        lst = lst[0]
    assert lst == 2.0
    r = repr(t)
    assert r == "tensor(" + "[" * 20001 + "2." + "]" * 20001 + ")"
    r = repr(ember.ones([1] * 3000 + [2000]))  # summarized; one value a line past the line width, as PyTorch's
    assert r.startswith("tensor(" + "[" * 3001 + "1.,\n") and r.endswith("1." + "]" * 3001 + ")")
    assert r.count("1.") == 6 and r.count("...") == 1
    assert repr(ember.ones([1] * 30 + [2000])) == (
        "tensor(" + "[" * 31 + "1., 1., 1.,  ..., 1., 1., 1." + "]" * 31 + ")"
    )


def test_tolist_matches_numpy():
    a = np.arange(24).reshape(2, 3, 4)
    t = ember.tensor(a)
    assert t.tolist() == a.tolist()
    assert t.permute(2, 0, 1).tolist() == a.transpose(2, 0, 1).tolist()
    assert t[:, ::2, 1:].tolist() == a[:, ::2, 1:].tolist()
    assert ember.ones(2, 0, 3).tolist() == [[], []]
    assert ember.ones(0).tolist() == []
    assert ember.tensor(2.5).tolist() == 2.5
    assert ember.tensor([True, False]).tolist() == [True, False]


# ---- values (Note [Checked scalar conversion])

CONVERT = "value cannot be converted to type {} without overflow"


@pytest.mark.parametrize(
    "make, ctype",
    [
        (lambda: ember.tensor([300], dtype=ember.uint8), "uint8"),
        (lambda: ember.tensor(300, dtype=ember.uint8), "uint8"),
        (lambda: ember.tensor(float("nan"), dtype=ember.int64), "int64"),
        (lambda: ember.tensor([float("inf")], dtype=ember.int32), "int32"),
        (lambda: ember.tensor([1e20], dtype=ember.int64), "int64"),
        (lambda: ember.zeros(1, dtype=ember.int8).fill_(1000), "int8_t"),
        (lambda: ember.zeros(1, dtype=ember.uint8).fill_(256), "uint8_t"),
        (lambda: ember.zeros(1, dtype=ember.int32).fill_(float("nan")), "int32_t"),
        (lambda: ember.zeros(1, dtype=ember.float32).fill_(1e300), "float"),
        (lambda: ember.full((1,), 300, dtype=ember.uint8), "uint8_t"),
        (lambda: ember.full((1,), float("nan"), dtype=ember.int8), "int8_t"),
        (lambda: ember.full_like(ember.zeros(1, dtype=ember.int8), 1000), "int8_t"),
        (lambda: ember.zeros(1, dtype=ember.int8).new_full((1,), 1000), "int8_t"),
        (lambda: ember.zeros(1, dtype=ember.int8).masked_fill(ember.tensor([True]), 1000), "int8_t"),
        (lambda: ember.zeros(1, dtype=ember.int8).masked_fill_(ember.tensor([True]), 1000), "int8_t"),
        (lambda: ember.where(ember.tensor([True]), ember.zeros(1, dtype=ember.int8), 1000), "int8_t"),
        (lambda: ember.zeros(2, dtype=ember.int8).index_fill(0, ember.tensor([0]), 1000), "int8_t"),
        (lambda: ember.zeros(2, 2, dtype=ember.int8).fill_diagonal_(1000), "int8_t"),
        (lambda: ember.zeros(1, dtype=ember.int8)[0].fill_(1000), "int8_t"),
        (lambda: ember.zeros(2, dtype=ember.int8).__setitem__(0, 1000), "int8_t"),
        (lambda: ember.zeros(2, dtype=ember.int8).__setitem__(slice(None), 1000), "int8_t"),
    ],
)
def test_number_that_does_not_fit_raises(make, ctype):
    with pytest.raises(RuntimeError, match=CONVERT.format(ctype)):
        make()


def test_numbers_that_fit_or_wrap_as_in_pytorch():
    assert ember.tensor([-1], dtype=ember.uint8).tolist() == [255]  # negative ints down to -max wrap
    assert ember.zeros(1, dtype=ember.uint8).fill_(-255).tolist() == [1]
    assert ember.zeros(1, dtype=ember.uint8).fill_(255.9).tolist() == [255]  # truncation fits
    assert ember.zeros(1, dtype=ember.int8).fill_(-128).tolist() == [-128]
    assert ember.zeros(1, dtype=ember.int64).fill_(2**63 - 1).tolist() == [2**63 - 1]
    assert ember.tensor([1e300], dtype=ember.float32).tolist() == [float("inf")]  # tensor() rounds floats
    assert ember.zeros(1, dtype=ember.float16).fill_(1e10).tolist() == [float("inf")]
    assert ember.zeros(1, dtype=ember.float32).fill_(float("inf")).tolist() == [float("inf")]
    assert ember.zeros(1, dtype=ember.bool).fill_(5).tolist() == [True]
    # Arithmetic with a number wraps in PyTorch too: only stores are checked.
    assert (ember.zeros(1, dtype=ember.int8) + 1000).tolist() == [-24]


TORCH_PYTHON = os.environ.get("TORCH_PYTHON", "/opt/torch2/py")
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
VALUES = [
    "-1",
    "-255",
    "-256",
    "256",
    "2**31",
    "2**63-1",
    "-2**63",
    "1.5",
    "-1.5",
    "255.9",
    "-128.9",
    "1e10",
    "1e300",
    "127.9",
    "128.0",
    "-0.5",
    "-0.0",
    "-128.5",
    "2147483647.5",
    "float('nan')",
    "float('inf')",
    "float('-inf')",
    "True",
    "70000.0",
    "3.5e38",
    "2.0**63",
    "-2.0**63",
]
FORMS = {
    "fill": "lib.zeros(1, dtype=d).fill_(v)",
    "full": "lib.full((1,), v, dtype=d)",
    "tensor": "lib.tensor([v], dtype=d)",
}
_MATRIX = r"""
import json, sys
lib = __import__(sys.argv[1])
dtypes, values, forms = json.loads(sys.argv[2])
out = {}
for form, expr in forms.items():
    for dn in dtypes:
        d = getattr(lib, dn)
        for vs in values:
            v = eval(vs)
            try:
                eval(expr)
                out[f"{form} {dn} {vs}"] = "ok"
            except RuntimeError as e:
                out[f"{form} {dn} {vs}"] = "overflow" if "without overflow" in str(e) else str(e)
print(json.dumps(out))
"""


def conversion_matrix(python, lib):
    arg = json.dumps([DTYPES, VALUES, FORMS])
    r = subprocess.run([python, "-c", _MATRIX, lib, arg], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not os.path.exists(TORCH_PYTHON), reason="the reference PyTorch is not installed")
def test_scalar_conversion_rules_match_pytorch():
    ours = conversion_matrix(sys.executable, "ember")
    theirs = conversion_matrix(TORCH_PYTHON, "torch")
    diff = {k: (ours[k], theirs[k]) for k in theirs if ours[k] != theirs[k]}
    assert not diff, diff


# ---- binding errors name the function


def _functions():
    """Every C++ function reachable from ember's modules and the classes defined in them."""
    found, seen = [], set()

    def walk(scope, qual):
        for n, f in list(vars(scope).items()):
            if type(f).__name__ in ("nb_func", "nb_method"):
                found.append((f"{qual}.{n}", f))
            elif isinstance(f, type) and id(f) not in seen and getattr(f, "__module__", "").startswith("ember"):
                seen.add(id(f))
                walk(f, f"{qual}.{n}")

    for name, mod in list(sys.modules.items()):
        if name == "ember" or name.startswith("ember."):
            walk(mod, name)
    return found


def test_every_bound_function_has_a_name():
    # A function bound without nb::name reported "(): incompatible function arguments" (Note [Named bindings]).
    functions = _functions()
    assert len(functions) > 1000
    unnamed = [q for q, f in functions if not f.__name__]
    assert not unnamed, unnamed


def test_incompatible_arguments_error_names_the_function_and_types():
    t = ember.ones(2)
    with pytest.raises(TypeError) as e:
        t.__add__(1, 2, 3)
    first = str(e.value).splitlines()
    assert first[0] == "__add__(): incompatible function arguments. The following argument types are supported:"
    assert "Invoked with types: ember.Tensor, int, int, int" in str(e.value)
    with pytest.raises(TypeError, match=r"^__hash__\(\): incompatible function arguments"):
        t.__hash__(1)
    with pytest.raises(TypeError, match=r"^__neg__\(\): incompatible function arguments"):
        t.__neg__(1)


# ---- sizes that ops derive from their arguments


def test_derived_sizes_overflow_raises():
    with pytest.raises(
        RuntimeError, match=r"repeat: the output size overflowed int64 \(repeats \[4611686018427387904, 2\]"
    ):
        ember.ones(2, 2).repeat(2**62, 2)
    with pytest.raises(RuntimeError, match="repeat: the output size overflowed"):
        ember.ones(2, 2).tile((2**62, 1))
    with pytest.raises(RuntimeError, match="repeat_interleave: the output size overflowed"):
        ember.ones(3).repeat_interleave(2**62)
    # The sum of repeats wrapped to 0 and gave an empty result.
    with pytest.raises(RuntimeError, match="repeat_interleave: the sum of repeats overflowed"):
        ember.repeat_interleave(ember.tensor([2**62] * 4))
    # The concatenated length wrapped to 0.
    with pytest.raises(RuntimeError, match="cat: the output size overflowed"):
        ember.cat([ember.ones(1).expand(2**62)] * 4)
    assert ember.ones(2).repeat(3, 2).shape == (3, 4)
    assert ember.cat([ember.ones(2), ember.zeros(3)]).tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]


def test_numpy_of_more_dims_than_numpy_holds_raises():  # np.asarray made a 0-d object array of it
    with pytest.raises(ValueError, match=r"number of dimensions must be within \[0, 64\]"):
        ember.ones([1] * 65).numpy()
    a = ember.full([1] * 64, 3.0).numpy()
    assert a.ndim == 64 and a.reshape(-1).tolist() == [3.0]
