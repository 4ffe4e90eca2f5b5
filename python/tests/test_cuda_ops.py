"""The op test suite over devices: every case builds its inputs with NumPy, runs the same function on the CPU and on
CUDA, and asserts that the two agree: outputs' dtypes, shapes, devices and values, and, where inputs require grad,
the gradients from backward on both devices (the loss is sum(out * w) with one fixed random w per output, the same on
both). Plus seeded random ops (ember's CPU and CUDA generators share Philox's formulas: docs/random.md), dropout
statistics, optimizer steps, recurrent modules, and gradcheck in float64 with the computation on CUDA.

Everything skips where `ember.cuda.is_available()` is false. `EMBER_TEST_CUDA_AS=cpu` makes the "cuda" half run on
the CPU, which checks the harness itself on a machine without a GPU: every case must pass then (a case that fails
CPU against CPU is a harness bug).

Tolerances (the values are compared elementwise: |cuda - cpu| <= rtol * |cpu| + rtol * scale, where scale is the
largest finite |cpu| in that tensor, since the error of a sum or a product of matrices grows with its terms, not with
its result; NaNs must sit in the same places; integer and bool results must be equal):
- float32: rtol 1e-5 (F32): the default. Elementwise functions differ by a few ulps between CUDA's math library and
  the CPU's (Sleef); reductions, scans and matmul (TF32 off, ember's default for matmul as in PyTorch) sum in another
  order.
- float32 gradients through reductions of many terms: 1e-4 (F32_LOOSE): atomics and tree orders differ.
- float64: 1e-10 (F64).
- TF32: norm-wise ||cuda - cpu|| / ||cpu|| <= 5e-3 (TF32). Convolutions run with cudnn.allow_tf32 = True, the
  default in ember as in PyTorch, so every float32 convolution case (outputs and gradients) uses this tolerance;
  the explicit TF32 matmul case turns ember.backends.cuda.matmul.allow_tf32 on (skipped until ember.backends exists).
  The module tests (LSTM/GRU/RNN through cuDNN, a small CNN) use it too: PyTorch's cuDNN RNNs use TF32 under
  cudnn.allow_tf32, and ember follows its flags.
- float16: rtol 2e-3 (F16, two ulps), bfloat16: rtol 1.6e-2 (BF16, two ulps): both devices compute in float32 and
  round once; reductions round the result of another summation order. Half-precision matmul and convolution
  (cuBLAS/cuDNN accumulate in float32 but may split the inner dimension): norm-wise 1e-2 (F16_MM) and 3e-2 (BF16_MM).
- linear algebra (LAPACK against cuSOLVER, float32 inputs with condition numbers under ~100): rtol 1e-4 (LINALG).
  Factorizations are compared through what is unique: QR with R's diagonal made positive, SVD and eigh through the
  singular values / eigenvalues and the reconstructed matrix, never the sign of a vector.
- random ops: the numbers must be the same (rtol 1e-6 for the float transforms such as Box-Muller, whose log and cos
  differ by ulps between the devices).
Notes per op family:
- sort/topk/kthvalue/median/max-with-indices use distinct values (random floats): which index wins among ties is
  not compared (CUDA's sort is not stable unless asked to be). unique/sort with stable=True are compared with ties.
- scatter with duplicate indices (and index_put without accumulate) picks an unspecified writer on CUDA: those cases
  use distinct indices; index_add/scatter_add/index_put(accumulate=True) use duplicates (float atomics: F32_LOOSE).
- dropout: the fused kernel draws bernoulli's numbers (Note [Fused dropout]), so mask, output and gradient are equal
  on both devices; the statistics test checks the fraction of zeros and the scale of the kept values.
- gradcheck: ember.autograd.gradcheck reads tensors through NumPy, which needs CPU tensors, so the checked function
  takes float64 CPU leaves, moves them to CUDA, computes there and returns the result to the CPU: forward and backward
  kernels run on CUDA, finite differences and Jacobians are read on the CPU.
"""

import copy
import os
import zlib

import numpy as np
import pytest
from special_functions import BINARY_ROWS, ROWS

import ember
import ember.distributions as Dist
import ember.nn.functional as F

CUDA_AS = os.environ.get("EMBER_TEST_CUDA_AS", "")
DEV = "cpu" if CUDA_AS == "cpu" else "cuda"
pytestmark = pytest.mark.skipif(
    DEV == "cuda" and not ember.cuda.is_available(),
    reason="no CUDA device (EMBER_TEST_CUDA_AS=cpu runs the harness on the CPU)",
)

f16, bf16, f32, f64 = ember.float16, ember.bfloat16, ember.float32, ember.float64
i32, i64, u8, i8, bool_ = ember.int32, ember.int64, ember.uint8, ember.int8, ember.bool
c64, c128 = ember.complex64, ember.complex128


# -- tolerances ---------------------------------------------------------------------------------------------------


class Tol:
    def __init__(self, rtol, norm=False):
        self.rtol, self.norm = rtol, norm

    def check(self, got, exp, what):
        if got.size == 0:
            return
        nan_g, nan_e = np.isnan(got), np.isnan(exp)
        assert np.array_equal(nan_g, nan_e), f"{what}: NaNs in different places"
        inf_e = np.isinf(exp)
        assert np.array_equal(got[inf_e], exp[inf_e]), f"{what}: infinities differ"
        ok = ~(nan_e | inf_e)
        g, e = got[ok].astype(np.float64), exp[ok].astype(np.float64)
        if g.size == 0:
            return
        if self.norm:
            err = np.linalg.norm(g - e) / max(np.linalg.norm(e), 1e-30)
            assert err <= self.rtol, f"{what}: norm-wise relative error {err:.3g} > {self.rtol}"
            return
        scale = np.abs(e).max()
        bad = np.abs(g - e) > self.rtol * (np.abs(e) + scale)
        if bad.any():
            k = np.flatnonzero(bad)[0]
            raise AssertionError(
                f"{what}: {bad.sum()} of {bad.size} elements differ beyond rtol {self.rtol} "
                f"(scale {scale:.3g}); first: cuda {g[k]!r} vs cpu {e[k]!r}"
            )


F32, F32_LOOSE, F64 = Tol(1e-5), Tol(1e-4), Tol(1e-10)
F16, BF16 = Tol(2e-3), Tol(1.6e-2)
F16_MM, BF16_MM = Tol(1e-2, norm=True), Tol(3e-2, norm=True)
TF32 = Tol(5e-3, norm=True)
LINALG = Tol(1e-4)
RANDOM = Tol(1e-6)


def default_tol(dtype):
    return {f16: F16, bf16: BF16, f64: F64, c128: F64}.get(dtype, F32)


# -- inputs -------------------------------------------------------------------------------------------------------


class In:
    """One input: make(rng) -> a NumPy array, the ember dtype it becomes, and whether it requires grad."""

    def __init__(self, make, dtype, grad):
        self.make, self.dtype, self.grad = make, dtype, grad

    def tensor(self, a, device):
        t = ember.tensor(a, dtype=self.dtype, device=device)
        if self.grad and (self.dtype.is_floating_point or self.dtype.is_complex):
            t.requires_grad_(True)
        return t


def R(*shape, dtype=f32, lo=None, hi=None, scale=1.0, grad=True):
    """Floats: standard normal times `scale`, or uniform in [lo, hi)."""

    def make(rng):
        a = rng.uniform(lo, hi, shape) if lo is not None else rng.standard_normal(shape) * scale
        return np.asarray(a, np.float64 if dtype is f64 else np.float32)

    return In(make, dtype, grad)


def P(*shape, dtype=f32, grad=True):
    """Positive floats in [0.5, 2)."""
    return R(*shape, dtype=dtype, lo=0.5, hi=2.0, grad=grad)


def I(high, *shape, low=0, dtype=i64):
    """Integers in [low, high)."""
    return In(lambda rng: rng.integers(low, high, shape).astype(np.int64), dtype, False)


def B(*shape, p=0.5):
    return In(lambda rng: rng.random(shape) < p, bool_, False)


def PERM(n, k=None):
    """Distinct indices: the first k of a permutation of range(n)."""
    return In(lambda rng: rng.permutation(n)[: (k or n)].astype(np.int64), i64, False)


def A(make, dtype=f32, grad=False):
    """A custom array."""
    return In(make, dtype, grad)


def SPD(n, batch=(), dtype=f32, grad=True):
    """Symmetric positive definite (condition number small)."""

    def make(rng):
        m = rng.standard_normal(batch + (n, n))
        return (m @ np.swapaxes(m, -1, -2) / n + np.eye(n)).astype(np.float64 if dtype is f64 else np.float32)

    return In(make, dtype, grad)


def WELL(*shape, dtype=f32, grad=True):
    """Well-conditioned square matrices: identity times 3 plus noise."""

    def make(rng):
        a = rng.standard_normal(shape) * 0.3 + 3 * np.eye(shape[-1])
        return a.astype(np.float64 if dtype is f64 else np.float32)

    return In(make, dtype, grad)


def CX(*shape, dtype=c64, scale=1.0, grad=True):
    """Complex numbers: real and imaginary parts standard normal times `scale`."""

    def make(rng):
        a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * scale
        return a.astype(np.complex128 if dtype is c128 else np.complex64)

    return In(make, dtype, grad)


def WITH_NAN(*shape):
    def make(rng):
        a = rng.standard_normal(shape).astype(np.float32)
        a.flat[::7] = np.nan
        a.flat[3::11] = np.inf
        a.flat[5::13] = -np.inf
        return a

    return In(make, f32, False)


# -- cases --------------------------------------------------------------------------------------------------------


class Case:
    def __init__(self, id, fn, *ins, tol=None, gtol=None, grad=True):
        self.id, self.fn, self.ins = id, fn, ins
        self.tol, self.gtol, self.grad = tol, gtol, grad

    def __repr__(self):
        return self.id


CASES = []


def case(id, fn, *ins, **kw):
    CASES.append(Case(id, fn, *ins, **kw))


E = ember
X = R(13, 17)  # a float32 matrix
Xnc = R(17, 13)  # transposed inside the function: non-contiguous input

# unary, float32, on a 13x17 matrix (several on non-contiguous views)
for name, fn, inp in [
    ("abs", E.abs, X),
    ("neg", E.neg, X),
    ("exp", E.exp, X),
    ("exp2", E.exp2, X),
    ("expm1", E.expm1, X),
    ("log", E.log, P(13, 17)),
    ("log2", E.log2, P(13, 17)),
    ("log10", E.log10, P(13, 17)),
    ("log1p", E.log1p, P(13, 17)),
    ("sqrt", E.sqrt, P(13, 17)),
    ("rsqrt", E.rsqrt, P(13, 17)),
    ("sin", E.sin, X),
    ("cos", E.cos, X),
    ("tan", E.tan, R(13, 17, lo=-1.2, hi=1.2)),
    ("sinh", E.sinh, X),
    ("cosh", E.cosh, X),
    ("tanh", E.tanh, X),
    ("asin", E.asin, R(13, 17, lo=-0.95, hi=0.95)),
    ("acos", E.acos, R(13, 17, lo=-0.95, hi=0.95)),
    ("atan", E.atan, X),
    ("asinh", E.asinh, X),
    ("acosh", E.acosh, R(13, 17, lo=1.1, hi=4)),
    ("atanh", E.atanh, R(13, 17, lo=-0.9, hi=0.9)),
    ("sigmoid", E.sigmoid, X),
    ("erf", E.erf, X),
    ("erfc", E.erfc, X),
    ("erfinv", E.erfinv, R(13, 17, lo=-0.9, hi=0.9)),
    ("reciprocal", E.reciprocal, P(13, 17)),
    ("square", E.square, X),
    ("sign", E.sign, X),
    ("floor", E.floor, R(13, 17, scale=5)),
    ("ceil", E.ceil, R(13, 17, scale=5)),
    ("round", E.round, R(13, 17, scale=5)),
    ("trunc", E.trunc, R(13, 17, scale=5)),
    ("frac", E.frac, R(13, 17, scale=5)),
    ("logit", E.logit, R(13, 17, lo=0.05, hi=0.95)),
    ("relu", F.relu, X),
    ("gelu", F.gelu, X),
    ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), X),
    ("silu", F.silu, X),
    ("mish", F.mish, X),
    ("softplus", lambda x: F.softplus(x, beta=2.0, threshold=5.0), X),
    ("elu", F.elu, X),
    ("selu", F.selu, X),
    ("celu", lambda x: F.celu(x, 0.7), X),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.1), X),
    ("hardtanh", lambda x: F.hardtanh(x, -0.5, 0.5), X),
    ("hardswish", F.hardswish, R(13, 17, scale=4)),
    ("hardsigmoid", F.hardsigmoid, R(13, 17, scale=4)),
    ("logsigmoid", F.logsigmoid, X),
    ("softsign", F.softsign, X),
    ("tanhshrink", F.tanhshrink, X),
    ("hardshrink", lambda x: F.hardshrink(x, 0.5), X),
    ("softshrink", lambda x: F.softshrink(x, 0.5), X),
    ("threshold", lambda x: F.threshold(x, 0.1, -2.0), X),
    ("relu6", F.relu6, R(13, 17, scale=5)),
]:
    case("unary_" + name, fn, inp)
for name, fn in [("exp", E.exp), ("sin", E.sin), ("sigmoid", E.sigmoid), ("gelu", F.gelu)]:
    case(f"unary_{name}_noncontiguous", lambda x, fn=fn: fn(x.t()), Xnc)
    case(f"unary_{name}_stepped", lambda x, fn=fn: fn(x[:, ::3]), R(13, 51))
case("unary_exp_large_1M", E.exp, R(1 << 20, scale=3, grad=False))
case("unary_nan_to_num", lambda x: E.nan_to_num(x, nan=0.5, posinf=9.0, neginf=-9.0), WITH_NAN(11, 9))
case("unary_isnan_isinf", lambda x: (E.isnan(x), E.isinf(x), E.isfinite(x), E.signbit(x)), WITH_NAN(11, 9))
for dt in (f16, bf16, f64):
    for name, fn in [("exp", E.exp), ("sin", E.sin), ("sqrt", lambda x: E.sqrt(x.abs())), ("tanh", E.tanh)]:
        case(f"unary_{name}_{dt}", fn, R(9, 33, dtype=dt))
case("unary_abs_int32", E.abs, I(100, 9, 7, low=-100, dtype=i32))
case("unary_neg_int64", E.neg, I(100, 9, 7, low=-100))
case("unary_bitwise_not_uint8", E.bitwise_not, I(256, 50, dtype=u8))
case("unary_logical_not", E.logical_not, B(30))
case("cast_f32_to_f16_bf16_i32", lambda x: (x.half(), x.to(bf16), (x * 10).to(i32), x.double()), R(7, 31))
case("cast_int_to_float_bool", lambda n: (n.float(), n.to(bool_), n.to(u8)), I(200, 40, low=-50))
case(
    "zero_size",
    lambda x, w, e: (
        x + 1,
        x.sum(0),
        x.sum(),
        x.amax(1),
        E.cat([x, x]),
        x @ w,
        e.sum(1),
        e.mean(1),
        E.exp(e),
        e.t().contiguous(),
    ),
    R(0, 5),
    R(5, 3),
    R(3, 0),
)
case(
    "scalar_0d", lambda a, b: (a * b, E.exp(a), a.sum(), E.where(a > b, a, b), a + E.ones(3, device=a.device)), R(), R()
)
case("clone_contiguous_expanded", lambda x: x.expand(4, 13, 17).contiguous() * 1, X)

# binary: broadcasting, scalars, type promotion
Y = R(13, 17)
for name, fn, *ins in [
    ("add", E.add, X, Y),
    ("sub", E.sub, X, Y),
    ("mul", E.mul, X, Y),
    ("div", E.div, X, P(13, 17)),
    ("add_alpha", lambda a, b: E.add(a, b, alpha=2.5), X, Y),
    ("sub_alpha", lambda a, b: E.sub(a, b, alpha=0.5), X, Y),
    ("add_broadcast", E.add, R(4, 1, 17), R(13, 1)),
    ("mul_broadcast_row", E.mul, X, R(17)),
    ("div_broadcast_col", E.div, X, P(13, 1)),
    ("pow", E.pow, P(13, 17), R(13, 17)),
    ("pow_scalar", lambda a: E.pow(a, 3), X),
    ("rpow_scalar", lambda a: 2.0**a, X),
    ("atan2", E.atan2, X, Y),
    ("maximum", E.maximum, X, Y),
    ("minimum", E.minimum, X, Y),
    ("fmax_nan", E.fmax, WITH_NAN(11, 9), R(11, 9)),
    ("fmin_nan", E.fmin, WITH_NAN(11, 9), R(11, 9)),
    ("maximum_nan", E.maximum, WITH_NAN(11, 9), R(11, 9)),
    ("remainder", E.remainder, R(13, 17, scale=5), P(13, 17)),
    ("fmod", E.fmod, R(13, 17, scale=5), P(13, 17)),
    ("floor_divide_float", E.floor_divide, R(13, 17, scale=5), P(13, 17)),
    ("hypot", E.hypot, X, Y),
    ("copysign", E.copysign, X, Y),
    ("add_noncontiguous", lambda a, b: a.t() + b, Xnc, Y),
    ("mul_stepped", lambda a, b: a[:, ::2] * b, R(13, 34), Y),
    ("add_scalar_tensor", lambda a, b: a + b, X, R()),
    ("mul_python_scalar", lambda a: a * 2.5 - 1, X),
    ("rsub", lambda a: 3 - a, X),
    ("rdiv", lambda a: 1.5 / a, P(13, 17)),
    ("add_large_broadcast", E.add, R(256, 1, 64, grad=False), R(1, 300, 64, grad=False)),
]:
    case("binary_" + name, fn, *ins)
