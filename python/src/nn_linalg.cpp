// Bindings of the linear algebra ops: the matrix products at top level and as Tensor methods (x @ y included),
// linear and bilinear in torch.nn.functional, and torch.linalg's functions in ember._C._linalg (exported by
// python/ember/linalg.py). Factorizations return namedtuples, as torch.return_types.
#include <cmath>
#include <string>
#include <vector>

#include "common.h"

namespace ember::py {

// An instance of the namedtuple type `type` (torch.return_types) holding ts; also used by linalg_more.cpp.
nb::object tuple_of(nb::handle type, std::initializer_list<Tensor> ts) {
  nb::list l;
  for (const Tensor& t : ts) l.append(nb::cast(t));
  PyObject* r = PyObject_CallObject(type.ptr(), nb::tuple(l).ptr());
  if (!r) throw nb::python_error();
  return nb::steal(r);
}

namespace {

using nb::arg;

Tensor out_of(nb::handle out) { return out.is_valid() && !out.is_none() ? nb::cast<Tensor>(out) : Tensor(); }

Scalar num(nb::handle h, const char* fn) { return to_scalar(h, fn); }

Tensor opt_tensor(nb::handle h, const char* fn, const char* what) {
  if (!h.is_valid() || h.is_none()) return {};
  EMBER_CHECK_TYPE(nb::isinstance<Tensor>(h), fn, "(): argument '", what, "' must be Tensor, not ",
                   nb::inst_name(h).c_str());
  return nb::cast<Tensor>(h);
}

std::vector<Tensor> tensors_of(nb::handle h, const char* fn) {
  EMBER_CHECK_TYPE(PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()), fn,
                   "(): argument 'tensors' must be tuple of Tensors, not ", nb::inst_name(h).c_str());
  std::vector<Tensor> r;
  for (nb::handle item : nb::borrow<nb::sequence>(h)) {
    EMBER_CHECK_TYPE(nb::isinstance<Tensor>(item), fn, "(): expected Tensor as element ", r.size(),
                     " in argument 'tensors', but got ", nb::inst_name(item).c_str());
    r.push_back(nb::cast<Tensor>(item));
  }
  return r;
}

// f(*tensors) or f(tensors).
std::vector<Tensor> tensor_varargs(const nb::args& args, const char* fn) {
  if (args.size() == 1 && !nb::isinstance<Tensor>(args[0])) return tensors_of(args[0], fn);
  return tensors_of(args, fn);
}

// namedtuple types (torch.return_types), owned by the module attribute _linalg_return_types.
struct ReturnTypes {
  nb::handle slogdet, qr, svd, eigh, lstsq, legacy_slogdet, legacy_qr, legacy_svd;
} g_types;


// Defines ember.name(input, other, *, out=None) and Tensor.name(other).
template <class F>
void def_binary(nb::module_& m, nb::handle cls, const char* name, const char* other, F f) {
  m.attr(name) = nb::cpp_function([f, name](const Tensor& a, const Tensor& b, nb::handle out) {
    return finish_out(f(a, b), out, name);
  }, arg("input"), arg(other), nb::kw_only(), arg("out") = nb::none());
  cls.attr(name) = nb::cpp_function([f](const Tensor& a, const Tensor& b) { return f(a, b); }, nb::is_method(),
                                    arg(other));
}

using AddFn = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&);
using AddInplaceFn = const Tensor& (*)(const Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&);

