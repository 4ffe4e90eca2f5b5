// Bindings of searchsorted, bucketize and isin (ember/ops/search.h), with PyTorch's signatures: a Python number
// may stand for the values (searchsorted, bucketize) or for either side of isin.
#include "common.h"
#include "shape_defs.h"
#include "ember/ops/search.h"

namespace ember::py {

namespace {

std::optional<std::string_view> side_of(nb::handle side) {
  if (side.is_none()) return std::nullopt;
  EMBER_CHECK_TYPE(PyUnicode_Check(side.ptr()), "searchsorted(): argument 'side' must be str, not ",
                   nb::inst_name(side).c_str());
  return std::string_view(utf8(side));
}

}  // namespace

void init_search(nb::module_& m) {
  m.def("searchsorted", [](const Tensor& seq, nb::handle values, bool out_int32, bool right, nb::handle side,
                           nb::handle out, nb::handle sorter) {
    const Tensor s = opt_tensor(sorter, "searchsorted", "sorter");
    if (nb::isinstance<Tensor>(values))
      return finish_out(searchsorted(seq, nb::cast<const Tensor&>(values), out_int32, right, side_of(side), s), out,
                        "searchsorted");
    EMBER_CHECK_TYPE(is_scalar(values), "searchsorted(): argument 'input' must be Tensor or Number, not ",
                     nb::inst_name(values).c_str());
    return finish_out(searchsorted(seq, to_scalar(values, "searchsorted"), out_int32, right, side_of(side), s), out,
                      "searchsorted");
  }, nb::arg("sorted_sequence"), nb::arg("input"), nb::kw_only(), nb::arg("out_int32") = false,
        nb::arg("right") = false, none_arg("side"), none_arg("out"), none_arg("sorter"));

  m.def("bucketize", [](nb::handle input, const Tensor& boundaries, bool out_int32, bool right, nb::handle out) {
    if (nb::isinstance<Tensor>(input))
      return finish_out(bucketize(nb::cast<const Tensor&>(input), boundaries, out_int32, right), out, "bucketize");
    EMBER_CHECK_TYPE(is_scalar(input), "bucketize(): argument 'input' must be Tensor or Number, not ",
                     nb::inst_name(input).c_str());
    return finish_out(bucketize(to_scalar(input, "bucketize"), boundaries, out_int32, right), out, "bucketize");
  }, nb::arg("input"), nb::arg("boundaries"), nb::kw_only(), nb::arg("out_int32") = false, nb::arg("right") = false,
        none_arg("out"));

  m.def("isin", [](nb::handle elements, nb::handle test, bool assume_unique, bool invert, nb::handle out) {
    const bool et = nb::isinstance<Tensor>(elements), tt = nb::isinstance<Tensor>(test);
    EMBER_CHECK_TYPE((et || is_scalar(elements)) && (tt || is_scalar(test)) && (et || tt), "isin(): expected "
                     "(Tensor elements, Tensor test_elements), (Number element, Tensor test_elements) or (Tensor "
                     "elements, Number test_element), got (", nb::inst_name(elements).c_str(), ", ",
                     nb::inst_name(test).c_str(), ")");
    Tensor r;
    if (et && tt)
      r = isin(nb::cast<const Tensor&>(elements), nb::cast<const Tensor&>(test), assume_unique, invert);
    else if (et)
      r = isin(nb::cast<const Tensor&>(elements), to_scalar(test, "isin"), assume_unique, invert);
    else
      r = isin(to_scalar(elements, "isin"), nb::cast<const Tensor&>(test), assume_unique, invert);
    return finish_out(std::move(r), out, "isin");
  }, nb::arg("elements"), nb::arg("test_elements"), nb::kw_only(), nb::arg("assume_unique") = false,
        nb::arg("invert") = false, none_arg("out"));
}

}  // namespace ember::py