case("binary_mul_f16", E.mul, R(9, 33, dtype=f16), R(9, 33, dtype=f16))
case("binary_add_bf16", E.add, R(9, 33, dtype=bf16), R(33, dtype=bf16))
case("binary_div_f64", E.div, R(9, 33, dtype=f64), P(9, 33, dtype=f64))
for name, fn in [("eq", E.eq), ("ne", E.ne), ("lt", E.lt), ("le", E.le), ("gt", E.gt), ("ge", E.ge)]:
    case("compare_" + name, fn, R(13, 17, scale=2), R(17, scale=2))
case(
    "compare_int_float_ties",
    lambda a, b: (a == b.float(), a < 1),
    A(lambda r: r.integers(-2, 2, (9, 9)).astype(np.float32)),
    I(2, 9, 9, low=-2),
)
# type promotion: the result dtype must be the same on both devices
case("promote_int32_float32", lambda n, x: n + x, I(50, 9, 7, dtype=i32), R(9, 7))
case("promote_uint8_int8", lambda a, b: a + b, I(100, 30, dtype=u8), I(50, 30, low=-50, dtype=i8))
case("promote_int64_f16", lambda n, x: n * x, I(10, 30), R(30, dtype=f16))
case("promote_bool_int", lambda m, n: m + n, B(30), I(10, 30, dtype=i32))
case("promote_int_true_divide", lambda a, b: a / b, I(100, 30), I(20, 30, low=1))
case("promote_int_tensor_float_scalar", lambda n: n * 2.5, I(100, 30, dtype=i32))
case("promote_f16_f32", lambda a, b: a * b, R(30, dtype=f16), R(30))
case("promote_bf16_f16", lambda a, b: a + b, R(30, dtype=bf16), R(30, dtype=f16))
case(
    "int_floor_divide_remainder",
    lambda a, b: (E.floor_divide(a, b), E.remainder(a, b), E.fmod(a, b)),
    I(100, 40, low=-100),
    A(lambda r: np.where(r.random(40) < 0.5, -1, 1) * r.integers(1, 9, 40), i64),
)
case("int_bitwise", lambda a, b: (a & b, a | b, a ^ b, a << 2, a >> 1), I(1000, 40, dtype=i32), I(1000, 40, dtype=i32))
case("logical_ops", lambda a, b: (E.logical_and(a, b), E.logical_or(a, b), E.logical_xor(a, b)), B(40), B(40))
case("inplace_add_mul", lambda a, b: a.clone().add_(b).mul_(0.5).sub_(a, alpha=0.3), X, Y)
case("binary_lerp_scalar", lambda a, b: E.lerp(a, b, 0.3), X, Y)
case("inplace_clamp", lambda a: (a * 1).clamp_(-0.7, 0.7), X)
case("inplace_int_add", lambda n: n.clone().add_(3).mul_(2), I(100, 40))

# ternary / where / clamp
case("where", E.where, B(13, 17), X, Y)
case("where_broadcast_scalar", lambda c, a: E.where(c, a, 0.0), B(13, 1), X)
case("where_promote", lambda c, n, a: E.where(c, n, a), B(30), I(10, 30), R(30, dtype=f64))
case("clamp", lambda a: E.clamp(a, -0.5, 0.8), X)
case("clamp_tensors", lambda a, lo, hi: E.clamp(a, lo, lo + hi.abs()), X, R(17), R(13, 1))
case("addcmul", lambda a, b, c: E.addcmul(a, b, c, value=0.5), X, Y, R(17))
case("addcdiv", lambda a, b, c: E.addcdiv(a, b, c, value=-2), X, Y, P(13, 17))
case("lerp_tensor", E.lerp, X, Y, R(13, 17, lo=0, hi=1))
case("masked_fill", lambda a, m: a.masked_fill(m, -1.5), X, B(13, 17))
case("masked_fill_inplace_broadcast", lambda a, m: (a * 1).masked_fill_(m, 2.0), X, B(17))

# reductions
Z = R(33, 65, 7)
for name, fn, inp, tol in [
    ("sum_all", E.sum, Z, F32),
    ("sum_dim", lambda x: x.sum(1), Z, F32),
    ("sum_dims_keepdim", lambda x: x.sum((0, 2), keepdim=True), Z, F32),
    ("sum_neg_dim", lambda x: x.sum(-1), Z, F32),
    ("sum_dtype_f64", lambda x: x.sum(1, dtype=f64), Z, F32),
    ("sum_noncontiguous", lambda x: x.permute(2, 0, 1)[:, ::2].sum((1, 2)), Z, F32),
    ("mean_all", E.mean, Z, F32),
    ("mean_dim_keepdim", lambda x: x.mean(0, keepdim=True), Z, F32),
    ("prod_dim", lambda x: x.prod(2), P(33, 65, 7), F32),
    ("prod_all", lambda x: x.prod(), P(23, dtype=f64), F64),
    ("var_dim", lambda x: x.var(1), Z, F32),
    ("var_correction0", lambda x: x.var((0, 1), correction=0), Z, F32),
    ("std_dim_keepdim", lambda x: x.std(0, keepdim=True), Z, F32),
    ("std_mean", lambda x: E.std_mean(x, 1), Z, F32),
    ("var_mean_all", lambda x: E.var_mean(x), Z, F32),
    ("amax_dims", lambda x: x.amax((0, 2)), Z, F32),
    ("amin_dim", lambda x: x.amin(1), Z, F32),
    ("logsumexp_dim", lambda x: E.logsumexp(x, 1), Z, F32),
    ("norm_2", lambda x: E.norm(x), Z, F32),
    ("norm_1_dim", lambda x: E.norm(x, 1, dim=1), Z, F32),
    ("norm_inf", lambda x: E.linalg.vector_norm(x, float("inf"), dim=(0, 2)), Z, F32),
    ("nansum_nanmean", lambda x: (E.nansum(x, 1), E.nanmean(x, 0)), WITH_NAN(21, 9), F32),
    (
        "sum_large_4M",
        lambda x: (x.sum(), x.reshape(1024, 4096).sum(0), x.reshape(1024, 4096).sum(1)),
        R(1 << 22, grad=False),
        F32_LOOSE,
    ),
    ("sum_f16", lambda x: (x.sum(), x.sum(0)), R(300, 40, dtype=f16), F16),
    ("mean_bf16", lambda x: x.mean(1), R(40, 300, dtype=bf16), BF16),
    ("sum_f64", lambda x: x.sum(0), R(40, 300, dtype=f64), F64),
]:
    case("reduce_" + name, fn, inp, tol=tol, gtol=F32_LOOSE if tol is F32 else None)
case(
    "reduce_sum_int_default_dtype",
    lambda n: (n.sum(), n.sum(0), n.to(i32).sum(1), n.to(u8).sum(), n.to(bool_).sum()),
    I(100, 50, 9),
)
case("reduce_prod_int", lambda n: n.prod(0), I(4, 10, 9, low=-3))
case("reduce_all_any", lambda m: (m.all(), m.any(1), m.all(0), E.count_nonzero(m, 1)), B(20, 30, p=0.9))
case("reduce_argmax_argmin", lambda x: (x.argmax(), x.argmax(1), x.argmin(0, keepdim=True)), Z)
case("reduce_max_min_dim", lambda x: (*E.max(x, 1), *E.min(x, 0, keepdim=True)), Z)
case("reduce_max_min_all", lambda x: (x.max(), x.min()), Z)
case("reduce_aminmax", lambda x: tuple(E.aminmax(x, dim=1)), Z)
case("reduce_max_nan", lambda x: (x.max(), E.max(x, 1)[0], x.amax(0)), WITH_NAN(21, 9))
case("reduce_max_int", lambda n: (n.max(), *E.max(n, 0)), I(1000, 30, 7, dtype=i32))
case("reduce_mode", lambda n: E.mode(n, 1)[0], I(4, 10, 31))

# indexing
case("index_basic_slices", lambda x: (x[2:9:3], x[:, -5:], x[4], x[..., 1], x[None, 1:3, ::4]), X)
case("index_int_tensor", lambda x, i: x[i], X, I(13, 20))
case("index_int_tensor_dim1", lambda x, i: x[:, i], X, I(17, 4, 5))
case("index_two_tensors", lambda x, i, j: x[i, j], X, I(13, 30), I(17, 30))
case("index_bool_mask", lambda x, m: x[m], X, B(13, 17))
case("index_bool_mask_rows", lambda x, m: x[m], X, B(13))
case("index_negative", lambda x, i: x[i - 13], X, I(13, 10))
case("index_select", lambda x, i: (E.index_select(x, 0, i), x.index_select(1, i)), X, I(13, 25))
case("gather", lambda x, i: E.gather(x, 1, i), X, I(17, 13, 40))
case("take", E.take, X, I(13 * 17, 50))
case("take_along_dim", lambda x, i: E.take_along_dim(x, i, 0), X, I(13, 5, 17))
case("scatter_distinct", lambda x, s, i: x.scatter(0, i.reshape(13, 1).expand(13, 17), s), X, Y, PERM(13))
case("scatter_value", lambda x, i: x.scatter(1, i.reshape(1, 6).expand(13, 6), 7.0), X, PERM(17, 6))
case(
    "scatter_add",
    lambda x, s, i: x.scatter_add(1, i, s),
    R(13, 5),
    R(13, 40),
    I(5, 13, 40),
    gtol=F32_LOOSE,
    tol=F32_LOOSE,
)
case(
    "scatter_reduce_sum",
    lambda x, s, i: x.scatter_reduce(0, i, s, "sum"),
    R(5, 17),
    R(40, 17),
    I(5, 40, 17),
    tol=F32_LOOSE,
    gtol=F32_LOOSE,
)
case(
    "scatter_reduce_amax",
    lambda x, s, i: x.scatter_reduce(0, i, s, "amax", include_self=False),
    R(5, 17, grad=False),
    R(40, 17, grad=False),
    I(5, 40, 17),
)
case(
    "scatter_reduce_mean",
    lambda x, s, i: x.scatter_reduce(0, i, s, "mean"),
    R(5, 17, grad=False),
    R(40, 17, grad=False),
    I(5, 40, 17),
    tol=F32_LOOSE,
)
case(
    "index_add",
    lambda x, s, i: x.index_add(0, i, s, alpha=2.0),
    R(5, 17),
    R(40, 17),
    I(5, 40),
    tol=F32_LOOSE,
    gtol=F32_LOOSE,
)
case("index_copy_distinct", lambda x, s, i: x.index_copy(1, i, s), X, R(13, 6), PERM(17, 6))
case("index_fill", lambda x, i: x.index_fill(1, i, -3.0), X, I(17, 5))
case(
    "index_put_accumulate",
    lambda x, v, i: E.index_put(x, (i,), v, accumulate=True),
    R(9, 4),
    R(30, 4),
    I(9, 30),
    tol=F32_LOOSE,
    gtol=F32_LOOSE,
)
case("index_put_distinct", lambda x, v, i: E.index_put(x, (i,), v), R(9, 4), R(5, 4), PERM(9, 5))
case("setitem_slice_and_mask", lambda x, m: _setitem(x, m), X, B(13, 17))
case("masked_select", E.masked_select, X, B(13, 17))
case("masked_scatter", lambda x, m, s: x.masked_scatter(m, s), X, B(13, 17), R(13 * 17))
case("nonzero_argwhere", lambda m: (E.nonzero(m), E.argwhere(m), m.nonzero(as_tuple=True)[1]), B(9, 8, 7))
case("embedding", lambda w, i: F.embedding(i, w), R(50, 16), I(50, 7, 9), gtol=F32_LOOSE)
case("embedding_padding_idx", lambda w, i: F.embedding(i, w, padding_idx=3), R(10, 8), I(10, 30), gtol=F32_LOOSE)
case("one_hot", lambda i: F.one_hot(i, 12), I(12, 5, 6))
case("bincount_histc", lambda n, x: (E.bincount(n), E.histc(x, 10, -2, 2)), I(20, 300), R(500, grad=False))
case(
    "histogram",
    lambda x, w: (*E.histogram(x, 7, weight=w, density=True), E.histogram(x, 4, range=(-1.0, 1.0)).hist),
    R(300, grad=False),
    R(300, grad=False, lo=0.1, hi=2.0),
    tol=F32_LOOSE,
)
case(
    "histogramdd",
    lambda x, e: (E.histogramdd(x, [3, 4]).hist, E.histogramdd(x, [e.sort().values] * 2).hist),
    R(200, 2, grad=False),
    R(5, grad=False),
    tol=F32_LOOSE,
)
case("angle_isreal", lambda x: (E.angle(x), E.isreal(x)), R(40, grad=False))


def _setitem(x, m):
    y = x * 1
    y[2:5, ::3] = 0.25
    y[m] = -1.0
    y[0] = y[1] * 2
    return y


# shape ops
case("cat", lambda a, b, c: (E.cat([a, b, c]), E.cat([a.t(), b.t()], 1)), R(3, 17), R(5, 17), R(1, 17))
case("cat_dtypes", lambda a, n: E.cat([a, n.float()], 1), R(4, 5), I(9, 4, 3))
case("stack", lambda a, b: (E.stack([a, b]), E.stack([a, b], 2)), X, Y)
case("reshape_view", lambda x: (x.reshape(17, 13), x.view(-1), x.t().reshape(-1), x.unflatten(1, (1, 17))), X)
case("permute_contiguous", lambda x: x.permute(2, 0, 1).contiguous(), Z)
case("transpose_movedim", lambda x: (x.transpose(0, 2), E.movedim(x, 0, -1)), Z)
case("expand_mul", lambda x: x.expand(5, 13, 17) * 1.5, R(1, 17))
case("flip_roll", lambda x: (E.flip(x, (0, 1)), E.roll(x, 3, 1), E.roll(x, (-2, 5), (0, 1))), X)
case("repeat_tile", lambda x: (x.repeat(2, 1, 3), E.tile(x, (2,))), X)
case("repeat_interleave", lambda x: E.repeat_interleave(x, 3, dim=0), X)
case("tril_triu", lambda x: (E.tril(x, -1), E.triu(x, 2)), X)
case("narrow_chunk_split", lambda x: (x.narrow(1, 3, 6), *E.chunk(x, 3, 1), *E.split(x, [4, 9], 0)), X)
case("unbind_select", lambda x: (*E.unbind(x[:4], 0), x.select(1, 5)), X)
case("squeeze_unsqueeze", lambda x: (x.unsqueeze(1).squeeze(), x[:, None, :, None].squeeze(1)), X)
case("diagonal", lambda x: (E.diagonal(x), E.diagonal(x, 2), x.diagonal(-3)), X)
# searchsorted/bucketize/isin (one binary-search kernel) and the shape_more/stats compositions
SORTED = A(lambda r: np.sort(r.integers(-20, 20, 40)).astype(np.float32))  # ties on purpose
case(
    "searchsorted_1d",
    lambda s, v: (E.searchsorted(s, v), E.searchsorted(s, v, right=True, out_int32=True)),
    SORTED,
    R(7, 9, scale=15, grad=False),
)
case(
    "searchsorted_batched",
    lambda s, v: (E.searchsorted(s, v), E.searchsorted(s, v.t().contiguous().t(), side="right")),
    A(lambda r: np.sort(r.standard_normal((6, 33)), -1).astype(np.float32)),
    R(6, 20, grad=False),
)
case(
    "searchsorted_sorter_nan",
    lambda s, v: E.searchsorted(s, v, sorter=E.argsort(s)),
    A(lambda r: r.permutation(50).astype(np.float64)),
    A(lambda r: np.r_[r.uniform(-5, 55, 30), np.nan], f64),
)
for _dt in (i64, i32, u8, f16, bf16, f64):
    case(
        f"searchsorted_{_dt}".replace("ember.", ""),
        lambda s, v: E.searchsorted(s, v),
        A(lambda r: np.sort(r.integers(0, 100, 64)).astype(np.float32), _dt),
        A(lambda r: r.integers(0, 105, (3, 50)).astype(np.float32), _dt),
    )