// beta * input + alpha * product: ember.name(input, x, y, *, beta=1, alpha=1, out=None), Tensor.name, Tensor.name_.
void def_add(nb::module_& m, nb::handle cls, const char* name, const char* x, const char* y, AddFn f,
             AddInplaceFn fi) {
  m.attr(name) = nb::cpp_function([f, name](const Tensor& in, const Tensor& a, const Tensor& b, nb::handle beta,
                                            nb::handle alpha, nb::handle out) {
    return finish_out(f(in, a, b, num(beta, name), num(alpha, name)), out, name);
  }, arg("input"), arg(x), arg(y), nb::kw_only(), arg("beta") = 1, arg("alpha") = 1, arg("out") = nb::none());
  cls.attr(name) = nb::cpp_function([f, name](const Tensor& in, const Tensor& a, const Tensor& b, nb::handle beta,
                                              nb::handle alpha) {
    return f(in, a, b, num(beta, name), num(alpha, name));
  }, nb::is_method(), arg(x), arg(y), nb::kw_only(), arg("beta") = 1, arg("alpha") = 1);
  const std::string iname = std::string(name) + "_";
  cls.attr(iname.c_str()) = nb::cpp_function([fi, name](nb::handle self, const Tensor& a, const Tensor& b,
                                                        nb::handle beta, nb::handle alpha) {
    fi(nb::cast<const Tensor&>(self), a, b, num(beta, name), num(alpha, name));
    return nb::borrow(self);
  }, nb::is_method(), arg(x), arg(y), nb::kw_only(), arg("beta") = 1, arg("alpha") = 1);
}

// einsum's sublist format: einsum(op0, [0, 1], op1, [1, 2], [0, 2]) -> "ab,bc->ac".
std::string sublist_equation(const nb::args& args, std::vector<Tensor>& ops) {
  auto term = [](nb::handle list) {
    std::string s;
    nb::handle ellipsis(Py_Ellipsis);
    for (nb::handle item : nb::borrow<nb::sequence>(list)) {
      if (item.is(ellipsis)) {
        s += "...";
        continue;
      }
      const int64_t v = to_int(item, "einsum", "subscript");
      EMBER_CHECK_VALUE(v >= 0 && v < 52,
                        "einsum(): subscript in subscript list is not within the valid range [0, 52)");
      s += static_cast<char>(v < 26 ? 'A' + v : 'a' + v - 26);
    }
    return s;
  };
  std::string eq;
  size_t i = 0;
  for (; i + 1 < args.size(); i += 2) {
    EMBER_CHECK_TYPE(nb::isinstance<Tensor>(args[i]), "einsum(): expected a Tensor operand at position ", i);
    ops.push_back(nb::cast<Tensor>(args[i]));
    if (i) eq += ",";
    eq += term(args[i + 1]);
  }
  if (i < args.size()) eq += "->" + term(args[i]);
  return eq;
}

std::optional<double> opt_double(nb::handle h) {
  if (!h.is_valid() || h.is_none()) return std::nullopt;
  return nb::cast<double>(h);
}

// A matrix norm's ord: a number or 'fro' / 'nuc'.
template <class F>
Tensor with_ord(nb::handle ord, F&& f) {
  if (PyUnicode_Check(ord.ptr())) return f(std::string_view(utf8(ord)));
  return f(nb::cast<double>(ord));
}

std::optional<DimVector> opt_dims(nb::handle h, const char* fn) {
  if (h.is_none()) return std::nullopt;
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) return to_int_list(h, fn, "dim");
  return DimVector{to_int(h, fn, "dim")};
}

