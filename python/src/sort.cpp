// Bindings of sorting and selection (ember/ops/sort.h): sort, argsort, msort, topk, kthvalue, median, nanmedian,
// mode and unique, with PyTorch's signatures (named-tuple results like torch.return_types) and docstrings.
#include "common.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

nb::handle g_sort_t, g_topk_t, g_kthvalue_t, g_median_t, g_nanmedian_t, g_mode_t;

// A dim that PyTorch documents as optional: None is the last dim.
int64_t dim_or_last(nb::handle dim, const char* fn) { return dim.is_none() ? -1 : to_int(dim, fn, "dim"); }

constexpr const char* kSortDoc = R"(
Sorts the elements of ``input`` along ``dim``, returning the sorted values and their original positions.

A named tuple ``(values, indices)`` of ``input``'s shape: ``values`` holds each slice along ``dim`` in ascending
order (descending with ``descending=True``), and ``indices`` the position each value had in its slice. NaN sorts
above every number. The sort is always stable (equal elements keep their order), so ``stable`` changes nothing.

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to sort along. Default: the last.
    descending (bool): sort in descending order. Default: ``False``.

Keyword args:
    stable (bool): accepted for PyTorch's API; ember's sort is always stable. Default: ``False``.
    out (tuple of two Tensors, optional): the output tensors ``(values, indices)``.

Example::

    >>> ember.sort(ember.tensor([3., 1., 2.]))
    sort(values=tensor([1., 2., 3.]), indices=tensor([1, 2, 0]))
    >>> ember.sort(ember.tensor([3., 1., 2.]), descending=True).values
    tensor([3., 2., 1.])
)";

constexpr const char* kArgsortDoc = R"(
Returns the indices that sort ``input`` along ``dim``.

The ``indices`` of :func:`ember.sort` with the same arguments (``int64``; a stable sort, NaN above every number).

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to sort along. Default: the last.
    descending (bool): sort in descending order. Default: ``False``.

Keyword args:
    stable (bool): accepted for PyTorch's API; ember's sort is always stable. Default: ``False``.

Example::

    >>> ember.argsort(ember.tensor([[3., 1., 2.], [0., 5., 4.]]), dim=1)
    tensor([[1, 2, 0],
            [0, 2, 1]])
)";

constexpr const char* kMsortDoc = R"(
Sorts the elements of ``input`` along its first dim, in ascending order.

``msort(input)`` is ``sort(input, dim=0).values``.

Args:
    input (Tensor): the input tensor.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.msort(ember.tensor([[3., 1.], [0., 5.]]))
    tensor([[0., 1.],
            [3., 5.]])
)";

constexpr const char* kTopkDoc = R"(
Returns the ``k`` largest elements of ``input`` along ``dim``, with their indices.

A named tuple ``(values, indices)`` whose size along ``dim`` is ``k``; with ``largest=False``, the ``k`` smallest.
With ``sorted=True`` the values are in order (largest first, or smallest first); ties go to the lower position.

Args:
    input (Tensor): the input tensor.
    k (int): how many elements to return.
    dim (int, optional): the dim to select along. Default: the last.
    largest (bool): the largest (``True``) or the smallest (``False``) elements. Default: ``True``.
    sorted (bool): return the elements in sorted order. Default: ``True``.

Keyword args:
    out (tuple of two Tensors, optional): the output tensors ``(values, indices)``.

Example::

    >>> ember.topk(ember.tensor([1., 4., 2., 8.]), 2)
    topk(values=tensor([8., 4.]), indices=tensor([3, 1]))
)";

constexpr const char* kKthvalueDoc = R"(
Returns the ``k``-th smallest element of each slice of ``input`` along ``dim``, with its index.

A named tuple ``(values, indices)``; ``k`` counts from 1. ``dim`` is removed from the results unless ``keepdim`` is
true.

Args:
    input (Tensor): the input tensor.
    k (int): which smallest element, from 1.
    dim (int, optional): the dim to select along. Default: the last.
    keepdim (bool): whether ``dim`` stays in the results with size 1. Default: ``False``.

Keyword args:
    out (tuple of two Tensors, optional): the output tensors ``(values, indices)``.

Example::

    >>> ember.kthvalue(ember.tensor([3., 1., 2.]), 2)
    kthvalue(values=tensor(2.), indices=tensor(2))
)";

constexpr const char* kMedianDoc = R"(
Returns the median of the elements of ``input``, or of each slice along ``dim`` with its index.

``median(input)`` returns a 0-d tensor: the lower of the two middle values for an even count (not their mean), NaN
if any element is NaN.

