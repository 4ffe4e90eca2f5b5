// Bindings of the ops that read or write a tensor by index (ember/ops/shape.h, split_stack.h, index.h): gather and
// the scatter family, index_select/add/copy/fill/put/reduce, take, take_along_dim, put, and the *_scatter ops
// (diagonal_scatter, ...), with PyTorch's signatures and docstrings.
#include "common.h"
#include "ember/ops.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

// A value that PyTorch accepts as a number or a 0-d tensor (index_fill).
Scalar value_of(nb::handle h, const char* fn) {
  if (nb::isinstance<Tensor>(h)) {
    const Tensor& t = nb::cast<const Tensor&>(h);
    EMBER_CHECK(t.dim() == 0, fn, " only supports a 0-dimensional value tensor, but got tensor with ", t.dim(),
                " dimension(s).");
    return item(t);
  }
  return to_scalar(h, fn);
}

std::optional<std::string_view> opt_str(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  EMBER_CHECK_TYPE(PyUnicode_Check(h.ptr()), "reduce must be a str, not ", nb::inst_name(h).c_str());
  return std::string_view(utf8(h));
}

std::vector<Tensor> optional_tensors(nb::handle h, const char* fn) {
  EMBER_CHECK_TYPE(is_seq(h), fn, "(): argument 'indices' must be tuple of Tensors, not ", nb::inst_name(h).c_str());
  std::vector<Tensor> r;
  for (nb::handle item : nb::borrow<nb::sequence>(h)) {
    if (item.is_none()) {
      r.emplace_back();
      continue;
    }
    EMBER_CHECK_TYPE(nb::isinstance<Tensor>(item), fn, "(): expected Tensor or None in argument 'indices', but got ",
                     nb::inst_name(item).c_str());
    r.push_back(nb::cast<const Tensor&>(item));
  }
  return r;
}

constexpr const char* kGatherDoc = R"(
Gathers values of ``input`` along ``dim`` at the positions ``index``.

For a 3-d tensor:

.. math::
    \text{out}[i][j][k] = \text{input}[\text{index}[i][j][k]][j][k] \quad (\text{dim} = 0)

and likewise for the other dims. ``index`` is ``int64`` with as many dims as ``input``, and no larger than
``input`` in the dims other than ``dim``; the result has ``index``'s shape. Out-of-range indices raise
``IndexError``. The gradient is scattered back (added) to ``input``.

Args:
    input (Tensor): the source tensor.
    dim (int): the dim to index along.
    index (Tensor): the ``int64`` indices.

Keyword args:
    sparse_grad (bool): accepted for PyTorch's API; ember's gradient is dense. Default: ``False``.
    out (Tensor, optional): the output tensor.

Example::

    >>> t = ember.tensor([[1, 2], [3, 4]])
    >>> ember.gather(t, 1, ember.tensor([[0, 0], [1, 0]]))
    tensor([[1, 1],
            [4, 3]])
)";

constexpr const char* kScatterDoc = R"(
Returns a copy of ``input`` with the values of ``src`` written at the positions ``index`` along ``dim``.

The reverse of :func:`ember.gather`: for a 3-d tensor and ``dim=0``,
``out[index[i][j][k]][j][k] = src[i][j][k]``, for every element of ``index`` (which is ``int64``, with as many dims
as ``input`` and no larger than ``src``). ``value`` (a number) may replace ``src``. With ``reduce='add'`` or
``'multiply'`` the values are combined with those in place instead of replacing them. When several indices hit
one position without ``reduce``, which value wins is unspecified.

Args:
    input (Tensor): the tensor to copy and write into.
    dim (int): the dim to index along.
    index (Tensor): the ``int64`` indices.
    src (Tensor or float): the values to write (a number stands for ``value``).

Keyword args:
    value (float, optional): one value written at every index, instead of ``src``.
    reduce (str, optional): ``'add'`` or ``'multiply'``: how to combine with the values in place.

Example::

    >>> ember.zeros(2, 3).scatter(1, ember.tensor([[2], [0]]), ember.ones(2, 1))
    tensor([[0., 0., 1.],
            [1., 0., 0.]])
)";

