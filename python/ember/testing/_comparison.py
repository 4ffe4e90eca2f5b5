"""assert_close with torch.testing.assert_close's semantics: inputs are paired up (recursing through sequences and
mappings), each pair is compared (None, bools, Python/NumPy numbers, tensors and NumPy arrays), and the first failing
pair raises an AssertionError with PyTorch's message (for tensors: the count of mismatched elements and the greatest
absolute and relative differences with their indices). The comparisons of tensor values run as ember ops."""

import cmath
import collections.abc
import contextlib
import sys
import warnings

from .. import _C

# {dtype name: (rtol, atol)}, torch.testing's defaults; other dtypes (integers, bool) compare exactly.
_DTYPE_PRECISIONS = {
    "float16": (0.001, 1e-5),
    "bfloat16": (0.016, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: "int64", float: "float64"}


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


def _numpy_types(name):
    """NumPy's `name` type (bool_, number, ndarray) as a tuple for isinstance, or () when NumPy is not loaded: no
    value is NumPy's then, and `import ember` does not load NumPy."""
    np = sys.modules.get("numpy")
    return (getattr(np, name),) if np is not None else ()


class _ErrorMeta(Exception):
    """A failure: the exception type and message to raise, and the path to the failing item."""

    def __init__(self, type, msg, *, id=()):
        super().__init__(msg)
        self.type, self.msg, self.id = type, msg, id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += "\n\nThe failure occurred for item " + "".join(str([item]) for item in self.id)
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


class _Unsupported(Exception):
    pass


def _default_tolerances(*dtype_names):
    rtols, atols = zip(*[_DTYPE_PRECISIONS.get(name, (0.0, 0.0)) for name in dtype_names])
    return max(rtols), max(atols)


def _tolerances(*dtype_names, rtol, atol, id):
    if (rtol is None) ^ (atol is None):
        raise _ErrorMeta(
            ValueError,
            "Both 'rtol' and 'atol' must be either specified or omitted, but got no %s."
            % ("rtol" if rtol is None else "atol"),
            id=id,
        )
    if rtol is not None:
        return rtol, atol
    return _default_tolerances(*dtype_names)


def _mismatch_msg(
    *, default_identifier, extra=None, abs_diff, abs_diff_idx=None, atol, rel_diff, rel_diff_idx=None, rtol
):
    equality = rtol == 0 and atol == 0

    def diff_msg(kind, diff, idx, tol):
        msg = (
            "%s difference: %s" % (kind.title(), diff)
            if idx is None
            else "Greatest %s difference: %s at index %s" % (kind, diff, idx)
        )
        if not equality:
            msg += " (up to %s allowed)" % tol
        return msg + "\n"

    msg = "%s are not %s!\n\n" % (default_identifier, "equal" if equality else "close")
    if extra:
        msg += extra.strip() + "\n"
    msg += diff_msg("absolute", abs_diff, abs_diff_idx, atol)
    msg += diff_msg("relative", rel_diff, rel_diff_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, *, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(default_identifier="Scalars", abs_diff=abs_diff, atol=atol, rel_diff=rel_diff, rtol=rtol)


def _unravel(flat, shape):
    index = []
    for size in reversed(shape):
        flat, mod = divmod(flat, size)
        index.append(mod)
    return tuple(reversed(index))


def _tensor_mismatch_msg(actual, expected, mismatches, *, rtol, atol):
    shape = tuple(mismatches.shape)
    total = mismatches.numel()
    count = int(mismatches.sum().item())
    extra = "Mismatched elements: %d / %d (%.1f%%)" % (count, total, 100.0 * count / total)
    a, b, bad = actual.flatten(), expected.flatten(), mismatches.flatten()
    abs_diff = _C.where(bad, (a - b).abs(), _C.zeros_like(a))
    max_abs, abs_idx = _C.max(abs_diff, 0)
    rel_diff = _C.where(
        bad, abs_diff / b.abs(), _C.zeros((), dtype=_C.promote_types(abs_diff.dtype, _C.float32), device=a.device)
    )
    max_rel, rel_idx = _C.max(rel_diff, 0)
    return _mismatch_msg(
        default_identifier="Tensor-likes",
        extra=extra,
        abs_diff=max_abs.item(),
        abs_diff_idx=_unravel(int(abs_idx.item()), shape),
        atol=atol,
        rel_diff=max_rel.item(),
        rel_diff_idx=_unravel(int(rel_idx.item()), shape),
        rtol=rtol,
    )


class _Pair:
    def __init__(self, actual, expected, *, id=(), **options):
        self.actual, self.expected, self.id = actual, expected, id

    def _fail(self, type, msg):
        return _ErrorMeta(type, msg, id=self.id)


class _NonePair(_Pair):
    def __init__(self, actual, expected, **options):
        if not (actual is None or expected is None):
            raise _Unsupported()
        super().__init__(actual, expected, **options)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            raise self._fail(AssertionError, "None mismatch: %s is not %s" % (self.actual, self.expected))


class _BooleanPair(_Pair):
    def __init__(self, actual, expected, **options):
        if not all(isinstance(x, (bool, *_numpy_types("bool_"))) for x in (actual, expected)):
            raise _Unsupported()
        super().__init__(bool(actual), bool(expected), **options)

    def compare(self):
        if self.actual is not self.expected:
            raise self._fail(AssertionError, "Booleans mismatch: %s is not %s" % (self.actual, self.expected))


class _NumberPair(_Pair):
    def __init__(self, actual, expected, *, id=(), rtol=None, atol=None, equal_nan=False, check_dtype=False, **options):
        number, bool_ = _numpy_types("number"), _numpy_types("bool_")
        if not all(
            isinstance(x, (int, float, *number)) and not isinstance(x, (bool, *bool_)) for x in (actual, expected)
        ):
            raise _Unsupported()
        actual, expected = [x.item() if isinstance(x, number) else x for x in (actual, expected)]
        if not all(type(x) in _NUMBER_DTYPES for x in (actual, expected)):
            raise _ErrorMeta(TypeError, "Unknown number type %s." % type(actual), id=id)
        super().__init__(actual, expected, id=id)
        self.rtol, self.atol = _tolerances(
            *[_NUMBER_DTYPES[type(x)] for x in (actual, expected)], rtol=rtol, atol=atol, id=id
        )
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self):
        a, e = self.actual, self.expected
        if self.check_dtype and type(a) is not type(e):
            raise self._fail(AssertionError, "The (d)types do not match: %s != %s." % (type(a), type(e)))
        if a == e:
            return
        if self.equal_nan and cmath.isnan(a) and cmath.isnan(e):
            return
        abs_diff = abs(a - e)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(e):
            return
        raise self._fail(AssertionError, _scalar_mismatch_msg(a, e, rtol=self.rtol, atol=self.atol))


class _TensorLikePair(_Pair):
    def __init__(
        self,
        actual,
        expected,
        *,
        id=(),
        allow_subclasses=True,
        rtol=None,
        atol=None,
        equal_nan=False,
        check_device=True,
        check_dtype=True,
        check_layout=True,
        check_stride=False,
        **options,
    ):
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or not all(isinstance(x, (_C.Tensor, *_numpy_types("ndarray"))) for x in (actual, expected)):
            raise _Unsupported()
        if not allow_subclasses and type(actual) is not type(expected):
            raise _Unsupported()
        try:
            actual, expected = [x if isinstance(x, _C.Tensor) else _C.as_tensor(x) for x in (actual, expected)]
        except Exception:  # noqa: BLE001 (a NumPy array ember cannot hold: not a pair this class handles)
            raise _Unsupported() from None
        super().__init__(actual, expected, id=id)
        self.rtol, self.atol = _tolerances(
            _dtype_name(actual.dtype), _dtype_name(expected.dtype), rtol=rtol, atol=atol, id=id
        )
        self.equal_nan, self.check_device, self.check_dtype = equal_nan, check_device, check_dtype
        self.check_stride = check_stride

    def compare(self):
        a, e = self.actual, self.expected

        def mismatch(name, x, y):
            raise self._fail(AssertionError, "The values for attribute '%s' do not match: %s != %s." % (name, x, y))

        if a.shape != e.shape:
            mismatch("shape", a.shape, e.shape)
        if self.check_stride and a.stride() != e.stride():
            mismatch("stride()", a.stride(), e.stride())
        if self.check_device and a.device != e.device:
            mismatch("device", a.device, e.device)
        if self.check_dtype and a.dtype != e.dtype:
            mismatch("dtype", a.dtype, e.dtype)
        # Equalize: one device, one dtype; then compare in the widest dtype of the kind (bool as an integer).
        if a.device != e.device:
            a, e = a.cpu(), e.cpu()
        a, e = a.detach(), e.detach()
        wide = _C.float64 if _C.promote_types(a.dtype, e.dtype).is_floating_point else _C.int64
        a, e = a.to(wide), e.to(wide)
        matches = _C.isclose(a, e, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)
        if bool(matches.all().item()):
            return
        if a.dim() == 0:
            msg = _scalar_mismatch_msg(a.item(), e.item(), rtol=self.rtol, atol=self.atol)
        else:
            msg = _tensor_mismatch_msg(a, e, matches.logical_not(), rtol=self.rtol, atol=self.atol)
        raise self._fail(AssertionError, msg)


_PAIR_TYPES = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)