void init_products(nb::module_& m, nb::handle cls) {
  def_binary(m, cls, "matmul", "other", [](const Tensor& a, const Tensor& b) { return matmul(a, b); });
  def_binary(m, cls, "mm", "mat2", [](const Tensor& a, const Tensor& b) { return mm(a, b); });
  def_binary(m, cls, "bmm", "mat2", [](const Tensor& a, const Tensor& b) { return bmm(a, b); });
  def_binary(m, cls, "mv", "vec", [](const Tensor& a, const Tensor& b) { return mv(a, b); });
  def_binary(m, cls, "dot", "tensor", [](const Tensor& a, const Tensor& b) { return dot(a, b); });
  def_binary(m, cls, "vdot", "other", [](const Tensor& a, const Tensor& b) { return vdot(a, b); });
  def_binary(m, cls, "outer", "vec2", [](const Tensor& a, const Tensor& b) { return outer(a, b); });
  def_binary(m, cls, "ger", "vec2", [](const Tensor& a, const Tensor& b) { return outer(a, b); });
  def_binary(m, cls, "inner", "other", [](const Tensor& a, const Tensor& b) { return inner(a, b); });

  // x @ y; other types give NotImplemented so Python tries the reflected operator.
  cls.attr("__matmul__") = nb::cpp_function([](const Tensor& a, nb::handle b) -> nb::object {
    if (!nb::isinstance<Tensor>(b)) return nb::not_implemented();
    return nb::cast(matmul(a, nb::cast<const Tensor&>(b)));
  }, nb::is_method(), arg("other").none());
  cls.attr("__rmatmul__") = nb::cpp_function([](const Tensor& a, nb::handle b) -> nb::object {
    if (!nb::isinstance<Tensor>(b)) return nb::not_implemented();
    return nb::cast(matmul(nb::cast<const Tensor&>(b), a));
  }, nb::is_method(), arg("other").none());
  cls.attr("__imatmul__") = nb::cpp_function([](nb::handle self, nb::handle b) -> nb::object {
    if (!nb::isinstance<Tensor>(b)) return nb::not_implemented();
    const Tensor& t = nb::cast<const Tensor&>(self);
    const Tensor r = matmul(t, nb::cast<const Tensor&>(b));
    EMBER_CHECK(std::ranges::equal(r.sizes(), t.sizes()), "matmul_: the result of shape ", shape_str(r.sizes()),
                " cannot be written into self of shape ", shape_str(t.sizes()));
    copy_(t, r);
    return nb::borrow(self);
  }, nb::is_method(), arg("other").none());

  def_add(m, cls, "addmm", "mat1", "mat2", &addmm, &addmm_);
  def_add(m, cls, "addmv", "mat", "vec", &addmv, &addmv_);
  def_add(m, cls, "addr", "vec1", "vec2", &addr, &addr_);
  def_add(m, cls, "baddbmm", "batch1", "batch2", &baddbmm, &baddbmm_);
  def_add(m, cls, "addbmm", "batch1", "batch2", &addbmm, &addbmm_);

  m.def("einsum", [](nb::args args) {
    EMBER_CHECK_TYPE(args.size() >= 1, "einsum(): must specify the equation string and at least one operand, or at "
                     "least one operand and its subscripts list");
    if (PyUnicode_Check(args[0].ptr())) {
      const std::string eq = utf8(args[0]);
      std::vector<Tensor> ops;
      if (args.size() == 2 && !nb::isinstance<Tensor>(args[1]))
        ops = tensors_of(args[1], "einsum");
      else
        for (size_t i = 1; i < args.size(); ++i) {
          EMBER_CHECK_TYPE(nb::isinstance<Tensor>(args[i]), "einsum(): operand ", i - 1, " must be a Tensor, not ",
                           nb::inst_name(args[i]).c_str());
          ops.push_back(nb::cast<Tensor>(args[i]));
        }
      return einsum(eq, ops);
    }
    std::vector<Tensor> ops;
    const std::string eq = sublist_equation(args, ops);
    return einsum(eq, ops);
  });

  m.def("tensordot", [](const Tensor& a, const Tensor& b, nb::handle dims, nb::handle out) {
    Tensor r;
    if (PyLong_Check(dims.ptr()) || (nb::isinstance<Tensor>(dims) && nb::cast<const Tensor&>(dims).dim() == 0)) {
      r = tensordot(a, b, to_int(dims, "tensordot", "dims"));
    } else {
      nb::sequence seq = nb::borrow<nb::sequence>(dims);
      EMBER_CHECK_TYPE(nb::len(seq) == 2, "tensordot(): dims must be an int or a pair of lists of dims");
      auto list = [](nb::handle h) {
        if (PyLong_Check(h.ptr())) return DimVector{to_int(h, "tensordot", "dims")};
        if (nb::isinstance<Tensor>(h)) {
          const Tensor t = contiguous(to(nb::cast<const Tensor&>(h), ScalarType::Int64));
          const int64_t* p = t.data<int64_t>();
          return DimVector(IntArrayRef(p, t.numel()));
        }
        return to_int_list(h, "tensordot", "dims");
      };
      r = tensordot(a, b, list(seq[0]), list(seq[1]));
    }
    return finish_out(r, out, "tensordot");
  }, arg("a"), arg("b"), arg("dims") = 2, arg("out") = nb::none());

  m.def("chain_matmul", [](nb::args args, nb::kwargs kw) {
    nb::handle out = kw.contains("out") ? nb::handle(kw["out"]) : nb::handle();
    return finish_out(chain_matmul(tensor_varargs(args, "chain_matmul")), out, "chain_matmul");
  });
}

