// Bindings of joining and splitting (ember/ops/shape.h, split_stack.h, index.h): cat and its aliases, the stacks,
// split, chunk, unbind, tensor_split and hsplit/vsplit/dsplit, with PyTorch's signatures and docstrings.
#include <variant>

#include "common.h"
#include "ember/ops.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

Tensor out_of(nb::handle out) { return out.is_none() ? Tensor() : nb::cast<Tensor>(out); }

// indices_or_sections of tensor_split and hsplit/vsplit/dsplit: an int, a sequence of ints, or an int64 tensor
// (0-d: sections, 1-d: indices; read on the host, as PyTorch does).
std::variant<int64_t, DimVector> sections_or_indices(nb::handle h, const char* fn) {
  if (nb::isinstance<Tensor>(h)) {
    const Tensor& t = nb::cast<const Tensor&>(h);
    EMBER_CHECK(t.dim() <= 1, fn,
                " expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional "
                "tensor, but got a tensor with ",
                t.dim(), " dims");
    EMBER_CHECK(t.dtype() == ScalarType::Int64, fn,
                " expected tensor_indices_or_sections to have dtype of long, but "
                "got ",
                t.dtype());
    const Tensor c = contiguous(to(t, kCPU));
    if (t.dim() == 0) return c.data<int64_t>()[0];
    return DimVector(IntArrayRef(c.data<int64_t>(), static_cast<size_t>(c.numel())));
  }
  if (is_seq(h)) return to_int_list(h, fn, "indices");
  return to_int(h, fn, "sections");
}

constexpr const char* kCatDoc = R"(
Concatenates the tensors of ``tensors`` along the existing dim ``dim``.

The tensors have the same shape except along ``dim`` and lie on one device; the result has their promoted dtype.
(As in PyTorch, a 1-d tensor of size 0 may stand among tensors of other shapes.) :func:`ember.concat` and
:func:`ember.concatenate` are aliases.

Args:
    tensors (sequence of Tensors): the tensors to join, in order (at least one).
    dim (int): the dim to join along. Default: ``0``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> a, b = ember.tensor([[1, 2]]), ember.tensor([[3, 4]])
    >>> ember.cat((a, b))
    tensor([[1, 2],
            [3, 4]])
    >>> ember.cat((a, b), dim=1)
    tensor([[1, 2, 3, 4]])
)";

constexpr const char* kConcatDoc = R"(
Concatenates the tensors of ``tensors`` along the existing dim ``dim``: an alias of :func:`ember.cat`.

Args:
    tensors (sequence of Tensors): the tensors to join, in order (at least one).
    dim (int): the dim to join along. Default: ``0``.

Keyword args:
    out (Tensor, optional): the output tensor.
)";

constexpr const char* kConcatenateDoc = R"(
Concatenates the tensors of ``tensors`` along the existing dim ``axis``: an alias of :func:`ember.cat`.

``axis`` is NumPy's name for the dim; ``dim=`` is accepted too.

Args:
    tensors (sequence of Tensors): the tensors to join, in order (at least one).
    axis (int): the dim to join along. Default: ``0``.

Keyword args:
    out (Tensor, optional): the output tensor.
)";

constexpr const char* kStackDoc = R"(
Stacks the tensors of ``tensors``, all of one shape, along a new dim ``dim``.

The result has one more dim than the inputs, of size ``len(tensors)``, at position ``dim``, and their promoted
dtype.

Args:
    tensors (sequence of Tensors): the tensors to stack (at least one).
    dim (int): the position of the new dim, between 0 and the inputs' number of dims. Default: ``0``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.stack((ember.tensor([1, 2]), ember.tensor([3, 4])))
    tensor([[1, 2],
            [3, 4]])
)";

constexpr const char* kHstackDoc = R"(
Stacks the tensors of ``tensors`` horizontally: along dim 1, or dim 0 for 1-d tensors.

0-d tensors count as 1-d (:func:`ember.atleast_1d`).