``median(input, dim, keepdim=False)`` returns a named tuple ``(values, indices)``: the median of each slice along
``dim`` and its position in the slice. ``dim`` is removed from the results unless ``keepdim`` is true.

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to reduce.
    keepdim (bool): whether ``dim`` stays in the results with size 1. Default: ``False``.

Keyword args:
    out (tuple of two Tensors, optional): the output tensors ``(values, indices)``, with ``dim``.

Example::

    >>> ember.median(ember.tensor([1., 3., 2., 4.]))
    tensor(2.)
    >>> ember.median(ember.tensor([[3., 1., 2.], [0., 5., 4.]]), 1).values
    tensor([2., 4.])
)";

constexpr const char* kNanmedianDoc = R"(
Returns the median of the non-NaN elements of ``input``, or of each slice along ``dim`` with its index.

:func:`ember.median` ignoring NaNs: a slice is NaN only when all its elements are.

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to reduce.
    keepdim (bool): whether ``dim`` stays in the results with size 1. Default: ``False``.

Keyword args:
    out (tuple of two Tensors, optional): the output tensors ``(values, indices)``, with ``dim``.

Example::

    >>> ember.nanmedian(ember.tensor([1., float('nan'), 3., 2.]))
    tensor(2.)
)";

constexpr const char* kModeDoc = R"(
Returns the most frequent value of each slice of ``input`` along ``dim``, with its index.

A named tuple ``(values, indices)``: on ties the smallest of the most frequent values, and the position of its last
occurrence. ``dim`` is removed from the results unless ``keepdim`` is true.

Args:
    input (Tensor): the input tensor.
    dim (int): the dim to reduce. Default: the last.
    keepdim (bool): whether ``dim`` stays in the results with size 1. Default: ``False``.

Keyword args:
    out (tuple of two Tensors, optional): the output tensors ``(values, indices)``.

Example::

    >>> ember.mode(ember.tensor([1, 2, 2, 3, 3]))
    mode(values=tensor(2), indices=tensor(2))
)";

constexpr const char* kUniqueDoc = R"(
Returns the distinct elements of ``input``, sorted, optionally with the inverse indices and the counts.

``input`` is flattened; the result is 1-d and sorted whatever ``sorted`` says. Each NaN is distinct.

Args:
    input (Tensor): the input tensor.
    sorted (bool): accepted for PyTorch's API; the result is always sorted. Default: ``True``.
    return_inverse (bool): also return, for each element of ``input``, its position in the result. Default:
        ``False``.
    return_counts (bool): also return how many times each distinct element occurs. Default: ``False``.
    dim (int, optional): only ``None`` (the flattened input) is supported; another value raises
        ``NotImplementedError``.

Returns:
    Tensor, or a tuple ``(output, inverse_indices, counts)`` of those asked for.

Example::

    >>> ember.unique(ember.tensor([2, 1, 2, 3]), return_counts=True)
    (tensor([1, 2, 3]), tensor([1, 2, 1]))
)";

constexpr const char* kUniqueConsecutiveDoc = R"(
Returns the first element of each run of equal consecutive elements of ``input``.

``input`` is flattened (NaNs never compare equal); ``return_inverse`` adds each element's run, ``return_counts`` the
length of each run.

Args:
    input (Tensor): the input tensor.
    return_inverse (bool): also return, for each element of ``input``, the index of its run. Default: ``False``.
    return_counts (bool): also return the length of each run. Default: ``False``.
    dim (int, optional): only ``None`` (the flattened input) is supported; another value raises
        ``NotImplementedError``.

Returns:
    Tensor, or a tuple ``(output, inverse_indices, counts)`` of those asked for.

Example::

    >>> ember.unique_consecutive(ember.tensor([1, 1, 2, 2, 1]), return_counts=True)
    (tensor([1, 2, 1]), tensor([2, 2, 1]))
)";

