// Bindings of the ops on dims and element order (ember/ops/shape.h, split_stack.h, index.h): moving and broadcasting
// dims, atleast_Nd, ravel, narrow_copy, flips, rolls and rotations, repetition, and the in-place metadata ops
// (unsqueeze_, t_, resize_, ...), with PyTorch's signatures and docstrings.
#include <tuple>

#include "common.h"
#include "ember/ops.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

nb::object tuple_of(const nb::args& args, const char* fn, Tensor (*f)(const Tensor&)) {
  // atleast_Nd(t) -> tensor; atleast_Nd(t1, t2, ...) or atleast_Nd((t1, t2)) -> tuple
  EMBER_CHECK_TYPE(args.size() > 0, fn, "() missing 1 required positional argument: 'tensors'");
  if (args.size() == 1 && nb::isinstance<Tensor>(args[0])) return nb::cast(f(nb::cast<const Tensor&>(args[0])));
  std::vector<Tensor> ts = tensor_varargs(args, fn);
  for (Tensor& t : ts) t = f(t);
  return to_tuple(ts);
}

constexpr const char* kMovedimDoc = R"(
Moves the dims ``source`` of ``input`` to the positions ``destination``, keeping the other dims in order.

Returns a view of ``input``. ``source`` and ``destination`` are ints or sequences of ints of one length, without
repeats.

Args:
    input (Tensor): the input tensor.
    source (int or sequence of ints): the dims to move.
    destination (int or sequence of ints): their new positions.

Example::

    >>> ember.movedim(ember.zeros(2, 3, 4), 0, -1).shape
    ember.Size([3, 4, 2])
)";

constexpr const char* kMoveaxisDoc = R"(
Moves the dims ``source`` of ``input`` to the positions ``destination``: an alias of :func:`ember.movedim`.

Args:
    input (Tensor): the input tensor.
    source (int or sequence of ints): the dims to move.
    destination (int or sequence of ints): their new positions.
)";

constexpr const char* kSwapdimsDoc = R"(
Returns a view of ``input`` with the dims ``dim0`` and ``dim1`` swapped: an alias of :func:`ember.transpose`.

Args:
    input (Tensor): the input tensor.
    dim0 (int): the first dim.
    dim1 (int): the second dim.

Example::

    >>> ember.swapdims(ember.tensor([[1, 2], [3, 4]]), 0, 1)
    tensor([[1, 3],
            [2, 4]])
)";

constexpr const char* kBroadcastToDoc = R"(
Returns a view of ``input`` broadcast to the shape ``size``.

``input``'s dims align with the last ones of ``size``; a dim of size 1 (or a missing leading one) is repeated
without copying, and ``-1`` keeps a dim's size. Writing to the result writes to ``input``'s elements, several
times for a broadcast dim.

Args:
    input (Tensor): the input tensor.
    size (sequence of ints): the new shape (PyTorch documents the name ``shape``; both are accepted).

Example::

    >>> ember.broadcast_to(ember.tensor([1, 2]), (2, 2))
    tensor([[1, 2],
            [1, 2]])
)";

constexpr const char* kBroadcastTensorsDoc = R"(
Broadcasts the given tensors to their common shape, returning a view of each.

Args:
    *tensors (Tensor): the tensors (also accepted as one sequence).

Example::

    >>> a, b = ember.broadcast_tensors(ember.tensor([1, 2]), ember.tensor([[3], [4]]))
    >>> b
    tensor([[3, 3],
            [4, 4]])
)";

constexpr const char* kMeshgridDoc = R"(
Returns coordinate grids from 1-d tensors: the ``i``-th result holds the ``i``-th tensor's values along dim ``i``.

For tensors of sizes :math:`N_1, \ldots, N_k`, each result has shape :math:`(N_1, \ldots, N_k)` with
``indexing='ij'`` (matrix indexing, the default), or with the first two sizes swapped with ``indexing='xy'``
(Cartesian indexing). The results are expanded views of the inputs.

Args:
    *tensors (Tensor): 1-d (or 0-d) tensors, also accepted as one sequence.

Keyword args:
    indexing (str, optional): ``'ij'`` or ``'xy'``. Default: ``'ij'``.

Example::

    >>> xs, ys = ember.meshgrid(ember.tensor([1, 2]), ember.tensor([3, 4, 5]), indexing='ij')
    >>> xs
    tensor([[1, 1, 1],
            [2, 2, 2]])
)";