def _originate_pairs(actual, expected, *, id=(), **options):
    seq = collections.abc.Sequence
    if (
        isinstance(actual, seq)
        and not isinstance(actual, str)
        and isinstance(expected, seq)
        and not isinstance(expected, str)
    ):
        if len(actual) != len(expected):
            raise _ErrorMeta(
                AssertionError, "The length of the sequences mismatch: %d != %d" % (len(actual), len(expected)), id=id
            )
        pairs = []
        for i in range(len(actual)):
            pairs.extend(_originate_pairs(actual[i], expected[i], id=(*id, i), **options))
        return pairs
    mapping = collections.abc.Mapping
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _ErrorMeta(
                AssertionError,
                "The keys of the mappings do not match:\n"
                "Missing keys in the actual mapping: %s\n"
                "Additional keys in the actual mapping: %s"
                % (sorted(expected_keys - actual_keys), sorted(actual_keys - expected_keys)),
                id=id,
            )
        keys = actual_keys
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        pairs = []
        for key in keys:
            pairs.extend(_originate_pairs(actual[key], expected[key], id=(*id, key), **options))
        return pairs
    for pair_type in _PAIR_TYPES:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except _Unsupported:
            continue
    raise _ErrorMeta(
        TypeError,
        "No comparison pair was able to handle inputs of type %s and %s." % (type(actual), type(expected)),
        id=id,
    )