case(
    "bucketize",
    lambda b, x: (E.bucketize(x, b), E.bucketize(x, b, right=True, out_int32=True)),
    SORTED,
    R(5, 30, scale=20, grad=False),
)
case(
    "isin",
    lambda e, t: (E.isin(e, t), E.isin(e, t[:3], invert=True), E.isin(e.float(), t.float())),
    I(40, 9, 13),
    I(40, 25),
)
case(
    "diag_family",
    lambda x, v: (E.diag(v, 2), E.diag(x, -1), E.diag_embed(x[:3], 1), E.diagflat(x[:2, :3]), E.trace(x)),
    X,
    R(6),
)
case("fill_diagonal", lambda x: (x * 1).fill_diagonal_(3.0, wrap=True), R(17, 4))
case(
    "tri_indices",
    lambda x: (E.tril_indices(5, 7, 1, device=x.device), E.triu_indices(6, 4, -1, device=x.device)),
    R(1, grad=False),
)
case(
    "scatter_views",
    lambda x, s: (
        E.diagonal_scatter(x, s[:13], 0),
        E.select_scatter(x, s, 0, 3),
        E.slice_scatter(x, x[:, :3] * 2, 1, 2, 8, 2),
        E.as_strided_scatter(x, s[:4].reshape(2, 2), (2, 2), (1, 3), 5),
    ),
    X,
    R(17),
)
case(
    "cross_kron_rot90",
    lambda a, b: (
        E.cross(a, b),
        E.linalg.cross(a.t(), b.t(), dim=0),
        E.kron(a[:2], b[:3]),
        E.rot90(a, 1),
        E.rot90(a, -2, (1, 0)),
    ),
    R(5, 3),
    R(5, 3),
)
case(
    "block_cartesian_combinations",
    lambda a, b: (E.block_diag(a, b, a[0]), E.cartesian_prod(a[0], b[:, 0]), E.combinations(b[:, 0], 2)),
    R(2, 3),
    R(4, 2),
)
case(
    "splits_stacks",
    lambda x: (
        *E.tensor_split(x, 4, 1),
        *E.hsplit(x, [2, 5]),
        *E.vsplit(x[:12], 3),
        E.dstack([x, x]),
        E.column_stack([x[:, 0], x]),
        E.ravel(x.t()),
    ),
    X,
)
case(
    "diff_renorm_dist",
    lambda x, y: (E.diff(x, 2, 0), E.diff(x, prepend=y[:, :2]), E.renorm(x, 2, 1, 1.5), E.dist(x, y, 3)),
    X,
    Y,
    gtol=F32_LOOSE,
)
case(
    "cov_corrcoef",
    lambda x, w: (E.cov(x), E.cov(x, aweights=w), E.corrcoef(x)),
    R(4, 30),
    P(30, grad=False),
    tol=F32_LOOSE,
    gtol=F32_LOOSE,
)
case(
    "vander_trapezoid",
    lambda x, y: (
        E.vander(x[:5], 4),
        E.linalg.vander(x[:6].reshape(2, 3)),
        E.trapezoid(y),
        E.trapezoid(y, x[:17], dim=1),
        E.cumulative_trapezoid(y, dx=0.5),
    ),
    R(17),
    X,
)
case(
    "quantile",
    lambda x: (
        E.quantile(x, 0.3),
        E.quantile(x, E.tensor([0.1, 0.5, 0.9], device=x.device), dim=1),
        E.nanquantile(x, 0.7, 0, keepdim=True, interpolation="nearest"),
        E.quantile(x, 0.25, 1, interpolation="midpoint"),
    ),
    X,
)
case(
    "index_reduce",
    lambda x, s, i: (x.index_reduce(0, i, s, "amax"), x.index_reduce(0, i, s, "mean", include_self=False)),
    R(5, 17, grad=False),
    R(40, 17, grad=False),
    I(5, 40),
    tol=F32_LOOSE,
)
case(
    "copies_fill_resize",
    lambda x, v: (
        E.atleast_3d(x),
        *E.dsplit(x.reshape(13, 1, 17), [5]),
        E.narrow_copy(x, 1, 2, 9),
        E.view_copy(x, (17, 13)),
        E.t_copy(x),
        E.fill(x, v),
        x.clamp_min(v),
        E.cumulative_trapezoid(x, x[0].cumsum(0)),
        x.detach().clone().resize_(20, 3),
    ),
    X,
    R(grad=True),
)
case(
    "put_inplace_shape",
    lambda x, v, i: (E.put(x, i, v, accumulate=True), (x * 1).t_(), (x * 1).unsqueeze_(1)),
    X,
    R(20),
    I(13 * 17, 20),
    tol=F32_LOOSE,
    gtol=F32_LOOSE,
)
case("pad_constant", lambda x: F.pad(x, (1, 2, 3, 0), value=0.5), R(2, 3, 5, 6))
case("pad_reflect", lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"), R(2, 3, 5, 6))
case("pad_replicate", lambda x: F.pad(x, (2, 1, 1, 2), mode="replicate"), R(2, 3, 5, 6))
case("pad_circular", lambda x: F.pad(x, (2, 1), mode="circular"), R(2, 3, 6))
case("pixel_shuffle", lambda x: (F.pixel_shuffle(x, 2), F.pixel_unshuffle(x, 2)), R(2, 8, 4, 6))
case("as_strided", lambda x: E.as_strided(x, (4, 5), (3, 1), 2), R(30))
case("broadcast_to_contiguous", lambda x: E.broadcast_to(x, (3, 13, 17)).contiguous(), X)
case(
    "fill_zero_copy",
    lambda x: (E.zeros_like(x), E.ones_like(x) * 2, E.full_like(x, 3.5), E.empty_like(x).fill_(1.0)),
    R(13, 17, grad=False),
)
case(
    "arange_linspace",
    lambda x: (
        E.arange(0, 10, 0.5, device=x.device),
        E.linspace(-1, 1, 33, device=x.device),
        E.arange(50, device=x.device),
        E.eye(5, 7, device=x.device),
    ),
    R(1, grad=False),
)

# sort family
case("sort", lambda x: tuple(E.sort(x, 1)), X)
case("sort_descending_dim0", lambda x: tuple(E.sort(x, 0, descending=True)), X)
case("sort_long_rows", lambda x: tuple(E.sort(x, -1)), R(4, 5000))
case("sort_stable_ties", lambda n: tuple(E.sort(n, 1, stable=True)), I(5, 7, 300))
case("sort_int", lambda n: E.sort(n, 1)[0], I(1000, 7, 100, low=-1000, dtype=i32))
case("argsort", lambda x: E.argsort(x, 0, descending=True), X)
case("msort", E.msort, X)
case("topk", lambda x: tuple(E.topk(x, 5, 1)), X)
case("topk_smallest_unsorted_values", lambda x: E.sort(E.topk(x, 4, 0, largest=False)[0], 0)[0], X)
case("topk_large", lambda x: tuple(E.topk(x, 10)), R(3, 20000))
case("kthvalue", lambda x: tuple(E.kthvalue(x, 4, 1)), X)
case("median_all_dim", lambda x: (E.median(x), *E.median(x, 0)), X)
case("nanmedian", lambda x: E.nanmedian(x, 1)[0], WITH_NAN(9, 21))
case("unique", lambda n: tuple(E.unique(n, return_inverse=True, return_counts=True)), I(20, 300, low=-20))
case("unique_consecutive", lambda n: tuple(E.unique_consecutive(n, return_counts=True)), I(3, 200))
case("unique_float_nan", lambda x: E.unique(x), A(lambda r: r.integers(0, 5, 100).astype(np.float32)))

# cumulative
case("cumsum", lambda x: (E.cumsum(x, 1), x.cumsum(0)), X)
case("cumsum_long", lambda x: E.cumsum(x, 0), R(100000, grad=False), tol=F32_LOOSE)
case("cumsum_int", lambda n: (E.cumsum(n, 0), E.cumsum(n.to(i32), 1)), I(100, 30, 40))
case("cumprod", lambda x: E.cumprod(x, 1), P(13, 17))
case("cummax_cummin", lambda x: (*E.cummax(x, 1), *E.cummin(x, 0)), X)
case("logcumsumexp", lambda x: E.logcumsumexp(x, 1), X)

# matmul family (TF32 off: float32 tolerance)
case("mm", E.mm, R(33, 65), R(65, 17))
case("mm_transposed_operands", lambda a, b: E.mm(a.t(), b.t()), R(65, 33), R(17, 65))
case("matmul_batched_broadcast", E.matmul, R(3, 1, 9, 33), R(4, 33, 7))
case("matmul_vector", lambda a, v: (E.matmul(a, v), E.matmul(v[:13], a)), X, R(17))
case("bmm", E.bmm, R(6, 9, 33), R(6, 33, 12))
case("mv_dot_outer", lambda a, v, w: (E.mv(a, v), E.dot(v, v), E.outer(w, v)), X, R(17), R(13))
case("addmm", lambda c, a, b: E.addmm(c, a, b, beta=0.5, alpha=2.0), R(33, 17), R(33, 65), R(65, 17))
case("baddbmm", lambda c, a, b: E.baddbmm(c, a, b, alpha=0.5), R(4, 9, 12), R(4, 9, 33), R(4, 33, 12))
case("linear", lambda x, w, b: F.linear(x, w, b), R(5, 7, 33), R(19, 33), R(19))
case("linear_no_bias_large", lambda x, w: F.linear(x, w), R(256, 512), R(384, 512), gtol=F32_LOOSE)
case("einsum_bmm", lambda a, b: E.einsum("bij,bjk->bik", a, b), R(4, 9, 33), R(4, 33, 12))
case("einsum_trace_transpose", lambda a, b: (E.einsum("ii->i", a), E.einsum("ij,kj->ik", a, b)), R(9, 9), R(5, 9))
case("tensordot", lambda a, b: E.tensordot(a, b, dims=([1, 2], [0, 1])), R(5, 6, 7), R(6, 7, 8))
case("matmul_f64", E.matmul, R(33, 65, dtype=f64), R(65, 17, dtype=f64))
case("matmul_f16", E.matmul, R(64, 128, dtype=f16), R(128, 48, dtype=f16), tol=F16_MM, gtol=F16_MM)
case("matmul_bf16", E.matmul, R(64, 128, dtype=bf16), R(128, 48, dtype=bf16), tol=BF16_MM, gtol=BF16_MM)
case("matmul_tf32", lambda a, b: _tf32(E.matmul, a, b), R(256, 512), R(512, 128), tol=TF32, gtol=TF32)
case(
    "linear_f16",
    lambda x, w, b: F.linear(x, w, b),
    R(32, 64, dtype=f16),
    R(48, 64, dtype=f16),
    R(48, dtype=f16),
    tol=F16_MM,
    gtol=F16_MM,
)
# the bias added by cuBLASLt's epilogue (beta 1, a bias vector): plain, offset (misaligned) views, a transposed input
case("addmm_bias_vector", lambda c, a, b: E.addmm(c, a, b, alpha=2.0), R(17), R(33, 65), R(65, 17))
case("linear_bias_offset_views", lambda x, w, b: F.linear(x[:, 1:], w[:, 1:], b[1:]), R(40, 34), R(20, 34), R(21))
case("linear_bias_transposed_input", lambda x, w, b: F.linear(x.t(), w, b), R(33, 40), R(19, 33), R(19))
case(
    "linear_bf16",
    lambda x, w, b: F.linear(x, w, b),
    R(4, 8, 64, dtype=bf16),
    R(48, 64, dtype=bf16),
    R(48, dtype=bf16),
    tol=BF16_MM,
    gtol=BF16_MM,
)


def _tf32(fn, *args):
    backends = getattr(ember, "backends", None)
    if backends is None:
        pytest.skip("ember.backends (allow_tf32) is not there yet")
    before = backends.cuda.matmul.allow_tf32
    backends.cuda.matmul.allow_tf32 = True
    try:
        return fn(*args)
    finally:
        backends.cuda.matmul.allow_tf32 = before


# linear algebra (compared through what is unique)
def _qr(a):
    q, r = E.linalg.qr(a)
    s = E.sign(E.diagonal(r, 0, -2, -1)).unsqueeze(-2)
    return q * s, r * s.transpose(-2, -1)


def _svd(a):
    u, s, vh = E.linalg.svd(a, full_matrices=False)
    return s, (u * s.unsqueeze(-2)) @ vh


def _eigh(a):
    w, v = E.linalg.eigh(a)
    return w, (v * w.unsqueeze(-2)) @ v.transpose(-2, -1)


case("linalg_solve", E.linalg.solve, WELL(3, 8, 8), R(3, 8, 4), tol=LINALG, gtol=LINALG)
case("linalg_cholesky", E.linalg.cholesky, SPD(9, (2,)), tol=LINALG, gtol=LINALG)
case("linalg_qr", _qr, R(12, 7), tol=LINALG, gtol=LINALG)
case("linalg_svd", _svd, R(2, 10, 6), tol=LINALG, gtol=LINALG)
case("linalg_eigh", _eigh, SPD(8), tol=LINALG, gtol=LINALG)
case("linalg_lstsq", lambda a, b: E.linalg.lstsq(a, b).solution, R(20, 6), R(20, 3), tol=LINALG, gtol=LINALG)
case(
    "linalg_inv_det_slogdet",
    lambda a: (E.linalg.inv(a), E.linalg.det(a), *E.linalg.slogdet(a)),
    WELL(2, 6, 6),
    tol=LINALG,
    gtol=LINALG,
)
case(
    "linalg_solve_triangular",
    lambda a, b: E.linalg.solve_triangular(E.tril(a), b, upper=False),
    WELL(7, 7),
    R(7, 3),
    tol=LINALG,
    gtol=LINALG,
)
case(
    "linalg_pinv_norms",
    lambda a: (E.linalg.pinv(a), E.linalg.matrix_norm(a), E.linalg.svdvals(a)),
    R(9, 5),
    tol=LINALG,
    gtol=LINALG,
)
case("linalg_solve_f64", E.linalg.solve, WELL(8, 8, dtype=f64), R(8, 2, dtype=f64))


# the LU family, the *_ex forms, the Cholesky helpers and the composed matrix functions (ops/lapack_more.cpp)
def _plu(a):
    P, L, U = E.linalg.lu(a)
    return P @ L @ U, L @ U


def _lu_solves(a, b, c):
    LU, piv = E.linalg.lu_factor(a)
    return (
        E.linalg.lu_solve(LU, piv, b),
        E.linalg.lu_solve(LU, piv, c, left=False, adjoint=True),
        E.lu_solve(b, *E.lu(a)),
    )


def _unpacked(a):
    P, L, U = E.lu_unpack(*E.linalg.lu_factor_ex(a)[:2])
    return P @ L @ U


def _ex_forms(a, b):
    inv, i1 = E.linalg.inv_ex(a)
    x, i2 = E.linalg.solve_ex(a, b)
    L, i3 = E.linalg.cholesky_ex(a @ a.transpose(-2, -1))
    return inv, x, L, (i1 + i2 + i3).float()


def _chol_helpers(a, b):
    L = E.linalg.cholesky(a)
    U = E.linalg.cholesky(a, upper=True)
    return (
        E.cholesky_solve(b, L),
        E.cholesky_solve(b, U, upper=True),
        E.cholesky_inverse(L),
        E.cholesky_inverse(U, upper=True),
    )


def _householder(a):
    qa, tau = E.geqrf(a)
    q = E.linalg.householder_product(qa, tau)
    return qa, tau, q


case("linalg_lu", _plu, R(2, 6, 6), tol=LINALG, gtol=LINALG)
case("linalg_lu_wide_tall", lambda a, b: (*_plu(a), *_plu(b)), R(4, 7), R(7, 4), tol=LINALG, gtol=LINALG)
case("linalg_lu_unpack", _unpacked, R(3, 5, 5), tol=LINALG, gtol=LINALG)
case("linalg_lu_solve", _lu_solves, WELL(2, 5, 5), R(5, 3), R(2, 3, 5), tol=LINALG, gtol=LINALG)
case("linalg_ex_forms", _ex_forms, WELL(3, 5, 5), R(3, 5, 2), tol=LINALG, gtol=LINALG)
case(
    "linalg_ex_singular",
    lambda a: (
        E.linalg.lu_factor_ex(a * 0)[2].float(),
        E.linalg.inv_ex(a * 0)[1].float(),
        E.linalg.cholesky_ex(-a)[1].float(),
    ),
    WELL(2, 3, 3, grad=False),
)
case("cholesky_solve_inverse", _chol_helpers, SPD(5, (2,)), R(5, 3), tol=LINALG, gtol=LINALG)
case(
    "triangular_solve",
    lambda b, a: E.triangular_solve(b, a, upper=False, transpose=True)[0],
    R(2, 6, 3),
    WELL(6, 6),
    tol=LINALG,
    gtol=LINALG,
)
case("matrix_exp", lambda a: (E.linalg.matrix_exp(a), E.matrix_exp(3 * a[0])), R(2, 5, 5), tol=LINALG, gtol=LINALG)
case(
    "linalg_cond_rank",
    lambda a: (
        E.linalg.cond(a),
        E.linalg.cond(a, "fro"),
        E.linalg.cond(a, 1),
        E.linalg.cond(a, "nuc"),
        E.linalg.matrix_rank(a).float(),
    ),
    WELL(3, 4, 4),
    tol=LINALG,
    gtol=LINALG,
)
case(
    "linalg_tensorinv_tensorsolve",
    lambda a, b: (E.linalg.tensorinv(a.reshape(2, 3, 6)), E.linalg.tensorsolve(a.reshape(2, 3, 6), b)),
    WELL(6, 6),
    R(2, 3),
    tol=LINALG,
    gtol=LINALG,
)
case("geqrf_householder_product", _householder, R(2, 7, 4, grad=False), tol=LINALG)


# sytrf's pivots may differ between LAPACK and cuSOLVER in near ties: compare the solution and info only
# sytrf's pivots may differ between LAPACK and cuSOLVER in near ties: compare the solutions and info only. A zero
# diagonal block forces 2x2 pivots; [[0, W], [W^T, 0]] has W's singular values (+-): well conditioned.
def _ldl(w, b):
    z = E.zeros_like(w)
    a = E.cat([E.cat([z, w], -1), E.cat([w.transpose(-2, -1), z], -1)], -2)
    LD, piv, info = E.linalg.ldl_factor_ex(a)
    LD1, piv1 = E.linalg.ldl_factor(a[0] + 4 * E.eye(6, device=a.device))
    return E.linalg.ldl_solve(LD, piv, b), E.linalg.ldl_solve(LD1, piv1, b[0]), info.float()


case("linalg_ldl", _ldl, WELL(2, 3, 3, grad=False), R(2, 6, 3, grad=False), tol=LINALG)
case("householder_product_grad", lambda a: E.orgqr(a, E.geqrf(a.detach())[1]), R(6, 4), tol=LINALG, gtol=LINALG)

# convolution (cudnn TF32 on by default: TF32 tolerance for float32)
for name, fn, ins in [
    ("conv1d_stride_pad", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=3), [R(4, 6, 40), R(8, 6, 5), R(8)]),
    ("conv2d", lambda x, w, b: F.conv2d(x, w, b, padding=1), [R(2, 8, 12, 12), R(16, 8, 3, 3), R(16)]),
    ("conv2d_stride_nobias", lambda x, w: F.conv2d(x, w, stride=2), [R(3, 4, 15, 13), R(6, 4, 3, 3)]),
    ("conv2d_groups", lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=4), [R(2, 8, 10, 10), R(12, 2, 3, 3), R(12)]),
    ("conv2d_depthwise", lambda x, w: F.conv2d(x, w, padding=2, groups=8), [R(2, 8, 10, 10), R(8, 1, 5, 5)]),
    ("conv2d_dilation", lambda x, w: F.conv2d(x, w, padding=2, dilation=2), [R(2, 4, 11, 11), R(5, 4, 3, 3)]),
    ("conv2d_1x1_noncontiguous", lambda x, w: F.conv2d(x.permute(0, 3, 1, 2), w), [R(2, 9, 9, 16), R(32, 16, 1, 1)]),
    ("conv2d_padding_same", lambda x, w: F.conv2d(x, w, padding="same"), [R(2, 3, 9, 8), R(4, 3, 4, 3)]),
    (
        "conv3d",
        lambda x, w, b: F.conv3d(x, w, b, padding=1, stride=(1, 2, 1)),
        [R(2, 3, 6, 8, 7), R(4, 3, 3, 3, 3), R(4)],
    ),
    (
        "conv_transpose1d",
        lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1),
        [R(2, 6, 11), R(6, 4, 4), R(4)],
    ),
    (
        "conv_transpose2d",
        lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1),
        [R(2, 8, 7, 6), R(8, 5, 3, 3), R(5)],
    ),
    (
        "conv_transpose2d_groups_dilation",
        lambda x, w: F.conv_transpose2d(x, w, groups=2, dilation=2, output_padding=1, stride=2),
        [R(2, 4, 6, 5), R(4, 3, 3, 3)],
    ),
    ("conv_transpose3d", lambda x, w: F.conv_transpose3d(x, w, stride=2), [R(1, 4, 3, 4, 5), R(4, 2, 2, 3, 2)]),
]:
    case(name, fn, *ins, tol=TF32, gtol=TF32)