constexpr const char* kAtleast1dDoc = R"(
Returns each given tensor with at least 1 dim: a 0-d tensor becomes a 1-d tensor of size 1, others are unchanged.

One tensor gives one tensor; several (or one sequence) give a tuple.

Args:
    *tensors (Tensor): the tensors.

Example::

    >>> ember.atleast_1d(ember.tensor(1.))
    tensor([1.])
)";

constexpr const char* kAtleast2dDoc = R"(
Returns each given tensor with at least 2 dims: leading dims of size 1 are added where needed.

One tensor gives one tensor; several (or one sequence) give a tuple.

Args:
    *tensors (Tensor): the tensors.

Example::

    >>> ember.atleast_2d(ember.tensor(1.))
    tensor([[1.]])
)";

constexpr const char* kAtleast3dDoc = R"(
Returns each given tensor with at least 3 dims, as NumPy's ``atleast_3d``.

A 0-d tensor becomes ``1 x 1 x 1``, a 1-d tensor of size n ``1 x n x 1`` and a matrix ``m x n`` becomes
``m x n x 1``. One tensor gives one tensor; several (or one sequence) give a tuple.

Args:
    *tensors (Tensor): the tensors.

Example::

    >>> ember.atleast_3d(ember.tensor([1, 2])).shape
    ember.Size([1, 2, 1])
)";

constexpr const char* kRavelDoc = R"(
Returns ``input`` flattened to 1-d: a view when its memory allows, else a contiguous copy.

Args:
    input (Tensor): the input tensor.

Example::

    >>> ember.ravel(ember.tensor([[1, 2], [3, 4]]))
    tensor([1, 2, 3, 4])
)";

constexpr const char* kNarrowCopyDoc = R"(
Returns a contiguous copy of ``input.narrow(dim, start, length)``: ``length`` elements of ``dim`` from ``start``.

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to narrow (``dimension`` for the method, as PyTorch documents it).
    start (int): the first index kept (negative counts from the end).
    length (int): the number of indices kept.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.narrow_copy(ember.tensor([[1, 2], [3, 4]]), 1, 0, 1)
    tensor([[1],
            [3]])
)";

constexpr const char* kFlipDoc = R"(
Returns a copy of ``input`` with the order of the elements reversed along the dims ``dims``.

Args:
    input (Tensor): the input tensor.
    dims (int or sequence of ints): the dims to reverse. The method also takes them as separate ints.

Example::

    >>> ember.flip(ember.tensor([[1, 2], [3, 4]]), [0])
    tensor([[3, 4],
            [1, 2]])
)";

constexpr const char* kFliplrDoc = R"(
Returns a copy of ``input`` with its columns (dim 1) in reverse order.

Args:
    input (Tensor): a tensor of at least 2 dims.

Example::

    >>> ember.fliplr(ember.tensor([[1, 2], [3, 4]]))
    tensor([[2, 1],
            [4, 3]])
)";

constexpr const char* kFlipudDoc = R"(
Returns a copy of ``input`` with its rows (dim 0) in reverse order.

Args:
    input (Tensor): a tensor of at least 1 dim.

Example::

    >>> ember.flipud(ember.tensor([[1, 2], [3, 4]]))
    tensor([[3, 4],
            [1, 2]])
)";

constexpr const char* kRollDoc = R"(
Rolls the elements of ``input`` by ``shifts`` along the dims ``dims``: those shifted past the end come back first.

Without ``dims``, ``input`` is rolled as if flattened and then takes its shape again. ``shifts`` and ``dims`` are
ints or sequences of one length (a shift per dim); negative shifts roll towards the start.

Args:
    input (Tensor): the input tensor.
    shifts (int or sequence of ints): the number of places to shift.
    dims (int or sequence of ints, optional): the dims to roll along. Default: the flattened ``input``.

Example::

    >>> ember.roll(ember.arange(5), 2)
    tensor([3, 4, 0, 1, 2])
)";

constexpr const char* kRot90Doc = R"(
Rotates ``input`` by 90 degrees ``k`` times in the plane of the dims ``dims``, from the first dim towards the second.

Negative ``k`` rotates the other way. Returns a copy.

