// Bindings of ember/ops/shape_more.h: the diagonal family and *_scatter ops, products and rotations, splitting
// and stacking helpers, in-place metadata ops, statistics (cov, quantile, trapezoid, ...) and small Tensor methods
// (type_as, is_nonzero, new_empty_strided, ...), with PyTorch's signatures.
#include <tuple>
#include <variant>

#include "common.h"
#include "shape_defs.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/ops/diagonal.h"

namespace ember::py {

namespace {

bool is_seq(nb::handle h) { return PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()); }

// indices_or_sections of tensor_split and hsplit/vsplit/dsplit: an int, a sequence of ints, or an int64 tensor
// (0-d: sections, 1-d: indices; read on the host, as PyTorch does).
std::variant<int64_t, DimVector> sections_or_indices(nb::handle h, const char* fn) {
  if (nb::isinstance<Tensor>(h)) {
    const Tensor& t = nb::cast<const Tensor&>(h);
    EMBER_CHECK(t.dim() <= 1, fn, " expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional "
                "tensor, but got a tensor with ", t.dim(), " dims");
    EMBER_CHECK(t.dtype() == ScalarType::Int64, fn, " expected tensor_indices_or_sections to have dtype of long, but "
                "got ", t.dtype());
    const Tensor c = contiguous(to(t, kCPU));
    if (t.dim() == 0) return c.data<int64_t>()[0];
    return DimVector(IntArrayRef(c.data<int64_t>(), static_cast<size_t>(c.numel())));
  }
  if (is_seq(h)) return to_int_list(h, fn, "indices");
  return to_int(h, fn, "sections");
}

nb::object tuple_of(nb::handle first, const nb::args& rest, const char* fn, Tensor (*f)(const Tensor&)) {
  // atleast_Nd(t) -> tensor; atleast_Nd(t1, t2, ...) or atleast_Nd((t1, t2)) -> tuple
  if (rest.size() == 0 && nb::isinstance<Tensor>(first)) return nb::cast(f(nb::cast<const Tensor&>(first)));
  std::vector<Tensor> ts = rest.size() == 0 ? tensor_list(first, fn) : [&] {
    std::vector<Tensor> v{nb::cast<Tensor>(first)};
    for (const Tensor& t : tensor_list(rest, fn)) v.push_back(t);
    return v;
  }();
  for (Tensor& t : ts) t = f(t);
  return to_tuple(ts);
}

Scalar number(nb::handle h, const char* fn) {
  if (nb::isinstance<Tensor>(h)) {
    const Tensor& t = nb::cast<const Tensor&>(h);
    EMBER_CHECK(t.numel() == 1, fn, ": expected a number or a one-element tensor, got shape ", shape_str(t.sizes()));
    return item(t);
  }
  return to_scalar(h, fn);
}

void init_diagonal(nb::module_& m, nb::handle cls) {
  def_both(m, cls, "diag", [](const Tensor& t, int64_t d) { return diag(t, d); }, nb::arg("diagonal") = 0);
  def_both(m, cls, "diag_embed", [](const Tensor& t, int64_t o, int64_t d1, int64_t d2) {
    return diag_embed(t, o, d1, d2);
  }, nb::arg("offset") = 0, nb::arg("dim1") = -2, nb::arg("dim2") = -1);
  def_both(m, cls, "diagflat", [](const Tensor& t, int64_t o) { return diagflat(t, o); }, nb::arg("offset") = 0);
  def_both(m, cls, "trace", [](const Tensor& t) { return trace(t); });
  for (bool lower : {true, false}) {
    m.def(lower ? "tril_indices" : "triu_indices", [lower](int64_t row, int64_t col, int64_t offset, nb::kwargs kw) {
      FactoryArgs a;
      parse_factory_kwargs(kw, lower ? "tril_indices" : "triu_indices", kDtype | kDevice | kLayout, a);
      const TensorOptions o = a.options(ScalarType::Int64);
      return lower ? tril_indices(row, col, offset, o) : triu_indices(row, col, offset, o);
    }, nb::arg("row"), nb::arg("col"), nb::arg("offset") = 0, nb::arg("kwargs"));
  }
  def_inplace<nb::handle, bool>(cls, "fill_diagonal_", [](const Tensor& t, nb::handle v, bool wrap) {
    fill_diagonal_(t, number(v, "fill_diagonal_"), wrap);
  }, nb::arg("fill_value"), nb::arg("wrap") = false);
  def_both(m, cls, "diagonal_scatter", [](const Tensor& t, const Tensor& src, int64_t o, int64_t d1, int64_t d2) {
    return diagonal_scatter(t, src, o, d1, d2);
  }, nb::arg("src"), nb::arg("offset") = 0, nb::arg("dim1") = 0, nb::arg("dim2") = 1);
  def_both(m, cls, "select_scatter", [](const Tensor& t, const Tensor& src, int64_t dim, int64_t index) {
    return select_scatter(t, src, dim, index);
  }, nb::arg("src"), nb::arg("dim"), nb::arg("index"));
  def_both(m, cls, "slice_scatter", [](const Tensor& t, const Tensor& src, int64_t dim, nb::handle start,
                                       nb::handle end, int64_t step) {
    return slice_scatter(t, src, dim, opt_int(start, "slice_scatter", "start"), opt_int(end, "slice_scatter", "end"),
                         step);
  }, nb::arg("src"), nb::arg("dim") = 0, none_arg("start"), none_arg("end"), nb::arg("step") = 1);
  def_both(m, cls, "as_strided_scatter", [](const Tensor& t, const Tensor& src, nb::handle size, nb::handle stride,
                                            nb::handle offset) {
    return as_strided_scatter(t, src, to_int_list(size, "as_strided_scatter", "size"),
                              to_int_list(stride, "as_strided_scatter", "stride"),
                              opt_int(offset, "as_strided_scatter", "storage_offset"));
  }, nb::arg("src"), nb::arg("size"), nb::arg("stride"), none_arg("storage_offset"));
}

void init_products(nb::module_& m, nb::handle cls) {
  def_both(m, cls, "cross", [](const Tensor& a, const Tensor& b, nb::handle dim) {
    return cross(a, b, opt_int(dim, "cross", "dim"));
  }, nb::arg("other"), none_arg("dim"));
  m.def("_linalg_cross", [](const Tensor& a, const Tensor& b, int64_t dim) { return linalg_cross(a, b, dim); },
        nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("dim") = -1);
  def_both(m, cls, "kron", [](const Tensor& a, const Tensor& b) { return kron(a, b); }, nb::arg("other"));
  def_both(m, cls, "rot90", [](const Tensor& t, int64_t k, nb::handle dims) {
    return rot90(t, k, to_int_list(dims, "rot90", "dims"));
  }, nb::arg("k") = 1, nb::arg("dims") = nb::make_tuple(0, 1));
  m.def("block_diag", [](nb::args tensors) { return block_diag(tensor_list(tensors, "block_diag")); });
  m.def("cartesian_prod", [](nb::args tensors) { return cartesian_prod(tensor_list(tensors, "cartesian_prod")); });
  m.def("combinations", [](const Tensor& t, int64_t r, bool with_replacement) {
    return combinations(t, r, with_replacement);
  }, nb::arg("input"), nb::arg("r") = 2, nb::arg("with_replacement") = false);
}

void init_splitting(nb::module_& m, nb::handle cls) {
  m.def("atleast_1d", [](nb::handle t, nb::args rest) { return tuple_of(t, rest, "atleast_1d", &atleast_1d); });
  m.def("atleast_2d", [](nb::handle t, nb::args rest) { return tuple_of(t, rest, "atleast_2d", &atleast_2d); });
  m.def("atleast_3d", [](nb::handle t, nb::args rest) { return tuple_of(t, rest, "atleast_3d", &atleast_3d); });
  def_both(m, cls, "ravel", [](const Tensor& t) { return ravel(t); });
  auto tsplit = [](const Tensor& t, nb::handle ios, int64_t dim) {
    auto v = sections_or_indices(ios, "tensor_split");
    if (auto* s = std::get_if<int64_t>(&v)) return to_tuple(tensor_split(t, *s, dim));
    return to_tuple(tensor_split_indices(t, std::get<DimVector>(v), dim));
  };
  def_both(m, cls, "tensor_split", tsplit, nb::arg("indices_or_sections"), nb::arg("dim") = 0);
  for (char which : {'h', 'v', 'd'}) {
    const char* name = which == 'h' ? "hsplit" : which == 'v' ? "vsplit" : "dsplit";
    def_both(m, cls, name, [which, name](const Tensor& t, nb::handle ios) {
      auto v = sections_or_indices(ios, name);
      if (auto* s = std::get_if<int64_t>(&v)) return to_tuple(hvd_split(t, *s, which));
      return to_tuple(hvd_split_indices(t, std::get<DimVector>(v), which));
    }, nb::arg("indices_or_sections"));
  }
  using Stack = Tensor (*)(const std::vector<Tensor>&, const Tensor&);
  for (auto [name, f] : {std::pair<const char*, Stack>{"dstack", &dstack}, {"column_stack", &column_stack}}) {
    const char* fn = name;
    m.attr(name) = nb::cpp_function([f, fn](nb::handle tensors, nb::handle out) -> nb::object {
      Tensor o = opt_tensor(out, fn, "out");
      Tensor r = f(tensor_list(tensors, fn), o);
      return out.is_none() ? nb::cast(std::move(r)) : nb::borrow(out);
    }, nb::arg("tensors"), nb::kw_only(), none_arg("out"));
  }
  // PyTorch's unsafe_ variants skip the view bookkeeping of chunk/split; ember's pieces are the same views.
  def_both(m, cls, "unsafe_chunk", [](const Tensor& t, int64_t chunks, int64_t dim) {
    return to_tuple(chunk(t, chunks, dim));
  }, nb::arg("chunks"), nb::arg("dim") = 0);
  def_both(m, cls, "unsafe_split", [](const Tensor& t, int64_t size, int64_t dim) {
    return to_tuple(split(t, size, dim));
  }, nb::arg("split_size"), nb::arg("dim") = 0);
}

void init_metadata(nb::module_& m, nb::handle cls) {
  def_inplace<int64_t>(cls, "unsqueeze_", [](const Tensor& t, int64_t d) { unsqueeze_(t, d); }, nb::arg("dim"));
  def_inplace<nb::handle>(cls, "squeeze_", [](const Tensor& t, nb::handle d) {
    squeeze_(t, opt_int(d, "squeeze_", "dim"));
  }, none_arg("dim"));
  def_inplace<>(cls, "t_", [](const Tensor& t) { t_(t); });
  for (auto [name, a0, a1] : {std::tuple{"transpose_", "dim0", "dim1"}, {"swapdims_", "dim0", "dim1"},
                              {"swapaxes_", "axis0", "axis1"}})
    def_inplace<int64_t, int64_t>(cls, name, [](const Tensor& t, int64_t d0, int64_t d1) { transpose_(t, d0, d1); },
                                  nb::arg(a0), nb::arg(a1));
  if (!nb::hasattr(cls, "as_strided_"))
    def_inplace<nb::handle, nb::handle, nb::handle>(cls, "as_strided_",
        [](const Tensor& t, nb::handle size, nb::handle stride, nb::handle off) {
          as_strided_(t, to_int_list(size, "as_strided_", "size"), to_int_list(stride, "as_strided_", "stride"),
                      opt_int(off, "as_strided_", "storage_offset"));
        }, nb::arg("size"), nb::arg("stride"), none_arg("storage_offset"));
  cls.attr("resize_") = nb::cpp_function([](nb::handle self, nb::args size, nb::kwargs kw) {
    EMBER_CHECK_TYPE(!kw.contains("memory_format") || nb::len(kw) == 1, "resize_() got an unexpected keyword");
    resize_(nb::cast<const Tensor&>(self), parse_size(size, 0, "resize_"));
    return nb::borrow(self);
  }, nb::is_method());
  def_inplace<const Tensor&>(cls, "resize_as_", [](const Tensor& t, const Tensor& o) { resize_(t, o.sizes()); },
                             nb::arg("the_template"));
  m.def("resize_as_", [](nb::handle self, const Tensor& o) {
    resize_(nb::cast<const Tensor&>(self), o.sizes());
    return nb::borrow(self);
  }, nb::arg("input"), nb::arg("the_template"));

  auto put_fn = [](const Tensor& t, const Tensor& index, const Tensor& source, bool accumulate) {
    return put(t, index, source, accumulate);
  };
  def_both(m, cls, "put", put_fn, nb::arg("index"), nb::arg("source"), nb::arg("accumulate") = false);
  def_inplace<const Tensor&, const Tensor&, bool>(cls, "put_",
      [](const Tensor& t, const Tensor& index, const Tensor& source, bool acc) { put_(t, index, source, acc); },
      nb::arg("index"), nb::arg("source"), nb::arg("accumulate") = false);
  def_both(m, cls, "index_reduce", [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source,
                                     std::string reduce, bool include_self) {
    return index_reduce(t, dim, index, source, reduce, include_self);
  }, nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::arg("reduce"), nb::kw_only(),
           nb::arg("include_self") = true);
  def_inplace<int64_t, const Tensor&, const Tensor&, std::string, bool>(cls, "index_reduce_",
      [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source, std::string reduce, bool incl) {
        index_reduce_(t, dim, index, source, reduce, incl);
      }, nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::arg("reduce"), nb::kw_only(),
      nb::arg("include_self") = true);
  cls.attr("sum_to_size") = nb::cpp_function([](const Tensor& t, nb::args size) {
    return sum_to_size(t, parse_size(size, 0, "sum_to_size"));
  }, nb::is_method());
}

void init_tensor_misc(nb::module_& m, nb::handle cls) {
  cls.attr("type_as") = nb::cpp_function([](const Tensor& t, const Tensor& o) { return to(t, o.dtype()); },
                                         nb::is_method(), nb::arg("other"));
  def_both(m, cls, "is_same_size", [](const Tensor& a, const Tensor& b) {
    return std::ranges::equal(a.sizes(), b.sizes());
  }, nb::arg("other"));
  def_both(m, cls, "is_nonzero", [](const Tensor& t) {
    EMBER_CHECK(t.numel() != 0, "Boolean value of Tensor with no values is ambiguous");
    EMBER_CHECK(t.numel() == 1, "Boolean value of Tensor with more than one value is ambiguous");
    const Scalar v = item(t);
    return v.is_floating() ? v.to<double>() != 0 : v.to<int64_t>() != 0;
  });
  def_both(m, cls, "is_signed", [](const Tensor& t) { return is_signed(t.dtype()); });
  def_both(m, cls, "positive", [](nb::handle t) {
    EMBER_CHECK(nb::cast<const Tensor&>(t).dtype() != ScalarType::Bool,
                "The `+` operator, on a bool tensor is not supported.");
    return nb::borrow(t);
  });
  def_both(m, cls, "narrow_copy", [](const Tensor& t, int64_t dim, int64_t start, int64_t length) {
    return contiguous(clone(narrow(t, dim, start, length)));
  }, nb::arg("dim"), nb::arg("start"), nb::arg("length"));
  cls.attr("new_empty_strided") = nb::cpp_function([](const Tensor& t, nb::handle size, nb::handle stride,
                                                      nb::kwargs kw) {
    FactoryArgs a;
    parse_factory_kwargs(kw, "new_empty_strided", kDtype | kDevice | kRequiresGrad | kLayout, a);
    const TensorOptions o = TensorOptions(a.dtype.value_or(t.dtype()))
                                .device(a.device.value_or(t.device()))
                                .requires_grad(a.requires_grad);
    return empty_strided(to_int_list(size, "new_empty_strided", "size"),
                         to_int_list(stride, "new_empty_strided", "stride"), o);
  }, nb::is_method(), nb::arg("size"), nb::arg("stride"), nb::arg("kwargs"));
  // torch.fill: a new tensor of input's shape and dtype holding value (a number or a 0-d tensor, differentiable).
  m.def("fill", [](const Tensor& t, nb::handle value) {
    if (nb::isinstance<Tensor>(value)) {
      const Tensor& v = nb::cast<const Tensor&>(value);
      EMBER_CHECK(v.dim() == 0, "fill only supports 0-dimension value tensor but got tensor with ", v.dim(),
                  " dimensions.");
      return contiguous(expand(to(v.device() == t.device() ? v : to(v, t.device()), t.dtype()), t.sizes()));
    }
    return full_like(t, to_scalar(value, "fill"));
  }, nb::arg("input"), nb::arg("value"));

  // clamp_min/clamp_max (+ in place) through clamp, which takes numbers and tensors.
  nb::object clamp_fn = m.attr("clamp"), clamp_m = cls.attr("clamp"), clamp_i = cls.attr("clamp_");
  m.attr("clamp_min") = nb::cpp_function([clamp_fn](nb::handle t, nb::handle lo) { return clamp_fn(t, lo, nb::none()); },
                                         nb::arg("input"), nb::arg("min"));
  m.attr("clamp_max") = nb::cpp_function([clamp_fn](nb::handle t, nb::handle hi) { return clamp_fn(t, nb::none(), hi); },
                                         nb::arg("input"), nb::arg("max"));
  cls.attr("clamp_min") = nb::cpp_function([clamp_m](nb::handle t, nb::handle lo) { return clamp_m(t, lo, nb::none()); },
                                           nb::is_method(), nb::arg("min"));
  cls.attr("clamp_max") = nb::cpp_function([clamp_m](nb::handle t, nb::handle hi) { return clamp_m(t, nb::none(), hi); },
                                           nb::is_method(), nb::arg("max"));
  cls.attr("clamp_min_") = nb::cpp_function([clamp_i](nb::handle t, nb::handle lo) { return clamp_i(t, lo, nb::none()); },
                                            nb::is_method(), nb::arg("min"));
  cls.attr("clamp_max_") = nb::cpp_function([clamp_i](nb::handle t, nb::handle hi) { return clamp_i(t, nb::none(), hi); },
                                            nb::is_method(), nb::arg("max"));
}

void init_stats(nb::module_& m, nb::handle cls) {
  auto diff_fn = [](const Tensor& t, int64_t n, int64_t dim, nb::handle prepend, nb::handle append) {
    return diff(t, n, dim, opt_tensor(prepend, "diff", "prepend"), opt_tensor(append, "diff", "append"));
  };
  def_both(m, cls, "diff", diff_fn, nb::arg("n") = 1, nb::arg("dim") = -1, none_arg("prepend"), none_arg("append"));
  def_both(m, cls, "renorm", [](const Tensor& t, double p, int64_t dim, double maxnorm) {
    return renorm(t, p, dim, maxnorm);
  }, nb::arg("p"), nb::arg("dim"), nb::arg("maxnorm"));
  def_inplace<double, int64_t, double>(cls, "renorm_", [](const Tensor& t, double p, int64_t dim, double maxnorm) {
    if (autograd::is_grad_enabled() && t.requires_grad()) autograd::check_inplace(t, "renorm_");
    t.copy_(renorm(autograd::is_grad_enabled() && t.requires_grad() ? t.clone() : t, p, dim, maxnorm));
  }, nb::arg("p"), nb::arg("dim"), nb::arg("maxnorm"));
  def_both(m, cls, "dist", [](const Tensor& a, const Tensor& b, nb::handle p) {
    return dist(a, b, number(p, "dist").to<double>());
  }, nb::arg("other"), nb::arg("p") = 2);
  def_both(m, cls, "cov", [](const Tensor& t, int64_t correction, nb::handle fw, nb::handle aw) {
    return cov(t, correction, opt_tensor(fw, "cov", "fweights"), opt_tensor(aw, "cov", "aweights"));
  }, nb::kw_only(), nb::arg("correction") = 1, none_arg("fweights"), none_arg("aweights"));
  def_both(m, cls, "corrcoef", [](const Tensor& t) { return corrcoef(t); });
  m.def("vander", [](const Tensor& x, nb::handle n, bool increasing) {
    return vander(x, opt_int(n, "vander", "N"), increasing);
  }, nb::arg("x"), none_arg("N"), nb::arg("increasing") = false);
  m.def("_linalg_vander", [](const Tensor& x, nb::handle n) { return linalg_vander(x, opt_int(n, "vander", "N")); },
        nb::arg("x"), nb::kw_only(), none_arg("N"));

  // trapezoid(y, x=None, *, dx=None, dim=-1); trapz(y, x, *, dim=-1) or trapz(y, *, dx=1, dim=-1).
  for (bool cumulative : {false, true}) {
    const char* name = cumulative ? "cumulative_trapezoid" : "trapezoid";
    auto f = [cumulative, name](const Tensor& y, nb::handle x, nb::handle dx, int64_t dim) {
      if (!x.is_none()) {
        EMBER_CHECK(dx.is_none(), name, ": cannot pass both x and dx");
        const Tensor& xt = nb::cast<const Tensor&>(x);
        return cumulative ? cumulative_trapezoid(y, xt, dim) : trapezoid(y, xt, dim);
      }
      const Scalar d = dx.is_none() ? Scalar(int64_t{1}) : to_scalar(dx, name);
      return cumulative ? cumulative_trapezoid(y, d, dim) : trapezoid(y, d, dim);
    };
    m.attr(name) = nb::cpp_function(f, nb::arg("y"), none_arg("x"), nb::kw_only(), none_arg("dx"),
                                    nb::arg("dim") = -1);
    if (!cumulative)
      m.attr("trapz") = nb::cpp_function(f, nb::arg("y"), none_arg("x"), nb::kw_only(), none_arg("dx"),
                                         nb::arg("dim") = -1);
  }

  for (bool nan : {false, true}) {
    const char* name = nan ? "nanquantile" : "quantile";
    auto f = [nan, name](const Tensor& t, nb::handle q, nb::handle dim, bool keepdim, std::string interpolation,
                         nb::handle out) {
      Tensor qt;
      if (nb::isinstance<Tensor>(q)) {
        qt = nb::cast<Tensor>(q);
      } else if (is_seq(q)) {
        qt = tensor_from_data(q, t.dtype(), t.device());
      } else {
        const double v = to_scalar(q, name).to<double>();
        EMBER_CHECK(v >= 0 && v <= 1, name, "() q must be in the range [0, 1] but got ", v);
        qt = full({}, v, TensorOptions(t.dtype()).device(t.device()));
      }
      return finish_out(quantile(t, qt, opt_int(dim, name, "dim"), keepdim, interpolation, nan), out, name);
    };
    m.attr(name) = nb::cpp_function(f, nb::arg("input"), nb::arg("q"), none_arg("dim"), nb::arg("keepdim") = false,
                                    nb::kw_only(), nb::arg("interpolation") = "linear", none_arg("out"));
    cls.attr(name) = nb::cpp_function([f](const Tensor& t, nb::handle q, nb::handle dim, bool keepdim,
                                          std::string interpolation) {
      return f(t, q, dim, keepdim, std::move(interpolation), nb::none());
    }, nb::is_method(), nb::arg("q"), none_arg("dim"), nb::arg("keepdim") = false, nb::kw_only(),
                                      nb::arg("interpolation") = "linear");
  }
}

}  // namespace

void init_shape_more(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  init_diagonal(m, cls);
  init_products(m, cls);
  init_splitting(m, cls);
  init_metadata(m, cls);
  init_tensor_misc(m, cls);
  init_stats(m, cls);
}

}  // namespace ember::py