constexpr const char* kScatterInplaceDoc = R"(
Writes the values of ``src`` into ``self`` at the positions ``index`` along ``dim``, in place, and returns ``self``.

The in-place form of :meth:`Tensor.scatter` (same arguments): for a 3-d tensor and ``dim=0``,
``self[index[i][j][k]][j][k] = src[i][j][k]``; ``value`` may replace ``src``, and ``reduce`` (``'add'`` or
``'multiply'``) combines with the values in place.

Args:
    dim (int): the dim to index along.
    index (Tensor): the ``int64`` indices.
    src (Tensor or float): the values to write (a number stands for ``value``).

Keyword args:
    value (float, optional): one value written at every index, instead of ``src``.
    reduce (str, optional): ``'add'`` or ``'multiply'``: how to combine with the values in place.
)";

constexpr const char* kScatterAddDoc = R"(
Returns a copy of ``input`` with the values of ``src`` added at the positions ``index`` along ``dim``.

For a 3-d tensor and ``dim=0``, ``out[index[i][j][k]][j][k] += src[i][j][k]``; values sent to one position all add
up. ``index`` is ``int64``, with as many dims as ``input`` and no larger than ``src``.

Args:
    input (Tensor): the tensor to add into.
    dim (int): the dim to index along.
    index (Tensor): the ``int64`` indices.
    src (Tensor): the values to add.

Example::

    >>> ember.zeros(3).scatter_add(0, ember.tensor([0, 0, 2]), ember.tensor([1., 2., 3.]))
    tensor([3., 0., 3.])
)";

constexpr const char* kScatterReduceDoc = R"(
Returns a copy of ``input`` with the values of ``src`` combined by ``reduce`` at the positions ``index`` along ``dim``.

Each position of the result that ``index`` points at combines the values of ``src`` sent to it, and its value in
``input`` when ``include_self`` is true: ``reduce`` is ``'sum'``, ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``.
Positions nothing points at keep ``input``'s value.

Args:
    input (Tensor): the tensor to combine into.
    dim (int): the dim to index along.
    index (Tensor): the ``int64`` indices.
    src (Tensor): the values to combine.
    reduce (str): ``'sum'``, ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``.

Keyword args:
    include_self (bool): whether ``input``'s values take part. Default: ``True``.

Example::

    >>> src = ember.tensor([1., 2., 3.])
    >>> ember.zeros(3).scatter_reduce(0, ember.tensor([0, 0, 2]), src, 'amax', include_self=False)
    tensor([2., 0., 3.])
)";

constexpr const char* kIndexSelectDoc = R"(
Returns the slices of ``input`` along ``dim`` at the positions ``index``, a 1-d integer tensor.

The result has ``input``'s shape with ``dim`` of size ``len(index)``; it is a copy.

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to index along.
    index (Tensor): a 1-d (or 0-d) ``int64`` or ``int32`` tensor of indices.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.index_select(ember.tensor([[1, 2], [3, 4]]), 0, ember.tensor([1, 1]))
    tensor([[3, 4],
            [3, 4]])
)";

constexpr const char* kIndexAddDoc = R"(
Returns a copy of ``input`` with ``alpha * source`` added to its slices along ``dim`` at the positions ``index``.

Slice ``i`` of ``source`` along ``dim`` is added to slice ``index[i]`` of the result; repeated indices add up.

Args:
    input (Tensor): the tensor to add into.
    dim (int): the dim to index along.
    index (Tensor): a 1-d ``int64`` or ``int32`` tensor of indices.
    source (Tensor): the slices to add, with ``len(index)`` along ``dim``.

Keyword args:
    alpha (float): the factor of ``source``. Default: ``1``.
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.zeros(3, 2).index_add(0, ember.tensor([0, 2]), ember.ones(2, 2), alpha=2)
    tensor([[2., 2.],
            [0., 0.],
            [2., 2.]])
)";

constexpr const char* kIndexCopyDoc = R"(
Returns a copy of ``input`` with its slices along ``dim`` at the positions ``index`` replaced by those of ``source``.

Slice ``i`` of ``source`` along ``dim`` replaces slice ``index[i]``; with repeated indices, which one wins is
unspecified.