Args:
    input (Tensor): a tensor of at least 2 dims.
    k (int): the number of quarter turns. Default: ``1``.
    dims (sequence of two ints): the plane of rotation. Default: ``(0, 1)``.

Example::

    >>> ember.rot90(ember.tensor([[1, 2], [3, 4]]))
    tensor([[2, 4],
            [1, 3]])
)";

constexpr const char* kRepeatDoc = R"(
Returns ``self`` repeated ``repeats[i]`` times along each dim ``i`` (a copy).

There is one count per dim of ``self``, or more: extra leading counts add leading dims. Unlike
:meth:`Tensor.expand`, the data is copied.

Args:
    repeats (int...): the counts, as separate ints or one sequence.

Example::

    >>> ember.tensor([[1, 2], [3, 4]]).repeat(1, 2)
    tensor([[1, 2, 1, 2],
            [3, 4, 3, 4]])
)";

constexpr const char* kTileDoc = R"(
Returns ``input`` repeated ``dims[i]`` times along each dim ``i``, as NumPy's ``tile``.

When ``dims`` has fewer entries than ``input`` has dims, it is padded with leading ones (unlike
:meth:`Tensor.repeat`, which needs one count per dim); when it has more, ``input`` gets leading dims of size 1.

Args:
    input (Tensor): the input tensor.
    dims (int or sequence of ints): the repeat counts. The method also takes them as separate ints.

Example::

    >>> ember.tile(ember.tensor([1, 2]), (2,))
    tensor([1, 2, 1, 2])
)";

constexpr const char* kRepeatInterleaveDoc = R"(
Repeats each element of ``input`` ``repeats`` times, consecutively, along ``dim``.

``repeats`` is an int (the same count for every element) or a 1-d tensor of counts, one per element along
``dim``. Without ``dim``, ``input`` is flattened first. ``repeat_interleave(repeats)`` with a 1-d integer tensor
alone returns ``i`` repeated ``repeats[i]`` times, for each ``i``.

Args:
    input (Tensor): the input tensor.
    repeats (int or Tensor): the number of repetitions of each element.
    dim (int, optional): the dim to repeat along. Default: the flattened ``input``.

Keyword args:
    output_size (int, optional): the size of the result along ``dim``; PyTorch uses it to skip a device sync, and
        ember accepts it and computes the size either way.

Example::

    >>> ember.repeat_interleave(ember.tensor([1, 2]), 2)
    tensor([1, 1, 2, 2])
    >>> ember.repeat_interleave(ember.tensor([2, 1]))
    tensor([0, 0, 1])
)";

constexpr const char* kResizeDoc = R"(
Resizes ``self`` to the shape ``sizes`` in place, with contiguous strides, and returns ``self``.

The storage is kept when it is large enough, else replaced by a larger one holding the old bytes; the new elements
are uninitialized. Not allowed on a tensor that requires grad.

Args:
    sizes (int...): the new shape, as separate ints or one sequence (``size=`` by keyword).

Keyword args:
    memory_format (ember.memory_format, optional): accepted for PyTorch's API; ember resizes to contiguous
        strides.

Example::

    >>> ember.tensor([1., 2., 3., 4.]).resize_(2, 2)
    tensor([[1., 2.],
            [3., 4.]])
)";

constexpr const char* kResizeAsDoc = R"(
Resizes ``self`` to the shape of ``the_template`` in place, as :meth:`Tensor.resize_`, and returns ``self``.

Args:
    the_template (Tensor): the tensor whose shape ``self`` takes (PyTorch documents the name ``tensor``; both are
        accepted).
    memory_format (ember.memory_format, optional): accepted for PyTorch's API; ember resizes to contiguous strides.
)";

