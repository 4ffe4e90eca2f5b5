"""ember.masked: torch.masked's reductions and normalizations of strided tensors with a boolean mask.

Each function follows PyTorch's definition: the masked-out elements are replaced by the operation's identity (0 for
sums, 1 for products, -inf or the dtype's minimum for maxima, ...) and the ordinary op runs on the result; mean, var
and std divide by the count of masked-in elements. The mask broadcasts to the input. The computation is ember's C++
ops (where, sum, amax, softmax, ...); this module only chooses them, as PyTorch's torch/masked/_ops.py does. Sparse
layouts and MaskedTensor are not supported (docs/differences.md).
"""

import math

import ember

__all__ = [
    "amax",
    "amin",
    "argmax",
    "argmin",
    "cumprod",
    "cumsum",
    "log_softmax",
    "logaddexp",
    "logsumexp",
    "mean",
    "norm",
    "normalize",
    "prod",
    "softmax",
    "softmin",
    "std",
    "sum",
    "var",
]

_builtin_sum = sum
_SMALL_INTS = (ember.uint8, ember.bool, ember.int8, ember.int16, ember.int32)


def _identity(op, input, ord=None):
    """The value that leaves op's result unchanged, as a 0-d tensor of input's dtype (PyTorch's identities)."""
    dtype, device = input.dtype, input.device
    floating = dtype.is_floating_point
    integral = not floating and dtype != ember.bool and (dtype.is_signed or dtype == ember.uint8)
    if op in ("sum", "cumsum"):
        return ember.tensor(0, dtype=dtype, device=device)
    if op in ("prod", "cumprod"):
        return ember.tensor(1, dtype=dtype, device=device)
    if op in ("amax", "argmax", "logaddexp", "logsumexp"):
        if floating:
            return ember.tensor(-math.inf, dtype=dtype, device=device)
        if integral:
            return ember.tensor(ember.iinfo(dtype).min, dtype=dtype, device=device)
    if op in ("amin", "argmin"):
        if floating:
            return ember.tensor(math.inf, dtype=dtype, device=device)
        if integral:
            return ember.tensor(ember.iinfo(dtype).max, dtype=dtype, device=device)
    if op == "norm":
        return ember.tensor(math.inf if ord == -math.inf else 0, dtype=dtype, device=device)
    raise NotImplementedError(f"identity of {op} on {dtype} input")


def _canonical_dim(dim, ndim):
    """dim as a sorted tuple of non-negative dims (None or () meaning all of them), PyTorch's checks."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _input_mask(input, mask):
    """The mask as a bool tensor of input's shape."""
    if mask.shape != input.shape:
        if mask.dim() > input.dim():
            raise IndexError(
                "_input_mask expected broadcastable mask (got mask dimensionality higher than of the input)"
            )
        mask = ember.broadcast_to(mask, input.shape)
    return mask.to(dtype=ember.bool)


def _combine(op, input, mask, ord=None):
    """input with its masked-out elements replaced by op's identity."""
    if mask is None:
        return input
    return ember.where(_input_mask(input, mask), input, _identity(op, input, ord))


def _sum_dtype(input, dtype):
    if dtype is not None:
        return dtype
    return ember.int64 if input.dtype in _SMALL_INTS else input.dtype


