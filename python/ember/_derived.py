"""Top-level forms of Tensor methods that PyTorch exports (torch.addmv_, torch.detach_, torch.view_copy, ...), each a
function of `input` as PyTorch's are:

- the in-place functions: ember.X_(input, ...) is input.X_(...) and returns input;
- the *_copy functions (torch.view_copy, torch.permute_copy, ...): what the view op returns, in new memory;
- get_device.

The elementwise ops' functional in-place forms that PyTorch has (abs_, exp_, xlogy_, ...) are rows of their op tables
(ember/ops/unary.def, binary.def), bound in C++ with the rest of each op.
"""

from . import _C

# ---- in-place functions ---------------------------------------------------------------------------------------------


def addbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    """In-place version of :func:`ember.addbmm`: ``input`` becomes ``beta * input + alpha * sum_b(batch1[b] @
    batch2[b])`` and is returned."""
    return input.addbmm_(batch1, batch2, beta=beta, alpha=alpha)


def addcdiv_(input, tensor1, tensor2, *, value=1):
    """In-place version of :func:`ember.addcdiv`: ``input`` becomes ``input + value * tensor1 / tensor2`` and is
    returned."""
    return input.addcdiv_(tensor1, tensor2, value=value)


def addcmul_(input, tensor1, tensor2, *, value=1):
    """In-place version of :func:`ember.addcmul`: ``input`` becomes ``input + value * tensor1 * tensor2`` and is
    returned."""
    return input.addcmul_(tensor1, tensor2, value=value)


def addmm_(input, mat1, mat2, *, beta=1, alpha=1):
    """In-place version of :func:`ember.addmm`: ``input`` becomes ``beta * input + alpha * (mat1 @ mat2)`` and is
    returned."""
    return input.addmm_(mat1, mat2, beta=beta, alpha=alpha)


def addmv_(input, mat, vec, *, beta=1, alpha=1):
    """In-place version of :func:`ember.addmv`: ``input`` becomes ``beta * input + alpha * (mat @ vec)`` and is
    returned.

    Example::

        >>> y = ember.ones(2)
        >>> ember.addmv_(y, ember.eye(2), ember.tensor([1.0, 2.0]), beta=2)
        tensor([3., 4.])
    """
    return input.addmv_(mat, vec, beta=beta, alpha=alpha)


def addr_(input, vec1, vec2, *, beta=1, alpha=1):
    """In-place version of :func:`ember.addr`: ``input`` becomes ``beta * input + alpha * outer(vec1, vec2)`` and is
    returned."""
    return input.addr_(vec1, vec2, beta=beta, alpha=alpha)


def baddbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    """In-place version of :func:`ember.baddbmm`: ``input`` becomes ``beta * input + alpha * (batch1 @ batch2)`` and
    is returned."""
    return input.baddbmm_(batch1, batch2, beta=beta, alpha=alpha)


def bernoulli_(input, p=0.5, *, generator=None):
    """Fills ``input`` with draws from Bernoulli(`p`) (1 with probability `p`, else 0) and returns it."""
    return input.bernoulli_(p, generator=generator)


def clamp_max_(input, max):  # noqa: A002
    """In-place version of :func:`ember.clamp_max`: limits every element of ``input`` to at most `max` and returns
    it."""
    return input.clamp_max_(max)


def clamp_min_(input, min):  # noqa: A002
    """In-place version of :func:`ember.clamp_min`: limits every element of ``input`` to at least `min` and returns
    it."""
    return input.clamp_min_(min)


def cumprod_(input, dim, dtype=None):
    """In-place version of :func:`ember.cumprod`: ``input`` becomes its cumulative product along `dim`."""
    return input.cumprod_(dim, dtype=dtype)


def cumsum_(input, dim, dtype=None):
    """In-place version of :func:`ember.cumsum`: ``input`` becomes its cumulative sum along `dim`."""
    return input.cumsum_(dim, dtype=dtype)


def float_power_(input, exponent):
    """In-place version of :func:`ember.float_power`: ``input`` (a float64 tensor) becomes ``input ** exponent``."""
    return input.float_power_(exponent)


def index_add_(input, dim, index, source, *, alpha=1):
    """Adds ``alpha * source`` into the slices of ``input`` along `dim` that `index` names, in place, and returns
    ``input``. See :func:`ember.index_add`."""
    return input.index_add_(dim, index, source, alpha=alpha)


def index_copy_(input, dim, index, tensor):
    """Copies the slices of `tensor` into the slices of ``input`` along `dim` that `index` names, in place, and
    returns ``input``. See :func:`ember.index_copy`."""
    return input.index_copy_(dim, index, tensor)


def index_fill_(input, dim, index, value):
    """Fills the slices of ``input`` along `dim` that `index` names with `value`, in place, and returns ``input``.
    See :func:`ember.index_fill`."""
    return input.index_fill_(dim, index, value)


def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    """Reduces the slices of `source` into the slices of ``input`` along `dim` that `index` names (`reduce`:
    ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``), in place, and returns ``input``. See
    :func:`ember.index_reduce`."""
    return input.index_reduce_(dim, index, source, reduce, include_self=include_self)


