// Bindings of the ternary ops, generated from their table (ember/ops/ternary.def, Note [Op tables]): each row's
// Python names (ember.where, Tensor.where, ember.lerp, Tensor.lerp, Tensor.lerp_, ...) with PyTorch's signatures and
// the row's docstring, and ember.where's one-argument form.
#include <deque>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common.h"

namespace ember::py {

namespace {

enum class Keyword : uint8_t { none, value };

struct Row {
  TernaryOp op;
  bool number[3];  // whether a Python number may stand for each operand (its C++ type is Operand)
  Keyword keyword;
  const char* params;
  const char* python;
  const char* doc;
};

template <class T>
constexpr bool kNumber = std::is_same_v<T, Operand>;

constexpr Row kRows[] = {
#define EMBER_TERNARY_OP(op, name, flags, A, B, C, keyword, params, python, doc) \
  {TernaryOp::op, {kNumber<A>, kNumber<B>, kNumber<C>}, Keyword::keyword, params, python, doc},
#include "ember/ops/ternary.def"
#undef EMBER_TERNARY_OP
};

// One bound Python name (kept alive for the module's lifetime; the bindings hold a pointer).
struct Spec {
  TernaryOp op;
  bool number[3];
  std::string name;                 // the Python name, in errors
  std::vector<std::string> params;  // the operands' parameter names
  int self;                         // the operand a method's self is (the one named input)
};

std::deque<Spec>& specs() {
  static std::deque<Spec> s;
  return s;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  for (std::string_view rest = s; !rest.empty();) {
    const size_t end = rest.find(' ');
    if (end) out.emplace_back(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  return out;
}

// The tensor a Python argument holds, or null: one type check against the cached type object (nb::isinstance and
// nb::cast each look the type up; these bindings are the hottest path in ember).
const Tensor* tensor_of(nb::handle h) {
  static PyTypeObject* const type = reinterpret_cast<PyTypeObject*>(nb::type<Tensor>().ptr());
  return PyObject_TypeCheck(h.ptr(), type) ? nb::inst_ptr<Tensor>(h) : nullptr;
}

// Operand i of a call (pos: its position in the Python call): a tensor, or a number where the row allows one.
Operand operand(const Spec& s, int i, nb::handle h, int pos) {
  if (const Tensor* t = tensor_of(h)) return Operand(*t);
  if (!s.number[i])
    fail<TypeError>(s.name, "(): argument '", s.params[i], "' (position ", pos, ") must be Tensor, not ",
                    nb::type_name(h.type()).c_str());
  return Operand(to_scalar(h, s.name.c_str()));
}

Scalar value_of(const Spec& s, nb::handle v) { return v.is_none() ? Scalar(1) : to_scalar(v, s.name.c_str()); }

// ember.f(a, b, c, *, [value=1,] out=None)
nb::object call_function(const Spec& s, nb::handle a, nb::handle b, nb::handle c, nb::handle value, nb::handle out) {
  const Operand x = operand(s, 0, a, 1), y = operand(s, 1, b, 2), z = operand(s, 2, c, 3);
  if (out.is_none()) return nb::cast(ternary_op(s.op, x, y, z, {}, value_of(s, value)));
  const Tensor* o = tensor_of(out);
  if (!o) fail<TypeError>(s.name, "(): argument 'out' must be Tensor, not ", nb::type_name(out.type()).c_str());
  ternary_op(s.op, x, y, z, *o, value_of(s, value));
  return nb::borrow(out);
}

// Tensor.f(...) and Tensor.f_(...): self is the operand named input, the other two are p and q in order.
nb::object call_method(const Spec& s, nb::handle self, nb::handle p, nb::handle q, nb::handle value, bool inplace) {
  const Tensor* self_t = tensor_of(self);  // None or another type when called unbound, Tensor.lerp(2.0, ...)
  if (!self_t) fail<TypeError>(s.name, "(): argument 'input' must be Tensor, not ", nb::type_name(self.type()).c_str());
  const Tensor& t = *self_t;
  // The operands in order: self where the one named input is, then p and q (positions 1 and 2 of the call).
  const Operand o0 = s.self == 0 ? Operand(t) : operand(s, 0, p, 1);
  const Operand o1 = s.self == 1 ? Operand(t) : operand(s, 1, s.self == 0 ? p : q, s.self == 0 ? 1 : 2);
  const Operand o2 = s.self == 2 ? Operand(t) : operand(s, 2, q, 2);
  if (!inplace) return nb::cast(ternary_op(s.op, o0, o1, o2, {}, value_of(s, value)));
  ternary_op(s.op, o0, o1, o2, t, value_of(s, value));
  return nb::borrow(self);
}

std::string type_of(bool number) { return number ? "Tensor | Number" : "Tensor"; }

void def_row(nb::module_& m, nb::handle cls, const Row& r) {
  const std::vector<std::string> params = words(r.params);
  int self = 0;
  for (int i = 0; i < 3; ++i)
    if (params[i] == "input") self = i;
  const bool value = r.keyword == Keyword::value;
  const std::string kw = value ? ", *, value: Number = 1" : "";
  for (const std::string& full : words(r.python)) {
    const bool method = full.rfind("Tensor.", 0) == 0;
    const std::string name = method ? full.substr(7) : full;
    const bool inplace = name.back() == '_';
    const Spec* s = &specs().emplace_back(Spec{r.op, {r.number[0], r.number[1], r.number[2]}, name, params, self});
    if (!method) {
      std::string sig = "def " + name + "(";
      for (int i = 0; i < 3; ++i) sig += params[i] + ": " + type_of(r.number[i]) + ", ";
      sig += std::string("*, ") + (value ? "value: Number = 1, " : "") + "out: Tensor | None = None) -> Tensor";
      if (value)
        m.def(
            name.c_str(),
            [s](nb::handle a, nb::handle b, nb::handle c, nb::handle v, nb::handle out) {
              return call_function(*s, a, b, c, v, out);
            },
            nb::arg(params[0].c_str()), nb::arg(params[1].c_str()), nb::arg(params[2].c_str()), nb::kw_only(),
            nb::arg("value") = nb::none(), nb::arg("out") = nb::none(), nb::sig(sig.c_str()), r.doc);
      else
        m.def(
            name.c_str(),
            [s](nb::handle a, nb::handle b, nb::handle c, nb::handle out) {
              return call_function(*s, a, b, c, nb::none(), out);
            },
            nb::arg(params[0].c_str()), nb::arg(params[1].c_str()), nb::arg(params[2].c_str()), nb::kw_only(),
            nb::arg("out") = nb::none(), nb::sig(sig.c_str()), r.doc);
      continue;
    }
    // The method's parameters: the operands other than self, in order.
    std::vector<std::string> rest;
    std::string sig = "def " + name + "(self";
    for (int i = 0; i < 3; ++i)
      if (i != self) {
        rest.push_back(params[i]);
        sig += ", " + params[i] + ": " + type_of(r.number[i]);
      }
    sig += kw + ") -> Tensor";
    const std::string base = inplace ? name.substr(0, name.size() - 1) : name;
    const std::string doc = inplace ? inplace_doc(base.c_str()) : method_doc(r.doc, base.c_str());
    if (value)
      cls.attr(name.c_str()) = nb::cpp_function(
          [s, inplace](nb::handle self, nb::handle p, nb::handle q, nb::handle v) {
            return call_method(*s, self, p, q, v, inplace);
          },
          nb::is_method(), nb::arg(rest[0].c_str()), nb::arg(rest[1].c_str()), nb::kw_only(),
          nb::arg("value") = nb::none(), nb::name(name.c_str()), nb::scope(cls), nb::sig(sig.c_str()), doc.c_str());
    else
      cls.attr(name.c_str()) = nb::cpp_function(
          [s, inplace](nb::handle self, nb::handle p, nb::handle q) {
            return call_method(*s, self, p, q, nb::none(), inplace);
          },
          nb::is_method(), nb::arg(rest[0].c_str()), nb::arg(rest[1].c_str()), nb::name(name.c_str()), nb::scope(cls),
          nb::sig(sig.c_str()), doc.c_str());
  }
  if (r.op == TernaryOp::Where) {  // where(condition): nonzero(condition, as_tuple=True), an overload
    m.def(
        "where",
        [](const Tensor& condition) {
          std::vector<Tensor> idx = nonzero_tuple(condition);
          nb::tuple t = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(idx.size())));
          for (size_t i = 0; i < idx.size(); ++i)
            PyTuple_SET_ITEM(t.ptr(), static_cast<Py_ssize_t>(i), nb::cast(std::move(idx[i])).release().ptr());
          return t;
        },
        nb::arg("condition"), nb::sig("def where(condition: Tensor) -> tuple[Tensor, ...]"), r.doc);
  }
}

}  // namespace

void init_ternary(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  for (const Row& r : kRows) def_row(m, cls, r);
}

}  // namespace ember::py
