// Bindings of searchsorted, bucketize and isin (ember/ops/search.h), with PyTorch's signatures and docstrings: a
// Python number may stand for the values (searchsorted, bucketize) or for either side of isin.
#include "common.h"
#include "ember/ops/search.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

std::optional<std::string_view> side_of(nb::handle side) {
  if (side.is_none()) return std::nullopt;
  EMBER_CHECK_TYPE(PyUnicode_Check(side.ptr()), "searchsorted(): argument 'side' must be str, not ",
                   nb::inst_name(side).c_str());
  return std::string_view(utf8(side));
}

constexpr const char* kSearchsortedDoc = R"(
Returns, for each value, the index where it would be inserted into ``sorted_sequence`` to keep it sorted.

With ``right=False`` (or ``side='left'``), the first index ``i`` with ``value <= sorted_sequence[i]``; with
``right=True`` (``side='right'``), the first with ``value < sorted_sequence[i]``. ``sorted_sequence`` is 1-d (one
sequence for all values) or has the values' leading dims (one sequence per row, searched along the last dim).
``sorter`` gives the indices that sort an unsorted ``sorted_sequence``. A NaN value lands at the end.

Args:
    sorted_sequence (Tensor): the sequence(s), sorted along the last dim (or through ``sorter``).
    input (Tensor or float): the values to place (``values`` in PyTorch's documentation; both names are accepted).

Keyword args:
    out_int32 (bool): return ``int32`` indices instead of ``int64``. Default: ``False``.
    right (bool): place each value after equal elements. Default: ``False``.
    side (str, optional): ``'left'`` or ``'right'``, the same as ``right``; contradicting it is an error.
    out (Tensor, optional): the output tensor.
    sorter (Tensor, optional): ``int64`` indices that sort ``sorted_sequence`` along its last dim.

Example::

    >>> s = ember.tensor([1, 3, 5, 7])
    >>> ember.searchsorted(s, ember.tensor([3, 6]))
    tensor([1, 3])
    >>> ember.searchsorted(s, ember.tensor([3, 6]), right=True)
    tensor([2, 3])
)";

constexpr const char* kBucketizeDoc = R"(
Returns the index of the bucket each element of ``input`` falls in, for buckets delimited by the 1-d ``boundaries``.

With ``right=False``, the index ``i`` with ``boundaries[i - 1] < x <= boundaries[i]``; with ``right=True``, the one
with ``boundaries[i - 1] <= x < boundaries[i]``. Values beyond the last boundary get ``len(boundaries)``. This is
:func:`ember.searchsorted` with the arguments the other way round.

Args:
    input (Tensor or float): the values.
    boundaries (Tensor): a 1-d increasing tensor.

Keyword args:
    out_int32 (bool): return ``int32`` indices instead of ``int64``. Default: ``False``.
    right (bool): which side of the bucket is closed, as above. Default: ``False``.
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.bucketize(ember.tensor([0, 3, 8]), ember.tensor([1, 3, 5, 7]))
    tensor([0, 1, 4])
)";

constexpr const char* kIsinDoc = R"(
Tests whether each element of ``elements`` occurs in ``test_elements``, returning a bool tensor of ``elements``' shape.

Either argument (not both) may be a number. NaN occurs nowhere. With ``invert=True``, the result is negated.

Args:
    elements (Tensor or float): the elements to test.
    test_elements (Tensor or float): the values to look for.

Keyword args:
    assume_unique (bool): accepted for PyTorch's API (a hint that both inputs hold distinct values); the result is
        the same either way. Default: ``False``.
    invert (bool): test for absence instead. Default: ``False``.
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.isin(ember.tensor([1, 2, 3]), ember.tensor([2, 5]))
    tensor([False,  True, False])
)";

}  // namespace

