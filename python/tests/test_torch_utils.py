"""ember's top-level utilities that are not tensor ops: finfo/iinfo (against NumPy's and ml_dtypes-free closed forms),
the math constants, the deterministic-algorithms switch (flags, debug mode, the alert's raise/warn), float32 matmul
precision tied to backends.cuda.matmul.allow_tf32, inter-op threads, is_complex / is_storage / typename,
set_default_tensor_type."""

import math
import subprocess
import sys

import numpy as np
import pytest

import ember

# -- finfo / iinfo ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dtype,np_dtype", [(ember.float16, np.float16), (ember.float32, np.float32), (ember.float64, np.float64)]
)
def test_finfo_matches_numpy(dtype, np_dtype):
    f, n = ember.finfo(dtype), np.finfo(np_dtype)
    assert f.bits == n.bits
    assert f.eps == float(n.eps) and f.max == float(n.max) and f.min == float(n.min)
    assert f.tiny == float(n.tiny) == f.smallest_normal
    assert f.resolution == 10.0**-n.precision  # PyTorch reports it as a Python float, 10 ** -digits
    assert f.dtype == np_dtype.__name__


def test_finfo_bfloat16_from_its_format():
    # 8 exponent bits (bias 127) and 7 fraction bits.
    f = ember.finfo(ember.bfloat16)
    assert f.bits == 16 and f.eps == 2.0**-7 and f.tiny == 2.0**-126
    assert f.max == (2 - 2.0**-7) * 2.0**127 == -f.min
    assert f.resolution == 0.01 and f.dtype == "bfloat16"
    # The extremes survive a round trip through the dtype itself.
    t = ember.tensor([f.max, f.tiny, 1 + f.eps], dtype=ember.bfloat16)
    assert t.float().tolist() == [f.max, f.tiny, 1 + f.eps]


def test_finfo_default_dtype_repr_and_equality():
    assert ember.finfo() == ember.finfo(ember.float32)
    assert ember.finfo(ember.float64) != ember.finfo(ember.float32)
    assert repr(ember.finfo(ember.float32)) == (
        "finfo(resolution=1e-06, min=-3.40282e+38, max=3.40282e+38, "
        "eps=1.19209e-07, smallest_normal=1.17549e-38, tiny=1.17549e-38, "
        "dtype=float32)"
    )
    prev = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.finfo().dtype == "float64"
    finally:
        ember.set_default_dtype(prev)


@pytest.mark.parametrize(
    "dtype,np_dtype",
    [
        (ember.uint8, np.uint8),
        (ember.int8, np.int8),
        (ember.int16, np.int16),
        (ember.int32, np.int32),
        (ember.int64, np.int64),
    ],
)
def test_iinfo_matches_numpy(dtype, np_dtype):
    i, n = ember.iinfo(dtype), np.iinfo(np_dtype)
    assert (i.bits, i.min, i.max, i.dtype) == (n.bits, int(n.min), int(n.max), np_dtype.__name__)
    assert type(i.max) is int


def test_iinfo_repr():
    assert repr(ember.iinfo(ember.int32)) == "iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)"


@pytest.mark.parametrize(
    "call,msg",
    [
        (lambda: ember.finfo(ember.int32), r"finfo\(\) requires a floating point input type"),
        (lambda: ember.finfo(ember.bool), r"finfo\(\) requires a floating point input type"),
        (lambda: ember.finfo("float32"), r"argument 'type' \(position 1\) must be ember.dtype, not str"),
        (lambda: ember.iinfo(ember.float32), r"iinfo\(\) requires an integer input type"),
        (lambda: ember.iinfo(ember.bool), r"ember.bool is not supported by ember.iinfo"),
        (lambda: ember.iinfo(3), r"must be ember.dtype, not int"),
    ],
)
def test_info_errors_are_type_errors(call, msg):
    with pytest.raises(TypeError, match=msg):
        call()


def test_constants():
    assert ember.pi == math.pi and ember.e == math.e
    assert ember.inf == float("inf") and math.isnan(ember.nan)


# -- deterministic algorithms ----------------------------------------------------------------------------------------


@pytest.fixture
def restore_determinism():
    yield
    ember.use_deterministic_algorithms(False)


