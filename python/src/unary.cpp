// Bindings of the unary ops, generated from their table (ember/ops/unary.def, Note [Op tables]): each row's Python
// names (ember.exp, ember.exp_, Tensor.exp, Tensor.exp_, ember.special.expit, ...) with their signatures and
// docstrings; the operators -x, abs(x), ~x; and the ops with parameters (round, clamp, nan_to_num, logit), whose
// docstrings are their rows'.
#include <string>
#include <string_view>
#include <vector>

#include "common.h"
#include "ember/autograd/grad_mode.h"
#include "ember/dispatch_hook.h"

namespace ember::py {

namespace {

struct Row {
  UnaryOp op;
  const char* name;
  const char* python;
  const char* doc;
};

constexpr Row kRows[] = {
#define EMBER_UNARY_OP(op, name, result, input, flags, python, doc) {UnaryOp::op, #name, python, doc},
#define EMBER_UNARY_SPECIAL(op, name, formula, python, doc) {UnaryOp::op, #name, python, doc},
#define EMBER_UNARY_CUSTOM(...)
#include "ember/ops/unary.def"
#undef EMBER_UNARY_OP
#undef EMBER_UNARY_SPECIAL
#undef EMBER_UNARY_CUSTOM
};

// What every row's function takes, appended to its docstring.
constexpr const char* kArgs = R"doc(

Args:
    input (Tensor): the input tensor.

Keyword args:
    out (Tensor, optional): the output tensor.)doc";

nb::object call_unary(UnaryOp op, nb::handle self, nb::handle out, const UnaryArgs& args, bool inplace) {
  const Tensor& x = nb::cast<const Tensor&>(self);
  if (inplace) {
    unary_op(op, x, x, args);
    return nb::borrow(self);
  }
  if (out.is_valid() && !out.is_none()) {
    unary_op(op, x, nb::cast<const Tensor&>(out), args);
    return nb::borrow(out);
  }
  return nb::cast(unary_op(op, x, {}, args));
}

std::string sig(std::string_view name, const char* params) {
  return "def " + std::string(name) + params + " -> Tensor";
}

// One row's Python names (the grammar is in unary.def's header).
void def_row(nb::module_& m, nb::module_& special, nb::handle cls, const Row& r) {
  const UnaryOp op = r.op;
  const std::string doc = std::string(r.doc) + kArgs;
  std::vector<std::string> names;
  for (std::string_view rest = r.python; !rest.empty();) {
    const size_t end = rest.find(' ');
    if (end) names.emplace_back(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  // The function the methods' docstrings point to: the row's first top-level (or special) name.
  std::string main_fn = r.name;
  for (const std::string& n : names)
    if (n.find('.') == std::string::npos && n.back() != '_' && n.front() != '_') {
      main_fn = n;
      break;
    }
  for (const std::string& n : names) {
    const bool method = n.starts_with("Tensor."), in_special = n.starts_with("special.");
    const std::string name = method ? n.substr(7) : in_special ? n.substr(8) : n;
    const bool inplace = name.back() == '_';
    if (method) {
      std::string mdoc = inplace ? inplace_doc(name.substr(0, name.size() - 1).c_str())
                                 : method_doc(r.doc, main_fn.c_str());
      cls.attr(name.c_str()) = nb::cpp_function(
          [op, inplace](nb::handle x) { return call_unary(op, x, {}, {}, inplace); }, nb::is_method(),
          nb::name(name.c_str()), nb::scope(cls), nb::sig(sig(name, "(self)").c_str()), mdoc.c_str());
    } else if (inplace) {
      const std::string idoc = "In-place version of :func:`ember." + name.substr(0, name.size() - 1) +
                               "`: writes the result into ``input`` and returns it.\n\nArgs:\n    input (Tensor): the "
                               "tensor to overwrite.";
      m.def(
          name.c_str(), [op](nb::handle x) { return call_unary(op, x, {}, {}, true); }, nb::arg("input"),
          nb::sig(sig(name, "(input: Tensor)").c_str()), idoc.c_str());
    } else {
      nb::module_& target = in_special ? special : m;
      target.def(
          name.c_str(), [op](nb::handle x, nb::handle out) { return call_unary(op, x, out, {}, false); },
          nb::arg("input"), nb::kw_only(), nb::arg("out") = nb::none(),
          nb::sig(sig(name, "(input: Tensor, *, out: Tensor | None = None)").c_str()), doc.c_str());
    }
  }
}

// clamp's bounds: None, a number or a tensor.
std::optional<Operand> bound(nb::handle h, const Tensor*& keep) {
  if (h.is_none()) return std::nullopt;
  if (nb::isinstance<Tensor>(h)) {
    keep = &nb::cast<const Tensor&>(h);
    return Operand(*keep);
  }
  return Operand(to_scalar(h, "clamp"));
}

// The aten op a clamp with number bounds is offered to __torch_dispatch__ as (Note [Python dispatch]): PyTorch's
// clamp.default(self, Scalar? min, Scalar? max), or clamp_min/clamp_max.default(self, Scalar) for those functions.
enum class ClampForm { Both, Min, Max };

std::optional<Tensor> offer_clamp(ClampForm form, const Tensor& x, const std::optional<Operand>& lo,
                                  const std::optional<Operand>& hi) {
  if ((lo && lo->t) || (hi && hi->t)) return std::nullopt;  // clamp.Tensor: not offered
  auto v = [](const std::optional<Operand>& b) { return b ? dispatch::Value(b->s) : dispatch::Value(); };
  std::optional<std::vector<Tensor>> r;
  if (form == ClampForm::Min)
    r = dispatch::call("aten.clamp_min.default", {dispatch::value(x), v(lo)});
  else if (form == ClampForm::Max)
    r = dispatch::call("aten.clamp_max.default", {dispatch::value(x), v(hi)});
  else
    r = dispatch::call("aten.clamp.default", {dispatch::value(x), v(lo), v(hi)});
  if (!r) return std::nullopt;
  return dispatch::result<Tensor>(std::move(*r));
}

nb::object clamp_impl(nb::handle self, nb::handle lo, nb::handle hi, nb::handle out, bool inplace,
                      ClampForm form = ClampForm::Both) {
  const Tensor& self_t = nb::cast<const Tensor&>(self);
  // clamp_ with a gradient: clamp's backward reads its input, so it reads a copy that the write below leaves intact.
  const Tensor x = inplace && self_t.requires_grad() && autograd::is_grad_enabled() ? self_t.clone() : self_t;
  const Tensor *tlo = nullptr, *thi = nullptr;
  const std::optional<Operand> blo = bound(lo, tlo), bhi = bound(hi, thi);
  if (!inplace && (!out.is_valid() || out.is_none()) && (blo || bhi) && dispatch::enabled()) [[unlikely]] {
    if (std::optional<Tensor> r = offer_clamp(form, x, blo, bhi)) return nb::cast(std::move(*r));
  }
  // clamp_ by numbers where the result keeps self's dtype (a floating self) and no gradient reads the input: in
  // place, where computing a new tensor and copying it back took twice as long.
  if (inplace && x.is_same(self_t) && !tlo && !thi && (blo || bhi) && is_floating(x.dtype()) && !dispatch::enabled()) {
    clamp(x, blo, bhi, self_t);
    return nb::borrow(self);
  }
  Tensor r = clamp(x, blo, bhi);
  if (inplace) {  // as every in-place op: the result dtype must be storable in self's
    EMBER_CHECK(can_cast(r.dtype(), x.dtype()), "clamp_: result type ", type_label(r.dtype()),
                " can't be cast to the desired output type ", type_label(x.dtype()));
    copy_(self_t, r);
    return nb::borrow(self);
  }
  return finish_out(std::move(r), out, "clamp");
}

void def_clamp(nb::module_& m, nb::handle cls) {
  const char* doc = unary_doc(UnaryOp::Clamp);
  constexpr const char* fn_sig =
      "(input: Tensor, min: Tensor | float | None = None, max: Tensor | float | None = None, "
      "*, out: Tensor | None = None)";
  constexpr const char* method_sig = "(self, min: Tensor | float | None = None, max: Tensor | float | None = None)";
  for (const char* name : {"clamp", "clip"}) {
    const std::string iname = std::string(name) + "_";
    m.def(
        name,
        [](nb::handle x, nb::handle lo, nb::handle hi, nb::handle out) { return clamp_impl(x, lo, hi, out, false); },
        nb::arg("input"), nb::arg("min") = nb::none(), nb::arg("max") = nb::none(), nb::kw_only(),
        nb::arg("out") = nb::none(), nb::sig(sig(name, fn_sig).c_str()), doc);
    m.def(
        iname.c_str(), [](nb::handle x, nb::handle lo, nb::handle hi) { return clamp_impl(x, lo, hi, {}, true); },
        nb::arg("input"), nb::arg("min") = nb::none(), nb::arg("max") = nb::none(),
        nb::sig(sig(iname, "(input: Tensor, min: Tensor | float | None = None, max: Tensor | float | None = None)")
                    .c_str()),
        inplace_doc(name).c_str());
    cls.attr(name) = nb::cpp_function(
        [](nb::handle x, nb::handle lo, nb::handle hi) { return clamp_impl(x, lo, hi, {}, false); }, nb::is_method(),
        nb::arg("min") = nb::none(), nb::arg("max") = nb::none(), nb::name(name), nb::scope(cls),
        nb::sig(sig(name, method_sig).c_str()), method_doc(doc, "clamp").c_str());
    cls.attr(iname.c_str()) = nb::cpp_function(
        [](nb::handle x, nb::handle lo, nb::handle hi) { return clamp_impl(x, lo, hi, {}, true); }, nb::is_method(),
        nb::arg("min") = nb::none(), nb::arg("max") = nb::none(), nb::name(iname.c_str()), nb::scope(cls),
        nb::sig(sig(iname, method_sig).c_str()), inplace_doc(name).c_str());
  }
  // clamp_min(input, min) and clamp_max(input, max): one bound, a number or a tensor.
  for (const bool is_min : {true, false}) {
    const char* name = is_min ? "clamp_min" : "clamp_max";
    const char* arg = is_min ? "min" : "max";
    const std::string iname = std::string(name) + "_";
    auto f = [is_min](nb::handle x, nb::handle b, bool inplace) {
      return is_min ? clamp_impl(x, b, nb::none(), {}, inplace, ClampForm::Min)
                    : clamp_impl(x, nb::none(), b, {}, inplace, ClampForm::Max);
    };
    const std::string fdoc = std::string("Clamps each element of `input` to be at ") + (is_min ? "least" : "most") +
                             " `" + arg + "`: ``clamp(input, " + (is_min ? "min=min" : "max=max") +
                             ")``.\n\nArgs:\n    input (Tensor): the input tensor.\n    " + arg +
                             " (Number or Tensor): the " + (is_min ? "lower" : "upper") + " bound.";
    m.def(
        name, [f](nb::handle x, nb::handle b) { return f(x, b, false); }, nb::arg("input"), nb::arg(arg),
        nb::sig(sig(name, is_min ? "(input: Tensor, min: Tensor | float)" : "(input: Tensor, max: Tensor | float)")
                    .c_str()),
        fdoc.c_str());
    const std::string msig = is_min ? "(self, min: Tensor | float)" : "(self, max: Tensor | float)";
    cls.attr(name) = nb::cpp_function([f](nb::handle x, nb::handle b) { return f(x, b, false); }, nb::is_method(),
                                      nb::arg(arg), nb::name(name), nb::scope(cls),
                                      nb::sig(sig(name, msig.c_str()).c_str()), method_doc(fdoc.c_str(), name).c_str());
    cls.attr(iname.c_str()) = nb::cpp_function([f](nb::handle x, nb::handle b) { return f(x, b, true); },
                                               nb::is_method(), nb::arg(arg), nb::name(iname.c_str()), nb::scope(cls),
                                               nb::sig(sig(iname, msig.c_str()).c_str()), inplace_doc(name).c_str());
  }
}

// round(input, *, decimals=0, out=None), also as ember.special.round; Tensor.round and round_.
void def_round(nb::module_& m, nb::module_& special, nb::handle cls) {
  const char* doc = unary_doc(UnaryOp::Round);
  auto f = [](nb::handle self, int64_t decimals, nb::handle out, bool inplace) {
    return call_unary(UnaryOp::Round, self, out, UnaryArgs{static_cast<double>(decimals)}, inplace);
  };
  const char* fn_sig = "(input: Tensor, *, decimals: int = 0, out: Tensor | None = None)";
  for (nb::module_* mod : {&m, &special})
    mod->def(
        "round", [f](nb::handle x, int64_t d, nb::handle out) { return f(x, d, out, false); }, nb::arg("input"),
        nb::kw_only(), nb::arg("decimals") = 0, nb::arg("out") = nb::none(), nb::sig(sig("round", fn_sig).c_str()),
        doc);
  m.def(
      "round_", [f](nb::handle x, int64_t d) { return f(x, d, {}, true); }, nb::arg("input"), nb::kw_only(),
      nb::arg("decimals") = 0, nb::sig(sig("round_", "(input: Tensor, *, decimals: int = 0)").c_str()),
      inplace_doc("round").c_str());
  cls.attr("round") = nb::cpp_function([f](nb::handle x, int64_t d) { return f(x, d, {}, false); }, nb::is_method(),
                                       nb::kw_only(), nb::arg("decimals") = 0, nb::name("round"), nb::scope(cls),
                                       nb::sig(sig("round", "(self, *, decimals: int = 0)").c_str()),
                                       method_doc(doc, "round").c_str());
  cls.attr("round_") = nb::cpp_function([f](nb::handle x, int64_t d) { return f(x, d, {}, true); }, nb::is_method(),
                                        nb::kw_only(), nb::arg("decimals") = 0, nb::name("round_"), nb::scope(cls),
                                        nb::sig(sig("round_", "(self, *, decimals: int = 0)").c_str()),
                                        inplace_doc("round").c_str());
}

// nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None); nan_to_num_; the methods.
void def_nan_to_num(nb::module_& m, nb::handle cls) {
  const char* doc = unary_doc(UnaryOp::NanToNum);
  using D = std::optional<double>;
  auto f = [](nb::handle self, D nan, D posinf, D neginf, nb::handle out, bool inplace) -> nb::object {
    const Tensor& x = nb::cast<const Tensor&>(self);
    if (inplace) {  // in place (the kernel writes x), not a new tensor copied back
      nan_to_num(x, nan, posinf, neginf, x);
      return nb::borrow(self);
    }
    Tensor r = nan_to_num(x, nan, posinf, neginf);
    return finish_out(std::move(r), out, "nan_to_num");
  };
  const char* params = "nan: float = 0.0, posinf: float | None = None, neginf: float | None = None";
  m.def(
      "nan_to_num", [f](nb::handle x, D n, D p, D q, nb::handle out) { return f(x, n, p, q, out, false); },
      nb::arg("input"), nb::arg("nan") = 0.0, nb::arg("posinf") = nb::none(), nb::arg("neginf") = nb::none(),
      nb::kw_only(), nb::arg("out") = nb::none(),
      nb::sig(sig("nan_to_num", ("(input: Tensor, " + std::string(params) + ", *, out: Tensor | None = None)").c_str())
                  .c_str()),
      doc);
  m.def(
      "nan_to_num_", [f](nb::handle x, D n, D p, D q) { return f(x, n, p, q, {}, true); }, nb::arg("input"),
      nb::arg("nan") = 0.0, nb::arg("posinf") = nb::none(), nb::arg("neginf") = nb::none(),
      nb::sig(sig("nan_to_num_", ("(input: Tensor, " + std::string(params) + ")").c_str()).c_str()),
      inplace_doc("nan_to_num").c_str());
  const std::string msig = "(self, " + std::string(params) + ")";
  cls.attr("nan_to_num") = nb::cpp_function(
      [f](nb::handle x, D n, D p, D q) { return f(x, n, p, q, {}, false); }, nb::is_method(), nb::arg("nan") = 0.0,
      nb::arg("posinf") = nb::none(), nb::arg("neginf") = nb::none(), nb::name("nan_to_num"), nb::scope(cls),
      nb::sig(sig("nan_to_num", msig.c_str()).c_str()), method_doc(doc, "nan_to_num").c_str());
  cls.attr("nan_to_num_") = nb::cpp_function(
      [f](nb::handle x, D n, D p, D q) { return f(x, n, p, q, {}, true); }, nb::is_method(), nb::arg("nan") = 0.0,
      nb::arg("posinf") = nb::none(), nb::arg("neginf") = nb::none(), nb::name("nan_to_num_"), nb::scope(cls),
      nb::sig(sig("nan_to_num_", msig.c_str()).c_str()), inplace_doc("nan_to_num").c_str());
}

// logit(input, eps=None, *, out=None), also ember.special.logit; logit_; the methods.
void def_logit(nb::module_& m, nb::module_& special, nb::handle cls) {
  const char* doc = unary_doc(UnaryOp::Logit);
  auto f = [](nb::handle x, std::optional<double> eps, nb::handle out, bool inplace) {
    return call_unary(UnaryOp::Logit, x, out, UnaryArgs{eps.value_or(-1.0)}, inplace);
  };
  const char* fn_sig = "(input: Tensor, eps: float | None = None, *, out: Tensor | None = None)";
  for (nb::module_* mod : {&m, &special})
    mod->def(
        "logit", [f](nb::handle x, std::optional<double> eps, nb::handle out) { return f(x, eps, out, false); },
        nb::arg("input"), nb::arg("eps") = nb::none(), nb::kw_only(), nb::arg("out") = nb::none(),
        nb::sig(sig("logit", fn_sig).c_str()), doc);
  m.def(
      "logit_", [f](nb::handle x, std::optional<double> eps) { return f(x, eps, {}, true); }, nb::arg("input"),
      nb::arg("eps") = nb::none(), nb::sig(sig("logit_", "(input: Tensor, eps: float | None = None)").c_str()),
      inplace_doc("logit").c_str());
  cls.attr("logit") = nb::cpp_function([f](nb::handle x, std::optional<double> eps) { return f(x, eps, {}, false); },
                                       nb::is_method(), nb::arg("eps") = nb::none(), nb::name("logit"), nb::scope(cls),
                                       nb::sig(sig("logit", "(self, eps: float | None = None)").c_str()),
                                       method_doc(doc, "logit").c_str());
  cls.attr("logit_") = nb::cpp_function(
      [f](nb::handle x, std::optional<double> eps) { return f(x, eps, {}, true); }, nb::is_method(),
      nb::arg("eps") = nb::none(), nb::name("logit_"), nb::scope(cls),
      nb::sig(sig("logit_", "(self, eps: float | None = None)").c_str()), inplace_doc("logit").c_str());
}

}  // namespace

const char* unary_doc(UnaryOp op) {
  switch (op) {
    // clang-format 14 would join these definitions, which sit between case labels, into one
    // clang-format off
#define EMBER_UNARY_OP(op, name, result, input, flags, python, doc) case UnaryOp::op: return doc;
#define EMBER_UNARY_SPECIAL(op, name, formula, python, doc) case UnaryOp::op: return doc;
#define EMBER_UNARY_CUSTOM(op, name, result, input, flags, doc) case UnaryOp::op: return doc;
#include "ember/ops/unary.def"
#undef EMBER_UNARY_OP
#undef EMBER_UNARY_SPECIAL
#undef EMBER_UNARY_CUSTOM
    // clang-format on
  }
  return "";
}

void init_unary(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  nb::module_ special = special_module(m);
  for (const Row& r : kRows) def_row(m, special, cls, r);

  cls.attr("__neg__") = nb::cpp_function([](const Tensor& x) { return neg(x); }, nb::name("__neg__"), nb::is_method());
  cls.attr("__abs__") = nb::cpp_function([](const Tensor& x) { return abs(x); }, nb::name("__abs__"), nb::is_method());
  cls.attr("__pos__") = nb::cpp_function([](nb::handle x) { return nb::borrow(x); }, nb::name("__pos__"),
                                         nb::is_method());
  cls.attr("__invert__") = nb::cpp_function([](const Tensor& x) { return bitwise_not(x); }, nb::name("__invert__"),
                                            nb::is_method());

  def_round(m, special, cls);
  def_clamp(m, cls);
  def_nan_to_num(m, cls);
  def_logit(m, special, cls);
  // For ember.nn.functional: gelu(approximate), softplus(beta, threshold).
  m.def(
      "_gelu",
      [](const Tensor& x, const std::string& approximate) {
        EMBER_CHECK_VALUE(approximate == "none" || approximate == "tanh",
                          "gelu: approximate argument must be either none or tanh, got '", approximate, "'");
        return gelu(x, approximate == "tanh");
      },
      nb::arg("input"), nb::arg("approximate") = "none");
  m.def(
      "_softplus", [](const Tensor& x, double beta, double threshold) { return softplus(x, beta, threshold); },
      nb::arg("input"), nb::arg("beta") = 1.0, nb::arg("threshold") = 20.0);
}

}  // namespace ember::py