void def_dims(nb::module_& m, nb::handle cls) {
  auto movedim_fn = [](const Tensor& t, nb::handle src, nb::handle dst) {
    return movedim(t, int_or_ints(src, "movedim", "source"), int_or_ints(dst, "movedim", "destination"));
  };
  const Sig move_sig{"source: int | Sequence[int], destination: int | Sequence[int]"};
  def_both(m, cls, "movedim", move_sig, movedim_fn, kMovedimDoc, nb::arg("source"), nb::arg("destination"));
  def_both(m, cls, "moveaxis", move_sig, movedim_fn, kMoveaxisDoc, nb::arg("source"), nb::arg("destination"));
  // Tensor.swapdims is bound with transpose (tensor.cpp).
  def_fn(
      m, "swapdims", [](const Tensor& t, int64_t a, int64_t b) { return transpose(t, a, b); }, nb::arg("input"),
      nb::arg("dim0"), nb::arg("dim1"), kSwapdimsDoc);

  // broadcast_to(input, size): PyTorch's binding names the shape `size`, its documentation `shape`: both work.
  auto bto = [](const Tensor& t, nb::handle size) {
    return broadcast_to(t, to_int_list(size, "broadcast_to", "size"));
  };
  def_fn(m, "broadcast_to", bto, nb::sig("def broadcast_to(input: Tensor, size: Sequence[int]) -> Tensor"),
         nb::arg("input"), nb::arg("size"), kBroadcastToDoc);
  nb::cpp_function_def(bto, nb::scope(m), nb::sig("def broadcast_to(input: Tensor, shape: Sequence[int]) -> Tensor"),
                       nb::arg("input"), nb::arg("shape"), kBroadcastToDoc);
  const std::string bto_doc = method_doc(kBroadcastToDoc, "broadcast_to");
  def_method(
      cls, "broadcast_to",
      [](const Tensor& t, nb::args size) { return broadcast_to(t, parse_size(size, 0, "broadcast_to")); },
      nb::sig("def broadcast_to(self, *size: int) -> Tensor"), bto_doc.c_str());
  for (const char* kw : {"size", "shape"})
    nb::cpp_function_def(bto, nb::scope(cls), nb::is_method(), nb::arg(kw), bto_doc.c_str(),
                         nb::sig((std::string("def broadcast_to(self, ") + kw + ": Sequence[int]) -> Tensor").c_str()));

  def_fn(
      m, "broadcast_tensors",
      [](nb::args args) { return to_tuple(broadcast_tensors(tensor_varargs(args, "broadcast_tensors"))); },
      nb::sig("def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]"), kBroadcastTensorsDoc);
  def_fn(
      m, "meshgrid",
      [](nb::args args, nb::handle indexing) {
        const std::string mode = indexing.is_none() ? "ij" : nb::cast<std::string>(indexing);
        return to_tuple(meshgrid(tensor_varargs(args, "meshgrid"), mode));
      },
      nb::sig("def meshgrid(*tensors: Tensor, indexing: str | None = None) -> tuple[Tensor, ...]"), nb::arg("args"),
      nb::arg("indexing") = nb::none(), kMeshgridDoc);

  for (auto [name, f, doc] :
       {std::tuple{"atleast_1d", &atleast_1d, kAtleast1dDoc}, std::tuple{"atleast_2d", &atleast_2d, kAtleast2dDoc},
        std::tuple{"atleast_3d", &atleast_3d, kAtleast3dDoc}}) {
    def_fn(
        m, name, [f, fn = name](nb::args args) { return tuple_of(args, fn, f); },
        nb::sig(Sig{"", "Tensor | tuple[Tensor, ...]"}.text(name, "*tensors: Tensor").c_str()), doc);
  }
  def_both(
      m, cls, "ravel", [](const Tensor& t) { return ravel(t); }, kRavelDoc);

  auto narrow_copy_fn = [](const Tensor& t, int64_t dim, int64_t start, int64_t length) {
    return contiguous(clone(narrow(t, dim, start, length)));
  };
  def_fn(
      m, "narrow_copy",
      [narrow_copy_fn](const Tensor& t, int64_t dim, int64_t start, int64_t length, nb::handle out) {
        return finish_out(narrow_copy_fn(t, dim, start, length), out, "narrow_copy");
      },
      nb::sig("def narrow_copy(input: Tensor, dim: int, start: int, length: int, *, out: Tensor | None = None) -> "
              "Tensor"),
      nb::arg("input"), nb::arg("dim"), nb::arg("start"), nb::arg("length"), nb::kw_only(), nb::arg("out") = nb::none(),
      kNarrowCopyDoc);
  // The method's first parameter is `dim` in PyTorch's binding and `dimension` in its documentation: both work.
  const std::string nc_doc = method_doc(kNarrowCopyDoc, "narrow_copy");
  def_method(cls, "narrow_copy", narrow_copy_fn, nb::arg("dim"), nb::arg("start"), nb::arg("length"), nc_doc.c_str());
  nb::cpp_function_def(narrow_copy_fn, nb::scope(cls), nb::name("narrow_copy"), nb::is_method(), nb::arg("dimension"),
                       nb::arg("start"), nb::arg("length"), nc_doc.c_str());
}

