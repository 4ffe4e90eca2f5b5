// Bindings of the sort op family: scans, sorting and selection (namedtuple results like torch.return_types),
// unique, bincount, histc, aminmax and the norms (ember.norm, and ember._C._linalg_vector_norm for ember.linalg).
#include <map>
#include <string>

#include "common.h"

namespace ember::py {

namespace {

// namedtuple types by op name, owned by the module attribute _sort_return_types.
std::map<std::string, nb::handle> g_types;

bool given(nb::handle h) { return h.is_valid() && !h.is_none(); }

// A namedtuple of the op's type; with out=(a, b), the results are written there and the result holds those tensors.
nb::object pair_result(const char* name, std::pair<Tensor, Tensor> r, nb::handle out = {}) {
  nb::handle type = g_types.at(name);
  if (!given(out)) return type(nb::cast(std::move(r.first)), nb::cast(std::move(r.second)));
  const bool ok = (PyTuple_Check(out.ptr()) || PyList_Check(out.ptr())) && PySequence_Size(out.ptr()) == 2;
  nb::object a = ok ? nb::steal(PySequence_GetItem(out.ptr(), 0)) : nb::none();
  nb::object b = ok ? nb::steal(PySequence_GetItem(out.ptr(), 1)) : nb::none();
  EMBER_CHECK_TYPE(nb::isinstance<Tensor>(a) && nb::isinstance<Tensor>(b), name,
                   "(): out= must be a tuple of two tensors");
  return type(finish_out(std::move(r.first), a, name), finish_out(std::move(r.second), b, name));
}

// dim=None (all dims), an int, or a sequence of ints (() also means all dims, as in torch.norm).
DimVector dims_of(nb::handle h, const char* fn) {
  if (!given(h)) return {};
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) return to_int_list(h, fn, "dim");
  return {to_int(h, fn, "dim")};
}

// The accumulation dtype of cumsum/cumprod: dtype=, else out='s (PyTorch computes in the out tensor's dtype).
std::optional<ScalarType> cum_dtype(nb::handle dtype, nb::handle out) {
  if (given(dtype)) return to_dtype(dtype);
  if (given(out) && nb::isinstance<Tensor>(out)) return nb::cast<const Tensor&>(out).dtype();
  return std::nullopt;
}

using CumFn = Tensor (*)(const Tensor&, int64_t, std::optional<ScalarType>);
using CumInplaceFn = const Tensor& (*)(const Tensor&, int64_t, std::optional<ScalarType>);

void def_cum(nb::module_& m, nb::handle cls, const char* name, CumFn f, CumInplaceFn f_) {
  auto impl = [f, name](const Tensor& x, int64_t dim, nb::handle dtype, nb::handle out) {
    return finish_out(f(x, dim, cum_dtype(dtype, out)), out, name);
  };
  m.attr(name) = nb::cpp_function(impl, nb::arg("input"), nb::arg("dim"), nb::kw_only(), nb::arg("dtype") = nb::none(),
                                  nb::arg("out") = nb::none());
  cls.attr(name) = nb::cpp_function([impl](const Tensor& x, int64_t dim, nb::handle dtype) {
    return impl(x, dim, dtype, {});
  }, nb::is_method(), nb::arg("dim"), nb::kw_only(), nb::arg("dtype") = nb::none());
  cls.attr((std::string(name) + "_").c_str()) = nb::cpp_function([f_](nb::handle self, int64_t dim, nb::handle dtype) {
    f_(nb::cast<const Tensor&>(self), dim, to_dtype(dtype));
    return nb::borrow(self);
  }, nb::is_method(), nb::arg("dim"), nb::kw_only(), nb::arg("dtype") = nb::none());
}

using PairDimFn = std::pair<Tensor, Tensor> (*)(const Tensor&, int64_t);

void def_cum_extremum(nb::module_& m, nb::handle cls, const char* name, PairDimFn f) {
  auto impl = [f, name](const Tensor& x, int64_t dim, nb::handle out) { return pair_result(name, f(x, dim), out); };
  m.attr(name) = nb::cpp_function(impl, nb::arg("input"), nb::arg("dim"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr(name) = nb::cpp_function([impl](const Tensor& x, int64_t dim) { return impl(x, dim, {}); },
                                    nb::is_method(), nb::arg("dim"));
}

void def_scans(nb::module_& m, nb::handle cls) {
  def_cum(m, cls, "cumsum", &cumsum, &cumsum_);
  def_cum(m, cls, "cumprod", &cumprod, &cumprod_);
  def_cum_extremum(m, cls, "cummax", &cummax);
  def_cum_extremum(m, cls, "cummin", &cummin);
  auto lcse = [](const Tensor& x, int64_t dim, nb::handle out) {
    return finish_out(logcumsumexp(x, dim), out, "logcumsumexp");
  };
  m.attr("logcumsumexp") = nb::cpp_function(lcse, nb::arg("input"), nb::arg("dim"), nb::kw_only(),
                                            nb::arg("out") = nb::none());
  cls.attr("logcumsumexp") = nb::cpp_function([](const Tensor& x, int64_t dim) { return logcumsumexp(x, dim); },
                                              nb::is_method(), nb::arg("dim"));
}

void def_sorting(nb::module_& m, nb::handle cls) {
  auto sort_fn = [](const Tensor& x, int64_t dim, bool descending, nb::handle stable, nb::handle out) {
    return pair_result("sort", sort(x, dim, descending, given(stable) && nb::cast<bool>(stable)), out);
  };
  m.attr("sort") = nb::cpp_function(sort_fn, nb::arg("input"), nb::arg("dim") = -1, nb::arg("descending") = false,
                                    nb::kw_only(), nb::arg("stable") = nb::none(), nb::arg("out") = nb::none());
  cls.attr("sort") = nb::cpp_function([sort_fn](const Tensor& x, int64_t dim, bool descending, nb::handle stable) {
    return sort_fn(x, dim, descending, stable, {});
  }, nb::is_method(), nb::arg("dim") = -1, nb::arg("descending") = false, nb::kw_only(),
     nb::arg("stable") = nb::none());

  auto argsort_fn = [](const Tensor& x, int64_t dim, bool descending, bool stable) {
    return argsort(x, dim, descending, stable);
  };
  m.attr("argsort") = nb::cpp_function(argsort_fn, nb::arg("input"), nb::arg("dim") = -1,
                                       nb::arg("descending") = false, nb::kw_only(), nb::arg("stable") = false);
  cls.attr("argsort") = nb::cpp_function(argsort_fn, nb::is_method(), nb::arg("dim") = -1,
                                         nb::arg("descending") = false, nb::kw_only(), nb::arg("stable") = false);

  m.attr("msort") = nb::cpp_function([](const Tensor& x, nb::handle out) { return finish_out(msort(x), out, "msort"); },
                                     nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("msort") = nb::cpp_function([](const Tensor& x) { return msort(x); }, nb::is_method());

  auto topk_fn = [](const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted, nb::handle out) {
    return pair_result("topk", topk(x, k, dim, largest, sorted), out);
  };
  m.attr("topk") = nb::cpp_function(topk_fn, nb::arg("input"), nb::arg("k"), nb::arg("dim") = -1,
                                    nb::arg("largest") = true, nb::arg("sorted") = true, nb::kw_only(),
                                    nb::arg("out") = nb::none());
  cls.attr("topk") = nb::cpp_function([topk_fn](const Tensor& x, int64_t k, int64_t dim, bool largest, bool sorted) {
    return topk_fn(x, k, dim, largest, sorted, {});
  }, nb::is_method(), nb::arg("k"), nb::arg("dim") = -1, nb::arg("largest") = true, nb::arg("sorted") = true);
}

void def_selection(nb::module_& m, nb::handle cls) {
  auto kth_fn = [](const Tensor& x, int64_t k, int64_t dim, bool keepdim, nb::handle out) {
    return pair_result("kthvalue", kthvalue(x, k, dim, keepdim), out);
  };
  m.attr("kthvalue") = nb::cpp_function(kth_fn, nb::arg("input"), nb::arg("k"), nb::arg("dim") = -1,
                                        nb::arg("keepdim") = false, nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("kthvalue") = nb::cpp_function([kth_fn](const Tensor& x, int64_t k, int64_t dim, bool keepdim) {
    return kth_fn(x, k, dim, keepdim, {});
  }, nb::is_method(), nb::arg("k"), nb::arg("dim") = -1, nb::arg("keepdim") = false);

  // median(input) -> the value; median(input, dim, keepdim=False) -> (values, indices). Likewise nanmedian.
  for (bool ignore_nan : {false, true}) {
    const char* name = ignore_nan ? "nanmedian" : "median";
    auto fn = [ignore_nan, name](const Tensor& x, nb::handle dim, bool keepdim, nb::handle out) -> nb::object {
      if (!given(dim)) {
        EMBER_CHECK_TYPE(!keepdim && !given(out), name, "(): keepdim and out= need a dim");
        return nb::cast(ignore_nan ? nanmedian(x) : median(x));
      }
      const int64_t d = to_int(dim, name, "dim");
      return pair_result(name, ignore_nan ? nanmedian(x, d, keepdim) : median(x, d, keepdim), out);
    };
    m.attr(name) = nb::cpp_function(fn, nb::arg("input"), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
                                    nb::kw_only(), nb::arg("out") = nb::none());
    cls.attr(name) = nb::cpp_function([fn](const Tensor& x, nb::handle dim, bool keepdim) {
      return fn(x, dim, keepdim, {});
    }, nb::is_method(), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
  }

  auto mode_fn = [](const Tensor& x, int64_t dim, bool keepdim, nb::handle out) {
    return pair_result("mode", mode(x, dim, keepdim), out);
  };
  m.attr("mode") = nb::cpp_function(mode_fn, nb::arg("input"), nb::arg("dim") = -1, nb::arg("keepdim") = false,
                                    nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("mode") = nb::cpp_function([mode_fn](const Tensor& x, int64_t dim, bool keepdim) {
    return mode_fn(x, dim, keepdim, {});
  }, nb::is_method(), nb::arg("dim") = -1, nb::arg("keepdim") = false);

  auto aminmax_fn = [](const Tensor& x, std::optional<int64_t> dim, bool keepdim, nb::handle out) {
    return pair_result("aminmax", aminmax(x, dim, keepdim), out);
  };
  m.attr("aminmax") = nb::cpp_function(aminmax_fn, nb::arg("input"), nb::kw_only(), nb::arg("dim") = nb::none(),
                                       nb::arg("keepdim") = false, nb::arg("out") = nb::none());
  cls.attr("aminmax") = nb::cpp_function([aminmax_fn](const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
    return aminmax_fn(x, dim, keepdim, {});
  }, nb::is_method(), nb::kw_only(), nb::arg("dim") = nb::none(), nb::arg("keepdim") = false);
}

// A tensor alone, or a tuple with the inverse and counts asked for, as torch.unique returns.
nb::object unique_result(UniqueResult r, bool return_inverse, bool return_counts) {
  if (!return_inverse && !return_counts) return nb::cast(std::move(r.values));
  if (return_inverse && return_counts) return nb::make_tuple(r.values, r.inverse, r.counts);
  return nb::make_tuple(r.values, return_inverse ? r.inverse : r.counts);
}

void check_unique_dim(nb::handle dim, const char* name) {
  if (given(dim))
    fail<NotImplementedError>(name, "(): dim=", to_int(dim, name, "dim"), " is not supported by ember yet (only "
                              "dim=None, which flattens the input)");
}

void def_counting(nb::module_& m, nb::handle cls) {
  auto unique_fn = [](const Tensor& x, bool sorted, bool inverse, bool counts, nb::handle dim) {
    check_unique_dim(dim, "unique");
    return unique_result(unique(x, sorted, inverse), inverse, counts);
  };
  m.attr("unique") = nb::cpp_function(unique_fn, nb::arg("input"), nb::arg("sorted") = true,
                                      nb::arg("return_inverse") = false, nb::arg("return_counts") = false,
                                      nb::arg("dim") = nb::none());
  cls.attr("unique") = nb::cpp_function(unique_fn, nb::is_method(), nb::arg("sorted") = true,
                                        nb::arg("return_inverse") = false, nb::arg("return_counts") = false,
                                        nb::arg("dim") = nb::none());
  auto consecutive_fn = [](const Tensor& x, bool inverse, bool counts, nb::handle dim) {
    check_unique_dim(dim, "unique_consecutive");
    return unique_result(unique_consecutive(x, inverse), inverse, counts);
  };
  m.attr("unique_consecutive") = nb::cpp_function(consecutive_fn, nb::arg("input"), nb::arg("return_inverse") = false,
                                                  nb::arg("return_counts") = false, nb::arg("dim") = nb::none());
  cls.attr("unique_consecutive") = nb::cpp_function(consecutive_fn, nb::is_method(), nb::arg("return_inverse") = false,
                                                    nb::arg("return_counts") = false, nb::arg("dim") = nb::none());

  auto bincount_fn = [](const Tensor& x, std::optional<Tensor> weights, int64_t minlength) {
    return bincount(x, weights.value_or(Tensor()), minlength);
  };
  m.attr("bincount") = nb::cpp_function(bincount_fn, nb::arg("input"), nb::arg("weights") = nb::none(),
                                        nb::arg("minlength") = 0);
  cls.attr("bincount") = nb::cpp_function(bincount_fn, nb::is_method(), nb::arg("weights") = nb::none(),
                                          nb::arg("minlength") = 0);

  auto histc_fn = [](const Tensor& x, int64_t bins, double min, double max, nb::handle out) {
    return finish_out(histc(x, bins, min, max), out, "histc");
  };
  m.attr("histc") = nb::cpp_function(histc_fn, nb::arg("input"), nb::arg("bins") = 100, nb::arg("min") = 0.0,
                                     nb::arg("max") = 0.0, nb::kw_only(), nb::arg("out") = nb::none());
  cls.attr("histc") = nb::cpp_function([histc_fn](const Tensor& x, int64_t bins, double min, double max) {
    return histc_fn(x, bins, min, max, {});
  }, nb::is_method(), nb::arg("bins") = 100, nb::arg("min") = 0.0, nb::arg("max") = 0.0);
}

// torch.norm: p is a number, None (2), 'fro' or 'nuc'.
Tensor norm_impl(const Tensor& x, nb::handle p, nb::handle dim, bool keepdim, nb::handle dtype) {
  const DimVector dims = dims_of(dim, "norm");
  if (given(p) && PyUnicode_Check(p.ptr())) {
    const std::string s = nb::cast<std::string>(p);
    if (given(dtype) && (s == "fro" || s == "nuc"))
      fail<ValueError>("dtype argument is not supported in ", s == "fro" ? "frobenius" : "nuclear", " norm");
    return norm(x, std::string_view(s), dims, keepdim);
  }
  const double pv = given(p) ? to_scalar(p, "norm").to_double() : 2.0;
  return norm(x, pv, dims, keepdim, to_dtype(dtype));
}

void def_norms(nb::module_& m, nb::handle cls) {
  m.attr("norm") = nb::cpp_function([](const Tensor& x, nb::handle p, nb::handle dim, bool keepdim, nb::handle out,
                                       nb::handle dtype) {
    return finish_out(norm_impl(x, p, dim, keepdim, dtype), out, "norm");
  }, nb::arg("input"), nb::arg("p").none() = "fro", nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
     nb::arg("out") = nb::none(), nb::arg("dtype") = nb::none());
  cls.attr("norm") = nb::cpp_function(&norm_impl, nb::is_method(), nb::arg("p").none() = "fro",
                                      nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
                                      nb::arg("dtype") = nb::none());
  m.def("_linalg_vector_norm", [](const Tensor& x, double ord, nb::handle dim, bool keepdim, nb::handle dtype,
                                  nb::handle out) {
    return finish_out(linalg_vector_norm(x, ord, dims_of(dim, "linalg.vector_norm"), keepdim, to_dtype(dtype)), out,
                      "linalg.vector_norm");
  }, nb::arg("x"), nb::arg("ord") = 2.0, nb::arg("dim") = nb::none(), nb::arg("keepdim") = false, nb::kw_only(),
        nb::arg("dtype") = nb::none(), nb::arg("out") = nb::none());
}

}  // namespace

void init_sort(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  nb::object namedtuple = nb::module_::import_("collections").attr("namedtuple");
  nb::list types;
  for (const char* name : {"cummax", "cummin", "sort", "topk", "kthvalue", "median", "nanmedian", "mode"}) {
    nb::object t = namedtuple(name, nb::make_tuple("values", "indices"));
    types.append(t);
    g_types[name] = t;
  }
  nb::object aminmax_t = namedtuple("aminmax", nb::make_tuple("min", "max"));
  types.append(aminmax_t);
  g_types["aminmax"] = aminmax_t;
  m.attr("_sort_return_types") = types;

  def_scans(m, cls);
  def_sorting(m, cls);
  def_selection(m, cls);
  def_counting(m, cls);
  def_norms(m, cls);
}

}  // namespace ember::py