void init_search(nb::module_& m) {
  auto searchsorted_fn = [](const Tensor& seq, nb::handle values, bool out_int32, bool right, nb::handle side,
                            nb::handle out, nb::handle sorter) {
    const Tensor s = opt_tensor(sorter, "searchsorted", "sorter");
    if (nb::isinstance<Tensor>(values))
      return finish_out(searchsorted(seq, nb::cast<const Tensor&>(values), out_int32, right, side_of(side), s), out,
                        "searchsorted");
    EMBER_CHECK_TYPE(is_scalar(values), "searchsorted(): argument 'input' must be Tensor or Number, not ",
                     nb::inst_name(values).c_str());
    return finish_out(searchsorted(seq, to_scalar(values, "searchsorted"), out_int32, right, side_of(side), s), out,
                      "searchsorted");
  };
  // The values are `input` in PyTorch's binding and `values` in its documentation: both work (an overload).
  auto sig = [](const char* values) {
    return std::string("def searchsorted(sorted_sequence: Tensor, ") + values +
           ": Tensor | float, *, out_int32: "
           "bool = False, right: bool = False, side: str | None = None, out: Tensor | None = None, sorter: Tensor | "
           "None = None) -> Tensor";
  };
  def_fn(m, "searchsorted", searchsorted_fn, nb::sig(sig("input").c_str()), nb::arg("sorted_sequence"),
         nb::arg("input"), nb::kw_only(), nb::arg("out_int32") = false, nb::arg("right") = false, none_arg("side"),
         none_arg("out"), none_arg("sorter"), kSearchsortedDoc);
  nb::cpp_function_def(searchsorted_fn, nb::scope(m), nb::sig(sig("values").c_str()), nb::arg("sorted_sequence"),
                       nb::arg("values"), nb::kw_only(), nb::arg("out_int32") = false, nb::arg("right") = false,
                       none_arg("side"), none_arg("out"), none_arg("sorter"), kSearchsortedDoc);

  def_fn(
      m, "bucketize",
      [](nb::handle input, const Tensor& boundaries, bool out_int32, bool right, nb::handle out) {
        if (nb::isinstance<Tensor>(input))
          return finish_out(bucketize(nb::cast<const Tensor&>(input), boundaries, out_int32, right), out, "bucketize");
        EMBER_CHECK_TYPE(is_scalar(input), "bucketize(): argument 'input' must be Tensor or Number, not ",
                         nb::inst_name(input).c_str());
        return finish_out(bucketize(to_scalar(input, "bucketize"), boundaries, out_int32, right), out, "bucketize");
      },
      nb::sig("def bucketize(input: Tensor | float, boundaries: Tensor, *, out_int32: bool = False, right: bool = "
              "False, out: Tensor | None = None) -> Tensor"),
      nb::arg("input"), nb::arg("boundaries"), nb::kw_only(), nb::arg("out_int32") = false, nb::arg("right") = false,
      none_arg("out"), kBucketizeDoc);

  def_fn(
      m, "isin",
      [](nb::handle elements, nb::handle test, bool assume_unique, bool invert, nb::handle out) {
        const bool et = nb::isinstance<Tensor>(elements), tt = nb::isinstance<Tensor>(test);
        EMBER_CHECK_TYPE((et || is_scalar(elements)) && (tt || is_scalar(test)) && (et || tt),
                         "isin(): expected "
                         "(Tensor elements, Tensor test_elements), (Number element, Tensor test_elements) or (Tensor "
                         "elements, Number test_element), got (",
                         nb::inst_name(elements).c_str(), ", ", nb::inst_name(test).c_str(), ")");
        Tensor r;
        if (et && tt)
          r = isin(nb::cast<const Tensor&>(elements), nb::cast<const Tensor&>(test), assume_unique, invert);
        else if (et)
          r = isin(nb::cast<const Tensor&>(elements), to_scalar(test, "isin"), assume_unique, invert);
        else
          r = isin(to_scalar(elements, "isin"), nb::cast<const Tensor&>(test), assume_unique, invert);
        return finish_out(std::move(r), out, "isin");
      },
      nb::sig("def isin(elements: Tensor | float, test_elements: Tensor | float, *, assume_unique: bool = False, "
              "invert: bool = False, out: Tensor | None = None) -> Tensor"),
      nb::arg("elements"), nb::arg("test_elements"), nb::kw_only(), nb::arg("assume_unique") = false,
      nb::arg("invert") = false, none_arg("out"), kIsinDoc);
}

}  // namespace ember::py