void def_sorting(nb::module_& m, nb::handle cls) {
  auto sort_fn = [](const Tensor& x, int64_t dim, bool descending, nb::handle stable, nb::handle out) {
    return pair_result(g_sort_t, "sort", sort(x, dim, descending, truthy(stable)), out);
  };
  def_fn(m, "sort", sort_fn,
         nb::sig("def sort(input: Tensor, dim: int = -1, descending: bool = False, *, "
                 "stable: bool | None = False, out: tuple[Tensor, Tensor] | None = None) -> "
                 "return_types.sort"),
         nb::arg("input"), nb::arg("dim") = -1, nb::arg("descending") = false, nb::kw_only(),
         nb::arg("stable").none() = false, nb::arg("out") = nb::none(), kSortDoc);
  def_method(
      cls, "sort",
      [sort_fn](const Tensor& x, int64_t dim, bool descending, nb::handle stable) {
        return sort_fn(x, dim, descending, stable, {});
      },
      nb::sig("def sort(self, dim: int = -1, descending: bool = False, *, stable: bool | None = False) -> "
              "return_types.sort"),
      nb::arg("dim") = -1, nb::arg("descending") = false, nb::kw_only(), nb::arg("stable").none() = false,
      method_doc(kSortDoc, "sort").c_str());

  auto argsort_fn = [](const Tensor& x, int64_t dim, bool descending, bool stable) {
    return argsort(x, dim, descending, stable);
  };
  def_both(m, cls, "argsort", argsort_fn, kArgsortDoc, nb::arg("dim") = -1, nb::arg("descending") = false,
           nb::kw_only(), nb::arg("stable") = false);

  def_fn(
      m, "msort", [](const Tensor& x, nb::handle out) { return finish_out(msort(x), out, "msort"); },
      nb::sig("def msort(input: Tensor, *, out: Tensor | None = None) -> Tensor"), nb::arg("input"), nb::kw_only(),
      nb::arg("out") = nb::none(), kMsortDoc);
  def_method(
      cls, "msort", [](const Tensor& x) { return msort(x); }, method_doc(kMsortDoc, "msort").c_str());

  auto topk_fn = [](const Tensor& x, int64_t k, nb::handle dim, bool largest, bool sorted, nb::handle out) {
    return pair_result(g_topk_t, "topk", topk(x, k, dim_or_last(dim, "topk"), largest, sorted), out);
  };
  constexpr const char* kTopkParams = "k: int, dim: int | None = None, largest: bool = True, sorted: bool = True";
  def_fn(m, "topk", topk_fn,
         nb::sig(Sig{(std::string(kTopkParams) + ", *, out: tuple[Tensor, Tensor] | None = None").c_str(),
                     "return_types.topk"}
                     .text("topk", "input: Tensor")
                     .c_str()),
         nb::arg("input"), nb::arg("k"), nb::arg("dim") = nb::none(), nb::arg("largest") = true,
         nb::arg("sorted") = true, nb::kw_only(), nb::arg("out") = nb::none(), kTopkDoc);
  def_method(
      cls, "topk",
      [topk_fn](const Tensor& x, int64_t k, nb::handle dim, bool largest, bool sorted) {
        return topk_fn(x, k, dim, largest, sorted, {});
      },
      nb::sig(Sig{kTopkParams, "return_types.topk"}.text("topk", "self").c_str()), nb::arg("k"),
      nb::arg("dim") = nb::none(), nb::arg("largest") = true, nb::arg("sorted") = true,
      method_doc(kTopkDoc, "topk").c_str());
}