Args:
    input (Tensor): the tensor to copy into.
    dim (int): the dim to index along.
    index (Tensor): a 1-d ``int64`` tensor of indices.
    source (Tensor): the slices to copy, with ``len(index)`` along ``dim`` (``tensor2`` in PyTorch's documentation of
        the method; both names are accepted).

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.zeros(3).index_copy(0, ember.tensor([2, 0]), ember.tensor([5., 6.]))
    tensor([6., 0., 5.])
)";

constexpr const char* kIndexFillDoc = R"(
Returns a copy of ``input`` with its slices along ``dim`` at the positions ``index`` filled with ``value``.

Args:
    input (Tensor): the tensor to fill.
    dim (int): the dim to index along.
    index (Tensor): a 1-d ``int64`` tensor of indices.
    value (float or Tensor): the fill value: a number or a 0-d tensor (differentiable with respect to it).

Example::

    >>> ember.zeros(2, 3).index_fill(1, ember.tensor([0, 2]), -1.)
    tensor([[-1.,  0., -1.],
            [-1.,  0., -1.]])
)";

constexpr const char* kIndexPutDoc = R"(
Returns a copy of ``input`` with ``values`` written at the advanced index ``indices``: ``out[indices] = values``.

``indices`` is a tuple of index tensors, one per leading dim (``None`` takes the whole dim; bool masks consume as
many dims as they have), as in ``input[indices]``. ``values`` broadcasts to the indexed shape. With
``accumulate=True`` the values are added, repeated indices included: ``out[indices] += values``.

Args:
    input (Tensor): the tensor to write into.
    indices (tuple of Tensors): the index tensors.
    values (Tensor): the values, of ``input``'s dtype.
    accumulate (bool): add instead of replacing. Default: ``False``.

Example::

    >>> ember.zeros(3).index_put((ember.tensor([0, 0]),), ember.tensor([1., 2.]), accumulate=True)
    tensor([3., 0., 0.])
)";

constexpr const char* kIndexPutInplaceDoc = R"(
Writes ``values`` into ``input`` at the advanced index ``indices`` in place, and returns ``input``.

``input[indices] = values`` (or ``+=`` with ``accumulate=True``); see :func:`ember.index_put`.

Args:
    input (Tensor): the tensor to write into.
    indices (tuple of Tensors): the index tensors.
    values (Tensor): the values, of ``input``'s dtype.
    accumulate (bool): add instead of replacing. Default: ``False``.
)";

constexpr const char* kIndexReduceDoc = R"(
Returns a copy of ``input`` whose slices along ``dim`` at ``index`` combine, by ``reduce``, with those of ``source``.

Slice ``i`` of ``source`` along ``dim`` is combined into slice ``index[i]``: ``reduce`` is ``'prod'``, ``'mean'``,
``'amax'`` or ``'amin'``, over the slices sent to each position and ``input``'s own one when ``include_self`` is
true. Slices nothing points at keep ``input``'s values.

Args:
    input (Tensor): the tensor to combine into.
    dim (int): the dim to index along.
    index (Tensor): a 1-d ``int64`` tensor of indices.
    source (Tensor): the slices to combine, with ``len(index)`` along ``dim``.
    reduce (str): ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``.

Keyword args:
    include_self (bool): whether ``input``'s values take part. Default: ``True``.
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.ones(3).index_reduce(0, ember.tensor([0, 0]), ember.tensor([2., 3.]), 'prod')
    tensor([6., 1., 1.])
)";

constexpr const char* kTakeDoc = R"(
Returns the elements of ``input``, seen as flattened, at the positions ``index``; the result has ``index``'s shape.

Negative indices count from the end.

Args:
    input (Tensor): the input tensor.
    index (Tensor): the ``int64`` indices into the flattened ``input`` (``indices`` in PyTorch's documentation of the
        method; both names are accepted).

Example::

    >>> ember.take(ember.tensor([[1, 2], [3, 4]]), ember.tensor([0, 3]))
    tensor([1, 4])
)";

constexpr const char* kTakeAlongDimDoc = R"(
Returns the values of ``input`` at the positions ``indices`` along ``dim``, broadcasting the other dims.