Args:
    tensors (sequence of Tensors): the tensors to join.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.hstack((ember.tensor([1, 2]), ember.tensor([3])))
    tensor([1, 2, 3])
)";

constexpr const char* kVstackDoc = R"(
Stacks the tensors of ``tensors`` vertically: along dim 0, after making 0-d and 1-d tensors 2-d rows.

(:func:`ember.atleast_2d` first.) :func:`ember.row_stack` is an alias.

Args:
    tensors (sequence of Tensors): the tensors to join.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.vstack((ember.tensor([1, 2]), ember.tensor([3, 4])))
    tensor([[1, 2],
            [3, 4]])
)";

constexpr const char* kRowStackDoc = R"(
Stacks the tensors of ``tensors`` vertically: an alias of :func:`ember.vstack`.

Args:
    tensors (sequence of Tensors): the tensors to join.

Keyword args:
    out (Tensor, optional): the output tensor.
)";

constexpr const char* kDstackDoc = R"(
Stacks the tensors of ``tensors`` depthwise: along dim 2, after making each at least 3-d.

(:func:`ember.atleast_3d` first: a 1-d tensor of size n becomes ``1 x n x 1``.)

Args:
    tensors (sequence of Tensors): the tensors to join.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.dstack((ember.tensor([1, 2]), ember.tensor([3, 4]))).shape
    ember.Size([1, 2, 2])
)";

constexpr const char* kColumnStackDoc = R"(
Stacks the tensors of ``tensors`` as the columns of a matrix.

0-d and 1-d tensors become columns (``n x 1``); the tensors are then joined along dim 1.

Args:
    tensors (sequence of Tensors): the tensors to join.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.column_stack((ember.tensor([1, 2]), ember.tensor([3, 4])))
    tensor([[1, 3],
            [2, 4]])
)";

constexpr const char* kSplitDoc = R"(
Splits ``tensor`` into pieces along ``dim``: of ``split_size_or_sections`` elements each, or of the listed sizes.

With an int, every piece has that size except possibly the last, which is smaller; with a sequence of ints, the
pieces have those sizes, which must sum to ``tensor.size(dim)``. The pieces are views of ``tensor``.

Args:
    tensor (Tensor): the tensor to split.
    split_size_or_sections (int or sequence of ints): the size of each piece, or the list of sizes.
    dim (int): the dim to split along. Default: ``0``.

Returns:
    tuple of Tensors.

Example::

    >>> ember.split(ember.arange(5), 2)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    >>> ember.split(ember.arange(5), [1, 4])
    (tensor([0]), tensor([1, 2, 3, 4]))
)";

constexpr const char* kSplitWithSizesDoc = R"(
Splits ``input`` along ``dim`` into pieces of the sizes ``split_sizes``, which sum to ``input.size(dim)``.

The pieces are views of ``input``; :func:`ember.split` with a list does the same.

Args:
    input (Tensor): the tensor to split.
    split_sizes (sequence of ints): the size of each piece.
    dim (int): the dim to split along. Default: ``0``.

Example::

    >>> ember.split_with_sizes(ember.arange(5), [2, 3])
    (tensor([0, 1]), tensor([2, 3, 4]))
)";

constexpr const char* kChunkDoc = R"(
Splits ``input`` along ``dim`` into at most ``chunks`` pieces of equal size (the last may be smaller).

Each piece has ``ceil(input.size(dim) / chunks)`` elements along ``dim``, so there may be fewer than ``chunks``
pieces; :func:`ember.tensor_split` always returns exactly that many. The pieces are views of ``input``.

Args:
    input (Tensor): the tensor to split.
    chunks (int): the number of pieces wanted.
    dim (int): the dim to split along. Default: ``0``.

Example::

    >>> ember.chunk(ember.arange(5), 3)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
)";

constexpr const char* kUnsafeChunkDoc = R"(
Splits ``input`` along ``dim`` into at most ``chunks`` pieces of equal size: :func:`ember.chunk`.