void def_reordering(nb::module_& m, nb::handle cls) {
  def_fn(
      m, "flip", [](const Tensor& t, nb::handle dims) { return flip(t, int_or_ints(dims, "flip", "dims")); },
      nb::sig("def flip(input: Tensor, dims: int | Sequence[int]) -> Tensor"), nb::arg("input"), nb::arg("dims"),
      kFlipDoc);
  const std::string flip_doc = method_doc(kFlipDoc, "flip");
  def_ints_method(
      cls, "flip", "dims", {"dims"}, [](const Tensor& t, IntArrayRef d) { return flip(t, d); }, flip_doc.c_str());
  def_both(
      m, cls, "fliplr",
      [](const Tensor& t) {
        EMBER_CHECK(t.dim() >= 2, "fliplr: Input must be >= 2-d (got shape ", shape_str(t.sizes()), ")");
        return flip(t, {{1}});
      },
      kFliplrDoc);
  def_both(
      m, cls, "flipud",
      [](const Tensor& t) {
        EMBER_CHECK(t.dim() >= 1, "flipud: Input must be >= 1-d.");
        return flip(t, {{0}});
      },
      kFlipudDoc);
  def_both(
      m, cls, "roll", Sig{"shifts: int | Sequence[int], dims: int | Sequence[int] | None = None"},
      [](const Tensor& t, nb::handle shifts, nb::handle dims) {
        return roll(t, int_or_ints(shifts, "roll", "shifts"),
                    dims.is_none() ? DimVector{} : int_or_ints(dims, "roll", "dims"));
      },
      kRollDoc, nb::arg("shifts"), nb::arg("dims") = nb::none());
  def_both(
      m, cls, "rot90", Sig{"k: int = 1, dims: Sequence[int] = (0, 1)"},
      [](const Tensor& t, int64_t k, nb::handle dims) { return rot90(t, k, to_int_list(dims, "rot90", "dims")); },
      kRot90Doc, nb::arg("k") = 1, nb::arg("dims") = nb::make_tuple(0, 1));

  def_ints_method(
      cls, "repeat", "repeats", {"repeats"}, [](const Tensor& t, IntArrayRef r) { return repeat(t, r); }, kRepeatDoc);
  def_fn(
      m, "tile", [](const Tensor& t, nb::handle dims) { return tile(t, int_or_ints(dims, "tile", "dims")); },
      nb::sig("def tile(input: Tensor, dims: int | Sequence[int]) -> Tensor"), nb::arg("input"), nb::arg("dims"),
      kTileDoc);
  const std::string tile_doc = method_doc(kTileDoc, "tile");
  def_ints_method(
      cls, "tile", "dims", {"dims"}, [](const Tensor& t, IntArrayRef d) { return tile(t, d); }, tile_doc.c_str());
  // output_size is a hint that spares PyTorch a device sync; ember computes the size either way.
  auto rep = [](const Tensor& t, nb::handle repeats, nb::handle dim, nb::handle) {
    if (repeats.is_none()) return repeat_interleave(t);
    const auto d = opt_int(dim, "repeat_interleave", "dim");
    if (nb::isinstance<Tensor>(repeats)) return repeat_interleave(t, nb::cast<const Tensor&>(repeats), d);
    return repeat_interleave(t, to_int(repeats, "repeat_interleave", "repeats"), d);
  };
  def_both(m, cls, "repeat_interleave",
           Sig{"repeats: int | Tensor | None = None, dim: int | None = None, *, "
               "output_size: int | None = None"},
           rep, kRepeatInterleaveDoc, nb::arg("repeats") = nb::none(), nb::arg("dim") = nb::none(), nb::kw_only(),
           nb::arg("output_size") = nb::none());
}