Like :func:`ember.gather`, but ``indices`` and ``input`` broadcast together in the dims other than ``dim``: the
natural partner of the indices from :func:`ember.argsort` or :func:`ember.argmax` with ``keepdim=True``. Without
``dim``, ``input`` is flattened and ``indices`` index it.

Args:
    input (Tensor): the input tensor.
    indices (Tensor): the ``int64`` indices.
    dim (int, optional): the dim to select along. Default: the flattened ``input``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> t = ember.tensor([[1, 2], [3, 4]])
    >>> ember.take_along_dim(t, ember.tensor([[1], [0]]), dim=1)
    tensor([[2],
            [3]])
)";

constexpr const char* kPutDoc = R"(
Returns a copy of ``input`` with the values of ``source`` written at the positions ``index`` of its flattened form.

``out.flatten()[index] = source`` (``+=`` with ``accumulate=True``); negative indices count from the end.

Args:
    input (Tensor): the tensor to write into.
    index (Tensor): the ``int64`` indices into the flattened ``input``.
    source (Tensor): the values, as many as ``index`` has.
    accumulate (bool): add instead of replacing. Default: ``False``.

Example::

    >>> ember.zeros(2, 2).put(ember.tensor([0, 3]), ember.tensor([1., 2.]))
    tensor([[1., 0.],
            [0., 2.]])
)";

constexpr const char* kPutInplaceDoc = R"(
Writes the values of ``source`` into ``self`` at the positions ``index`` of its flattened form, and returns ``self``.

``self.flatten()[index] = source`` (``+=`` with ``accumulate=True``); negative indices count from the end.

Args:
    index (Tensor): the ``int64`` indices into the flattened ``self``.
    source (Tensor): the values, as many as ``index`` has.
    accumulate (bool): add instead of replacing. Default: ``False``.
)";

constexpr const char* kDiagonalScatterDoc = R"(
Returns a copy of ``input`` with ``src`` written into the diagonal that :func:`ember.diagonal` selects.

``src`` has the shape of ``ember.diagonal(input, offset, dim1, dim2)``. Differentiable with respect to both.

Args:
    input (Tensor): the tensor to copy (at least 2-d).
    src (Tensor): the values of the diagonal.
    offset (int): which diagonal: 0 the main one, positive above, negative below. Default: ``0``.
    dim1 (int): the first dim of the planes. Default: ``0``.
    dim2 (int): the second dim of the planes. Default: ``1``.

Example::

    >>> ember.zeros(2, 2).diagonal_scatter(ember.ones(2))
    tensor([[1., 0.],
            [0., 1.]])
)";

constexpr const char* kSelectScatterDoc = R"(
Returns a copy of ``input`` with ``src`` written into the slice ``input.select(dim, index)``.

Args:
    input (Tensor): the tensor to copy.
    src (Tensor): the values of the slice, of its shape.
    dim (int): the dim to select along.
    index (int): the index of the slice.

Example::

    >>> ember.zeros(2, 2).select_scatter(ember.ones(2), 0, 0)
    tensor([[1., 1.],
            [0., 0.]])
)";

constexpr const char* kSliceScatterDoc = R"(
Returns a copy of ``input`` with ``src`` written into the slice ``start:end:step`` of dim ``dim``.

Args:
    input (Tensor): the tensor to copy.
    src (Tensor): the values of the slice, of its shape.
    dim (int): the dim to slice. Default: ``0``.
    start (int, optional): the first index of the slice. Default: the start.
    end (int, optional): the index after the slice. Default: the end.
    step (int): the step between indices. Default: ``1``.

Example::

    >>> ember.zeros(4).slice_scatter(ember.ones(2), start=2)
    tensor([0., 0., 1., 1.])
)";

constexpr const char* kAsStridedScatterDoc = R"(
Returns a copy of ``input`` with ``src`` written into the elements of a strided view of it.

The view is ``input.as_strided(size, stride, storage_offset)``.

Args:
    input (Tensor): the tensor to copy.
    src (Tensor): the values, of shape ``size``.
    size (sequence of ints): the shape of the strided view.
    stride (sequence of ints): its strides, in elements.
    storage_offset (int, optional): its offset into the storage. Default: ``input``'s.