def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A001  (torch.masked.sum)
    """Returns the sum of the masked-in elements of ``input`` over ``dim`` (all dims by default).

    Masked-out elements count as 0; small integer and bool inputs sum in int64 unless ``dtype`` is given.
    """
    dtype = _sum_dtype(input, dtype)
    return ember.sum(_combine("sum", input, mask), _canonical_dim(dim, input.dim()), bool(keepdim), dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Returns the product of the masked-in elements of ``input`` over ``dim`` (masked-out elements count as 1)."""
    r = _combine("prod", input, mask).to(dtype=_sum_dtype(input, dtype))
    for d in reversed(_canonical_dim(dim, input.dim())):
        r = r.prod(dim=d, keepdim=bool(keepdim))
    return r


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Returns the maximum of the masked-in elements of ``input`` over ``dim`` (-inf, or the dtype's minimum, where
    every element is masked out)."""
    r = ember.amax(_combine("amax", input, mask), _canonical_dim(dim, input.dim()), bool(keepdim))
    return r.to(dtype=dtype or input.dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Returns the minimum of the masked-in elements of ``input`` over ``dim`` (inf, or the dtype's maximum, where
    every element is masked out)."""
    r = ember.amin(_combine("amin", input, mask), _canonical_dim(dim, input.dim()), bool(keepdim))
    return r.to(dtype=dtype or input.dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Returns the index of the maximum of the masked-in elements along ``dim``, in ``dtype`` (``input``'s dtype by
    default, as PyTorch's)."""
    return ember.argmax(_combine("argmax", input, mask), dim, bool(keepdim)).to(dtype=dtype or input.dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Returns the index of the minimum of the masked-in elements along ``dim``, in ``dtype`` (``input``'s dtype by
    default, as PyTorch's)."""
    return ember.argmin(_combine("argmin", input, mask), dim, bool(keepdim)).to(dtype=dtype or input.dtype)


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Returns the mean of the masked-in elements of ``input`` over ``dim`` (nan where every element is masked out)."""
    source = "Optional" if dtype is not None else "Input"
    dtype = dtype or input.dtype
    if not dtype.is_floating_point:
        raise ValueError(
            f"mean(): Could not infer output dtype. {source} dtype must be either a floating point or complex dtype. "
            f"Got: {dtype}"
        )
    if mask is None:
        count = sum(ember.ones(input.shape, dtype=ember.int64, device=input.device), dim, keepdim=keepdim)
        total = sum(input, dim, keepdim=keepdim, dtype=dtype)
    else:
        inmask = _input_mask(input, mask)
        count = sum(inmask, dim, keepdim=keepdim)
        total = sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    return total / count


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt):
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    c = 1.0 if unbiased is None else (1.0 if unbiased else 0.0)
    if correction is not None:
        c = float(correction)
    if dtype is None:
        dtype = input.dtype if input.dtype.is_floating_point else ember.float32
    if mask is None:
        count = sum(ember.ones(input.shape, dtype=ember.int64, device=input.device), dim, keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype)
        inmask = None
    else:
        inmask = _input_mask(input, mask)
        count = sum(inmask, dim, keepdim=True)
        sample_total = sum(input, dim, keepdim=True, dtype=dtype, mask=inmask)
    x = input - sample_total / count
    total = sum(x * x, dim, keepdim=keepdim, dtype=dtype, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if c != 0:
        count = ember.maximum(count.to(dtype) - c, ember.zeros((), dtype=dtype, device=input.device))
    out = (total / count).to(dtype=dtype)
    return ember.sqrt(out) if take_sqrt else out


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """Returns the variance of the masked-in elements of ``input`` over ``dim``, divided by their count minus
    ``correction`` (1 by default; ``unbiased=False`` is 0)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """Returns the standard deviation of the masked-in elements of ``input`` over ``dim`` (see :func:`var`)."""
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Returns the vector ``ord``-norm of the masked-in elements of ``input`` over ``dim`` (masked-out elements count
    as 0, or inf for ``ord=-inf``)."""
    mask_input = _combine("norm", input, mask, ord)
    return ember.linalg.vector_norm(
        mask_input, ord, _canonical_dim(dim, input.dim()), bool(keepdim), dtype=dtype or input.dtype
    )


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Returns the log of the summed exponentials of the masked-in elements of ``input`` over ``dim`` (-inf where
    every element is masked out)."""
    r = ember.logsumexp(_combine("logsumexp", input, mask), _canonical_dim(dim, input.dim()), keepdim=keepdim)
    return r.to(dtype=dtype or input.dtype)


def softmax(input, dim, *, dtype=None, mask=None):
    """Returns the softmax of ``input`` along ``dim`` over the masked-in elements (masked-out ones get 0; a row with
    none gets nan)."""
    d = _canonical_dim(dim, input.dim())[0]
    return ember.nn.functional.softmax(_combine("amax", input, mask), d, dtype=dtype or input.dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    """Returns the log of the softmax of ``input`` along ``dim`` over the masked-in elements (-inf for masked-out
    ones)."""
    d = _canonical_dim(dim, input.dim())[0]
    return ember.nn.functional.log_softmax(_combine("amax", input, mask), d, dtype=dtype or input.dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    """Returns the softmin of ``input`` along ``dim`` over the masked-in elements (masked-out ones get 0)."""
    d = _canonical_dim(dim, input.dim())[0]
    return ember.nn.functional.softmin(_combine("amin", input, mask), d, dtype=dtype or input.dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """Returns ``input`` divided by the ``ord``-norm of its masked-in elements along ``dim`` (at least ``eps``);
    masked-out elements become 0."""
    dtype = dtype or input.dtype
    mask_input = _combine("sum", input, mask)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return ember.divide(mask_input, ember.maximum(nrm, nrm.new_full([], eps)))


def cumsum(input, dim, *, dtype=None, mask=None):
    """Returns the cumulative sums of ``input`` along ``dim``, masked-out elements counting as 0."""
    dtype = dtype or input.dtype
    d = _canonical_dim(dim, input.dim())[0]
    return ember.cumsum(_combine("sum", input, mask), d, dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    """Returns the cumulative products of ``input`` along ``dim``, masked-out elements counting as 1."""
    dtype = dtype or input.dtype
    d = _canonical_dim(dim, input.dim())[0]
    return ember.cumprod(_combine("prod", input, mask), d, dtype=dtype).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """Returns ``log(exp(input) + exp(other))`` with the masked-out elements of either operand taken as -inf."""
    a = _combine("logaddexp", input, input_mask)
    b = _combine("logaddexp", other, other_mask)
    return ember.logaddexp(a, b).to(dtype=dtype or input.dtype)