case(
    "conv2d_f64",
    lambda x, w, b: F.conv2d(x, w, b, padding=1, groups=2),
    R(2, 4, 7, 7, dtype=f64),
    R(6, 2, 3, 3, dtype=f64),
    R(6, dtype=f64),
)
case(
    "conv2d_f16",
    lambda x, w: F.conv2d(x, w, padding=1),
    R(2, 16, 10, 10, dtype=f16),
    R(16, 16, 3, 3, dtype=f16),
    tol=F16_MM,
    gtol=F16_MM,
)
case(
    "conv2d_bf16",
    lambda x, w: F.conv2d(x, w, padding=1),
    R(2, 16, 10, 10, dtype=bf16),
    R(16, 16, 3, 3, dtype=bf16),
    tol=BF16_MM,
    gtol=BF16_MM,
)

# pooling
case("max_pool2d_indices", lambda x: F.max_pool2d(x, 3, 2, 1, return_indices=True), R(2, 3, 11, 10))
case("max_pool2d_dilation_ceil", lambda x: F.max_pool2d(x, 2, 2, dilation=2, ceil_mode=True), R(2, 3, 11, 10))
case("max_pool1d_indices", lambda x: F.max_pool1d(x, 4, 3, return_indices=True), R(2, 5, 30))
case("max_pool3d", lambda x: F.max_pool3d(x, 2, return_indices=True), R(2, 2, 6, 6, 5))
case("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1), R(2, 3, 11, 10))
case(
    "avg_pool2d_exclude_pad_ceil",
    lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    R(2, 3, 11, 10),
)
case("avg_pool1d_3d", lambda x, y: (F.avg_pool1d(x, 3), F.avg_pool3d(y, 2, 1)), R(2, 4, 20), R(1, 2, 5, 6, 4))
case(
    "adaptive_avg_pool",
    lambda x: (F.adaptive_avg_pool2d(x, (4, 3)), F.adaptive_avg_pool2d(x, 1), F.adaptive_avg_pool1d(x.flatten(2), 7)),
    R(2, 3, 11, 10),
)
case("adaptive_max_pool2d_indices", lambda x: F.adaptive_max_pool2d(x, (3, 4), return_indices=True), R(2, 3, 11, 10))
case("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), R(1, 2, 5, 6, 7))
case("max_unpool2d", lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2), R(2, 3, 8, 6))
case(
    "adaptive_max_pool1d_3d_indices",
    lambda x, y: (
        F.adaptive_max_pool1d(x, 7, return_indices=True),
        F.adaptive_max_pool3d(y, (2, 3, 2), return_indices=True),
    ),
    R(2, 3, 20),
    R(1, 2, 5, 6, 7),
)
case(
    "max_unpool1d_3d",
    lambda x, y: (
        F.max_unpool1d(*F.max_pool1d(x, 3, return_indices=True), 3, output_size=[20]),
        F.max_unpool3d(*F.max_pool3d(y, 2, return_indices=True), 2),
    ),
    R(2, 3, 20),
    R(1, 2, 4, 6, 4),
)
case(
    "lp_pool1d_2d",
    lambda x, y: (F.lp_pool1d(x, 2.0, 3, 2), F.lp_pool2d(y, 3.0, (2, 3), ceil_mode=True)),
    R(2, 3, 20, lo=0.1, hi=2),
    R(2, 3, 7, 8, lo=0.1, hi=2),
)
case("channel_shuffle", lambda x: E.channel_shuffle(x, 3) * 2, R(2, 6, 5, 4))
case(
    "fractional_max_pool2d_3d",
    lambda x, s, y, s3: (
        F.fractional_max_pool2d(x, (3, 2), output_size=(4, 5), return_indices=True, _random_samples=s),
        F.fractional_max_pool3d(y, 2, output_size=(3, 2, 3), return_indices=True, _random_samples=s3),
    ),
    R(2, 3, 9, 11),
    A(lambda r: r.random((2, 3, 2)).astype(np.float32)),
    R(1, 2, 6, 5, 7),
    A(lambda r: r.random((1, 2, 3)).astype(np.float32)),
)
case("rrelu_eval_softmax2d", lambda x: (F.rrelu(x, 0.1, 0.3, training=False), E.nn.Softmax2d()(x)), R(2, 3, 5, 4))

# normalization
case(
    "batch_norm_train",
    lambda x, w, b, rm, rv: (F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2), rm, rv),
    R(8, 5, 6, 7),
    R(5),
    R(5),
    R(5, grad=False),
    P(5, grad=False),
    gtol=F32_LOOSE,
)
case(
    "batch_norm_eval",
    lambda x, w, b, rm, rv: F.batch_norm(x, rm, rv, w, b, training=False),
    R(8, 5, 6, 7),
    R(5),
    R(5),
    R(5, grad=False),
    P(5, grad=False),
    gtol=F32_LOOSE,
)
case(
    "batch_norm_1d",
    lambda x, rm, rv: (F.batch_norm(x, rm, rv, training=True), rm, rv),
    R(32, 10),
    R(10, grad=False),
    P(10, grad=False),
    gtol=F32_LOOSE,
)
case("layer_norm", lambda x, w, b: F.layer_norm(x, (33,), w, b), R(4, 9, 33), R(33), R(33), gtol=F32_LOOSE)
case("layer_norm_2d_no_affine", lambda x: F.layer_norm(x, (9, 33)), R(4, 9, 33), gtol=F32_LOOSE)
case("layer_norm_wide", lambda x, w, b: F.layer_norm(x, (1024,), w, b), R(64, 1024), R(1024), R(1024), gtol=F32_LOOSE)
case(
    "layer_norm_f16",
    lambda x, w, b: F.layer_norm(x, (64,), w, b),
    R(8, 64, dtype=f16),
    R(64, dtype=f16),
    R(64, dtype=f16),
)
case("group_norm", lambda x, w, b: F.group_norm(x, 4, w, b), R(3, 8, 5, 6), R(8), R(8), gtol=F32_LOOSE)
case("instance_norm", lambda x: F.instance_norm(x), R(3, 4, 7, 6), gtol=F32_LOOSE)
case("local_response_norm", lambda x: F.local_response_norm(x, 3), R(2, 6, 5, 5))
case("normalize", lambda x: F.normalize(x, dim=1), X)

# softmax
case("softmax_last", lambda x: F.softmax(x, -1), R(13, 333))
case("softmax_dim0", lambda x: F.softmax(x, 0), X)
case("log_softmax", lambda x: F.log_softmax(x, 1), R(7, 1000, scale=5))
case("softmax_noncontiguous_dim", lambda x: F.softmax(x, 1), R(4, 50, 6))
case("softmax_wide_f32", lambda x: F.log_softmax(x, -1), R(8, 50000, grad=False))
case("softmax_f16", lambda x: F.softmax(x, -1), R(13, 200, dtype=f16))
case("softmax_dtype_arg", lambda x: F.log_softmax(x, -1, dtype=f32), R(13, 200, dtype=f16))
case("softmin", lambda x: F.softmin(x, 1), X)

# losses
LOGITS, TARGET = R(16, 10, scale=2), I(10, 16)
case("cross_entropy", lambda x, t: F.cross_entropy(x, t), LOGITS, TARGET)
case("cross_entropy_ignore_index", lambda x, t: F.cross_entropy(x, t, ignore_index=3), LOGITS, I(5, 16))
case("cross_entropy_label_smoothing", lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1), LOGITS, TARGET)
case(
    "cross_entropy_weight_ignore_smoothing",
    lambda x, t, w: F.cross_entropy(x, t, w, ignore_index=1, label_smoothing=0.2),
    LOGITS,
    I(4, 16),
    P(10, grad=False),
)
case(
    "cross_entropy_none_sum",
    lambda x, t: (F.cross_entropy(x, t, reduction="none"), F.cross_entropy(x, t, reduction="sum")),
    LOGITS,
    TARGET,
)
case("cross_entropy_probabilities", lambda x, p: F.cross_entropy(x, F.softmax(p, 1)), LOGITS, R(16, 10, grad=False))
case("cross_entropy_spatial", lambda x, t: F.cross_entropy(x, t, ignore_index=0), R(2, 5, 6, 7), I(5, 2, 6, 7))
case(
    "cross_entropy_large_vocab",
    lambda x, t: F.cross_entropy(x, t),
    R(64, 32000, grad=True),
    I(32000, 64),
    gtol=F32_LOOSE,
)
case("nll_loss", lambda x, t: F.nll_loss(F.log_softmax(x, 1), t, ignore_index=2), LOGITS, I(10, 16))
case(
    "mse_l1_smooth_huber",
    lambda a, b: (
        F.mse_loss(a, b),
        F.l1_loss(a, b, reduction="sum"),
        F.smooth_l1_loss(a, b, beta=0.5),
        F.huber_loss(a, b, delta=0.7),
    ),
    X,
    Y,
)
case("bce", lambda p, t: F.binary_cross_entropy(p, t), R(13, 17, lo=0.05, hi=0.95), R(13, 17, lo=0, hi=1, grad=False))
case(
    "bce_with_logits_pos_weight",
    lambda x, t, w: F.binary_cross_entropy_with_logits(x, t, pos_weight=w),
    X,
    R(13, 17, lo=0, hi=1, grad=False),
    P(17, grad=False),
)
case("kl_div", lambda x, t: F.kl_div(F.log_softmax(x, 1), F.softmax(t, 1), reduction="batchmean"), LOGITS, R(16, 10))
case(
    "margin_cosine_losses",
    lambda a, b, y: (
        F.margin_ranking_loss(a[:, 0], b[:, 0], y, margin=0.2),
        F.cosine_embedding_loss(a, b, y),
        F.hinge_embedding_loss(a, b.sign()),
    ),
    X,
    Y,
    A(lambda r: np.where(r.random(13) < 0.5, -1.0, 1.0).astype(np.float32)),
)
case(
    "gaussian_poisson_nll",
    lambda a, b, v: (F.gaussian_nll_loss(a, b, v), F.poisson_nll_loss(a, b.abs())),
    X,
    Y,
    P(13, 17),
)
case(
    "multilabel_margin_triplet_distance",
    lambda x, t, a, p, n: (
        F.multilabel_margin_loss(x, t),
        F.triplet_margin_with_distance_loss(a, p, n, swap=True),
        E.nn.TripletMarginWithDistanceLoss(distance_function=E.nn.CosineSimilarity(), margin=0.5)(a, p, n),
    ),
    R(6, 5),
    A(lambda r: np.array([[3, 0, -1, 1, 2]] * 3 + [[1, 2, 3, 4, 0]] * 2 + [[-1, 0, 0, 0, 0]]), i64),
    R(8, 6),
    R(8, 6),
    R(8, 6),
)

# embedding bag, interpolation, unfold/fold, attention
case(
    "embedding_bag_mean",
    lambda w, i, o: F.embedding_bag(i, w, o, mode="mean"),
    R(20, 6),
    I(20, 30),
    A(lambda r: np.array([0, 4, 4, 15, 29]), i64),
    gtol=F32_LOOSE,
)
case("interpolate_nearest", lambda x: F.interpolate(x, size=(9, 13), mode="nearest"), R(2, 3, 5, 6), gtol=F32_LOOSE)
case(
    "interpolate_bilinear",
    lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
    R(2, 3, 5, 6),
    gtol=F32_LOOSE,
)
case(
    "interpolate_bilinear_align",
    lambda x: F.interpolate(x, size=(7, 11), mode="bilinear", align_corners=True),
    R(2, 3, 5, 6),
    gtol=F32_LOOSE,
)
case("interpolate_bicubic", lambda x: F.interpolate(x, size=(8, 9), mode="bicubic"), R(1, 2, 5, 6), gtol=F32_LOOSE)
case(
    "interpolate_linear_trilinear",
    lambda x, y: (F.interpolate(x, size=17, mode="linear"), F.interpolate(y, scale_factor=1.5, mode="trilinear")),
    R(2, 3, 8),
    R(1, 2, 4, 4, 4),
    gtol=F32_LOOSE,
)
case(
    "unfold_fold",
    lambda x: (F.unfold(x, 3, padding=1, stride=2), F.fold(F.unfold(x, 2, stride=2), (8, 10), 2, stride=2)),
    R(2, 3, 8, 10),
)
case(
    "grid_sample_affine_grid",
    lambda x, th: F.grid_sample(x, F.affine_grid(th, (2, 3, 6, 7), align_corners=False), align_corners=False),
    R(2, 3, 5, 6),
    A(lambda r: (np.eye(2, 3) + r.standard_normal((2, 2, 3)) * 0.1).astype(np.float32), grad=True),
    gtol=F32_LOOSE,
)
case("sdpa", lambda q, k, v: F.scaled_dot_product_attention(q, k, v), R(2, 4, 9, 16), R(2, 4, 11, 16), R(2, 4, 11, 16))
case(
    "sdpa_causal",
    lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
    R(2, 3, 10, 8),
    R(2, 3, 10, 8),
    R(2, 3, 10, 8),
)
case(
    "sdpa_mask",
    lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
    R(2, 3, 7, 8),
    R(2, 3, 9, 8),
    R(2, 3, 9, 8),
    B(7, 9, p=0.8),
)
case(
    "cosine_similarity_pairwise",
    lambda a, b: (F.cosine_similarity(a, b), F.pairwise_distance(a, b), E.cdist(a, b)),
    X,
    Y,
    gtol=F32_LOOSE,
)
case("glu_prelu", lambda x, w: (F.glu(x, 1), F.prelu(x.reshape(2, 9, 4), w)), R(2, 36), R(9))
# the gamma reparameterization gradient (series, and Wilson-Hilferty from alpha 1e4: Note [Gamma reparameterization
# gradient]); float32 and float64, broadcast alpha
# gradient]); float32 and float64, broadcast alpha; x within a few standard deviations of alpha, where samples lie
# ember.distributions: compositions of ember ops, on the device of their parameters (validation off: it reads values)
case(
    "distributions_log_prob_entropy_kl",
    lambda m, s, x: (
        Dist.Normal(m, s, validate_args=False).log_prob(x),
        Dist.Laplace(m, s, validate_args=False).cdf(x),
        Dist.Cauchy(m, s, validate_args=False).entropy(),
        Dist.kl_divergence(Dist.Normal(m, s, validate_args=False), Dist.Normal(x, s + 1, validate_args=False)),
    ),
    R(4, 5),
    P(4, 5),
    R(4, 5),
)
case(
    "distributions_gamma_beta_dirichlet",
    lambda a, b, x: (
        Dist.Gamma(a, b, validate_args=False).log_prob(x),
        Dist.Beta(a, b, validate_args=False).entropy(),
        Dist.kl_divergence(Dist.Dirichlet(a, validate_args=False), Dist.Dirichlet(b, validate_args=False)),
        Dist.Poisson(a, validate_args=False).log_prob(E.floor(x * 3)),
    ),
    P(3, 4),
    P(3, 4),
    P(3, 4),
)
case(
    "distributions_mvn_categorical",
    lambda m, L, x, lg: (
        Dist.MultivariateNormal(m, scale_tril=L.tril() + 3 * E.eye(4, device=L.device), validate_args=False).log_prob(
            x
        ),
        Dist.Categorical(logits=lg, validate_args=False).entropy(),
    ),
    R(3, 4),
    R(4, 4, scale=0.3),
    R(3, 4),
    R(3, 6),
)
case(
    "standard_gamma_grad",
    lambda a, r: E._standard_gamma_grad(a, a * r),
    R(9, 11, lo=0.05, hi=30, grad=False),
    R(9, 11, lo=0.3, hi=2.5, grad=False),
)
case(
    "standard_gamma_grad_f64",
    lambda a, r: E._standard_gamma_grad(a * 1000, a * 1000 * r),
    R(7, 1, dtype=f64, lo=0.5, hi=30, grad=False),
    R(7, 5, dtype=f64, lo=0.9, hi=1.1, grad=False),
)


