// Bindings of ops/linalg_more.h: the LU and LDL^T families, the *_ex forms, cholesky_solve/inverse, matrix_rank, cond,
// matrix_exp, tensorinv/tensorsolve, householder_product/orgqr, geqrf and the deprecated lu, lu_solve and
// triangular_solve; in ember._C._linalg (exported by python/ember/linalg.py), at top level, and as Tensor methods.
// linalg.LinAlgError is ember._C._LinAlgError (a RuntimeError), as torch's is torch._C._LinAlgError.
#include <string>

#include "common.h"
#include "ember/ops/lu.h"

namespace ember::py {

nb::object tuple_of(nb::handle type, std::initializer_list<Tensor> ts);  // nn_linalg.cpp

namespace {

using nb::arg;

struct ReturnTypes {
  nb::handle lu_factor, lu_factor_ex, lu, lu_unpack, inv_ex, solve_ex, cholesky_ex, triangular_solve, geqrf,
      lu_with_info, ldl_factor, ldl_factor_ex;
} g_more;


// The namedtuple of ts; with out= (a tuple of as many tensors of the results' shapes and dtypes), the results are
// written into out's tensors, which the namedtuple then holds.
nb::object results(nb::handle type, std::initializer_list<Tensor> ts, nb::handle out, const char* fn) {
  if (!out.is_valid() || out.is_none()) return tuple_of(type, ts);
  const Py_ssize_t n = static_cast<Py_ssize_t>(ts.size());
  EMBER_CHECK_TYPE((PyTuple_Check(out.ptr()) || PyList_Check(out.ptr())) && PySequence_Size(out.ptr()) == n, fn,
                   "(): out= must be a tuple of ", n, " tensors");
  nb::list l;
  Py_ssize_t i = 0;
  for (const Tensor& t : ts) {
    nb::object o = nb::steal(PySequence_GetItem(out.ptr(), i++));
    EMBER_CHECK_TYPE(nb::isinstance<Tensor>(o), fn, "(): out= must be a tuple of ", n, " tensors");
    l.append(finish_out(t, o, fn));
  }
  PyObject* r = PyObject_CallObject(type.ptr(), nb::tuple(l).ptr());
  if (!r) throw nb::python_error();
  return nb::steal(r);
}

// A tolerance given as None, a number or a tensor.
Tensor tol_of(nb::handle h, const char* fn) {
  if (h.is_none()) return {};
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h);
  return full({}, to_scalar(h, fn), TensorOptions(ScalarType::Float64));
}

void init_return_types(nb::module_& la) {
  nb::object namedtuple = nb::module_::import_("collections").attr("namedtuple");
  nb::object types[] = {
      namedtuple("linalg_lu_factor", nb::make_tuple("LU", "pivots")),
      namedtuple("linalg_lu_factor_ex", nb::make_tuple("LU", "pivots", "info")),
      namedtuple("linalg_lu", nb::make_tuple("P", "L", "U")),
      namedtuple("lu_unpack", nb::make_tuple("P", "L", "U")),
      namedtuple("linalg_inv_ex", nb::make_tuple("inverse", "info")),
      namedtuple("linalg_solve_ex", nb::make_tuple("result", "info")),
      namedtuple("linalg_cholesky_ex", nb::make_tuple("L", "info")),
      namedtuple("triangular_solve", nb::make_tuple("solution", "cloned_coefficient")),
      namedtuple("geqrf", nb::make_tuple("a", "tau")),
      namedtuple("_lu_with_info", nb::make_tuple("LU", "pivots", "info")),
      namedtuple("linalg_ldl_factor", nb::make_tuple("LD", "pivots")),
      namedtuple("linalg_ldl_factor_ex", nb::make_tuple("LD", "pivots", "info")),
  };
  nb::handle* slots[] = {&g_more.lu_factor, &g_more.lu_factor_ex, &g_more.lu,          &g_more.lu_unpack,
                         &g_more.inv_ex,    &g_more.solve_ex,     &g_more.cholesky_ex, &g_more.triangular_solve,
                         &g_more.geqrf,     &g_more.lu_with_info, &g_more.ldl_factor, &g_more.ldl_factor_ex};
  nb::list keep;
  for (size_t i = 0; i < std::size(types); ++i) {
    *slots[i] = types[i];
    keep.append(types[i]);
  }
  la.attr("_return_types_more") = keep;
}

void init_linalg_ns(nb::module_& la) {
  la.def("lu_factor", [](const Tensor& A, bool pivot, nb::handle out) {
    auto [LU, piv] = linalg_lu_factor(A, pivot);
    return results(g_more.lu_factor, {LU, piv}, out, "linalg.lu_factor");
  }, arg("A"), nb::kw_only(), arg("pivot") = true, arg("out") = nb::none());
  la.def("lu_factor_ex", [](const Tensor& A, bool pivot, bool check_errors, nb::handle out) {
    auto [LU, piv, info] = linalg_lu_factor_ex(A, pivot, check_errors);
    return results(g_more.lu_factor_ex, {LU, piv, info}, out, "linalg.lu_factor_ex");
  }, arg("A"), nb::kw_only(), arg("pivot") = true, arg("check_errors") = false, arg("out") = nb::none());
  la.def("lu", [](const Tensor& A, bool pivot, nb::handle out) {
    auto [P, L, U] = linalg_lu(A, pivot);
    return results(g_more.lu, {P, L, U}, out, "linalg.lu");
  }, arg("A"), nb::kw_only(), arg("pivot") = true, arg("out") = nb::none());
  la.def("lu_solve", [](const Tensor& LU, const Tensor& piv, const Tensor& B, bool left, bool adjoint,
                        nb::handle out) {
    return finish_out(linalg_lu_solve(LU, piv, B, left, adjoint), out, "linalg.lu_solve");
  }, arg("LU"), arg("pivots"), arg("B"), nb::kw_only(), arg("left") = true, arg("adjoint") = false,
         arg("out") = nb::none());
  la.def("ldl_factor", [](const Tensor& A, bool hermitian, nb::handle out) {
    auto [LD, piv] = linalg_ldl_factor(A, hermitian);
    return results(g_more.ldl_factor, {LD, piv}, out, "linalg.ldl_factor");
  }, arg("A"), nb::kw_only(), arg("hermitian") = false, arg("out") = nb::none());
  la.def("ldl_factor_ex", [](const Tensor& A, bool hermitian, bool check_errors, nb::handle out) {
    auto [LD, piv, info] = linalg_ldl_factor_ex(A, hermitian, check_errors);
    return results(g_more.ldl_factor_ex, {LD, piv, info}, out, "linalg.ldl_factor_ex");
  }, arg("A"), nb::kw_only(), arg("hermitian") = false, arg("check_errors") = false, arg("out") = nb::none());
  la.def("ldl_solve", [](const Tensor& LD, const Tensor& piv, const Tensor& B, bool hermitian, nb::handle out) {
    return finish_out(linalg_ldl_solve(LD, piv, B, hermitian), out, "linalg.ldl_solve");
  }, arg("LD"), arg("pivots"), arg("B"), nb::kw_only(), arg("hermitian") = false, arg("out") = nb::none());
  la.def("inv_ex", [](const Tensor& A, bool check_errors, nb::handle out) {
    auto [X, info] = linalg_inv_ex(A, check_errors);
    return results(g_more.inv_ex, {X, info}, out, "linalg.inv_ex");
  }, arg("A"), nb::kw_only(), arg("check_errors") = false, arg("out") = nb::none());
  la.def("solve_ex", [](const Tensor& A, const Tensor& B, bool left, bool check_errors, nb::handle out) {
    auto [X, info] = linalg_solve_ex(A, B, left, check_errors);
    return results(g_more.solve_ex, {X, info}, out, "linalg.solve_ex");
  }, arg("A"), arg("B"), nb::kw_only(), arg("left") = true, arg("check_errors") = false, arg("out") = nb::none());
  la.def("cholesky_ex", [](const Tensor& A, bool upper, bool check_errors, nb::handle out) {
    auto [L, info] = linalg_cholesky_ex(A, upper, check_errors);
    return results(g_more.cholesky_ex, {L, info}, out, "linalg.cholesky_ex");
  }, arg("A"), nb::kw_only(), arg("upper") = false, arg("check_errors") = false, arg("out") = nb::none());
  la.def("matrix_rank", [](const Tensor& A, nb::handle tol, bool hermitian, nb::handle atol, nb::handle rtol,
                           nb::handle out) {
    const char* fn = "linalg.matrix_rank";
    Tensor at = tol_of(atol, fn), rt = tol_of(rtol, fn);
    if (!tol.is_none()) {  // the deprecated form: tol is atol, with rtol 0
      EMBER_CHECK_TYPE(!at.defined() && !rt.defined(), fn, "(): tol cannot be given together with atol or rtol");
      at = tol_of(tol, fn);
      rt = zeros({}, TensorOptions(ScalarType::Float64));
    }
    return finish_out(linalg_matrix_rank(A, at, rt, hermitian), out, fn);
  }, arg("A"), arg("tol") = nb::none(), arg("hermitian") = false, nb::kw_only(), arg("atol") = nb::none(),
         arg("rtol") = nb::none(), arg("out") = nb::none());
  la.def("cond", [](const Tensor& A, nb::handle p, nb::handle out) {
    Tensor r;
    if (p.is_none())
      r = linalg_cond(A);
    else if (PyUnicode_Check(p.ptr()))
      r = linalg_cond(A, std::string_view(utf8(p)));
    else
      r = linalg_cond(A, to_scalar(p, "linalg.cond").to_double());
    return finish_out(r, out, "linalg.cond");
  }, arg("A"), arg("p") = nb::none(), nb::kw_only(), arg("out") = nb::none());
  la.def("matrix_exp", &linalg_matrix_exp, arg("A"));
  la.def("tensorinv", [](const Tensor& A, int64_t ind, nb::handle out) {
    return finish_out(linalg_tensorinv(A, ind), out, "linalg.tensorinv");
  }, arg("A"), arg("ind") = 2, nb::kw_only(), arg("out") = nb::none());
  la.def("tensorsolve", [](const Tensor& A, const Tensor& B, nb::handle dims, nb::handle out) {
    std::optional<DimVector> d;
    if (!dims.is_none()) d = to_int_list(dims, "linalg.tensorsolve", "dims");
    return finish_out(linalg_tensorsolve(A, B, d), out, "linalg.tensorsolve");
  }, arg("A"), arg("B"), arg("dims") = nb::none(), nb::kw_only(), arg("out") = nb::none());
  la.def("householder_product", [](const Tensor& A, const Tensor& tau, nb::handle out) {
    return finish_out(linalg_householder_product(A, tau), out, "linalg.householder_product");
  }, arg("A"), arg("tau"), nb::kw_only(), arg("out") = nb::none());
}

// The top-level names (torch.*) and their Tensor methods.
void init_top(nb::module_& m, nb::handle cls) {
  m.def("lu_unpack", [](const Tensor& LU, const Tensor& piv, bool data, bool pivots, nb::handle out) {
    auto [P, L, U] = lu_unpack(LU, piv, data, pivots);
    return results(g_more.lu_unpack, {P, L, U}, out, "lu_unpack");
  }, arg("LU_data"), arg("LU_pivots"), arg("unpack_data") = true, arg("unpack_pivots") = true, nb::kw_only(),
        arg("out") = nb::none());
  // torch.lu (deprecated): never raises for a singular U; get_infos adds the info tensor.
  auto lu = [](const Tensor& A, bool pivot, bool get_infos) -> nb::object {
    auto [LU, piv, info] = lu_with_info(A, pivot);
    if (get_infos) return tuple_of(g_more.lu_with_info, {LU, piv, info});
    return nb::make_tuple(LU, piv);
  };
  m.def("lu", lu, arg("A"), arg("pivot") = true, arg("get_infos") = false);
  cls.attr("lu") = nb::cpp_function(lu, nb::is_method(), arg("pivot") = true, arg("get_infos") = false);
  auto lu_solve = [](const Tensor& b, const Tensor& LU, const Tensor& piv) { return ember::lu_solve(b, LU, piv); };
  m.def("lu_solve", [lu_solve](const Tensor& b, const Tensor& LU, const Tensor& piv, nb::handle out) {
    return finish_out(lu_solve(b, LU, piv), out, "lu_solve");
  }, arg("input"), arg("LU_data"), arg("LU_pivots"), nb::kw_only(), arg("out") = nb::none());
  cls.attr("lu_solve") = nb::cpp_function(lu_solve, nb::is_method(), arg("LU_data"), arg("LU_pivots"));
  m.def("cholesky_solve", [](const Tensor& b, const Tensor& L, bool upper, nb::handle out) {
    return finish_out(cholesky_solve(b, L, upper), out, "cholesky_solve");
  }, arg("input"), arg("input2"), arg("upper") = false, nb::kw_only(), arg("out") = nb::none());
  cls.attr("cholesky_solve") = nb::cpp_function([](const Tensor& b, const Tensor& L, bool upper) {
    return cholesky_solve(b, L, upper);
  }, nb::is_method(), arg("input2"), arg("upper") = false);
  m.def("cholesky_inverse", [](const Tensor& L, bool upper, nb::handle out) {
    return finish_out(cholesky_inverse(L, upper), out, "cholesky_inverse");
  }, arg("input"), arg("upper") = false, nb::kw_only(), arg("out") = nb::none());
  cls.attr("cholesky_inverse") = nb::cpp_function([](const Tensor& L, bool upper) {
    return cholesky_inverse(L, upper);
  }, nb::is_method(), arg("upper") = false);
  m.def("matrix_exp", &linalg_matrix_exp, arg("input"));
  cls.attr("matrix_exp") = nb::cpp_function(&linalg_matrix_exp, nb::is_method());
  auto tri = [](const Tensor& b, const Tensor& A, bool upper, bool transpose, bool unitriangular, nb::handle out) {
    auto [X, C] = triangular_solve(b, A, upper, transpose, unitriangular);
    return results(g_more.triangular_solve, {X, C}, out, "triangular_solve");
  };
  m.def("triangular_solve", tri, arg("input"), arg("A"), arg("upper") = true, arg("transpose") = false,
        arg("unitriangular") = false, nb::kw_only(), arg("out") = nb::none());
  cls.attr("triangular_solve") = nb::cpp_function(
      [tri](const Tensor& b, const Tensor& A, bool upper, bool transpose, bool unitriangular) {
        return tri(b, A, upper, transpose, unitriangular, {});
      },
      nb::is_method(), arg("A"), arg("upper") = true, arg("transpose") = false, arg("unitriangular") = false);
  m.def("orgqr", [](const Tensor& A, const Tensor& tau, nb::handle out) {
    return finish_out(linalg_householder_product(A, tau), out, "orgqr");
  }, arg("input"), arg("tau"), nb::kw_only(), arg("out") = nb::none());
  cls.attr("orgqr") = nb::cpp_function(&linalg_householder_product, nb::is_method(), arg("input2"));
  auto geqrf_ = [](const Tensor& A, nb::handle out) {
    auto [a, tau] = geqrf(A);
    return results(g_more.geqrf, {a, tau}, out, "geqrf");
  };
  m.def("geqrf", geqrf_, arg("input"), nb::kw_only(), arg("out") = nb::none());
  cls.attr("geqrf") = nb::cpp_function([geqrf_](const Tensor& A) { return geqrf_(A, {}); }, nb::is_method());
}

}  // namespace

void init_linalg_more(nb::module_& m) {
  nb::exception<LinAlgError>(m, "_LinAlgError", PyExc_RuntimeError);
  nb::module_ la = nb::borrow<nb::module_>(m.attr("_linalg"));
  init_return_types(la);
  init_linalg_ns(la);
  init_top(m, nb::type<Tensor>());
}

}  // namespace ember::py