def lerp_(input, end, weight):
    """In-place version of :func:`ember.lerp`: ``input`` becomes ``input + weight * (end - input)``."""
    return input.lerp_(end, weight)


def masked_fill_(input, mask, value):
    """Fills the elements of ``input`` where the boolean `mask` (broadcast to its shape) is True with `value`, in
    place, and returns ``input``. See :func:`ember.masked_fill`."""
    return input.masked_fill_(mask, value)


def masked_scatter_(input, mask, source):
    """Copies the elements of `source`, in order, into ``input`` where the boolean `mask` is True, in place, and
    returns ``input``. See :func:`ember.masked_scatter`."""
    return input.masked_scatter_(mask, source)


def mvlgamma_(input, p):
    """In-place version of :func:`ember.mvlgamma`: ``input`` becomes its multivariate log-gamma of dimension `p`."""
    return input.mvlgamma_(p)


def normal_(input, mean=0, std=1, *, generator=None):
    """Fills ``input`` with draws from the normal distribution N(`mean`, `std` ** 2) and returns it."""
    return input.normal_(mean, std, generator=generator)


def polygamma_(input, n):
    """In-place version of :func:`ember.polygamma`: ``input`` becomes the `n`-th derivative of the digamma function
    at its elements."""
    return input.polygamma_(n)


def put_(input, index, source, accumulate=False):
    """Writes `source` into ``input`` at the flat (row-major) positions in `index` (adding them when `accumulate`),
    in place, and returns ``input``. See :func:`ember.put`."""
    return input.put_(index, source, accumulate)


def renorm_(input, p, dim, maxnorm):
    """In-place version of :func:`ember.renorm`: rescales each slice of ``input`` along `dim` whose `p`-norm exceeds
    `maxnorm` to that norm."""
    return input.renorm_(p, dim, maxnorm)


def scatter_(input, dim, index, src=None, *, value=None, reduce=None):
    """Writes the elements of `src` (or the number `value`) into ``input`` at the positions `index` gives along
    `dim`, in place, and returns ``input``; `reduce` (``"add"`` or ``"multiply"``) combines them with what is there.
    See :func:`ember.scatter`."""
    return input.scatter_(dim, index, src, value=value, reduce=reduce)


def scatter_add_(input, dim, index, src):
    """Adds the elements of `src` into ``input`` at the positions `index` gives along `dim`, in place, and returns
    ``input``. See :func:`ember.scatter_add`."""
    return input.scatter_add_(dim, index, src)


def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    """Reduces the elements of `src` into ``input`` at the positions `index` gives along `dim` (`reduce`:
    ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``), in place, and returns ``input``. See
    :func:`ember.scatter_reduce`."""
    return input.scatter_reduce_(dim, index, src, reduce, include_self=include_self)


def squeeze_(input, dim=None):
    """Removes the size-1 dimensions of ``input`` (only `dim`, one or several, when given), in place, and returns
    it. See :func:`ember.squeeze`."""
    return input.squeeze_(dim)


def swapaxes_(input, axis0, axis1):
    """Swaps the dimensions `axis0` and `axis1` of ``input`` in place (an alias of :func:`ember.transpose_`)."""
    return input.swapaxes_(axis0, axis1)


def swapdims_(input, dim0, dim1):
    """Swaps the dimensions `dim0` and `dim1` of ``input`` in place (an alias of :func:`ember.transpose_`)."""
    return input.swapdims_(dim0, dim1)


def t_(input):
    """Transposes the matrix ``input`` (at most 2-D) in place and returns it. See :func:`ember.t`."""
    return input.t_()


def transpose_(input, dim0, dim1):
    """Swaps the dimensions `dim0` and `dim1` of ``input`` in place (its strides) and returns it. See
    :func:`ember.transpose`."""
    return input.transpose_(dim0, dim1)


def tril_(input, diagonal=0):
    """In-place version of :func:`ember.tril`: zeroes the elements of ``input`` above the `diagonal`-th diagonal."""
    return input.tril_(diagonal)


def triu_(input, diagonal=0):
    """In-place version of :func:`ember.triu`: zeroes the elements of ``input`` below the `diagonal`-th diagonal."""
    return input.triu_(diagonal)


def unsqueeze_(input, dim):
    """Inserts a dimension of size 1 at `dim` into ``input`` in place and returns it. See :func:`ember.unsqueeze`."""
    return input.unsqueeze_(dim)


# ---- Tensor methods at top level -------------------------------------------------------------------------------------


def get_device(input):
    """Returns the index of the CUDA device ``input`` is on, or -1 for a CPU tensor."""
    return input.get_device()


# ---- *_copy functions ------------------------------------------------------------------------------------------------
# Each returns what its view op returns, in memory of its own (a list or tuple of them for the splitting ones), so that
# writing to the result never writes to `input`.


def _copied(r):
    if isinstance(r, (tuple, list)):
        copies = _C._copy_each(r)  # one C++ call (Note [Many tensors back to Python]); None for subclasses
        return type(r)(_copied(t) for t in r) if copies is None else type(r)(copies)
    return r.contiguous() if not r.is_contiguous() else r.clone()