# special functions (ember/backend/math/special.h: the same formulas on both devices; float32 within F32_LOOSE, since
# the device's lgamma/exp/log/tan differ from the CPU's by ulps and the series and recurrences carry them)
SP = ember.special
for name, fn, inp in [
    ("lgamma", E.lgamma, R(13, 17, lo=-4.8, hi=9)),
    ("digamma", E.digamma, R(13, 17, lo=0.2, hi=9)),
    (
        "digamma_negative",
        E.digamma,
        A(lambda r: (r.integers(-5, 0, (9, 7)) + r.uniform(0.2, 0.8, (9, 7))).astype(np.float32), grad=True),
    ),
    ("polygamma1", lambda x: E.polygamma(1, x), R(13, 17, lo=0.2, hi=9)),
    ("polygamma3", lambda x: E.polygamma(3, x), R(13, 17, lo=0.3, hi=9)),
    ("mvlgamma", lambda x: E.mvlgamma(x, 3), R(13, 17, lo=1.2, hi=9)),
    ("i0", E.i0, R(13, 17, scale=8)),
    ("i0e", SP.i0e, R(13, 17, scale=20)),
    ("i1", SP.i1, R(13, 17, scale=8)),
    ("i1e", SP.i1e, R(13, 17, scale=20)),
    ("sinc", E.sinc, R(13, 17, scale=3)),
    ("deg2rad_rad2deg", lambda x: (E.deg2rad(x), E.rad2deg(x)), R(13, 17, scale=3)),
    ("erfcx", SP.erfcx, R(13, 17, lo=-5, hi=30)),
    ("ndtr", SP.ndtr, R(13, 17, scale=3)),
    ("ndtri", SP.ndtri, R(13, 17, lo=0.001, hi=0.999)),
    ("log_ndtr", SP.log_ndtr, R(13, 17, lo=-30, hi=5)),
    ("entr", SP.entr, R(13, 17, lo=0.05, hi=4)),
    ("lgamma_noncontiguous", lambda x: E.lgamma(x.t()), R(17, 13, lo=0.1, hi=9)),
]:
    case("special_" + name, fn, inp, tol=F32_LOOSE)
for name, row in ROWS.items():  # the table of special_functions.py, on its value range
    case(
        "special_" + name,
        row.fn,
        R(13, 17, lo=row.values[0], hi=min(row.values[1], 80), grad=row.grad is not None),
        tol=F32_LOOSE,
    )
for name, row in BINARY_ROWS.items():  # the binary table of special_functions.py, on its value ranges
    case(
        "special_" + name,
        row.fn,
        R(13, 17, lo=row.x[0], hi=min(row.x[1], 80), grad=row.grad[0]),
        R(17, lo=row.y[0], hi=min(row.y[1], 80), grad=row.grad[1]),
        tol=F32_LOOSE,
    )
case(
    "special_edges",
    lambda x: (
        E.lgamma(x),
        E.digamma(x),
        E.polygamma(1, x),
        E.polygamma(2, x),
        E.i0(x),
        SP.i1e(x),
        E.sinc(x),
        SP.erfcx(x),
        SP.ndtri(x),
        SP.log_ndtr(x),
        SP.entr(x),
    ),
    A(lambda r: np.array([0.0, -0.0, -1.0, -2.0, -2.5, 1.0, 0.5, np.inf, -np.inf, np.nan, 1e-30, -1e-30], np.float32)),
    tol=F32_LOOSE,
)
for dt in (f16, bf16, f64):
    case(
        f"special_gamma_{dt}",
        lambda x: (E.lgamma(x), E.digamma(x), E.polygamma(2, x), SP.erfcx(x), E.i0(x)),
        R(9, 33, dtype=dt, lo=0.3, hi=6),
        tol=F64 if dt is f64 else None,
    )
case(
    "special_binary",
    lambda a, b: (
        E.logaddexp(a, b),
        E.logaddexp2(a, b),
        E.xlogy(a, b.abs()),
        SP.xlog1py(a, b.abs()),
        E.heaviside(a, b),
        E.nextafter(a, b),
    ),
    R(13, 17, scale=5),
    R(17, scale=5),
    tol=F32_LOOSE,
    grad=False,
)
case(
    "special_binary_grad",
    lambda a, b: (E.logaddexp(a, b), E.logaddexp2(a, b), E.xlogy(a, b.abs()), SP.xlog1py(a, b.abs())),
    R(13, 17, scale=5),
    R(17, scale=5),
    tol=F32_LOOSE,
)
case(
    "special_binary_scalars",
    lambda a: (
        E.xlogy(2.5, a.abs()),
        E.xlogy(a, 3.0),
        SP.zeta(3.0, a.abs() + 0.5),
        E.float_power(a, 2),
        E.float_power(2, a),
    ),
    R(13, 17),
    tol=F32_LOOSE,
)
case(
    "special_igamma_zeta",
    lambda a, x: (E.igamma(a, x), E.igammac(a, x), SP.zeta(a + 1.5, x)),
    R(13, 17, lo=0.1, hi=30, grad=False),
    R(13, 17, lo=0.01, hi=40),
    tol=F32_LOOSE,
)
case(
    "special_igamma_f64",
    lambda a, x: (E.igamma(a, x), E.igammac(a, x)),
    R(9, 7, lo=0.1, hi=300, dtype=f64, grad=False),
    R(9, 7, lo=0.01, hi=300, dtype=f64),
)
case(
    "special_binary_16bit",
    lambda a, b: (E.logaddexp(a, b), E.nextafter(a, b), E.heaviside(a, b)),
    R(9, 33, dtype=f16),
    R(9, 33, dtype=f16),
    grad=False,
)
case("special_nextafter_bf16", lambda a, b: E.nextafter(a, b), R(9, 33, dtype=bf16), R(33, dtype=bf16), grad=False)
case(
    "special_gcd_lcm",
    lambda a, b: (E.gcd(a, b), E.lcm(a, b), E.heaviside(a, b)),
    I(1000, 40, low=-1000),
    I(1000, 40, low=-1000),
)
case(
    "special_gcd_int16",
    lambda a, b: (E.gcd(a, b), E.lcm(a, b)),
    I(100, 40, low=-100, dtype=i32),
    I(100, 1, low=-100, dtype=i32),
)
case("special_ldexp", lambda x, e: E.ldexp(x, e), R(13, 17), I(10, 17, low=-10))
case("special_frexp", lambda x: tuple(E.frexp(x)), R(13, 17, scale=100))
case("special_frexp_f16", lambda x: tuple(E.frexp(x)), R(9, 33, dtype=f16, scale=100, grad=False))
case(
    "special_windows",
    lambda x: (
        x,
        E.hann_window(9, device=x.device),
        E.hamming_window(8, False, device=x.device),
        E.blackman_window(7, device=x.device),
        E.bartlett_window(6, device=x.device),
        E.kaiser_window(10, dtype=f64, device=x.device),
    ),
    R(1, grad=False),
)
case(
    "special_polynomials",
    lambda x: tuple(
        getattr(SP, p)(x, n)
        for p, n in [
            ("chebyshev_polynomial_t", 5),
            ("chebyshev_polynomial_u", 12),
            ("chebyshev_polynomial_v", 3),
            ("chebyshev_polynomial_w", 11),
            ("shifted_chebyshev_polynomial_t", 4),
            ("hermite_polynomial_h", 6),
            ("hermite_polynomial_he", 5),
            ("laguerre_polynomial_l", 7),
            ("legendre_polynomial_p", 9),
        ]
    ),
    R(13, 17, lo=-1.2, hi=1.2, grad=False),
    tol=F32_LOOSE,
)
case(
    "special_polynomial_tensor_n",
    lambda x, n: SP.legendre_polynomial_p(x, n),
    R(13, 17, lo=-1, hi=1, grad=False),
    I(12, 17, low=-2),
)
case(
    "special_inplace",
    lambda x: ((x * 1).lgamma_(), (x * 1).digamma_(), (x * 1).polygamma_(2), (x * 1).i0_(), (x * 1).xlogy_(x)),
    P(13, 17),
    tol=F32_LOOSE,
)

# complex64 / complex128 (Note [Complex kernels on CUDA]): elementwise, reductions, copies, matmul, and ember.fft
ZX = CX(7, 9)
for name, fn in [
    ("neg", E.neg),
    ("sgn", E.sgn),
    ("square", E.square),
    ("reciprocal", E.reciprocal),
    ("sqrt", E.sqrt),
    ("rsqrt", E.rsqrt),
    ("exp", E.exp),
    ("exp2", E.exp2),
    ("expm1", E.expm1),
    ("log", E.log),
    ("log2", E.log2),
    ("log10", E.log10),
    ("log1p", E.log1p),
    ("sin", E.sin),
    ("cos", E.cos),
    ("tan", E.tan),
    ("asin", E.asin),
    ("acos", E.acos),
    ("atan", E.atan),
    ("sinh", E.sinh),
    ("cosh", E.cosh),
    ("tanh", E.tanh),
    ("asinh", E.asinh),
    ("acosh", E.acosh),
    ("atanh", E.atanh),
    ("sigmoid", E.sigmoid),
    ("abs", E.abs),
    ("angle", E.angle),
    ("conj_physical", E.conj_physical),
    ("real_imag", lambda z: (z.real * 2, z.imag * 3)),
]:
    case("complex_" + name, fn, ZX)
case("complex_exp_noncontiguous", lambda z: E.exp(z.t()), ZX)
case("complex_unary_c128", lambda z: (E.exp(z), E.log(z), E.sqrt(z), E.tanh(z), E.abs(z)), CX(5, 6, dtype=c128))
case(
    "complex_predicates",
    lambda z: (E.isnan(z), E.isinf(z), E.isfinite(z), E.logical_not(z), z == z, z != z.conj_physical()),
    A(
        lambda rng: np.array(
            [1 + 2j, np.nan + 0j, complex(0, np.inf), 0j, complex(np.inf, np.nan), 3 - 0j], np.complex64
        ),
        dtype=c64,
    ),
    grad=False,
)
for name, fn, *ins in [
    ("add", E.add, ZX, ZX),
    ("sub", E.sub, ZX, ZX),
    ("mul", E.mul, ZX, ZX),
    ("div", E.div, ZX, ZX),
    ("pow", E.pow, ZX, CX(7, 9, scale=0.5)),
    ("add_alpha", lambda a, b: E.add(a, b, alpha=2 - 1j), ZX, ZX),
    ("sub_alpha", lambda a, b: E.sub(a, b, alpha=0.5), ZX, ZX),
    ("broadcast", lambda a, b: a * b + b, CX(3, 1, 9), CX(4, 1)),
    ("with_float", lambda z, x: (z * x, x - z, z / x), ZX, R(7, 9)),
    ("python_numbers", lambda z: (z * 1j, z + 2, 1.5 - z, z**2, z**0.5, z / (1 + 1j)), ZX),
    ("real_times_1j", lambda x: x * 1j, R(7, 9)),
    ("c128_mixed", lambda z, w: (z * w, z + w.to(c64)), CX(4, 5, dtype=c128), CX(4, 5)),
]:
    case("complex_binary_" + name, fn, *ins)
case("complex_where", lambda m, a, b: (E.where(m, a, b), E.where(m, a, 0.5j)), B(7, 9), ZX, CX(9))
case(
    "complex_reductions",
    lambda z: (z.sum(), z.sum(0), z.sum(1, keepdim=True), z.mean(), z.mean(1), z.prod(1)),
    CX(6, 40, scale=0.5),
)
case("complex_reductions_c128", lambda z: (z.sum((0, 2)), z.mean(0), z.prod()), CX(3, 5, 4, dtype=c128, scale=0.6))
case(
    "complex_copies_casts",
    lambda z, x: (
        z.t().contiguous(),
        z.to(c128),
        x.to(c64),
        E.complex(x, x * 2),
        E.polar(x.abs(), x),
        E.cat([z, z * 2], 1),
        z[1:, ::2].clone(),
        E.full((3, 4), 1 - 2j, device=x.device),
        E.zeros(2, 3, dtype=c128, device=x.device),
        E.view_as_complex(E.stack([x, x], -1).contiguous()),
    ),
    ZX,
    R(7, 9),
)
case("complex_fill_inplace", lambda z: (z * 1).fill_(2 + 3j) + (z * 1).zero_(), ZX)
for name, fn, *ins in [
    ("mm", E.mm, CX(17, 33), CX(33, 9)),
    ("mm_c128", E.mm, CX(17, 33, dtype=c128), CX(33, 9, dtype=c128)),
    ("mm_transposed_conj", lambda a, b: a.mT @ b.mH, CX(33, 17), CX(9, 33)),
    ("bmm", E.bmm, CX(4, 9, 12), CX(4, 12, 5)),
    ("matmul_broadcast", E.matmul, CX(3, 1, 6, 8), CX(2, 8, 5)),
    ("matmul_vector", lambda a, v: (a @ v, v[:6] @ a), CX(6, 8), CX(8)),
    ("addmm", lambda c, a, b: E.addmm(c, a, b, beta=0.5 + 1j, alpha=2 - 1j), CX(9, 5), CX(9, 12), CX(12, 5)),
    ("addmm_bias_vector", lambda c, a, b: E.addmm(c, a, b), CX(5), CX(9, 12), CX(12, 5)),
    ("baddbmm", lambda c, a, b: E.baddbmm(c, a, b, alpha=0.5j), CX(3, 4, 5), CX(3, 4, 6), CX(3, 6, 5)),
    ("einsum", lambda a, b: E.einsum("bij,bjk->bik", a, b), CX(2, 3, 4), CX(2, 4, 5)),
    ("empty_inner", E.mm, CX(3, 0), CX(0, 4)),
    ("dot_vdot", lambda a, b: (E.dot(a, b), E.vdot(a, b), E.mv(a.unsqueeze(0).expand(3, 33), b)), CX(33), CX(33)),
]:
    case("complex_matmul_" + name, fn, *ins)


# ember.linalg on complex input: cuSOLVER's and cuBLAS's C/Z routines against LAPACK's (docs/linalg.md, "On CUDA"),
# compared through what is unique, as the real cases above: factors with their phases fixed (a complex QR or SVD is
# unique up to a unit complex number per column).
LINALG64 = Tol(1e-9)


def CWELL(*shape, dtype=c64, grad=True):
    """Well-conditioned complex square matrices: identity times 3 plus complex noise."""

    def make(rng):
        a = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * 0.3 + 3 * np.eye(shape[-1])
        return a.astype(np.complex128 if dtype is c128 else np.complex64)

    return In(make, dtype, grad)