def test_deterministic_flags_and_debug_mode(restore_determinism):
    assert not ember.are_deterministic_algorithms_enabled()
    assert ember.get_deterministic_debug_mode() == 0
    ember.use_deterministic_algorithms(True)
    assert ember.are_deterministic_algorithms_enabled() and not ember.is_deterministic_algorithms_warn_only_enabled()
    assert ember.get_deterministic_debug_mode() == 2
    ember.use_deterministic_algorithms(True, warn_only=True)
    assert ember.is_deterministic_algorithms_warn_only_enabled() and ember.get_deterministic_debug_mode() == 1
    ember.set_deterministic_debug_mode("default")
    assert (
        not ember.are_deterministic_algorithms_enabled() and not ember.is_deterministic_algorithms_warn_only_enabled()
    )
    ember.set_deterministic_debug_mode("error")
    assert ember.get_deterministic_debug_mode() == 2
    ember.set_deterministic_debug_mode(1)
    assert ember.get_deterministic_debug_mode() == 1 and ember.are_deterministic_algorithms_enabled()
    ember.set_deterministic_debug_mode(0)
    assert ember.get_deterministic_debug_mode() == 0


@pytest.mark.parametrize(
    "call,exc,msg",
    [
        (lambda: ember.set_deterministic_debug_mode("x"), RuntimeError, "expected one of `default`, `warn`, `error`"),
        (lambda: ember.set_deterministic_debug_mode(3), RuntimeError, "expected 0, 1, or 2, but got 3"),
        (lambda: ember.set_deterministic_debug_mode(1.5), TypeError, "debug_mode must be str or int"),
        (lambda: ember.use_deterministic_algorithms(1), TypeError, "argument 'mode' .* must be bool, not int"),
    ],
)
def test_deterministic_errors(call, exc, msg, restore_determinism):
    with pytest.raises(exc, match=msg):
        call()


def test_alert_raises_or_warns_naming_the_op(restore_determinism):
    ember._C._alert_not_deterministic("some_op")  # off: nothing
    ember.use_deterministic_algorithms(True)
    with pytest.raises(
        RuntimeError,
        match=r"some_op does not have a deterministic implementation, but you set "
        r"'torch.use_deterministic_algorithms\(True\)'",
    ):
        ember._C._alert_not_deterministic("some_op")
    ember.use_deterministic_algorithms(True, warn_only=True)
    with pytest.warns(UserWarning, match=r"some_op does not have a deterministic implementation.*warn_only=True"):
        ember._C._alert_not_deterministic("some_op")


def test_cpu_ops_stay_allowed_and_deterministic(restore_determinism):
    # The CPU kernels are deterministic: nothing is refused there, and repeated runs agree bit for bit.
    ember.use_deterministic_algorithms(True)
    src = ember.randn(1000, 8)
    idx = ember.randint(0, 10, (1000,))
    runs = [ember.zeros(10, 8).index_add_(0, idx, src) for _ in range(3)]
    assert all(ember.equal(runs[0], r) for r in runs[1:])
    ember.zeros(10, 8).scatter_add_(0, idx[:, None].expand(1000, 8), src)
    ember.bincount(idx, weights=src[:, 0])


# -- matmul precision, threads ---------------------------------------------------------------------------------------


def test_float32_matmul_precision_is_the_tf32_switch():
    prev = ember.backends.cuda.matmul.allow_tf32
    try:
        assert ember.get_float32_matmul_precision() == ("high" if prev else "highest")
        ember.set_float32_matmul_precision("high")
        assert ember.backends.cuda.matmul.allow_tf32 is True
        assert ember.get_float32_matmul_precision() == "high"
        ember.set_float32_matmul_precision("medium")
        assert ember.backends.cuda.matmul.allow_tf32 and ember.get_float32_matmul_precision() == "medium"
        ember.backends.cuda.matmul.allow_tf32 = False
        assert ember.get_float32_matmul_precision() == "highest"
        ember.backends.cuda.matmul.allow_tf32 = True
        assert ember.get_float32_matmul_precision() in ("high", "medium")
        ember.set_float32_matmul_precision("highest")
        assert ember.backends.cuda.matmul.allow_tf32 is False
        with pytest.warns(UserWarning, match="foo is not one of 'highest', 'high', or 'medium'"):
            ember.set_float32_matmul_precision("foo")
        assert ember.get_float32_matmul_precision() == "highest"
    finally:
        ember.backends.cuda.matmul.allow_tf32 = prev
        ember.set_float32_matmul_precision("high" if prev else "highest")