PyTorch's variant skips the checks that protect in-place changes of the pieces; ember's pieces are the same views
as :func:`ember.chunk`'s, with the same checks.

Args:
    input (Tensor): the tensor to split.
    chunks (int): the number of pieces wanted.
    dim (int): the dim to split along. Default: ``0``.
)";

constexpr const char* kUnsafeSplitDoc = R"(
Splits ``tensor`` into pieces along ``dim``: :func:`ember.split`.

PyTorch's variant skips the checks that protect in-place changes of the pieces; ember's pieces are the same views
as :func:`ember.split`'s, with the same checks.

Args:
    tensor (Tensor): the tensor to split.
    split_size_or_sections (int or sequence of ints): the size of each piece, or the list of sizes.
    dim (int): the dim to split along. Default: ``0``.
)";

constexpr const char* kUnbindDoc = R"(
Removes the dim ``dim`` of ``input``, returning the tuple of its slices along it.

Args:
    input (Tensor): the tensor to split.
    dim (int): the dim to remove. Default: ``0``.

Example::

    >>> ember.unbind(ember.tensor([[1, 2], [3, 4]]))
    (tensor([1, 2]), tensor([3, 4]))
)";

constexpr const char* kTensorSplitDoc = R"(
Splits ``input`` along ``dim`` into views: a number of nearly equal pieces, or pieces between the given indices.

With an int ``sections`` (n), the first ``size % n`` pieces have one element more than the others, and there are
exactly n pieces (some may be empty). With a sequence of ``indices``, the pieces are ``input[:i0]``,
``input[i0:i1]``, ..., ``input[ik:]`` along ``dim``. A 0-d int64 tensor counts as sections, a 1-d one as indices.

Args:
    input (Tensor): the tensor to split.
    indices_or_sections (int, sequence of ints or Tensor): the number of pieces, or the indices to split at; also
        accepted by keyword as ``sections`` or ``indices``.
    dim (int): the dim to split along. Default: ``0``.

Example::

    >>> ember.tensor_split(ember.arange(5), 3)
    (tensor([0, 1]), tensor([2, 3]), tensor([4]))
    >>> ember.tensor_split(ember.arange(5), [1, 4])
    (tensor([0]), tensor([1, 2, 3]), tensor([4]))
)";

constexpr const char* kHsplitDoc = R"(
Splits ``input`` horizontally: along dim 1, or dim 0 for a 1-d ``input``.

As :func:`ember.tensor_split`, except that an int number of sections must divide the size of that dim.

Args:
    input (Tensor): the tensor to split (at least 1-d).
    indices_or_sections (int, sequence of ints or Tensor): the number of equal pieces, or the indices to split at.

Example::

    >>> ember.hsplit(ember.arange(6), 3)
    (tensor([0, 1]), tensor([2, 3]), tensor([4, 5]))
)";

constexpr const char* kVsplitDoc = R"(
Splits ``input`` vertically: along dim 0.

As :func:`ember.tensor_split`, except that an int number of sections must divide the size of that dim.

Args:
    input (Tensor): the tensor to split (at least 2-d).
    indices_or_sections (int, sequence of ints or Tensor): the number of equal pieces, or the indices to split at.

Example::

    >>> ember.vsplit(ember.arange(4).reshape(2, 2), [1])
    (tensor([[0, 1]]), tensor([[2, 3]]))
)";

constexpr const char* kDsplitDoc = R"(
Splits ``input`` depthwise: along dim 2.

As :func:`ember.tensor_split`, except that an int number of sections must divide the size of that dim.

Args:
    input (Tensor): the tensor to split (at least 3-d).
    indices_or_sections (int, sequence of ints or Tensor): the number of equal pieces, or the indices to split at.

Example::

    >>> ember.dsplit(ember.arange(4).reshape(1, 1, 4), 2)
    (tensor([[[0, 1]]]), tensor([[[2, 3]]]))
)";