def HPD(n, batch=(), dtype=c64, grad=True):
    """Hermitian positive definite (condition number small)."""

    def make(rng):
        m = rng.standard_normal(batch + (n, n)) + 1j * rng.standard_normal(batch + (n, n))
        a = m @ np.conj(np.swapaxes(m, -1, -2)) / (2 * n) + np.eye(n)
        return a.astype(np.complex128 if dtype is c128 else np.complex64)

    return In(make, dtype, grad)


def _phases(r):
    """The unit complex numbers that make R's diagonal real positive (a QR's freedom)."""
    return E.sgn(E.diagonal(r, 0, -2, -1)).unsqueeze(-2)


def _cqr(a):
    q, r = E.linalg.qr(a)
    s = _phases(r)
    return q * s, r * s.conj().transpose(-2, -1)


def _ceigh(a):
    w, v = E.linalg.eigh(a)
    return w, (v * w.unsqueeze(-2)) @ v.mH, E.linalg.eigvalsh(a, UPLO="U")


def _csvd(a):
    u, s, vh = E.linalg.svd(a, full_matrices=False)
    return s, (u * s.unsqueeze(-2).to(u.dtype)) @ vh, E.linalg.svdvals(a)


def _cgeqrf_ormqr(a, c):
    """geqrf's factors made unique (Q R with R's diagonal positive), and ormqr on both sides and with Q^H."""
    qa, tau = E.geqrf(a)
    r = E.triu(qa)
    s = _phases(r)
    q = E.linalg.householder_product(qa, tau)
    return (
        q * s,
        r * s.conj().transpose(-2, -1),
        E.ormqr(qa, tau, c, transpose=True) * s.conj().transpose(-2, -1),
        E.ormqr(qa, tau, c.mT, left=False) * s,
    )


def _cplu(a):
    """P L U, and |det| from U: L and U themselves hang on the pivots, and LAPACK's complex pivot search compares
    |Re| + |Im|, which another library's may not."""
    P, L, U = E.linalg.lu(a)
    return P @ L @ U, E.diagonal(U, 0, -2, -1).prod(-1).abs()


def _ceig(a):
    w, v = E.linalg.eig(a)
    return w, v, E.linalg.eigvals(a)


def _cldl_herm(a):
    """Hermitian LDL^T (the CPU's hetrf on CUDA too: the factors themselves agree)."""
    LD, piv, info = E.linalg.ldl_factor_ex(a, hermitian=True)
    return LD, piv, info


for dt, tol in ((c64, LINALG), (c128, LINALG64)):
    sfx = "" if dt is c64 else "_c128"
    for name, fn, *ins in [
        ("solve", E.linalg.solve, CWELL(3, 6, 6, dtype=dt), CX(3, 6, 4, dtype=dt)),
        ("cholesky", lambda a: (E.linalg.cholesky(a), E.linalg.cholesky(a, upper=True)), HPD(7, (2,), dtype=dt)),
        ("cholesky_solve_inverse", _chol_helpers, HPD(5, (2,), dtype=dt), CX(5, 3, dtype=dt)),
        ("qr", _cqr, CX(9, 6, dtype=dt)),
        ("qr_wide_batched", _cqr, CX(2, 4, 7, dtype=dt)),
        ("svd", _csvd, CX(2, 8, 5, dtype=dt)),
        ("eigh", _ceigh, HPD(6, dtype=dt)),
        ("lstsq", lambda a, b: E.linalg.lstsq(a, b).solution, CX(12, 5, dtype=dt), CX(12, 3, dtype=dt)),
        (
            "inv_det_slogdet",
            lambda a: (E.linalg.inv(a), E.linalg.det(a), *E.linalg.slogdet(a)),
            CWELL(2, 5, 5, dtype=dt),
        ),
        (
            "solve_triangular",
            lambda a, b: (
                E.linalg.solve_triangular(E.tril(a), b, upper=False),
                E.linalg.solve_triangular(E.triu(a), b.mT, upper=True, left=False, unitriangular=True),
            ),
            CWELL(6, 6, dtype=dt),
            CX(6, 3, dtype=dt),
        ),
        ("lu_solve", _lu_solves, CWELL(2, 5, 5, dtype=dt), CX(5, 3, dtype=dt), CX(2, 3, 5, dtype=dt)),
        ("lu", _cplu, CX(2, 5, 5, dtype=dt)),
        (
            "pinv_rank_cond",
            lambda a: (E.linalg.pinv(a), E.linalg.matrix_rank(a).float(), E.linalg.cond(a)),
            CWELL(4, 4, dtype=dt),
        ),
    ]:
        case("linalg_complex_" + name + sfx, fn, *ins, tol=tol, gtol=tol)
    for name, fn, *ins in [
        ("geqrf_ormqr", _cgeqrf_ormqr, CX(6, 6, dtype=dt, grad=False), CX(6, 3, dtype=dt, grad=False)),
        # LAPACK and cuSOLVER may choose other pivots in near ties: the solutions and info only
        ("ldl_symmetric", _ldl, CWELL(2, 3, 3, dtype=dt, grad=False), CX(2, 6, 3, dtype=dt, grad=False)),
        # the CPU kernel on CUDA's operands: the same numbers
        ("ldl_hermitian", _cldl_herm, HPD(5, (2,), dtype=dt, grad=False)),
        ("eig", _ceig, CX(2, 5, 5, dtype=dt, grad=False)),
    ]:
        case("linalg_complex_" + name + sfx, fn, *ins, tol=tol, grad=False)
case("linalg_eig_real_input", _ceig, R(2, 6, 6, grad=False), tol=LINALG, grad=False)
case("linalg_eig_grad", lambda a: E.linalg.eigvals(a), CWELL(5, 5), tol=LINALG, gtol=LINALG)


@pytest.mark.skipif(DEV == "cpu", reason="PyTorch's CUDA-only refusal")
def test_ldl_solve_hermitian_complex_refused_on_cuda():
    a = ember.eye(4, dtype=c64, device=DEV) * 2
    LD, piv = ember.linalg.ldl_factor(a, hermitian=True)
    assert LD.device.type == "cuda"
    with pytest.raises(RuntimeError, match="hermitian=True flag are not supported on CUDA"):
        ember.linalg.ldl_solve(LD, piv, ember.ones(4, 1, dtype=c64, device=DEV), hermitian=True)
    # symmetric complex LDL^T solves there (cuSOLVER's sytrs)
    LD, piv = ember.linalg.ldl_factor(a)
    x = ember.linalg.ldl_solve(LD, piv, ember.ones(4, 1, dtype=c64, device=DEV))
    np.testing.assert_allclose(x.cpu().numpy(), np.full((4, 1), 0.5), rtol=1e-6)


# ember.fft: cuFFT on CUDA (Note [cuFFT plans]), the pocketfft-style engine on the CPU
FFT = ember.fft
for name, fn, *ins in [
    ("fft", lambda z: FFT.fft(z), CX(6, 32)),
    ("ifft_dim0", lambda z: FFT.ifft(z, dim=0), CX(12, 5)),
    ("fft_middle_dim", lambda z: FFT.fft(z, dim=1), CX(3, 10, 4)),
    ("fft_odd_prime", lambda z: (FFT.fft(z), FFT.fft(z, n=17), FFT.fft(z, n=6)), CX(4, 13)),
    ("fft_norms", lambda z: tuple(FFT.fft(z, norm=m) for m in ("backward", "ortho", "forward")), CX(3, 20)),
    ("ifft_norms", lambda z: tuple(FFT.ifft(z, norm=m) for m in ("backward", "ortho", "forward")), CX(3, 20)),
    ("fft_noncontiguous", lambda z: (FFT.fft(z.t()), FFT.fft(z[:, ::2], dim=0)), CX(9, 14)),
    ("fft_expanded", lambda z: FFT.fft(z.expand(4, 6, 8), dim=1), CX(6, 8)),
    ("fft_c128", lambda z: (FFT.fft(z), FFT.ifft(z, dim=0)), CX(7, 12, dtype=c128)),
    ("fft_real_input", lambda x: FFT.fft(x), R(5, 16)),
    ("rfft", lambda x: (FFT.rfft(x), FFT.rfft(x, n=10), FFT.rfft(x, dim=0, norm="ortho")), R(9, 16)),
    ("rfft_odd", lambda x: (FFT.rfft(x), FFT.rfft(x.t())), R(5, 15)),
    ("irfft", lambda z: (FFT.irfft(z), FFT.irfft(z, n=15), FFT.irfft(z, dim=0, norm="forward")), CX(6, 9)),
    ("irfft_noncontiguous", lambda z: FFT.irfft(z.t()), CX(9, 6)),
    ("hfft_ihfft", lambda z, x: (FFT.hfft(z), FFT.ihfft(x)), CX(4, 9), R(4, 16)),
    ("fft2_ifft2", lambda z: (FFT.fft2(z), FFT.ifft2(z, s=(4, 6))), CX(2, 5, 8)),
    ("fftn", lambda z: (FFT.fftn(z), FFT.fftn(z, dim=(0, 2), norm="ortho")), CX(3, 4, 6)),
    ("rfftn_irfftn", lambda x: FFT.irfftn(FFT.rfftn(x), s=x.shape[-2:]), R(3, 6, 10)),
    ("rfft2_irfft2", lambda x: (FFT.rfft2(x), FFT.irfft2(FFT.rfft2(x), s=(6, 9))), R(2, 6, 9)),
    ("rfft_f64", lambda x: (FFT.rfft(x), FFT.irfft(FFT.rfft(x), n=21)), R(3, 21, dtype=f64)),
    ("fft_long_line", lambda z: FFT.fft(z), CX(4096, grad=False)),
    ("fft_out", lambda z: FFT.fft(z, out=E.empty(4, 8, dtype=c64, device=z.device)), CX(4, 8, grad=False)),
    (
        "stft_istft",
        lambda x: E.istft(
            E.stft(x, 32, window=E.hann_window(32, device=x.device), return_complex=True),
            32,
            window=E.hann_window(32, device=x.device),
            length=200,
        ),
        R(2, 200),
    ),
]:
    # float32: rtol 1e-5 of the largest value (an FFT's error grows with log n ulps of it); the long line and the
    # overlap-add of istft (a division by the window envelope) 1e-4; float64 inputs get F64 (default_tol)
    loose = name in ("fft_long_line", "stft_istft")
    case("fft_" + name, fn, *ins, tol=F32_LOOSE if loose else None, gtol=F32_LOOSE if loose else None)


# -- the harness --------------------------------------------------------------------------------------------------


def _flatten(out):
    if isinstance(out, ember.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flatten(o)]
    return [out]


def _np(t):
    t = t.detach().cpu()
    if t.dtype is bf16:
        t = t.float()
    return t.numpy()


def compare(got, exp, tol, what):
    if not isinstance(exp, ember.Tensor):
        assert got == exp or (isinstance(exp, float) and np.isclose(got, exp, rtol=tol.rtol)), (what, got, exp)
        return
    assert isinstance(got, ember.Tensor), (what, type(got))
    assert got.dtype == exp.dtype, f"{what}: dtype {got.dtype} on {DEV}, {exp.dtype} on cpu"
    assert tuple(got.shape) == tuple(exp.shape), f"{what}: shape {tuple(got.shape)} on {DEV}, {tuple(exp.shape)} on cpu"
    assert got.device.type == DEV, f"{what}: output on {got.device}, expected {DEV}"
    if exp.dtype.is_complex:  # the parts, as floats
        got, exp = ember.view_as_real(got.resolve_conj()), ember.view_as_real(exp.resolve_conj())
    g, e = _np(got), _np(exp)
    if exp.dtype.is_floating_point:
        tol.check(g, e, what)
    else:
        np.testing.assert_array_equal(g, e, err_msg=what)


def run_both(c):
    rng = np.random.default_rng(zlib.crc32(c.id.encode()))
    arrays = [i.make(rng) for i in c.ins]
    cpu_in = [i.tensor(a, "cpu") for i, a in zip(c.ins, arrays)]
    dev_in = [i.tensor(a, DEV) for i, a in zip(c.ins, arrays)]
    out_cpu = _flatten(c.fn(*cpu_in))
    out_dev = _flatten(c.fn(*dev_in))
    return rng, cpu_in, dev_in, out_cpu, out_dev


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_op(c):
    rng, cpu_in, dev_in, out_cpu, out_dev = run_both(c)
    assert len(out_cpu) == len(out_dev)
    for k, (o_d, o_c) in enumerate(zip(out_dev, out_cpu)):
        compare(o_d, o_c, c.tol or default_tol(getattr(o_c, "dtype", f32)), f"{c.id} output {k}")
    if not c.grad:
        return
    diff = [k for k, o in enumerate(out_cpu) if isinstance(o, ember.Tensor) and o.requires_grad]
    leaves = [k for k, t in enumerate(cpu_in) if t.requires_grad]
    if not diff or not leaves:
        return
    for outs, ins, dev in ((out_cpu, cpu_in, "cpu"), (out_dev, dev_in, DEV)):
        g = np.random.default_rng(zlib.crc32(c.id.encode()) + 1)
        loss = None
        for k in diff:
            o = outs[k]
            w = ember.tensor(g.standard_normal(tuple(o.shape)).astype(np.float32), device=dev).to(o.dtype)
            term = ember.view_as_real(o * w).sum() if o.is_complex() else (o * w).sum()
            loss = term if loss is None else loss + term
        loss.backward()
    for k in leaves:
        gc, gd = cpu_in[k].grad, dev_in[k].grad
        assert (gc is None) == (gd is None), (
            f"{c.id}: gradient of input {k}: cpu {gc is not None}, {DEV} {gd is not None}"
        )
        if gc is not None:
            tol = c.gtol or c.tol or default_tol(gc.dtype)
            compare(gd, gc, tol, f"{c.id} gradient of input {k}")


def test_case_count():
    """The table is the suite: keep it broad."""
    assert len(CASES) >= 200, len(CASES)


# -- seeded random ops: CPU and CUDA share Philox's formulas ------------------------------------------------------

RANDOM_OPS = {
    "rand": lambda d: ember.rand(1000, 3, device=d),
    "rand_f64": lambda d: ember.rand(777, dtype=f64, device=d),
    "rand_f16_bf16": lambda d: (ember.rand(301, dtype=f16, device=d), ember.rand(301, dtype=bf16, device=d)),
    "randn": lambda d: ember.randn(513, 7, device=d),
    "randn_f64": lambda d: ember.randn(333, dtype=f64, device=d),
    "randint": lambda d: ember.randint(-5, 1000, (40, 40), device=d),
    "randperm": lambda d: ember.randperm(1000, device=d),
    "normal": lambda d: ember.normal(2.0, 3.0, (1000,), device=d),
    "bernoulli": lambda d: ember.bernoulli(ember.full((2000,), 0.3, device=d)),
    "uniform_normal_inplace": lambda d: (
        ember.empty(100, 10, device=d).uniform_(-2, 2),
        ember.empty(100, 10, device=d).normal_(1, 2),
    ),
    "multinomial": lambda d: ember.multinomial(ember.tensor([1.0, 2.0, 3.0, 4.0], device=d), 50, True),
    "consecutive_draws": lambda d: (ember.rand(5, device=d), ember.randn(7, device=d), ember.rand(3, device=d)),
    # the distribution samplers (Note [Rejection samplers]): every gamma/poisson/binomial branch
    "exponential_geometric_": lambda d: (
        ember.empty(500, device=d).exponential_(2.0),
        ember.empty(300, dtype=i64, device=d).geometric_(0.3),
    ),
    "cauchy_log_normal_": lambda d: (
        ember.empty(40, 5, dtype=f64, device=d).cauchy_(1, 2),
        ember.empty(5, 40, device=d).t().log_normal_(0, 0.5),
    ),
    "standard_gamma": lambda d: ember._standard_gamma(
        ember.tensor([0.0, 0.05, 0.5, 1.0, 2.5, 30.0, 1e4] * 40, dtype=f64, device=d)
    ),
    "standard_gamma_f32_f16": lambda d: (
        ember._standard_gamma(ember.full((300,), 0.3, device=d)),
        ember._standard_gamma(ember.full((300,), 4.0, dtype=f16, device=d)),
    ),
    "sample_dirichlet": lambda d: ember._sample_dirichlet(ember.tensor([[0.2, 1.0, 5.0]] * 100, device=d)),
    "poisson": lambda d: ember.poisson(ember.tensor([0.0, 0.3, 5.0, 9.99, 10.0, 200.0, 1e5] * 40, device=d)),
    "von_mises": lambda d: ember._sample_von_mises(
        ember.tensor([[0.0], [3.0]] * 20, device=d), ember.tensor([0.0, 1e-6, 0.5, 2.0, 50.0], device=d)
    ),
    "binomial": lambda d: ember.binomial(
        ember.tensor([[0.0], [5.0], [20.0], [1000.0]] * 20, device=d),
        ember.tensor([0.0, 0.1, 0.5, 0.93, 1.0], device=d),
    ),
}


@pytest.mark.parametrize("name", list(RANDOM_OPS))
def test_random_same_numbers(name):
    outs = []
    for d in ("cpu", DEV):
        ember.manual_seed(1234)
        outs.append(_flatten(RANDOM_OPS[name](d)))
    for k, (o_d, o_c) in enumerate(zip(outs[1], outs[0])):
        compare(o_d, o_c, RANDOM, f"{name} output {k}")


