// Bindings of reductions and comparisons of whole tensors (equal, allclose, isclose); the ternary ops are in
// ternary.cpp.
#include "common.h"

namespace ember::py {

namespace {

nb::handle g_max_type, g_min_type;  // namedtuple types, owned by the module attribute _return_types

// dim=None, an int, or a sequence of ints.
DimVector dims_of(nb::handle h, const char* fn) {
  if (!h.is_valid() || h.is_none()) return {};
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) {
    DimVector d = to_int_list(h, fn, "dim");
    EMBER_CHECK(!d.empty(), fn, "(): dim=() reduces nothing in ember; pass dim=None to reduce all dims");
    return d;
  }
  return {to_int(h, fn, "dim")};
}

std::optional<ScalarType> dtype_kw(nb::handle h) { return h.is_valid() ? to_dtype(h) : std::nullopt; }

using DimsFn = Tensor (*)(const Tensor&, IntArrayRef, bool, std::optional<ScalarType>);
using DimsFnNoDtype = Tensor (*)(const Tensor&, IntArrayRef, bool);

// ember.name(input, dim=None, keepdim=False, *, dtype=None, out=None) and Tensor.name(...)
void def_dims_reduction(nb::module_& m, nb::handle cls, const char* name, DimsFn f) {
  auto impl = [f, name](const Tensor& x, nb::handle dim, bool keepdim, nb::handle dtype, nb::handle out) {
    return finish_out(f(x, dims_of(dim, name), keepdim, dtype.is_none() ? std::nullopt : to_dtype(dtype)), out, name);
  };
  m.attr(name) = nb::cpp_function(impl, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
                                  nb::kw_only(), nb::arg("dtype") = nb::none(), nb::arg("out") = nb::none());
  cls.attr(name) = nb::cpp_function(
      [impl](const Tensor& x, nb::handle dim, bool keepdim, nb::handle dtype) { return impl(x, dim, keepdim, dtype, {}); },
      nb::is_method(), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
      nb::arg("dtype") = nb::none());
}

void def_dims_reduction(nb::module_& m, nb::handle cls, const char* name, DimsFnNoDtype f) {
  auto impl = [f, name](const Tensor& x, nb::handle dim, bool keepdim, nb::handle out) {
    return finish_out(f(x, dims_of(dim, name), keepdim), out, name);
  };
  m.attr(name) = nb::cpp_function(impl, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
                                  nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr(name) = nb::cpp_function(
      [impl](const Tensor& x, nb::handle dim, bool keepdim) { return impl(x, dim, keepdim, {}); }, nb::is_method(),
      nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
}

// max(input) / max(input, dim, keepdim=False) -> (values, indices) / max(input, other) -> maximum
nb::object max_min(bool is_max, const Tensor& x, nb::handle dim, bool keepdim) {
  if (!dim.is_valid() || dim.is_none()) return nb::cast(is_max ? max(x) : min(x));
  if (nb::isinstance<Tensor>(dim)) {
    const Tensor& o = nb::cast<const Tensor&>(dim);
    return nb::cast(is_max ? maximum(x, o) : minimum(x, o));
  }
  const int64_t d = to_int(dim, is_max ? "max" : "min", "dim");
  auto [v, i] = is_max ? max(x, d, keepdim) : min(x, d, keepdim);
  return (is_max ? g_max_type : g_min_type)(nb::cast(std::move(v)), nb::cast(std::move(i)));
}

// var/std accept (dim, unbiased, keepdim) positionally, or correction= as a keyword.
double correction_of(nb::handle unbiased, nb::handle correction) {
  if (correction.is_valid() && !correction.is_none()) return nb::cast<double>(correction);
  if (unbiased.is_valid() && !unbiased.is_none()) return truthy(unbiased) ? 1.0 : 0.0;
  return 1.0;
}

template <class F>
void def_var_like(nb::module_& m, nb::handle cls, const char* name, F f) {
  auto impl = [f, name](const Tensor& x, nb::handle dim, nb::handle unbiased, bool keepdim, nb::handle correction) {
    // var(x, True) means unbiased=True in PyTorch's old signature.
    if (dim.is_valid() && PyBool_Check(dim.ptr())) return f(x, DimVector{}, correction_of(dim, correction), keepdim);
    return f(x, dims_of(dim, name), correction_of(unbiased, correction), keepdim);
  };
  m.attr(name) = nb::cpp_function(impl, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("unbiased") = nb::none(),
                                  nb::arg("keepdim") = false, nb::kw_only(), nb::arg("correction") = nb::none());
  cls.attr(name) = nb::cpp_function(impl, nb::is_method(), nb::arg("dim") = nb::none(),
                                    nb::arg("unbiased") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
                                    nb::arg("correction") = nb::none());
}

Tensor isclose_impl(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(a.dtype() == b.dtype(), "isclose: ", a.dtype(), " did not match ", b.dtype());
  Tensor close = eq(a, b);
  if (!is_floating(a.dtype())) {
    if (rtol == 0 && atol == 0) return close;
    Tensor af = to(a, default_dtype()), bf = to(b, default_dtype());
    return logical_or(close, le(abs(sub(af, bf)), add(mul(abs(bf), rtol), atol)));
  }
  if (equal_nan) close = logical_or(close, logical_and(isnan(a), isnan(b)));
  Tensor finite = logical_and(isfinite(a), isfinite(b));
  Tensor within = le(abs(sub(a, b)), add(mul(abs(b), rtol), atol));
  return logical_or(close, logical_and(finite, within));
}

}  // namespace

void init_reduce(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  nb::object namedtuple = nb::module_::import_("collections").attr("namedtuple");
  nb::object max_t = namedtuple("max", nb::make_tuple("values", "indices"));
  nb::object min_t = namedtuple("min", nb::make_tuple("values", "indices"));
  m.attr("_return_types") = nb::make_tuple(max_t, min_t);
  g_max_type = max_t;
  g_min_type = min_t;

  def_dims_reduction(m, cls, "sum", static_cast<DimsFn>(&sum));
  def_dims_reduction(m, cls, "nansum", static_cast<DimsFn>(&nansum));
  def_dims_reduction(m, cls, "prod", static_cast<DimsFn>(&prod));
  def_dims_reduction(m, cls, "mean", static_cast<DimsFn>(&mean));
  def_dims_reduction(m, cls, "nanmean", static_cast<DimsFn>(&nanmean));
  def_dims_reduction(m, cls, "amax", static_cast<DimsFnNoDtype>(&amax));
  def_dims_reduction(m, cls, "amin", static_cast<DimsFnNoDtype>(&amin));
  def_dims_reduction(m, cls, "all", static_cast<DimsFnNoDtype>(&all));
  def_dims_reduction(m, cls, "any", static_cast<DimsFnNoDtype>(&any));
  auto count = [](const Tensor& x, nb::handle dim) { return count_nonzero(x, dims_of(dim, "count_nonzero")); };
  m.def("count_nonzero", count, nb::arg("input"), nb::arg("dim") = nb::none());
  cls.attr("count_nonzero") = nb::cpp_function(count, nb::is_method(), nb::arg("dim") = nb::none());

  for (bool is_max : {true, false}) {
    const char* name = is_max ? "max" : "min";
    auto f = [is_max](const Tensor& x, nb::handle dim, bool keepdim) { return max_min(is_max, x, dim, keepdim); };
    m.attr(name) = nb::cpp_function(f, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
    cls.attr(name) = nb::cpp_function(f, nb::is_method(), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
    auto arg = [is_max](const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
      return is_max ? argmax(x, dim, keepdim) : argmin(x, dim, keepdim);
    };
    const char* aname = is_max ? "argmax" : "argmin";
    m.attr(aname) = nb::cpp_function(arg, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
    cls.attr(aname) = nb::cpp_function(arg, nb::is_method(), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }
  def_var_like(m, cls, "var", [](const Tensor& x, IntArrayRef d, double c, bool k) { return nb::cast(var(x, d, c, k)); });
  def_var_like(m, cls, "std", [](const Tensor& x, IntArrayRef d, double c, bool k) { return nb::cast(std(x, d, c, k)); });
  def_var_like(m, cls, "var_mean", [](const Tensor& x, IntArrayRef d, double c, bool k) {
    auto [v, mu] = var_mean(x, d, c, k);
    return nb::make_tuple(v, mu);
  });
  def_var_like(m, cls, "std_mean", [](const Tensor& x, IntArrayRef d, double c, bool k) {
    auto [s, mu] = std_mean(x, d, c, k);
    return nb::make_tuple(s, mu);
  });
  auto lse = [](const Tensor& x, nb::handle dim, bool keepdim) { return logsumexp(x, dims_of(dim, "logsumexp"), keepdim); };
  m.def("logsumexp", lse, nb::arg("input"), nb::arg("dim"), nb::arg("keepdim") = false);
  cls.attr("logsumexp") = nb::cpp_function(lse, nb::is_method(), nb::arg("dim"), nb::arg("keepdim") = false);

  // Whole-tensor comparisons.
  auto equal_fn = [](const Tensor& a, const Tensor& b) {
    if (!std::ranges::equal(a.sizes(), b.sizes())) return false;
    return item(all(eq(a, b))).to_bool();
  };
  m.def("equal", equal_fn);
  cls.attr("equal") = nb::cpp_function(equal_fn, nb::is_method());
  m.def("isclose", &isclose_impl, nb::arg("input"), nb::arg("other"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8,
        nb::arg("equal_nan") = false);
  cls.attr("isclose") = nb::cpp_function(&isclose_impl, nb::is_method(), nb::arg("other"), nb::arg("rtol") = 1e-5,
                                         nb::arg("atol") = 1e-8, nb::arg("equal_nan") = false);
  auto allclose_fn = [](const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
    return item(all(isclose_impl(a, b, rtol, atol, equal_nan))).to_bool();
  };
  m.def("allclose", allclose_fn, nb::arg("input"), nb::arg("other"), nb::arg("rtol") = 1e-5, nb::arg("atol") = 1e-8,
        nb::arg("equal_nan") = false);
  cls.attr("allclose") = nb::cpp_function(allclose_fn, nb::is_method(), nb::arg("other"), nb::arg("rtol") = 1e-5,
                                          nb::arg("atol") = 1e-8, nb::arg("equal_nan") = false);
}

}  // namespace ember::py