def assert_close(
    actual,
    expected,
    *,
    allow_subclasses=True,
    rtol=None,
    atol=None,
    equal_nan=False,
    check_device=True,
    check_dtype=True,
    check_layout=True,
    check_stride=False,
    msg=None,
):
    """Asserts that actual and expected are close: |actual - expected| <= atol + rtol * |expected| elementwise,
    infinities only equal to themselves, NaNs equal only with equal_nan. Default rtol/atol by dtype as PyTorch
    (float16 1e-3/1e-5, bfloat16 1.6e-2/1e-5, float32 1.3e-6/1e-5, float64 1e-7/1e-7, exact otherwise). Inputs may be
    tensors, NumPy arrays, Python or NumPy numbers, bools, None, and sequences or mappings of them. `msg` (a string,
    or a callable given the generated message) replaces the message of a failed comparison."""
    __tracebackhide__ = True
    try:
        pairs = _originate_pairs(
            actual,
            expected,
            allow_subclasses=allow_subclasses,
            rtol=rtol,
            atol=atol,
            equal_nan=equal_nan,
            check_device=check_device,
            check_dtype=check_dtype,
            check_layout=check_layout,
            check_stride=check_stride,
        )
    except _ErrorMeta as error:
        raise error.to_error() from None
    for pair in pairs:
        try:
            pair.compare()
        except _ErrorMeta as error:
            raise error.to_error(msg) from None


# torch.testing.assert_allclose's tolerances (looser than assert_close's).
_ALLCLOSE_PRECISIONS = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated in PyTorch in favour of assert_close: non-tensors become tensors (expected in actual's dtype),
    dtypes need not match, NaNs compare equal by default."""
    warnings.warn(
        "ember.testing.assert_allclose() is deprecated since PyTorch 1.12 and will be removed in a future "
        "release. Use ember.testing.assert_close() instead.",
        FutureWarning,
        stacklevel=2,
    )
    if not isinstance(actual, _C.Tensor):
        actual = _C.tensor(actual)
    if not isinstance(expected, _C.Tensor):
        expected = _C.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        precisions = [_ALLCLOSE_PRECISIONS.get(_dtype_name(t.dtype), (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in precisions), max(p[1] for p in precisions)
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=True,
        check_dtype=False,
        check_stride=False,
        msg=msg or None,
    )