void def_metadata_inplace(nb::module_& m, nb::handle cls) {
  def_inplace<int64_t>(
      cls, "unsqueeze_", [](const Tensor& t, int64_t d) { unsqueeze_(t, d); }, nb::arg("dim"));
  def_inplace<nb::handle>(
      cls, "squeeze_", Sig{"dim: int | None = None"},
      [](const Tensor& t, nb::handle d) { squeeze_(t, opt_int(d, "squeeze_", "dim")); }, none_arg("dim"));
  def_inplace<>(cls, "t_", [](const Tensor& t) { t_(t); });
  for (auto [name, a0, a1] :
       {std::tuple{"transpose_", "dim0", "dim1"}, {"swapdims_", "dim0", "dim1"}, {"swapaxes_", "axis0", "axis1"}})
    def_inplace<int64_t, int64_t>(
        cls, name, [](const Tensor& t, int64_t d0, int64_t d1) { transpose_(t, d0, d1); }, nb::arg(a0), nb::arg(a1));
  const Sig strided_sig{"size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None"};
  auto strided = [](const Tensor& t, nb::handle size, nb::handle stride, nb::handle off) {
    as_strided_(t, to_int_list(size, "as_strided_", "size"), to_int_list(stride, "as_strided_", "stride"),
                opt_int(off, "as_strided_", "storage_offset"));
  };
  def_inplace<nb::handle, nb::handle, nb::handle>(cls, "as_strided_", strided_sig, strided, nb::arg("size"),
                                                  nb::arg("stride"), none_arg("storage_offset"));
  def_fn(
      m, "as_strided_",
      [strided](nb::handle self, nb::handle size, nb::handle stride, nb::handle off) -> nb::typed<nb::object, Tensor> {
        strided(nb::cast<const Tensor&>(self), size, stride, off);
        return nb::borrow(self);
      },
      nb::sig(strided_sig.text("as_strided_", "input: Tensor").c_str()), nb::arg("input"), nb::arg("size"),
      nb::arg("stride"), none_arg("storage_offset"), inplace_doc("as_strided").c_str());

  // resize_(*sizes) or resize_(size=...); memory_format is accepted and ignored (ember resizes to contiguous).
  def_method(
      cls, "resize_",
      [](nb::handle self, nb::args sizes, nb::handle) -> nb::typed<nb::object, Tensor> {
        resize_(nb::cast<const Tensor&>(self), parse_size(sizes, 0, "resize_"));
        return nb::borrow(self);
      },
      nb::sig("def resize_(self, *sizes: int, memory_format: memory_format | None = None) -> Tensor"), nb::arg("sizes"),
      nb::arg("memory_format") = nb::none(), kResizeDoc);
  nb::cpp_function_def(
      [](nb::handle self, nb::handle size, nb::handle) -> nb::typed<nb::object, Tensor> {
        resize_(nb::cast<const Tensor&>(self), to_int_list(size, "resize_", "size"));
        return nb::borrow(self);
      },
      nb::scope(cls),
      nb::sig("def resize_(self, size: Sequence[int], *, memory_format: memory_format | None = None) -> "
              "Tensor"),
      nb::is_method(), nb::arg("size"), nb::kw_only(), nb::arg("memory_format") = nb::none(), kResizeDoc);
  auto resize_as = [](nb::handle self, const Tensor& o, nb::handle) -> nb::typed<nb::object, Tensor> {
    resize_(nb::cast<const Tensor&>(self), o.sizes());
    return nb::borrow(self);
  };
  // PyTorch's binding names the template the_template, its documentation tensor: both work.
  def_method(cls, "resize_as_", resize_as,
             nb::sig("def resize_as_(self, the_template: Tensor, memory_format: "
                     "memory_format | None = None) -> Tensor"),
             nb::arg("the_template"), nb::arg("memory_format") = nb::none(), kResizeAsDoc);
  nb::cpp_function_def(resize_as, nb::scope(cls),
                       nb::sig("def resize_as_(self, tensor: Tensor, memory_format: "
                               "memory_format | None = None) -> Tensor"),
                       nb::is_method(), nb::arg("tensor"), nb::arg("memory_format") = nb::none(), kResizeAsDoc);
  def_fn(
      m, "resize_as_",
      [resize_as](nb::handle self, const Tensor& o, nb::handle fmt) { return resize_as(self, o, fmt); },
      nb::sig("def resize_as_(input: Tensor, the_template: Tensor, memory_format: memory_format | None = None) -> "
              "Tensor"),
      nb::arg("input"), nb::arg("the_template"), nb::arg("memory_format") = nb::none(), kResizeAsDoc);
}

}  // namespace

void init_shape(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  def_dims(m, cls);
  def_reordering(m, cls);
  def_metadata_inplace(m, cls);
}

}  // namespace ember::py