// torch's top-level linear algebra (the older names): det, logdet, slogdet, inverse, pinverse, matrix_power,
// cholesky, svd, qr; with their Tensor methods.
void init_legacy(nb::module_& m, nb::handle cls) {
  auto def1 = [&](const char* name, Tensor (*f)(const Tensor&)) {
    m.attr(name) = nb::cpp_function([f, name](const Tensor& a, nb::handle out) { return finish_out(f(a), out, name); },
                                    arg("input"), nb::kw_only(), arg("out") = nb::none());
    cls.attr(name) = nb::cpp_function([f](const Tensor& a) { return f(a); }, nb::is_method());
  };
  def1("det", &linalg_det);
  def1("logdet", &logdet);
  def1("inverse", &linalg_inv);
  auto slog = [](const Tensor& a) {
    auto [s, l] = linalg_slogdet(a);
    return tuple_of(g_types.legacy_slogdet, {s, l});
  };
  m.def("slogdet", slog, arg("input"));
  cls.attr("slogdet") = nb::cpp_function(slog, nb::is_method());
  auto pinverse = [](const Tensor& a, double rcond) { return linalg_pinv(a, 0.0, rcond); };
  m.def("pinverse", pinverse, arg("input"), arg("rcond") = 1e-15);
  cls.attr("pinverse") = nb::cpp_function(pinverse, nb::is_method(), arg("rcond") = 1e-15);
  auto power = [](const Tensor& a, int64_t n) { return linalg_matrix_power(a, n); };
  m.def("matrix_power", power, arg("input"), arg("n"));
  cls.attr("matrix_power") = nb::cpp_function(power, nb::is_method(), arg("n"));
  auto chol = [](const Tensor& a, bool upper) { return linalg_cholesky(a, upper); };
  m.def("cholesky", chol, arg("input"), arg("upper") = false);
  cls.attr("cholesky") = nb::cpp_function(chol, nb::is_method(), arg("upper") = false);
  // torch.svd: V rather than Vh, reduced unless some=False; without compute_uv, U and V are zeros.
  auto svd = [](const Tensor& a, bool some, bool compute_uv) {
    if (!compute_uv) {
      const Tensor s = linalg_svdvals(a);
      const int64_t m = a.sizes()[a.dim() - 2], n = a.sizes()[a.dim() - 1];
      DimVector us(a.sizes()), vs(a.sizes());
      us[us.size() - 1] = m;
      vs[vs.size() - 2] = n;
      const TensorOptions o = TensorOptions(a.dtype()).device(a.device());
      return tuple_of(g_types.legacy_svd, {zeros(us, o), s, zeros(vs, o)});
    }
    auto [U, S, Vh] = linalg_svd(a, !some);
    return tuple_of(g_types.legacy_svd, {U, S, transpose(Vh, -2, -1)});
  };
  m.def("svd", svd, arg("input"), arg("some") = true, arg("compute_uv") = true);
  cls.attr("svd") = nb::cpp_function(svd, nb::is_method(), arg("some") = true, arg("compute_uv") = true);
  auto qr = [](const Tensor& a, bool some) {
    auto [Q, R] = linalg_qr(a, some ? "reduced" : "complete");
    return tuple_of(g_types.legacy_qr, {Q, R});
  };
  m.def("qr", qr, arg("input"), arg("some") = true);
  cls.attr("qr") = nb::cpp_function(qr, nb::is_method(), arg("some") = true);
}