def test_sampler_errors_deferred():
    """A sampler's parameter out of range raises (on CUDA at the next synchronizing call, Note [Deferred device
    errors]) naming the op, and later ops still work."""
    for make, msg in (
        (lambda: ember.poisson(ember.tensor([1.0, -1.0], device=DEV)), "poisson"),
        (lambda: ember.binomial(ember.tensor([3.0], device=DEV), ember.tensor([1.5], device=DEV)), "binomial"),
        (lambda: ember._standard_gamma(ember.tensor([-1.0], device=DEV)), "_standard_gamma"),
    ):
        with pytest.raises(RuntimeError, match=msg):
            make().cpu()
            ember.cuda.synchronize() if DEV == "cuda" else None
    assert ember.poisson(ember.ones(3, device=DEV)).cpu().shape == (3,)


def test_random_generator_object():
    outs = []
    for d in ("cpu", DEV):
        gen = ember.Generator(device=d)
        gen.manual_seed(77)
        outs.append(ember.rand(100, generator=gen, device=d))
    compare(outs[1], outs[0], RANDOM, "rand with a Generator")


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_dropout_statistics(p):
    ember.manual_seed(0)
    x = ember.ones(1 << 20, device=DEV)
    y = _np(F.dropout(x, p, training=True))
    zero = np.mean(y == 0)
    assert abs(zero - p) < 0.005, zero
    np.testing.assert_allclose(y[y != 0], 1 / (1 - p), rtol=1e-6)
    xg = ember.ones(4096, device=DEV, requires_grad=True)
    out = F.dropout(xg, p, training=True)
    out.sum().backward()
    np.testing.assert_array_equal(_np(xg.grad), _np(out))  # the gradient uses the same mask and scale
    assert _np(F.dropout(x, p, training=False)).min() == 1.0


@pytest.mark.parametrize("dtype", [f32, f64, f16, bf16], ids=lambda d: repr(d).split(".")[-1])
def test_dropout_same_mask_and_values_on_both_devices(dtype):
    rng = np.random.default_rng(0)
    x = ember.tensor(rng.standard_normal(37 * 1001 + 1).tolist()).to(dtype)
    g = ember.tensor(rng.standard_normal(37 * 1001).tolist()).to(dtype).reshape(37, 1001)
    outs = []
    for d in ("cpu", DEV):
        ember.manual_seed(11)
        xd = x.to(d)[1:].reshape(37, 1001)  # an odd size, and a data pointer off the vector alignment
        out, mask = ember.native_dropout(xd, 0.3, True)
        xg = x.to(d)[:-1].reshape(1001, 37).t().requires_grad_()  # non-contiguous
        y = F.dropout(xg, 0.6)
        y.backward(g.to(d))
        outs.append([out, mask, y, xg.grad])
    for k, (o_d, o_c) in enumerate(zip(outs[1], outs[0])):
        assert o_d.dtype == o_c.dtype
        np.testing.assert_array_equal(_np(o_d), _np(o_c), err_msg=f"dropout output {k}")


# -- optimizers: 3 steps on both devices from the same parameters and gradients -----------------------------------

OPTIMIZERS = {
    "sgd": lambda ps: ember.optim.SGD(ps, lr=0.1),
    "sgd_momentum_nesterov_wd": lambda ps: ember.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-2),
    "adam": lambda ps: ember.optim.Adam(ps, lr=1e-2),
    "adam_amsgrad_wd": lambda ps: ember.optim.Adam(ps, lr=1e-2, amsgrad=True, weight_decay=0.1),
    "adamw": lambda ps: ember.optim.AdamW(ps, lr=1e-2, weight_decay=0.05),
    "rmsprop_centered_momentum": lambda ps: ember.optim.RMSprop(ps, lr=1e-2, centered=True, momentum=0.5),
    "rmsprop": lambda ps: ember.optim.RMSprop(ps, lr=1e-2),
    "adagrad": lambda ps: ember.optim.Adagrad(ps, lr=0.1, lr_decay=0.01),
    "rprop": lambda ps: ember.optim.Rprop(ps, lr=0.05, etas=(0.4, 1.3), step_sizes=(1e-3, 0.5)),
    "rprop_maximize": lambda ps: ember.optim.Rprop(ps, maximize=True),
    "asgd_averaging_wd": lambda ps: ember.optim.ASGD(ps, lr=0.05, lambd=0.01, t0=1, weight_decay=0.1),
}


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_optimizer_steps(name):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    shapes = [(33, 17), (17,), (4, 3, 3, 3), (1,)]
    init = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    grads = [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(3)]
    finals = []
    for d in ("cpu", DEV):
        params = [ember.tensor(a, device=d, requires_grad=True) for a in init]
        opt = OPTIMIZERS[name](params)
        for step in grads:
            opt.zero_grad()
            for p, g in zip(params, step):
                p.grad = ember.tensor(g, device=d)
            opt.step()
        finals.append(params)
    for k, (p_d, p_c) in enumerate(zip(finals[1], finals[0])):
        compare(p_d.detach(), p_c.detach(), F32, f"{name} parameter {k}")


# -- modules: recurrent layers and a small CNN, same parameters on both devices -----------------------------------

MODULES = {
    "lstm_2layer_bidirectional": (
        lambda: ember.nn.LSTM(6, 8, num_layers=2, bidirectional=True, batch_first=True),
        (3, 7, 6),
    ),
    "gru": (lambda: ember.nn.GRU(5, 9, num_layers=2), (6, 4, 5)),
    "rnn_tanh": (lambda: ember.nn.RNN(5, 7), (6, 3, 5)),
    "lstm_proj": (lambda: ember.nn.LSTM(4, 8, proj_size=3), (5, 2, 4)),
    "cnn_bn_train": (
        lambda: ember.nn.Sequential(
            ember.nn.Conv2d(3, 8, 3, padding=1),
            ember.nn.BatchNorm2d(8),
            ember.nn.ReLU(),
            ember.nn.MaxPool2d(2),
            ember.nn.Flatten(),
            ember.nn.Linear(8 * 4 * 4, 5),
        ),
        (4, 3, 8, 8),
    ),
}


@pytest.mark.parametrize("name", list(MODULES))
def test_module_forward_backward(name):
    make, shape = MODULES[name]
    ember.manual_seed(5)
    m_cpu = make()
    m_dev = copy.deepcopy(m_cpu).to(DEV)
    x = np.random.default_rng(zlib.crc32(name.encode())).standard_normal(shape).astype(np.float32)
    tol = TF32  # convolutions and cuDNN's RNNs run with cudnn.allow_tf32 = True, the default (as in PyTorch)
    outs = []
    for m, d in ((m_cpu, "cpu"), (m_dev, DEV)):
        inp = ember.tensor(x, device=d, requires_grad=True)
        out = _flatten(m(inp))
        sum(o.float().pow(2).sum() for o in out if o.is_floating_point()).backward()
        outs.append((out, inp.grad, [p.grad for p in m.parameters()], [b for b in m.buffers()]))
    (oc, gc, pc, bc), (od, gd, pd, bd) = outs
    for k, (a, b) in enumerate(zip(od, oc)):
        compare(a, b, tol, f"{name} output {k}")
    compare(gd, gc, tol, f"{name} input gradient")
    for k, (a, b) in enumerate(zip(pd, pc)):
        compare(a, b, tol, f"{name} parameter gradient {k}")
    for k, (a, b) in enumerate(zip(bd, bc)):
        compare(a, b, tol, f"{name} buffer {k}")


# -- recurrent layers through cuDNN's fused RNNs, TF32 off ----------------------------------------------------------
# On CUDA these run as one cuDNN call (Note [Fused RNNs] in ember/nn/rnn.cpp), on the CPU as the time loop. With
# cudnn.allow_tf32 off both compute in float32: outputs and gradients agree within F32_LOOSE (the recurrences sum
# in other orders), float64 within F64; float16 (cuDNN rounds the states between steps) norm-wise within F16_MM of
# the float32 CPU result from the same (float16) values.

RNN_FUSED = {
    # name: (module, input shape, options: h0 (initial states that require grad), lengths (packed), dtype)
    "lstm_2layer_bidirectional_batch_first": (
        lambda: ember.nn.LSTM(6, 8, num_layers=2, bidirectional=True, batch_first=True),
        (3, 7, 6),
        {},
    ),
    "lstm_h0_c0": (lambda: ember.nn.LSTM(5, 7), (6, 4, 5), {"h0": True}),
    "gru_2layer_h0": (lambda: ember.nn.GRU(5, 9, num_layers=2), (6, 4, 5), {"h0": True}),
    "gru_bidirectional_no_bias": (lambda: ember.nn.GRU(4, 6, bidirectional=True, bias=False), (5, 3, 4), {}),
    "rnn_tanh_2layer": (lambda: ember.nn.RNN(5, 7, num_layers=2), (6, 3, 5), {"h0": True}),
    "rnn_relu_bidirectional": (lambda: ember.nn.RNN(5, 7, nonlinearity="relu", bidirectional=True), (6, 3, 5), {}),
    "rnn_tanh_unbatched": (lambda: ember.nn.RNN(3, 4), (5, 3), {}),
    "lstm_proj": (lambda: ember.nn.LSTM(4, 8, proj_size=3), (5, 2, 4), {"h0": True}),
    "lstm_proj_2layer_bidirectional": (
        lambda: ember.nn.LSTM(4, 8, proj_size=3, num_layers=2, bidirectional=True, batch_first=True),
        (2, 5, 4),
        {"h0": True},
    ),
    "lstm_packed": (lambda: ember.nn.LSTM(3, 5, num_layers=2), (7, 4, 3), {"lengths": [5, 7, 2, 5]}),
    "gru_packed_bidirectional_h0": (
        lambda: ember.nn.GRU(3, 5, bidirectional=True, batch_first=True),
        (4, 6, 3),
        {"lengths": [6, 1, 4, 3], "h0": True},
    ),
    "lstm_proj_packed_bidirectional": (
        lambda: ember.nn.LSTM(3, 6, proj_size=2, bidirectional=True),
        (5, 3, 3),
        {"lengths": [2, 5, 5]},
    ),
    "lstm_float64": (
        lambda: ember.nn.LSTM(4, 6, num_layers=2, bidirectional=True),
        (5, 3, 4),
        {"dtype": f64, "h0": True},
    ),
    "gru_float16": (lambda: ember.nn.GRU(8, 16, num_layers=2), (6, 4, 8), {"dtype": f16}),
}


def _rnn_run(m, x, d, kw, dtype, rng_seed):
    """Forward and backward of module m on device d: returns (outputs, input grad, state grads, parameter grads)."""
    pack = ember.nn.utils.rnn.pack_padded_sequence
    unpack = ember.nn.utils.rnn.pad_packed_sequence
    inp = ember.tensor(x, device=d).to(dtype).requires_grad_()
    is_lstm = isinstance(m, ember.nn.LSTM)
    hx = None
    if kw.get("h0"):
        g = np.random.default_rng(rng_seed + 2)
        dirs = 2 if m.bidirectional else 1
        batch = x.shape[0] if m.batch_first else x.shape[1]
        out_size = m.proj_size if is_lstm and m.proj_size else m.hidden_size
        shapes = [(m.num_layers * dirs, batch, out_size)] + (
            [(m.num_layers * dirs, batch, m.hidden_size)] if is_lstm else []
        )
        hx = [ember.tensor(g.standard_normal(s), device=d).to(dtype).requires_grad_() for s in shapes]
    arg = pack(inp, kw["lengths"], batch_first=m.batch_first, enforce_sorted=False) if "lengths" in kw else inp
    out, h = m(arg, (tuple(hx) if is_lstm else hx[0]) if hx else None)
    if "lengths" in kw:
        out = unpack(out, batch_first=m.batch_first)[0]
    outs = [out] + (list(h) if is_lstm else [h])
    g = np.random.default_rng(rng_seed + 1)
    loss = None
    for o in outs:
        w = ember.tensor(g.standard_normal(tuple(o.shape)), device=d).to(o.dtype)
        term = (o * w).float().sum()
        loss = term if loss is None else loss + term
    loss.backward()
    return outs, inp.grad, [t.grad for t in hx or []], [p.grad for p in m.parameters()]


@pytest.mark.parametrize("name", list(RNN_FUSED))
def test_rnn_fused_against_cpu(name):
    make, shape, kw = RNN_FUSED[name]
    dtype = kw.get("dtype", f32)
    ember.manual_seed(11)
    m_dev = make().to(dtype).to(DEV)
    # The CPU reference: float64 in float64, float32 otherwise (from float16's values, exactly).
    m_cpu = copy.deepcopy(m_dev).to("cpu").to(f64 if dtype is f64 else f32)
    seed = zlib.crc32(name.encode())
    x = np.random.default_rng(seed).standard_normal(shape)
    if dtype is f16:
        x = x.astype(np.float16)
    with ember.backends.cudnn.flags(enabled=True, allow_tf32=False):
        res_cpu = _rnn_run(m_cpu, x, "cpu", kw, f64 if dtype is f64 else f32, seed)
        res_dev = _rnn_run(m_dev, x, DEV, kw, dtype, seed)
    tol = {f64: F64, f16: F16_MM}.get(dtype, F32_LOOSE)

    def cmp(got, exp, what):
        assert (got is None) == (exp is None), what
        if got is not None:
            compare(got.to(exp.dtype), exp, tol, what)

    (oc, gc, hc, pc), (od, gd, hd, pd) = res_cpu, res_dev
    for k, (a, b) in enumerate(zip(od, oc)):
        cmp(a, b, f"{name} output {k}")
    cmp(gd, gc, f"{name} input gradient")
    for k, (a, b) in enumerate(zip(hd, hc)):
        cmp(a, b, f"{name} initial state gradient {k}")
    assert len(pd) == len(pc)
    for k, (a, b) in enumerate(zip(pd, pc)):
        cmp(a, b, f"{name} parameter gradient {k}")


def test_default_device_makes_factories_and_modules_there():
    """ember.set_default_device / `with ember.device(...)` (Note [Default device]): factories, Python data and module
    parameters land on the device; tensors made from tensors keep theirs."""
    cpu = ember.ones(2)
    with ember.device(DEV):
        for t in (ember.zeros(2), ember.tensor([1.0]), ember.randn(3), ember.arange(3), ember.nn.Linear(2, 2).weight):
            assert t.device.type == DEV
        assert ember.zeros_like(cpu).device.type == "cpu"
        np.testing.assert_array_equal(_np(ember.tensor([[1, 2]]) * 2), [[2, 4]])
    assert ember.zeros(1).device.type == "cpu"


def test_data_parallel_on_one_device():
    """nn.DataParallel on one GPU moves the inputs to device_ids[0] and calls the module there; parameters left on
    another device raise PyTorch's error."""
    m = ember.nn.Linear(3, 2).to(DEV)
    x = ember.randn(4, 3)
    out = ember.nn.DataParallel(m)(x if DEV == "cuda" else x.to(DEV))
    assert out.device.type == DEV
    compare(out, m(x.to(DEV)), F32, "DataParallel output")
    if DEV == "cuda":
        with pytest.raises(RuntimeError, match=r"device_ids\[0\]"):
            ember.nn.DataParallel(ember.nn.Linear(3, 2))(x)


def test_channels_last_small_cnn():
    """A small CNN converted with .to(memory_format=channels_last) and fed channels-last input on the device agrees
    with the row-major CPU run (cuDNN reads the NHWC strides, or ember copies; either way the values match)."""
    ember.manual_seed(4)
    m_cpu = ember.nn.Sequential(
        ember.nn.Conv2d(3, 8, 3, padding=1),
        ember.nn.BatchNorm2d(8),
        ember.nn.ReLU(),
        ember.nn.MaxPool2d(2),
        ember.nn.Conv2d(8, 4, 3),
        ember.nn.AdaptiveAvgPool2d(1),
        ember.nn.Flatten(),
    )
    m_dev = copy.deepcopy(m_cpu).to(DEV).to(memory_format=ember.channels_last)
    assert m_dev[0].weight.is_contiguous(memory_format=ember.channels_last)
    x = np.random.default_rng(2).standard_normal((2, 3, 12, 12)).astype(np.float32)
    xd = ember.tensor(x, device=DEV).contiguous(memory_format=ember.channels_last).requires_grad_()
    xc = ember.tensor(x, requires_grad=True)
    with ember.backends.cudnn.flags(enabled=True, allow_tf32=False):
        yd, yc = m_dev(xd), m_cpu(xc)
        compare(yd, yc, F32_LOOSE, "channels-last CNN output")
        yd.sum().backward()
        yc.sum().backward()
    compare(xd.grad, xc.grad, F32_LOOSE, "channels-last CNN input gradient")
    compare(m_dev[0].weight.grad, m_cpu[0].weight.grad, F32_LOOSE, "channels-last CNN weight gradient")