def view_copy(input, size):
    """Returns a copy of ``input.view(size)`` in new memory (a contiguous tensor that does not alias ``input``)."""
    return _copied(input.view(size))


def permute_copy(input, dims):
    """Returns a copy of ``ember.permute(input, dims)`` in new memory (contiguous, not aliasing ``input``)."""
    return _copied(input.permute(dims))


def expand_copy(input, size, *, implicit=False):
    """Returns a copy of ``input.expand(size)`` in new memory: the broadcast elements are materialised. `implicit`
    is accepted for PyTorch's traced graphs and has no effect."""
    return _copied(input.expand(size))


def t_copy(input):
    """Returns a copy of ``ember.t(input)`` in new memory (contiguous, not aliasing ``input``)."""
    return _copied(input.t())


def transpose_copy(input, dim0, dim1):
    """Returns a copy of ``ember.transpose(input, dim0, dim1)`` in new memory (contiguous, not aliasing
    ``input``)."""
    return _copied(input.transpose(dim0, dim1))


def unsqueeze_copy(input, dim):
    """Returns a copy of ``ember.unsqueeze(input, dim)`` in new memory (not aliasing ``input``)."""
    return _copied(input.unsqueeze(dim))


def squeeze_copy(input, dim=None):
    """Returns a copy of ``ember.squeeze(input, dim)`` in new memory (not aliasing ``input``)."""
    return _copied(input.squeeze(dim))


def select_copy(input, dim, index):
    """Returns a copy of ``ember.select(input, dim, index)`` in new memory (not aliasing ``input``)."""
    return _copied(input.select(dim, index))


def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    """Returns a copy of ``ember.diagonal(input, offset, dim1, dim2)`` in new memory (not aliasing ``input``)."""
    return _copied(input.diagonal(offset, dim1, dim2))


def as_strided_copy(input, size, stride, storage_offset=None):
    """Returns a copy of ``ember.as_strided(input, size, stride, storage_offset)`` in new memory (contiguous, not
    aliasing ``input``)."""
    return _copied(input.as_strided(size, stride, storage_offset))


def detach_copy(input):
    """Returns a copy of ``input.detach()`` in new memory: it neither aliases ``input`` nor requires grad."""
    return _copied(input.detach())


def unfold_copy(input, dimension, size, step):
    """Returns a copy of ``input.unfold(dimension, size, step)`` (the windows of `size` elements, `step` apart,
    along `dimension`) in new memory."""
    return _copied(input.unfold(dimension, size, step))


def split_copy(input, split_size, dim=0):
    """Returns ``ember.split(input, split_size, dim)``'s pieces, each copied into new memory."""
    return _copied(input.split(split_size, dim))


def split_with_sizes_copy(input, split_sizes, dim=0):
    """Returns ``input.split_with_sizes(split_sizes, dim)``'s pieces, each copied into new memory."""
    return _copied(input.split_with_sizes(split_sizes, dim))


def unbind_copy(input, dim=0):
    """Returns ``ember.unbind(input, dim)``'s slices, each copied into new memory."""
    return _copied(input.unbind(dim))


def alias_copy(input):
    """Returns a copy of ``input`` in new memory (PyTorch's copy of its `alias` view: a tensor equal to ``input``
    that does not share its data)."""
    return _copied(input.view(input.shape))


def slice_copy(input, dim=0, start=None, end=None, step=1):
    """Returns a copy of ``input[..., start:end:step]`` (the slice taken along `dim`) in new memory."""
    dim = dim + input.dim() if dim < 0 else dim
    return _copied(input[(slice(None),) * dim + (slice(start, end, step),)])


__all__ = [
    # in-place functions
    "addbmm_",
    "addcdiv_",
    "addcmul_",
    "addmm_",
    "addmv_",
    "addr_",
    "baddbmm_",
    "bernoulli_",
    "clamp_max_",
    "clamp_min_",
    "cumprod_",
    "cumsum_",
    "float_power_",
    "index_add_",
    "index_copy_",
    "index_fill_",
    "index_reduce_",
    "lerp_",
    "masked_fill_",
    "masked_scatter_",
    "mvlgamma_",
    "normal_",
    "polygamma_",
    "put_",
    "renorm_",
    "scatter_",
    "scatter_add_",
    "scatter_reduce_",
    "squeeze_",
    "swapaxes_",
    "swapdims_",
    "t_",
    "transpose_",
    "tril_",
    "triu_",
    "unsqueeze_",
    # Tensor methods at top level
    "get_device",
    # *_copy functions
    "alias_copy",
    "as_strided_copy",
    "detach_copy",
    "diagonal_copy",
    "expand_copy",
    "permute_copy",
    "select_copy",
    "slice_copy",
    "split_copy",
    "split_with_sizes_copy",
    "squeeze_copy",
    "t_copy",
    "transpose_copy",
    "unbind_copy",
    "unfold_copy",
    "unsqueeze_copy",
    "view_copy",
]