void def_selection(nb::module_& m, nb::handle cls) {
  auto kth_fn = [](const Tensor& x, int64_t k, nb::handle dim, bool keepdim, nb::handle out) {
    return pair_result(g_kthvalue_t, "kthvalue", kthvalue(x, k, dim_or_last(dim, "kthvalue"), keepdim), out);
  };
  def_fn(m, "kthvalue", kth_fn,
         nb::sig("def kthvalue(input: Tensor, k: int, dim: int | None = None, keepdim: bool = "
                 "False, *, out: tuple[Tensor, Tensor] | None = None) -> return_types.kthvalue"),
         nb::arg("input"), nb::arg("k"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
         nb::arg("out") = nb::none(), kKthvalueDoc);
  def_method(
      cls, "kthvalue",
      [kth_fn](const Tensor& x, int64_t k, nb::handle dim, bool keepdim) { return kth_fn(x, k, dim, keepdim, {}); },
      nb::sig("def kthvalue(self, k: int, dim: int | None = None, keepdim: bool = False) -> return_types.kthvalue"),
      nb::arg("k"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
      method_doc(kKthvalueDoc, "kthvalue").c_str());

  // median(input) -> the value; median(input, dim, keepdim=False) -> (values, indices): two overloads, as in
  // PyTorch (dim is required in the second). The method's dim=None means the first. Likewise nanmedian.
  for (bool ignore_nan : {false, true}) {
    const char* name = ignore_nan ? "nanmedian" : "median";
    const char* doc = ignore_nan ? kNanmedianDoc : kMedianDoc;
    nb::handle type = ignore_nan ? g_nanmedian_t : g_median_t;
    auto along = [ignore_nan, name, type](const Tensor& x, int64_t dim, bool keepdim, nb::handle out) {
      return pair_result(type, name, ignore_nan ? nanmedian(x, dim, keepdim) : median(x, dim, keepdim), out);
    };
    def_fn(
        m, name, [ignore_nan](const Tensor& x) { return ignore_nan ? nanmedian(x) : median(x); },
        nb::sig(Sig{""}.text(name, "input: Tensor").c_str()), nb::arg("input"), doc);
    const std::string ret = std::string("return_types.") + name;
    nb::cpp_function_def(along, nb::scope(m),
                         nb::sig(Sig{"dim: int, keepdim: bool = False, *, "
                                     "out: tuple[Tensor, Tensor] | None = None",
                                     ret.c_str()}
                                     .text(name, "input: Tensor")
                                     .c_str()),
                         nb::arg("input"), nb::arg("dim"), nb::arg("keepdim") = false, nb::kw_only(),
                         nb::arg("out") = nb::none(), doc);
    def_method(
        cls, name,
        [ignore_nan, name, along](const Tensor& x, nb::handle dim, bool keepdim) -> nb::object {
          if (!dim.is_none()) return along(x, to_int(dim, name, "dim"), keepdim, {});
          EMBER_CHECK_TYPE(!keepdim, name, "(): keepdim=True needs a dim");
          return nb::cast(ignore_nan ? nanmedian(x) : median(x));
        },
        nb::sig(Sig{"dim: int | None = None, keepdim: bool = False", ("Tensor | " + ret).c_str()}
                    .text(name, "self")
                    .c_str()),
        nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, method_doc(doc, name).c_str());
  }

  auto mode_fn = [](const Tensor& x, nb::handle dim, bool keepdim, nb::handle out) {
    return pair_result(g_mode_t, "mode", mode(x, dim_or_last(dim, "mode"), keepdim), out);
  };
  // PyTorch documents the function's dim as -1 and the method's as None: both mean the last dim.
  def_fn(m, "mode", mode_fn,
         nb::sig("def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, "
                 "out: tuple[Tensor, Tensor] | None = None) -> return_types.mode"),
         nb::arg("input"), nb::arg("dim") = -1, nb::arg("keepdim") = false, nb::kw_only(), nb::arg("out") = nb::none(),
         kModeDoc);
  def_method(
      cls, "mode", [mode_fn](const Tensor& x, nb::handle dim, bool keepdim) { return mode_fn(x, dim, keepdim, {}); },
      nb::sig("def mode(self, dim: int | None = None, keepdim: bool = False) -> return_types.mode"),
      nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, method_doc(kModeDoc, "mode").c_str());
}

// A tensor alone, or a tuple with the inverse and counts asked for, as torch.unique returns.
nb::object unique_result(UniqueResult r, bool return_inverse, bool return_counts) {
  if (!return_inverse && !return_counts) return nb::cast(std::move(r.values));
  if (return_inverse && return_counts) return nb::make_tuple(r.values, r.inverse, r.counts);
  return nb::make_tuple(r.values, return_inverse ? r.inverse : r.counts);
}

void check_unique_dim(nb::handle dim, const char* name) {
  if (!dim.is_none())
    fail<NotImplementedError>(name, "(): dim=", to_int(dim, name, "dim"),
                              " is not supported by ember yet (only "
                              "dim=None, which flattens the input)");
}

void def_unique(nb::module_& m, nb::handle cls) {
  auto unique_fn = [](const Tensor& x, bool sorted, bool inverse, bool counts, nb::handle dim) {
    check_unique_dim(dim, "unique");
    return unique_result(unique(x, sorted, inverse), inverse, counts);
  };
  def_both(m, cls, "unique",
           Sig{"sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, "
               "dim: int | None = None",
               "Tensor | tuple[Tensor, ...]"},
           unique_fn, kUniqueDoc, nb::arg("sorted") = true, nb::arg("return_inverse") = false,
           nb::arg("return_counts") = false, nb::arg("dim") = nb::none());
  auto consecutive_fn = [](const Tensor& x, bool inverse, bool counts, nb::handle dim) {
    check_unique_dim(dim, "unique_consecutive");
    return unique_result(unique_consecutive(x, inverse), inverse, counts);
  };
  def_both(m, cls, "unique_consecutive",
           Sig{"return_inverse: bool = False, return_counts: bool = False, "
               "dim: int | None = None",
               "Tensor | tuple[Tensor, ...]"},
           consecutive_fn, kUniqueConsecutiveDoc, nb::arg("return_inverse") = false, nb::arg("return_counts") = false,
           nb::arg("dim") = nb::none());
}

}  // namespace

void init_sort(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  g_sort_t = return_type(m, "_sort_return_types", "sort");
  g_topk_t = return_type(m, "_sort_return_types", "topk");
  g_kthvalue_t = return_type(m, "_sort_return_types", "kthvalue");
  g_median_t = return_type(m, "_sort_return_types", "median");
  g_nanmedian_t = return_type(m, "_sort_return_types", "nanmedian");
  g_mode_t = return_type(m, "_sort_return_types", "mode");
  def_sorting(m, cls);
  def_selection(m, cls);
  def_unique(m, cls);
}

}  // namespace ember::py
