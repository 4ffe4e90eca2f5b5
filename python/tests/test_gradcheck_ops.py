"""gradcheck (and gradgradcheck) for every differentiable op, over the cases in gradcases/.

test_every_op_has_a_case lists the public functions of ember: each is covered by a case or listed here as
not differentiable (with the reason), so a new op without a gradient test is visible."""

import importlib
import pkgutil

import gradcases
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck

CASES = []
for mod in pkgutil.iter_modules(gradcases.__path__):
    CASES += importlib.import_module("gradcases." + mod.name).CASES

# Public functions without a gradient: creation, random, integer/bool results, predicates, settings.
NOT_DIFFERENTIABLE = set(
    """
all allclose any arange argmax argmin argsort argwhere as_tensor bernoulli bincount bitwise_and bitwise_left_shift
bitwise_not bitwise_or bitwise_right_shift bitwise_xor broadcast_shapes can_cast count_nonzero default_generator
empty empty_like empty_strided eq equal eye from_dlpack from_numpy frombuffer full full_like ge get_default_dtype
get_num_threads get_rng_state greater greater_equal gt histc initial_seed is_anomaly_check_nan_enabled
is_anomaly_enabled is_floating_point is_grad_enabled is_inference_mode_enabled is_tensor isclose isfinite isinf
isnan isneginf isposinf le less less_equal linspace logical_and logical_not logical_or logical_xor logspace lt
manual_seed multinomial ne nonzero not_equal numel ones ones_like promote_types rand rand_like randint
randint_like randn randn_like randperm result_type seed set_default_dtype set_num_threads set_printoptions
set_rng_state signbit tensor unique unique_consecutive zeros zeros_like normal poisson binomial
searchsorted bucketize isin tril_indices triu_indices is_same_size is_nonzero is_signed resize_as_
gcd gcd_ lcm lcm_ heaviside nextafter hann_window hamming_window blackman_window bartlett_window kaiser_window
geqrf detach detach_ fill_ zero_ unravel_index isreal is_conj
""".split()
)
# Aliases: covered by the case of the op they alias.
ALIASES = {
    "absolute": "abs",
    "arccos": "acos",
    "arccosh": "acosh",
    "arcsin": "asin",
    "arcsinh": "asinh",
    "arctan": "atan",
    "arctan2": "atan2",
    "arctanh": "atanh",
    "clip": "clamp",
    "concat": "cat",
    "concatenate": "cat",
    "divide": "div",
    "true_divide": "div",
    "multiply": "mul",
    "negative": "neg",
    "subtract": "sub",
    "moveaxis": "movedim",
    "swapaxes": "transpose",
    "swapdims": "transpose",
    "row_stack": "vstack",
    "fliplr": "flip",
    "flipud": "flip",
    "sgn": "sign",
    "adjoint": "transpose",
}


def _covering_op(op):
    """The op whose cases cover `op`: its alias target, and for a functional in-place form (ember.exp_) its
    out-of-place op, which runs the same formula."""
    op = ALIASES.get(op, op)
    if op.endswith("_") and op[:-1]:
        op = ALIASES.get(op[:-1], op[:-1])
    return op


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_gradcheck(case):
    assert gradcheck(case.fn, case.inputs(), **case.check)


@pytest.mark.parametrize("case", [c for c in CASES if c.gradgrad], ids=[c.id for c in CASES if c.gradgrad])
def test_gradgradcheck(case):
    assert gradgradcheck(case.fn, case.inputs(), **case.check)


def test_every_op_has_a_case():
    public = {k for k, v in vars(ember._C).items() if not k.startswith("_") and callable(v) and not isinstance(v, type)}
    covered = {c.op for c in CASES}
    missing = sorted(op for op in public if op not in NOT_DIFFERENTIABLE and _covering_op(op) not in covered)
    assert not missing, "differentiable ops without a gradient case: " + " ".join(missing)


def test_gradcheck_detects_a_wrong_gradient():
    class Wrong(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, g):
            return g  # should be 2 * x * g

    x = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    with pytest.raises(ember.autograd.GradcheckError, match="Jacobian mismatch"):
        gradcheck(Wrong.apply, (x,))
    assert gradcheck(Wrong.apply, (x,), raise_exception=False) is False