def test_rnn_flatten_parameters():
    """.to(DEV) calls flatten_parameters (as PyTorch's RNNBase._apply): on CUDA the parameters become views of one
    buffer in cuDNN's layout (Note [Flat RNN weights]), so they lie in one block no longer than their total size
    plus cuDNN's alignment gaps, and a second call changes nothing. The Parameter objects stay the same, and values,
    gradients and optimizer steps are the CPU's."""
    ember.manual_seed(5)
    m_cpu = ember.nn.LSTM(4, 6, num_layers=2, bidirectional=True)
    m_dev = copy.deepcopy(m_cpu)
    before = list(m_dev.parameters())
    m_dev.to(DEV)
    assert all(a is b for a, b in zip(before, m_dev.parameters()))
    for a, b in zip(m_dev.parameters(), m_cpu.parameters()):
        np.testing.assert_array_equal(_np(a), _np(b))
    if DEV == "cuda":
        spans = [(p.data_ptr(), p.numel() * p.element_size()) for p in m_dev.parameters()]
        lo, hi = min(a for a, _ in spans), max(a + n for a, n in spans)
        assert hi - lo <= sum(n for _, n in spans) + 1024 * len(spans)
        m_dev.flatten_parameters()
        assert [p.data_ptr() for p in m_dev.parameters()] == [a for a, _ in spans]
    opts = [ember.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (m_cpu, m_dev)]
    x = np.random.default_rng(1).standard_normal((5, 3, 4)).astype(np.float32)
    with ember.backends.cudnn.flags(enabled=True, allow_tf32=False):
        for _ in range(3):
            for m, opt, d in ((m_cpu, opts[0], "cpu"), (m_dev, opts[1], DEV)):
                opt.zero_grad()
                m(ember.tensor(x, device=d))[0].pow(2).sum().backward()
                opt.step()
    for k, (a, b) in enumerate(zip(m_dev.parameters(), m_cpu.parameters())):
        compare(a, b, F32_LOOSE, f"parameter {k} after 3 SGD steps")


def test_rnn_fused_eval_and_no_grad():
    """Inference (no graph recorded) and eval-mode training-graph forwards give the CPU's values; eval-mode backward
    works (ember runs cuDNN's training mode whenever a graph is recorded)."""
    ember.manual_seed(3)
    m_cpu = ember.nn.LSTM(4, 6, num_layers=2, dropout=0.5).eval()
    m_dev = copy.deepcopy(m_cpu).to(DEV)
    x = np.random.default_rng(0).standard_normal((5, 2, 4)).astype(np.float32)
    with ember.backends.cudnn.flags(enabled=True, allow_tf32=False):
        with ember.no_grad():
            compare(m_dev(ember.tensor(x, device=DEV))[0], m_cpu(ember.tensor(x))[0], F32_LOOSE, "no_grad output")
        xd = ember.tensor(x, device=DEV, requires_grad=True)
        xc = ember.tensor(x, requires_grad=True)
        m_dev(xd)[0].sum().backward()
        m_cpu(xc)[0].sum().backward()
    compare(xd.grad, xc.grad, F32_LOOSE, "eval-mode input gradient")


def test_rnn_fused_dropout_repeats_after_manual_seed():
    """Dropout between layers: the same seed gives the same masks; training output differs from eval output."""
    m = ember.nn.GRU(8, 32, num_layers=3, dropout=0.5).to(DEV)
    x = ember.randn(6, 4, 8, device=DEV)
    outs = []
    for _ in range(2):
        ember.manual_seed(21)
        outs.append(_np(m(x)[0]))
    np.testing.assert_array_equal(outs[0], outs[1])
    third = _np(m(x)[0])  # the generator moved on: other masks
    assert not np.array_equal(third, outs[0])
    m.eval()
    assert not np.allclose(_np(m(x)[0]), outs[0])


def test_rnn_fused_double_backward():
    """cuDNN's RNN backward has no derivative: grad of grad raises (as in PyTorch); with cuDNN disabled the loop runs
    and second derivatives work."""
    x = ember.randn(4, 2, 3, device=DEV, requires_grad=True)
    m = ember.nn.LSTM(3, 5).to(DEV)
    for enabled in (True, False):
        with ember.backends.cudnn.flags(enabled=enabled, allow_tf32=False):
            out = m(x)[0]
            (g,) = ember.autograd.grad(out.pow(2).sum(), x, create_graph=True)
            if enabled and DEV == "cuda":
                with pytest.raises(RuntimeError, match="cuDNN"):
                    g.sum().backward()
            else:
                g.sum().backward()
                assert x.grad is not None
                x.grad = None


# -- gradcheck in float64 with the computation on CUDA ------------------------------------------------------------


def _d(*shape, lo=None, hi=None):
    return ("f", shape, lo, hi)


GRADCHECK = {
    "exp_sin_mul": (lambda x, y: E.exp(x) * E.sin(y), [_d(3, 4), _d(3, 4)]),
    "div_broadcast": (lambda x, y: x / y, [_d(3, 4), _d(4, lo=0.5, hi=2)]),
    "pow_tanh_sigmoid": (lambda x, y: E.pow(x, y) + E.tanh(y) * E.sigmoid(x), [_d(3, 3, lo=0.5, hi=2), _d(3, 3)]),
    "log_sqrt": (lambda x: E.log(x) + E.sqrt(x), [_d(5, lo=0.5, hi=2)]),
    "gelu_silu_softplus": (lambda x: F.gelu(x) + F.silu(x) * F.softplus(x), [_d(7)]),
    "where_clamp": (lambda x, y: E.where(x > 0, x, y).clamp(-0.8, 0.8), [_d(6), _d(6)]),
    "sum_mean_dims": (lambda x: x.sum(1) * x.mean(0).sum(), [_d(3, 4)]),
    "prod_var_std": (lambda x: x.prod(0) + x.var(1).sum() + x.std(), [_d(3, 4, lo=0.5, hi=1.5)]),
    "logsumexp_norm": (lambda x: E.logsumexp(x, 1).sum() + E.norm(x), [_d(3, 4)]),
    "amax_max": (lambda x: x.amax(1) + E.max(x, 0)[0].sum(), [_d(3, 4)]),
    "cumsum_cumprod": (lambda x: E.cumsum(x, 1) * E.cumprod(x, 0), [_d(3, 4, lo=0.5, hi=1.5)]),
    "index_gather_scatter": (
        lambda x: (
            E.gather(x, 1, E.tensor([[0, 2], [1, 1], [3, 0]], device=x.device))
            + x[E.tensor([2, 0, 2], device=x.device), :2]
        ),
        [_d(3, 4)],
    ),
    "index_add_put": (lambda x, s: x.index_add(0, E.tensor([0, 2, 0], device=x.device), s), [_d(3, 4), _d(3, 4)]),
    "cat_stack_permute": (
        lambda x, y: E.cat([x, y], 1).permute(1, 0) * E.stack([x, y], 2).reshape(2, 6).t(),
        [_d(2, 3), _d(2, 3)],
    ),
    "matmul_bmm": (lambda a, b: E.bmm(a, b).sum(0) + a.sum(0) @ b.sum(0), [_d(2, 3, 4), _d(2, 4, 2)]),
    "linear": (lambda x, w, b: F.linear(x, w, b), [_d(3, 4), _d(2, 4), _d(2)]),
    "einsum": (lambda a, b: E.einsum("ij,jk->ik", a, b), [_d(2, 3), _d(3, 2)]),
    "solve": (lambda a, b: E.linalg.solve(a + 3 * E.eye(3, device=a.device, dtype=a.dtype), b), [_d(3, 3), _d(3, 2)]),
    "cholesky": (lambda a: E.linalg.cholesky(a @ a.t() + 3 * E.eye(3, device=a.device, dtype=a.dtype)), [_d(3, 3)]),
    "conv2d": (lambda x, w, b: F.conv2d(x, w, b, padding=1, stride=2), [_d(1, 2, 5, 5), _d(3, 2, 3, 3), _d(3)]),
    "conv_transpose2d": (lambda x, w: F.conv_transpose2d(x, w, stride=2), [_d(1, 2, 3, 3), _d(2, 2, 2, 2)]),
    "conv1d_groups": (lambda x, w: F.conv1d(x, w, groups=2, dilation=2), [_d(1, 4, 9), _d(4, 2, 3)]),
    "max_pool2d": (lambda x: F.max_pool2d(x, 2), [_d(1, 2, 4, 4)]),
    "avg_adaptive_pool": (lambda x: F.avg_pool2d(x, 2).sum() + F.adaptive_avg_pool2d(x, 3), [_d(1, 2, 5, 5)]),
    "lp_pool_avg_pool3d": (
        lambda x, y: F.lp_pool2d(x, 2.0, 2).sum() + F.avg_pool3d(y, 2, 1, count_include_pad=False),
        [_d(1, 2, 4, 4, lo=0.5, hi=2), _d(1, 1, 3, 4, 3)],
    ),
    "batch_norm": (lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), [_d(4, 3, 2), _d(3), _d(3)]),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (4,), w, b), [_d(3, 4), _d(4), _d(4)]),
    "group_norm": (lambda x: F.group_norm(x, 2), [_d(2, 4, 3)]),
    "softmax_log_softmax": (lambda x: F.softmax(x, 1) * F.log_softmax(x, 0), [_d(3, 4)]),
    "cross_entropy_smoothing": (
        lambda x: F.cross_entropy(x, E.tensor([1, 0, 3], device=x.device), label_smoothing=0.1, ignore_index=0),
        [_d(3, 4)],
    ),
    "mse_bce_logits": (
        lambda x, y: F.mse_loss(x, y) + F.binary_cross_entropy_with_logits(x, y.sigmoid()),
        [_d(3, 4), _d(3, 4)],
    ),
    "embedding": (lambda w: F.embedding(E.tensor([[0, 2], [2, 1]], device=w.device), w), [_d(3, 4)]),
    "interpolate_bilinear": (lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"), [_d(1, 1, 3, 3)]),
    "sdpa": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v), [_d(1, 2, 3), _d(1, 4, 3), _d(1, 4, 3)]),
    "sort_topk": (lambda x: E.sort(x, 1)[0] * 2 + E.topk(x, 2)[0].sum(), [_d(3, 4)]),
    "diag_embed_quantile_scatter": (
        lambda x, s: E.diag_embed(x).sum(0) + E.quantile(x, 0.3, dim=0) + E.diagonal_scatter(x[:, :3], s).sum(),
        [_d(3, 4), _d(3)],
    ),
    "lgamma_digamma_polygamma": (lambda x: E.lgamma(x) + E.digamma(x) * E.polygamma(2, x), [_d(5, lo=0.3, hi=4)]),
    "i0_sinc_erfcx_ndtri": (
        lambda x: (
            E.i0(x) + E.sinc(x) + ember.special.erfcx(x) + ember.special.log_ndtr(x) + ember.special.ndtri(x.sigmoid())
        ),
        [_d(5, lo=0.3, hi=2)],
    ),
    "logaddexp_xlogy_igamma": (
        lambda x, y: (
            E.logaddexp(x, y)
            + E.xlogy(x, y)
            + ember.special.zeta(3.0, y)
            + E.igamma(E.full((4,), 2.5, dtype=f64, device=y.device), y)
        ),
        [_d(4, lo=0.5, hi=3), _d(4, lo=0.5, hi=3)],
    ),
}


@pytest.mark.parametrize("name", list(GRADCHECK))
def test_gradcheck_on_device(name):
    fn, specs = GRADCHECK[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    leaves = []
    for _, shape, lo, hi in specs:
        a = rng.uniform(lo, hi, shape) if lo is not None else rng.standard_normal(shape)
        leaves.append(ember.tensor(a, dtype=f64, requires_grad=True))

    def on_device(*xs):
        out = fn(*[x.to(DEV) for x in xs])
        outs = out if isinstance(out, tuple) else (out,)
        for o in outs:
            assert o.device.type == DEV, o.device
        return tuple(o.cpu() for o in outs)

    assert ember.autograd.gradcheck(on_device, tuple(leaves))


@pytest.mark.skipif(DEV != "cuda", reason="only CUDA's float atomics are nondeterministic (the CPU kernels are not)")
def test_deterministic_algorithms_refuse_float_atomics():
    src = ember.randn(50, 4, device=DEV)
    idx = ember.randint(0, 5, (50,), device=DEV)
    try:
        ember.use_deterministic_algorithms(True)
        with pytest.raises(RuntimeError, match="index_add_ on CUDA does not have a deterministic implementation"):
            ember.zeros(5, 4, device=DEV).index_add_(0, idx, src)
        with pytest.raises(RuntimeError, match="scatter_add_? on CUDA does not have a deterministic"):
            ember.zeros(5, 4, device=DEV).scatter_add_(0, idx[:, None].expand(50, 4).contiguous(), src)
        with pytest.raises(RuntimeError, match="bincount with floating-point weights on CUDA"):
            ember.bincount(idx, weights=src[:, 0])
        # Integer atomics are exact, max/min are order-independent, copies with distinct indices too: allowed.
        ember.zeros(5, 4, dtype=i64, device=DEV).index_add_(0, idx, ember.ones(50, 4, dtype=i64, device=DEV))
        ember.zeros(5, device=DEV).scatter_reduce_(0, idx, src[:, 0], "amax")
        ember.use_deterministic_algorithms(True, warn_only=True)
        with pytest.warns(UserWarning, match="index_add_ on CUDA does not have a deterministic implementation"):
            out = ember.zeros(5, 4, device=DEV).index_add_(0, idx, src)
        np.testing.assert_allclose(
            out.cpu().numpy(), ember.zeros(5, 4).index_add_(0, idx.cpu(), src.cpu()).numpy(), rtol=1e-5, atol=1e-5
        )
    finally:
        ember.use_deterministic_algorithms(False)


def test_harness_detects_differences():
    """The comparison itself: a one-ulp-scale change passes F32, a 1e-4 change, a dtype, a shape or a moved NaN fail."""
    a = ember.tensor(np.linspace(-3, 3, 50, dtype=np.float32))
    compare(a.to(DEV) * (1 + 2e-7), a, F32, "tiny")
    for bad, why in [
        (a * (1 + 1e-4), "values"),
        (a.double(), "dtype"),
        (a[:49], "shape"),
        (ember.where(a > 2.9, float("nan"), a), "NaN"),
    ]:
        with pytest.raises(AssertionError):
            compare(bad.to(DEV), a, F32, why)
    with pytest.raises(AssertionError):
        TF32.check(np.ones(100) * 1.01, np.ones(100), "norm")


def test_distributed_collectives_on_device():
    """ember.distributed on the device's backend (NCCL for CUDA; Gloo when the harness runs on the CPU) in a group of
    one process: values as on the CPU, async Work, the communication stream ordered after the current stream."""
    import ember.distributed as dist

    backend = "gloo" if DEV == "cpu" else "nccl"
    dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1)
    try:
        rng = np.random.default_rng(3)
        a = rng.standard_normal((64, 33)).astype(np.float32)
        x = ember.tensor(a, device=DEV) * 2  # queued on the current stream before the collective
        dist.all_reduce(x)
        np.testing.assert_allclose(x.cpu().numpy(), a * 2, rtol=1e-6)
        for dt in (f16, bf16, f64, i32, i64, u8):
            y = ember.tensor(a * 10, device=DEV).to(dt)
            want = y.cpu().numpy() if dt is not bf16 else y.cpu().float().numpy()
            w = dist.all_reduce(y, op=dist.ReduceOp.MAX, async_op=True)
            w.wait()
            got = y.cpu().numpy() if dt is not bf16 else y.cpu().float().numpy()
            np.testing.assert_array_equal(got, want)
        z = ember.tensor(a, device=DEV).t()  # non-contiguous
        dist.all_reduce(z, op=dist.ReduceOp.AVG)
        np.testing.assert_allclose(z.cpu().numpy(), a.T, rtol=1e-6)
        dist.broadcast(z, src=0)
        out = ember.zeros(64, 33, device=DEV)
        dist.all_gather_into_tensor(out, ember.tensor(a, device=DEV))
        np.testing.assert_array_equal(out.cpu().numpy(), a)
        rs = ember.zeros(64, 33, device=DEV)
        dist.reduce_scatter_tensor(rs, ember.tensor(a, device=DEV))
        np.testing.assert_array_equal(rs.cpu().numpy(), a)
        a2a = ember.zeros(64, 33, device=DEV)
        dist.all_to_all_single(a2a, ember.tensor(a, device=DEV))
        np.testing.assert_array_equal(a2a.cpu().numpy(), a)
        outs = [ember.zeros(64, 33, device=DEV)]
        dist.all_gather(outs, ember.tensor(a, device=DEV))
        np.testing.assert_array_equal(outs[0].cpu().numpy(), a)
        dist.barrier()
        objs = [None]
        dist.all_gather_object(objs, {"x": 1})
        assert objs == [{"x": 1}]
        if DEV == "cuda":
            with pytest.raises(RuntimeError, match=r"\[all_reduce\] the nccl backend takes CUDA tensors"):
                dist.all_reduce(ember.zeros(2))
            with pytest.raises(ValueError, match="BAND is not supported by the nccl backend"):
                dist.all_reduce(ember.zeros(2, dtype=i64, device=DEV), op=dist.ReduceOp.BAND)
    finally:
        dist.destroy_process_group()