void init_linalg(nb::module_& m) {
  nb::module_ la = m.def_submodule("_linalg", "the functions behind ember.linalg");
  nb::object namedtuple = nb::module_::import_("collections").attr("namedtuple");
  nb::object types[] = {
      namedtuple("linalg_slogdet", nb::make_tuple("sign", "logabsdet")),
      namedtuple("linalg_qr", nb::make_tuple("Q", "R")),
      namedtuple("linalg_svd", nb::make_tuple("U", "S", "Vh")),
      namedtuple("linalg_eigh", nb::make_tuple("eigenvalues", "eigenvectors")),
      namedtuple("linalg_lstsq", nb::make_tuple("solution", "residuals", "rank", "singular_values")),
      namedtuple("slogdet", nb::make_tuple("sign", "logabsdet")),
      namedtuple("qr", nb::make_tuple("Q", "R")),
      namedtuple("svd", nb::make_tuple("U", "S", "V")),
  };
  nb::handle* slots[] = {&g_types.slogdet, &g_types.qr, &g_types.svd, &g_types.eigh, &g_types.lstsq,
                         &g_types.legacy_slogdet, &g_types.legacy_qr, &g_types.legacy_svd};
  nb::list keep;
  for (size_t i = 0; i < std::size(types); ++i) {
    *slots[i] = types[i];
    keep.append(types[i]);
  }
  la.attr("_return_types") = keep;

  la.def("inv", [](const Tensor& A, nb::handle out) { return finish_out(linalg_inv(A), out, "linalg.inv"); },
         arg("A"), nb::kw_only(), arg("out") = nb::none());
  la.def("solve", [](const Tensor& A, const Tensor& B, bool left, nb::handle out) {
    return finish_out(linalg_solve(A, B, left), out, "linalg.solve");
  }, arg("A"), arg("B"), nb::kw_only(), arg("left") = true, arg("out") = nb::none());
  la.def("solve_triangular", [](const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular,
                                nb::handle out) {
    return finish_out(linalg_solve_triangular(A, B, upper, left, unitriangular), out, "linalg.solve_triangular");
  }, arg("A"), arg("B"), nb::kw_only(), arg("upper"), arg("left") = true, arg("unitriangular") = false,
         arg("out") = nb::none());
  la.def("det", [](const Tensor& A, nb::handle out) { return finish_out(linalg_det(A), out, "linalg.det"); },
         arg("A"), nb::kw_only(), arg("out") = nb::none());
  la.def("slogdet", [](const Tensor& A) {
    auto [s, l] = linalg_slogdet(A);
    return tuple_of(g_types.slogdet, {s, l});
  }, arg("A"));
  la.def("cholesky", [](const Tensor& A, bool upper, nb::handle out) {
    return finish_out(linalg_cholesky(A, upper), out, "linalg.cholesky");
  }, arg("A"), nb::kw_only(), arg("upper") = false, arg("out") = nb::none());
  la.def("qr", [](const Tensor& A, const std::string& mode) {
    auto [Q, R] = linalg_qr(A, mode);
    return tuple_of(g_types.qr, {Q, R});
  }, arg("A"), arg("mode") = "reduced");
  la.def("svd", [](const Tensor& A, bool full_matrices, nb::handle) {
    auto [U, S, Vh] = linalg_svd(A, full_matrices);
    return tuple_of(g_types.svd, {U, S, Vh});
  }, arg("A"), arg("full_matrices") = true, nb::kw_only(), arg("driver") = nb::none());
  la.def("svdvals", [](const Tensor& A, nb::handle, nb::handle out) {
    return finish_out(linalg_svdvals(A), out, "linalg.svdvals");
  }, arg("A"), nb::kw_only(), arg("driver") = nb::none(), arg("out") = nb::none());
  la.def("eigh", [](const Tensor& A, const std::string& uplo) {
    auto [L, V] = linalg_eigh(A, uplo);
    return tuple_of(g_types.eigh, {L, V});
  }, arg("A"), arg("UPLO") = "L");
  la.def("eigvalsh", [](const Tensor& A, const std::string& uplo, nb::handle out) {
    return finish_out(linalg_eigvalsh(A, uplo), out, "linalg.eigvalsh");
  }, arg("A"), arg("UPLO") = "L", nb::kw_only(), arg("out") = nb::none());
  la.def("lstsq", [](const Tensor& A, const Tensor& B, nb::handle rcond, nb::handle driver) {
    std::optional<std::string> d;
    if (!driver.is_none()) {
      EMBER_CHECK_TYPE(PyUnicode_Check(driver.ptr()), "torch.linalg.lstsq: parameter `driver` should be a str");
      d = utf8(driver);
    }
    LstsqResult r = linalg_lstsq(A, B, opt_double(rcond), d ? std::optional<std::string_view>(*d) : std::nullopt);
    return tuple_of(g_types.lstsq, {r.solution, r.residuals, r.rank, r.singular_values});
  }, arg("A"), arg("B"), arg("rcond") = nb::none(), nb::kw_only(), arg("driver") = nb::none());
  la.def("pinv", [](const Tensor& A, nb::handle atol, nb::handle rtol, bool hermitian, nb::handle rcond,
                    nb::handle out) {
    // rcond is the older name of rtol (with atol 0).
    std::optional<double> rt = opt_double(rtol), at = opt_double(atol);
    if (!rcond.is_none()) {
      rt = nb::cast<double>(rcond);
      at = 0.0;
    }
    return finish_out(linalg_pinv(A, at, rt, hermitian), out, "linalg.pinv");
  }, arg("A"), nb::kw_only(), arg("atol") = nb::none(), arg("rtol") = nb::none(), arg("hermitian") = false,
         arg("rcond") = nb::none(), arg("out") = nb::none());
  la.def("matrix_power", [](const Tensor& A, int64_t n, nb::handle out) {
    return finish_out(linalg_matrix_power(A, n), out, "linalg.matrix_power");
  }, arg("A"), arg("n"), nb::kw_only(), arg("out") = nb::none());
  la.def("matrix_norm", [](const Tensor& A, nb::handle ord, nb::handle dim, bool keepdim, nb::handle dtype,
                           nb::handle out) {
    const DimVector d = to_int_list(dim, "linalg.matrix_norm", "dim");
    const auto dt = to_dtype(dtype);
    return finish_out(with_ord(ord, [&](auto o) { return linalg_matrix_norm(A, o, d, keepdim, dt); }), out,
                      "linalg.matrix_norm");
  }, arg("A"), arg("ord") = "fro", arg("dim") = nb::make_tuple(-2, -1), arg("keepdim") = false, nb::kw_only(),
         arg("dtype") = nb::none(), arg("out") = nb::none());
  la.def("norm", [](const Tensor& A, nb::handle ord, nb::handle dim, bool keepdim, nb::handle out, nb::handle dtype) {
    const auto d = opt_dims(dim, "linalg.norm");
    const auto dt = to_dtype(dtype);
    Tensor r = ord.is_none() ? linalg_norm(A, std::optional<double>(), d, keepdim, dt)
                             : with_ord(ord, [&](auto o) { return linalg_norm(A, o, d, keepdim, dt); });
    return finish_out(r, out, "linalg.norm");
  }, arg("A"), arg("ord") = nb::none(), arg("dim") = nb::none(), arg("keepdim") = false, nb::kw_only(),
         arg("out") = nb::none(), arg("dtype") = nb::none());
  la.def("multi_dot", [](nb::handle tensors, nb::handle out) {
    return finish_out(multi_dot(tensors_of(tensors, "linalg.multi_dot")), out, "linalg.multi_dot");
  }, arg("tensors"), nb::kw_only(), arg("out") = nb::none());
  la.def("vecdot", [](const Tensor& x, const Tensor& y, int64_t dim, nb::handle out) {
    return finish_out(linalg_vecdot(x, y, dim), out, "linalg.vecdot");
  }, arg("x"), arg("y"), nb::kw_only(), arg("dim") = -1, arg("out") = nb::none());
  la.attr("matmul") = m.attr("matmul");
}

}  // namespace

void init_nn_linalg(nb::module_& m, nb::module_& nn) {
  nb::handle cls = nb::type<Tensor>();
  init_products(m, cls);
  init_legacy(m, cls);
  init_linalg(m);
  nn.def("linear", [](const Tensor& input, const Tensor& weight, nb::handle bias) {
    return linear(input, weight, opt_tensor(bias, "linear", "bias"));
  }, arg("input"), arg("weight"), arg("bias") = nb::none());
  nn.def("bilinear", [](const Tensor& x1, const Tensor& x2, const Tensor& weight, nb::handle bias) {
    return bilinear(x1, x2, weight, opt_tensor(bias, "bilinear", "bias"));
  }, arg("input1"), arg("input2"), arg("weight"), arg("bias") = nb::none());
}

}  // namespace ember::py