Example::

    >>> ember.zeros(4).as_strided_scatter(ember.ones(2), (2,), (2,))
    tensor([1., 0., 1., 0.])
)";

void def_gather_scatter(nb::module_& m, nb::handle cls) {
  def_fn(
      m, "gather",
      [](const Tensor& t, int64_t dim, const Tensor& index, bool, nb::handle out) {
        return finish_out(gather(t, dim, index), out, "gather");
      },
      nb::sig("def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, "
              "out: Tensor | None = None) -> Tensor"),
      nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("sparse_grad") = false,
      nb::arg("out") = nb::none(), kGatherDoc);
  def_method(
      cls, "gather", [](const Tensor& t, int64_t dim, const Tensor& index, bool) { return gather(t, dim, index); },
      nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("sparse_grad") = false,
      method_doc(kGatherDoc, "gather").c_str());

  // scatter(input, dim, index, src) or scatter(input, dim, index, value), with reduce='add'|'multiply'.
  auto scatter_fn = [](bool in_place) {
    return [in_place](const Tensor& t, int64_t dim, const Tensor& index, nb::handle src, nb::handle value,
                      nb::handle reduce) {
      if (src.is_none()) src = value;
      EMBER_CHECK_TYPE(!src.is_none(), "scatter(): expected an argument 'src' (a tensor) or 'value' (a number)");
      const auto r = opt_str(reduce);
      if (nb::isinstance<Tensor>(src)) {
        const Tensor& s = nb::cast<const Tensor&>(src);
        return in_place ? scatter_(t, dim, index, s, r) : scatter(t, dim, index, s, r);
      }
      const Scalar v = to_scalar(src, "scatter");
      return in_place ? scatter_(t, dim, index, v, r) : scatter(t, dim, index, v, r);
    };
  };
  const Sig scatter_sig{
      "dim: int, index: Tensor, src: Tensor | float | None = None, *, value: float | None = None, "
      "reduce: str | None = None"};
  def_both(m, cls, "scatter", scatter_sig, scatter_fn(false), kScatterDoc, nb::arg("dim"), nb::arg("index"),
           nb::arg("src") = nb::none(), nb::kw_only(), nb::arg("value") = nb::none(), nb::arg("reduce") = nb::none());
  def_method(
      cls, "scatter_",
      [f = scatter_fn(true)](nb::handle self, int64_t dim, const Tensor& index, nb::handle src, nb::handle value,
                             nb::handle reduce) -> nb::typed<nb::object, Tensor> {
        f(nb::cast<const Tensor&>(self), dim, index, src, value, reduce);
        return nb::borrow(self);
      },
      nb::sig(scatter_sig.text("scatter_", "self").c_str()), nb::arg("dim"), nb::arg("index"),
      nb::arg("src") = nb::none(), nb::kw_only(), nb::arg("value") = nb::none(), nb::arg("reduce") = nb::none(),
      kScatterInplaceDoc);

  def_both(
      m, cls, "scatter_add",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
        return scatter_add(t, dim, index, src);
      },
      kScatterAddDoc, nb::arg("dim"), nb::arg("index"), nb::arg("src"));
  def_inplace<int64_t, const Tensor&, const Tensor&>(cls, "scatter_add_", &scatter_add_, nb::arg("dim"),
                                                     nb::arg("index"), nb::arg("src"));

  def_both(
      m, cls, "scatter_reduce",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, std::string reduce, bool include_self) {
        return scatter_reduce(t, dim, index, src, reduce, include_self);
      },
      kScatterReduceDoc, nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::arg("reduce"), nb::kw_only(),
      nb::arg("include_self") = true);
  def_inplace<int64_t, const Tensor&, const Tensor&, std::string, bool>(
      cls, "scatter_reduce_",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src, std::string reduce, bool include_self) {
        scatter_reduce_(t, dim, index, src, reduce, include_self);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::arg("reduce"), nb::kw_only(),
      nb::arg("include_self") = true);
}