def test_interop_threads_set_once_in_a_fresh_process():
    code = (
        "import ember\n"
        "assert ember.get_num_interop_threads() >= 1\n"
        "try:\n ember.set_num_interop_threads(0)\n raise SystemExit('no error')\n"
        "except RuntimeError as e:\n assert 'positive integer' in str(e)\n"
        "ember.set_num_interop_threads(3)\n"
        "assert ember.get_num_interop_threads() == 3\n"
        "try:\n ember.set_num_interop_threads(2)\n raise SystemExit('no error')\n"
        "except RuntimeError as e:\n assert 'set_num_interop_threads called' in str(e)\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


# -- types -------------------------------------------------------------------------------------------------------------


def test_is_complex_is_storage_typename():
    assert ember.is_complex(ember.ones(2)) is False
    assert ember.is_complex(ember.ones(2, dtype=ember.int64)) is False
    with pytest.raises(TypeError, match=r"is_complex\(\): argument 'input' \(position 1\) must be Tensor, not int"):
        ember.is_complex(1)
    assert ember.is_storage(ember.ones(2)) is False and ember.is_storage([]) is False
    assert ember.typename(ember.ones(1)) == "ember.FloatTensor"
    assert ember.typename(ember.ones(1, dtype=ember.int64)) == "ember.LongTensor"
    assert ember.typename(ember.nn.Parameter(ember.ones(1))) == "ember.FloatTensor"
    assert ember.typename(1) == "int"
    assert ember.typename(ember.nn.Linear(1, 1)) == "ember.nn.modules.linear.Linear"
    assert ember.typename(ember.nn.Linear) == "ember.nn.modules.linear.Linear"


def test_set_default_tensor_type():
    prev = ember.get_default_dtype()
    try:
        ember.set_default_tensor_type(ember.DoubleTensor)
        assert ember.get_default_dtype() == ember.float64 and ember.tensor([1.5]).dtype == ember.float64
        ember.set_default_tensor_type("torch.FloatTensor")
        assert ember.get_default_dtype() == ember.float32
        for bad in ("torch.IntTensor", ember.LongTensor):
            with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
                ember.set_default_tensor_type(bad)
        with pytest.raises(TypeError, match="only floating-point types"):
            ember.set_default_tensor_type(3)
        with pytest.raises(NotImplementedError, match="default device"):
            ember.set_default_tensor_type(ember.cuda.FloatTensor)
        assert ember.get_default_dtype() == ember.float32
    finally:
        ember.set_default_dtype(prev)


def test_top_level_bilinear_and_channel_shuffle_are_the_functional_ones():
    assert ember.bilinear is ember.nn.functional.bilinear
    assert ember.channel_shuffle is ember.nn.functional.channel_shuffle
    x = ember.arange(12.0).reshape(1, 6, 2)
    np.testing.assert_array_equal(
        ember.native_channel_shuffle(x, 3).numpy(), x.numpy().reshape(1, 3, 2, 2).transpose(0, 2, 1, 3).reshape(1, 6, 2)
    )


# -- version, jit, compile, small switches ---------------------------------------------------------------------------


def test_version_module():
    assert ember.version.__version__ == ember.__version__
    assert ember.version.debug is False and ember.version.hip is None
    if ember.backends.cuda.is_built():
        major, minor = ember.version.cuda.split(".")
        assert int(major) >= 11 and int(minor) >= 0
    else:
        assert ember.version.cuda is None


def test_jit_runs_eagerly():
    @ember.jit.script
    def double(x):
        return x * 2

    np.testing.assert_array_equal(double(ember.ones(2)).numpy(), [2.0, 2.0])
    m = ember.nn.Linear(2, 2)
    assert ember.jit.script(m) is m and ember.jit.trace(m, ember.ones(1, 2)) is m
    assert ember.jit.is_scripting() is False and ember.jit.is_tracing() is False

    @ember.jit.ignore
    def a():
        return 1

    @ember.jit.unused
    def b():
        return 2

    assert a() == 1 and b() == 2 and ember.jit.ignore(drop=True)(a) is a and ember.jit.export(a) is a
    assert ember.jit.annotate(int, 3) == 3
    with pytest.raises(NotImplementedError, match="ember has no TorchScript"):
        ember.jit.save(m, "x.pt")


def test_compile_returns_the_model_and_small_switches():
    m = ember.nn.Linear(2, 2)
    assert ember.compile(m) is m and ember.compile(mode="max-autotune")(m) is m
    assert ember.set_flush_denormal(True) is False
    assert ember.is_warn_always_enabled() is False
    ember.set_warn_always(True)
    try:
        assert ember.is_warn_always_enabled() is True
    finally:
        ember.set_warn_always(False)
    ember.set_anomaly_enabled(True)
    try:
        assert ember.is_anomaly_enabled() and ember.autograd.is_anomaly_enabled()
    finally:
        ember.set_anomaly_enabled(False)
    assert not ember.is_anomaly_enabled()