void def_joining(nb::module_& m) {
  using Join = Tensor (*)(const std::vector<Tensor>&, int64_t, const Tensor&);
  for (auto [name, f, doc] : {std::tuple<const char*, Join, const char*>{"cat", &cat, kCatDoc},
                              {"concat", &cat, kConcatDoc},
                              {"concatenate", &cat, kConcatenateDoc},
                              {"stack", &stack, kStackDoc}}) {
    auto impl = [f, fn = name](nb::handle tensors, int64_t dim, nb::handle out) -> nb::object {
      Tensor r = f(tensor_list(tensors, fn), dim, out_of(out));
      return out.is_none() ? nb::cast(std::move(r)) : nb::borrow(out);
    };
    const std::string sig = Sig{"dim: int = 0, *, out: Tensor | None = None"}.text(name, "tensors: Sequence[Tensor]");
    if (std::string_view(name) != "concatenate") {
      def_fn(m, name, impl, nb::sig(sig.c_str()), nb::arg("tensors"), nb::arg("dim") = 0, nb::kw_only(),
             nb::arg("out") = nb::none(), doc);
      continue;
    }
    // concatenate: NumPy's axis=, and dim= (an overload).
    def_fn(m, name, impl,
           nb::sig("def concatenate(tensors: Sequence[Tensor], axis: int = 0, *, "
                   "out: Tensor | None = None) -> Tensor"),
           nb::arg("tensors"), nb::arg("axis") = 0, nb::kw_only(), nb::arg("out") = nb::none(), doc);
    nb::cpp_function_def(impl, nb::scope(m), nb::sig(sig.c_str()), nb::arg("tensors"), nb::arg("dim") = 0,
                         nb::kw_only(), nb::arg("out") = nb::none(), doc);
  }
  using Join2 = Tensor (*)(const std::vector<Tensor>&, const Tensor&);
  for (auto [name, f, doc] : {std::tuple<const char*, Join2, const char*>{"hstack", &hstack, kHstackDoc},
                              {"vstack", &vstack, kVstackDoc},
                              {"row_stack", &vstack, kRowStackDoc},
                              {"dstack", &dstack, kDstackDoc},
                              {"column_stack", &column_stack, kColumnStackDoc}}) {
    def_fn(
        m, name,
        [f, fn = name](nb::handle tensors, nb::handle out) -> nb::object {
          Tensor r = f(tensor_list(tensors, fn), opt_tensor(out, fn, "out"));
          return out.is_none() ? nb::cast(std::move(r)) : nb::borrow(out);
        },
        nb::sig(Sig{"*, out: Tensor | None = None"}.text(name, "tensors: Sequence[Tensor]").c_str()),
        nb::arg("tensors"), nb::kw_only(), nb::arg("out") = nb::none(), doc);
  }
}

nb::tuple split_impl(const Tensor& t, nb::handle size, int64_t dim, const char* fn) {
  if (is_seq(size)) return to_tuple(split_with_sizes(t, to_int_list(size, fn, "split_size_or_sections"), dim));
  return to_tuple(split(t, to_int(size, fn, "split_size_or_sections"), dim));
}