void def_index_ops(nb::module_& m, nb::handle cls) {
  def_fn(
      m, "index_select",
      [](const Tensor& t, int64_t dim, const Tensor& index, nb::handle out) {
        return finish_out(index_select(t, dim, index), out, "index_select");
      },
      nb::sig("def index_select(input: Tensor, dim: int, index: Tensor, *, out: Tensor | None = None) -> Tensor"),
      nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("out") = nb::none(), kIndexSelectDoc);
  def_method(
      cls, "index_select",
      [](const Tensor& t, int64_t dim, const Tensor& index) { return index_select(t, dim, index); }, nb::arg("dim"),
      nb::arg("index"), method_doc(kIndexSelectDoc, "index_select").c_str());

  auto index_add_fn = [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, nb::handle alpha) {
    return index_add(t, dim, index, source, to_scalar(alpha, "index_add"));
  };
  def_fn(
      m, "index_add",
      [index_add_fn](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, nb::handle alpha,
                     nb::handle out) {
        return finish_out(index_add_fn(t, dim, index, source, alpha), out, "index_add");
      },
      nb::sig("def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: float = 1, "
              "out: Tensor | None = None) -> Tensor"),
      nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = 1,
      nb::arg("out") = nb::none(), kIndexAddDoc);
  const Sig index_add_sig{"dim: int, index: Tensor, source: Tensor, *, alpha: float = 1"};
  def_method(cls, "index_add", index_add_fn, nb::sig(index_add_sig.text("index_add", "self").c_str()), nb::arg("dim"),
             nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = 1,
             method_doc(kIndexAddDoc, "index_add").c_str());
  def_inplace<int64_t, const Tensor&, const Tensor&, nb::handle>(
      cls, "index_add_", index_add_sig,
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, nb::handle alpha) {
        index_add_(t, dim, index, source, to_scalar(alpha, "index_add_"));
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = 1);

  // index_copy: the method's source is `tensor2` (index_copy) and `tensor` (index_copy_) in PyTorch's
  // documentation and `source` in its binding: each also takes the documented name (an overload).
  auto index_copy_fn = [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source) {
    return index_copy(t, dim, index, source);
  };
  def_fn(
      m, "index_copy",
      [index_copy_fn](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, nb::handle out) {
        return finish_out(index_copy_fn(t, dim, index, source), out, "index_copy");
      },
      nb::sig("def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor, *, out: Tensor | None = None) -> "
              "Tensor"),
      nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("out") = nb::none(),
      kIndexCopyDoc);
  const std::string index_copy_mdoc = method_doc(kIndexCopyDoc, "index_copy");
  def_method(cls, "index_copy", index_copy_fn, nb::arg("dim"), nb::arg("index"), nb::arg("source"),
             index_copy_mdoc.c_str());
  nb::cpp_function_def(index_copy_fn, nb::scope(cls), nb::name("index_copy"), nb::is_method(), nb::arg("dim"),
                       nb::arg("index"), nb::arg("tensor2"), index_copy_mdoc.c_str());
  def_inplace<int64_t, const Tensor&, const Tensor&>(cls, "index_copy_", &index_copy_, nb::arg("dim"), nb::arg("index"),
                                                     nb::arg("source"));
  nb::cpp_function_def(
      [](nb::handle self, int64_t dim, const Tensor& index, const Tensor& source) -> nb::typed<nb::object, Tensor> {
        index_copy_(nb::cast<const Tensor&>(self), dim, index, source);
        return nb::borrow(self);
      },
      nb::scope(cls), nb::name("index_copy_"), nb::is_method(), nb::arg("dim"), nb::arg("index"), nb::arg("tensor"),
      inplace_doc("index_copy").c_str());

  const Sig fill_sig{"dim: int, index: Tensor, value: Tensor | float"};
  def_both(
      m, cls, "index_fill", fill_sig,
      [](const Tensor& t, int64_t dim, const Tensor& index, nb::handle value) {
        if (nb::isinstance<Tensor>(value)) return index_fill(t, dim, index, nb::cast<const Tensor&>(value));
        return index_fill(t, dim, index, value_of(value, "index_fill"));
      },
      kIndexFillDoc, nb::arg("dim"), nb::arg("index"), nb::arg("value"));
  def_inplace<int64_t, const Tensor&, nb::handle>(
      cls, "index_fill_", fill_sig,
      [](const Tensor& t, int64_t dim, const Tensor& index, nb::handle value) {
        if (nb::isinstance<Tensor>(value))
          index_fill_(t, dim, index, nb::cast<const Tensor&>(value));
        else
          index_fill_(t, dim, index, value_of(value, "index_fill_"));
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("value"));

  const Sig put_sig{"indices: Sequence[Tensor | None], values: Tensor, accumulate: bool = False"};
  def_both(
      m, cls, "index_put", put_sig,
      [](const Tensor& t, nb::handle indices, const Tensor& values, bool acc) {
        return index_put(t, optional_tensors(indices, "index_put"), values, acc);
      },
      kIndexPutDoc, nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
  def_inplace<nb::handle, const Tensor&, bool>(
      cls, "index_put_", put_sig,
      [](const Tensor& t, nb::handle indices, const Tensor& values, bool accumulate) {
        index_put_(t, optional_tensors(indices, "index_put_"), values, accumulate);
      },
      nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
  def_fn(
      m, "index_put_",
      [](nb::handle self, nb::handle indices, const Tensor& values, bool accumulate) -> nb::typed<nb::object, Tensor> {
        index_put_(nb::cast<const Tensor&>(self), optional_tensors(indices, "index_put_"), values, accumulate);
        return nb::borrow(self);
      },
      nb::sig(put_sig.text("index_put_", "input: Tensor").c_str()), nb::arg("input"), nb::arg("indices"),
      nb::arg("values"), nb::arg("accumulate") = false, kIndexPutInplaceDoc);

  auto index_reduce_fn = [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, std::string reduce,
                            bool include_self) { return index_reduce(t, dim, index, source, reduce, include_self); };
  def_fn(
      m, "index_reduce",
      [index_reduce_fn](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, std::string reduce,
                        bool include_self, nb::handle out) {
        return finish_out(index_reduce_fn(t, dim, index, source, std::move(reduce), include_self), out, "index_reduce");
      },
      nb::sig("def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *, "
              "include_self: bool = True, out: Tensor | None = None) -> Tensor"),
      nb::arg("input"), nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::arg("reduce"), nb::kw_only(),
      nb::arg("include_self") = true, nb::arg("out") = nb::none(), kIndexReduceDoc);
  def_method(cls, "index_reduce", index_reduce_fn, nb::arg("dim"), nb::arg("index"), nb::arg("source"),
             nb::arg("reduce"), nb::kw_only(), nb::arg("include_self") = true,
             method_doc(kIndexReduceDoc, "index_reduce").c_str());
  def_inplace<int64_t, const Tensor&, const Tensor&, std::string, bool>(
      cls, "index_reduce_",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, std::string reduce, bool incl) {
        index_reduce_(t, dim, index, source, reduce, incl);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::arg("reduce"), nb::kw_only(),
      nb::arg("include_self") = true);
}

void def_take_put(nb::module_& m, nb::handle cls) {
  def_fn(
      m, "take",
      [](const Tensor& t, const Tensor& index, nb::handle out) { return finish_out(take(t, index), out, "take"); },
      nb::sig("def take(input: Tensor, index: Tensor, *, out: Tensor | None = None) -> Tensor"), nb::arg("input"),
      nb::arg("index"), nb::kw_only(), nb::arg("out") = nb::none(), kTakeDoc);
  // The method's index is `indices` in PyTorch's documentation and `index` in its binding: both work.
  const std::string take_mdoc = method_doc(kTakeDoc, "take");
  auto take_fn = [](const Tensor& t, const Tensor& index) { return take(t, index); };
  def_method(cls, "take", take_fn, nb::arg("index"), take_mdoc.c_str());
  nb::cpp_function_def(take_fn, nb::scope(cls), nb::name("take"), nb::is_method(), nb::arg("indices"),
                       take_mdoc.c_str());

  def_fn(
      m, "take_along_dim",
      [](const Tensor& t, const Tensor& indices, std::optional<int64_t> dim, nb::handle out) {
        return finish_out(take_along_dim(t, indices, dim), out, "take_along_dim");
      },
      nb::sig("def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None, *, "
              "out: Tensor | None = None) -> Tensor"),
      nb::arg("input"), nb::arg("indices"), nb::arg("dim") = nb::none(), nb::kw_only(), nb::arg("out") = nb::none(),
      kTakeAlongDimDoc);
  def_method(
      cls, "take_along_dim",
      [](const Tensor& t, const Tensor& indices, std::optional<int64_t> dim) {
        return take_along_dim(t, indices, dim);
      },
      nb::arg("indices"), nb::arg("dim") = nb::none(), method_doc(kTakeAlongDimDoc, "take_along_dim").c_str());

  auto put_fn = [](const Tensor& t, const Tensor& index, const Tensor& source, bool accumulate) {
    return put(t, index, source, accumulate);
  };
  def_fn(m, "put", put_fn, nb::arg("input"), nb::arg("index"), nb::arg("source"), nb::arg("accumulate") = false,
         kPutDoc);
  // PyTorch documents the method as put(input, index, source, accumulate=False), input being self.
  def_method(cls, "put", put_fn,
             nb::sig("def put(input, index: Tensor, source: Tensor, accumulate: bool = False) -> "
                     "Tensor"),
             nb::arg("index"), nb::arg("source"), nb::arg("accumulate") = false, method_doc(kPutDoc, "put").c_str());
  def_method(
      cls, "put_",
      [](nb::handle self, const Tensor& index, const Tensor& source, bool accumulate) -> nb::typed<nb::object, Tensor> {
        put_(nb::cast<const Tensor&>(self), index, source, accumulate);
        return nb::borrow(self);
      },
      nb::arg("index"), nb::arg("source"), nb::arg("accumulate") = false, kPutInplaceDoc);

  m.def(
      "_one_hot", [](const Tensor& t, int64_t num_classes) { return one_hot(t, num_classes); }, nb::arg("tensor"),
      nb::arg("num_classes") = -1);
}

void def_view_scatters(nb::module_& m, nb::handle cls) {
  def_both(
      m, cls, "diagonal_scatter",
      [](const Tensor& t, const Tensor& src, int64_t o, int64_t d1, int64_t d2) {
        return diagonal_scatter(t, src, o, d1, d2);
      },
      kDiagonalScatterDoc, nb::arg("src"), nb::arg("offset") = 0, nb::arg("dim1") = 0, nb::arg("dim2") = 1);
  def_both(
      m, cls, "select_scatter",
      [](const Tensor& t, const Tensor& src, int64_t dim, int64_t index) { return select_scatter(t, src, dim, index); },
      kSelectScatterDoc, nb::arg("src"), nb::arg("dim"), nb::arg("index"));
  def_both(
      m, cls, "slice_scatter",
      Sig{"src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, "
          "step: int = 1"},
      [](const Tensor& t, const Tensor& src, int64_t dim, nb::handle start, nb::handle end, int64_t step) {
        return slice_scatter(t, src, dim, opt_int(start, "slice_scatter", "start"),
                             opt_int(end, "slice_scatter", "end"), step);
      },
      kSliceScatterDoc, nb::arg("src"), nb::arg("dim") = 0, none_arg("start"), none_arg("end"), nb::arg("step") = 1);
  def_both(
      m, cls, "as_strided_scatter",
      Sig{"src: Tensor, size: Sequence[int], stride: Sequence[int], "
          "storage_offset: int | None = None"},
      [](const Tensor& t, const Tensor& src, nb::handle size, nb::handle stride, nb::handle offset) {
        return as_strided_scatter(t, src, to_int_list(size, "as_strided_scatter", "size"),
                                  to_int_list(stride, "as_strided_scatter", "stride"),
                                  opt_int(offset, "as_strided_scatter", "storage_offset"));
      },
      kAsStridedScatterDoc, nb::arg("src"), nb::arg("size"), nb::arg("stride"), none_arg("storage_offset"));
}

}  // namespace

void init_gather_scatter(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  def_gather_scatter(m, cls);
  def_index_ops(m, cls);
  def_take_put(m, cls);
  def_view_scatters(m, cls);
}

}  // namespace ember::py