void def_splitting(nb::module_& m, nb::handle cls) {
  constexpr const char* kRet = "tuple[Tensor, ...]";
  auto split_fn = [](const Tensor& t, nb::handle size, int64_t dim) { return split_impl(t, size, dim, "split"); };
  def_fn(m, "split", split_fn,
         nb::sig("def split(tensor: Tensor, split_size_or_sections: int | Sequence[int], "
                 "dim: int = 0) -> tuple[Tensor, ...]"),
         nb::arg("tensor"), nb::arg("split_size_or_sections"), nb::arg("dim") = 0, kSplitDoc);
  def_method(cls, "split", split_fn,
             nb::sig("def split(self, split_size: int | Sequence[int], dim: int = 0) -> "
                     "tuple[Tensor, ...]"),
             nb::arg("split_size"), nb::arg("dim") = 0, method_doc(kSplitDoc, "split").c_str());
  def_both(
      m, cls, "split_with_sizes", Sig{"split_sizes: Sequence[int], dim: int = 0", kRet},
      [](const Tensor& t, nb::handle sizes, int64_t dim) {
        return to_tuple(split_with_sizes(t, to_int_list(sizes, "split_with_sizes", "split_sizes"), dim));
      },
      kSplitWithSizesDoc, nb::arg("split_sizes"), nb::arg("dim") = 0);
  // PyTorch's unsafe_ variants skip the view bookkeeping of chunk/split; ember's pieces are the same views.
  for (auto [name, doc] : {std::pair{"chunk", kChunkDoc}, std::pair{"unsafe_chunk", kUnsafeChunkDoc}})
    def_both(
        m, cls, name, Sig{"chunks: int, dim: int = 0", kRet},
        [](const Tensor& t, int64_t chunks, int64_t dim) { return to_tuple(chunk(t, chunks, dim)); }, doc,
        nb::arg("chunks"), nb::arg("dim") = 0);
  // unsafe_split: PyTorch documents (tensor, split_size_or_sections) and its binding takes (input, split_size).
  auto unsafe_split_fn = [](const Tensor& t, nb::handle size, int64_t dim) {
    return split_impl(t, size, dim, "unsafe_split");
  };
  def_fn(m, "unsafe_split", unsafe_split_fn,
         nb::sig("def unsafe_split(tensor: Tensor, split_size_or_sections: int | "
                 "Sequence[int], dim: int = 0) -> tuple[Tensor, ...]"),
         nb::arg("tensor"), nb::arg("split_size_or_sections"), nb::arg("dim") = 0, kUnsafeSplitDoc);
  nb::cpp_function_def(unsafe_split_fn, nb::scope(m),
                       nb::sig("def unsafe_split(input: Tensor, split_size: int | "
                               "Sequence[int], dim: int = 0) -> tuple[Tensor, ...]"),
                       nb::arg("input"), nb::arg("split_size"), nb::arg("dim") = 0, kUnsafeSplitDoc);
  def_method(cls, "unsafe_split", unsafe_split_fn,
             nb::sig("def unsafe_split(self, split_size: int | Sequence[int], "
                     "dim: int = 0) -> tuple[Tensor, ...]"),
             nb::arg("split_size"), nb::arg("dim") = 0, method_doc(kUnsafeSplitDoc, "unsafe_split").c_str());
  // The pieces of the splitting *_copy functions (ember/_derived.py), each copied into new memory in one call whose
  // wrappers' memory is asked for first (Note [Many tensors back to Python]): a million pieces copied one by one from
  // Python could abort in nanobind's map. None when a piece is a subclass, whose copy goes through Python.
  m.def("_copy_each", [](nb::handle pieces) -> nb::object {
    std::vector<Tensor> v = tensor_list(pieces, "_copy_each");
    const PyObject* base = nb::type<Tensor>().ptr();
    PyObject** items = PySequence_Fast_ITEMS(pieces.ptr());  // a tuple or list: tensor_list checked
    for (size_t i = 0; i < v.size(); ++i)
      if (reinterpret_cast<const PyObject*>(Py_TYPE(items[i])) != base) return nb::none();
    for (Tensor& t : v)
      t = t.is_contiguous() ? clone(t, MemoryFormat::Preserve) : contiguous(t, MemoryFormat::Contiguous);
    return to_tuple(v);
  });
  def_both(
      m, cls, "unbind", Sig{"dim: int = 0", kRet},
      [](const Tensor& t, int64_t dim) { return to_tuple(unbind(t, dim)); }, kUnbindDoc, nb::arg("dim") = 0);

  // tensor_split(input, indices_or_sections, dim=0), with PyTorch's other spellings of the second argument,
  // sections= and indices=, as overloads.
  auto tsplit = [](const Tensor& t, nb::handle ios, int64_t dim) {
    auto v = sections_or_indices(ios, "tensor_split");
    if (auto* s = std::get_if<int64_t>(&v)) return to_tuple(tensor_split(t, *s, dim));
    return to_tuple(tensor_split_indices(t, std::get<DimVector>(v), dim));
  };
  const std::string tsplit_mdoc = method_doc(kTensorSplitDoc, "tensor_split");
  for (auto [arg, type] : {std::pair{"indices_or_sections", "int | Sequence[int] | Tensor"},
                           std::pair{"sections", "int"}, std::pair{"indices", "Sequence[int]"}}) {
    const std::string params = std::string(arg) + ": " + type + ", dim: int = 0";
    const bool first = std::string_view(arg) == "indices_or_sections";
    const std::string fsig = Sig{params.c_str(), kRet}.text("tensor_split", "input: Tensor");
    const std::string msig = Sig{params.c_str(), kRet}.text("tensor_split", "self");
    if (first) {
      def_fn(m, "tensor_split", tsplit, nb::sig(fsig.c_str()), nb::arg("input"), nb::arg(arg), nb::arg("dim") = 0,
             kTensorSplitDoc);
      def_method(cls, "tensor_split", tsplit, nb::sig(msig.c_str()), nb::arg(arg), nb::arg("dim") = 0,
                 tsplit_mdoc.c_str());
    } else {
      nb::cpp_function_def(tsplit, nb::scope(m), nb::sig(fsig.c_str()), nb::arg("input"), nb::arg(arg),
                           nb::arg("dim") = 0, kTensorSplitDoc);
      nb::cpp_function_def(tsplit, nb::scope(cls), nb::sig(msig.c_str()), nb::is_method(), nb::arg(arg),
                           nb::arg("dim") = 0, tsplit_mdoc.c_str());
    }
  }

  // hsplit/vsplit/dsplit: the function's second argument is indices_or_sections, the method's is documented as
  // split_size_or_sections; both also take sections= and indices= (overloads).
  for (auto [which, name, doc] : {std::tuple{'h', "hsplit", kHsplitDoc}, std::tuple{'v', "vsplit", kVsplitDoc},
                                  std::tuple{'d', "dsplit", kDsplitDoc}}) {
    auto f = [which, name](const Tensor& t, nb::handle ios) {
      auto v = sections_or_indices(ios, name);
      if (auto* s = std::get_if<int64_t>(&v)) return to_tuple(hvd_split(t, *s, which));
      return to_tuple(hvd_split_indices(t, std::get<DimVector>(v), which));
    };
    const std::string mdoc = method_doc(doc, name);
    for (auto [farg, marg, type] :
         {std::tuple{"indices_or_sections", "split_size_or_sections", "int | Sequence[int] | Tensor"},
          std::tuple{"sections", "sections", "int"}, std::tuple{"indices", "indices", "Sequence[int]"}}) {
      const std::string fsig = Sig{(std::string(farg) + ": " + type).c_str(), kRet}.text(name, "input: Tensor");
      const std::string msig = Sig{(std::string(marg) + ": " + type).c_str(), kRet}.text(name, "self");
      if (std::string_view(farg) == "indices_or_sections") {
        def_fn(m, name, f, nb::sig(fsig.c_str()), nb::arg("input"), nb::arg(farg), doc);
        def_method(cls, name, f, nb::sig(msig.c_str()), nb::arg(marg), mdoc.c_str());
      } else {
        nb::cpp_function_def(f, nb::scope(m), nb::sig(fsig.c_str()), nb::arg("input"), nb::arg(farg), doc);
        nb::cpp_function_def(f, nb::scope(cls), nb::sig(msig.c_str()), nb::is_method(), nb::arg(marg), mdoc.c_str());
      }
    }
  }
}

}  // namespace

void init_join_split(nb::module_& m) {
  def_joining(m);
  def_splitting(m, nb::type<Tensor>());
}

}  // namespace ember::py
