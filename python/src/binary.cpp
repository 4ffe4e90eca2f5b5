// Bindings of the binary ops, generated from their table (ember/ops/binary.def, Note [Op tables]): each row's Python
// names (ember.add, Tensor.add, Tensor.add_, the operators +, +=, the reflected forms, ember.special.xlogy, ...) with
// PyTorch's signatures and the row's docstring; the orthogonal polynomials of ember.special; and rsub.
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "common.h"

namespace ember::py {

namespace {

enum class Keyword : uint8_t { none, alpha, rounding_mode };

struct Row {
  BinaryOp op;
  BinaryNumbers numbers;
  Keyword keyword;
  const char* params;
  const char* python;
  const char* doc;
  int64_t family = -1;  // a polynomial row: its Polynomial, passed as the kernel's alpha
};

constexpr Row kRows[] = {
#define EMBER_BINARY_OP(op, name, kind, flags, numbers, keyword, params, python, doc) \
  {BinaryOp::op, BinaryNumbers::numbers, Keyword::keyword, params, python, doc},
#define EMBER_BINARY_SPECIAL(op, name, kind, formula, numbers, params, python, doc) \
  {BinaryOp::op, BinaryNumbers::numbers, Keyword::none, params, python, doc},
#define EMBER_BINARY_CUSTOM(...)
#define EMBER_BINARY_ALIAS(op, params, python, doc) \
  {BinaryOp::op, binary_info(BinaryOp::op).numbers, Keyword::none, params, python, doc},
#define EMBER_BINARY_POLYNOMIAL(family, name, doc)                                                                \
  {BinaryOp::OrthogonalPolynomial,          BinaryNumbers::Both, Keyword::none, "input n", "special." #name, doc, \
   static_cast<int64_t>(Polynomial::family)},
#include "ember/ops/binary.def"
#undef EMBER_BINARY_OP
#undef EMBER_BINARY_SPECIAL
#undef EMBER_BINARY_CUSTOM
#undef EMBER_BINARY_ALIAS
#undef EMBER_BINARY_POLYNOMIAL
};

// One bound Python name: what its calls need (kept alive for the module's lifetime; the bindings hold a pointer).
struct Spec {
  BinaryOp op;
  BinaryNumbers numbers;
  Keyword keyword;
  Scalar alpha;       // the kernel's alpha when the name takes none (a polynomial's family), else 1
  std::string name;   // the Python name, in errors
  std::string input;  // the operands' parameter names
  std::string other;
};

std::deque<Spec>& specs() {
  static std::deque<Spec> s;  // a deque: the addresses the bindings keep stay valid as it grows
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

[[noreturn]] void not_a_tensor(const Spec& s, const std::string& param, int pos, nb::handle h) {
  fail<TypeError>(s.name, "(): argument '", param, "' (position ", pos, ") must be Tensor, not ",
                  nb::type_name(h.type()).c_str());
}

// An operand: a tensor, or a number where the row's numbers let one stand for it (PyTorch's TypeError otherwise).
Operand input_arg(const Spec& s, nb::handle h) {
  if (const Tensor* t = tensor_of(h)) return Operand(*t);
  if (s.numbers != BinaryNumbers::Both) not_a_tensor(s, s.input, 1, h);
  return Operand(to_scalar(h, s.name.c_str()));
}
Operand other_arg(const Spec& s, nb::handle h, int pos) {
  if (const Tensor* t = tensor_of(h)) return Operand(*t);
  if (s.numbers == BinaryNumbers::Neither) not_a_tensor(s, s.other, pos, h);
  return Operand(to_scalar(h, s.name.c_str()));
}

// The op and alpha of a call: the keyword (alpha, or div's rounding mode) when the name takes one.
BinaryOp call_op(const Spec& s, nb::handle kw) {
  if (s.keyword != Keyword::rounding_mode || kw.is_none()) return s.op;
  if (!PyUnicode_Check(kw.ptr()))
    fail<TypeError>(s.name, "(): argument 'rounding_mode' must be str or None, not ", nb::type_name(kw.type()).c_str());
  return rounded(s.op, std::string_view(utf8(kw)));
}
Scalar call_alpha(const Spec& s, nb::handle kw) {
  if (s.keyword != Keyword::alpha || kw.is_none()) return s.alpha;
  return to_scalar(kw, s.name.c_str());
}

const Tensor& out_arg(const Spec& s, nb::handle out) {
  const Tensor* t = tensor_of(out);
  if (!t) fail<TypeError>(s.name, "(): argument 'out' must be Tensor, not ", nb::type_name(out.type()).c_str());
  return *t;
}

// ember.f(input, other, *, [keyword,] out=None)
nb::object call_function(const Spec& s, nb::handle a, nb::handle b, nb::handle kw, nb::handle out) {
  const Operand x = input_arg(s, a), y = other_arg(s, b, 2);
  if (!x.t && !y.t) not_a_tensor(s, s.input, 1, a);
  const BinaryOp op = call_op(s, kw);
  const Scalar alpha = call_alpha(s, kw);
  if (!out.is_none()) {
    binary_op(op, x, y, out_arg(s, out), alpha);
    return nb::borrow(out);
  }
  return nb::cast(binary_op(op, x, y, {}, alpha));
}

// Tensor.f(other, *, [keyword]) and Tensor.f_(other, *, [keyword]); the functional in-place ember.f_(input, other).
// functional: ember.f_, whose operand positions count input.
nb::object call_method(const Spec& s, nb::handle self, nb::handle b, nb::handle kw, bool inplace,
                       bool functional = false) {
  const Tensor* t = tensor_of(self);
  if (!t) not_a_tensor(s, s.input, 1, self);
  const Tensor& x = *t;
  const Operand y = other_arg(s, b, functional ? 2 : 1);
  const BinaryOp op = call_op(s, kw);
  const Scalar alpha = call_alpha(s, kw);
  if (!inplace) return nb::cast(binary_op(op, x, y, {}, alpha));
  binary_op(op, x, y, x, alpha);
  return nb::borrow(self);
}

bool is_operand(nb::handle h) { return tensor_of(h) || is_scalar(h) || PyIndex_Check(h.ptr()); }

Operand operand(nb::handle h, const char* fn) {
  if (const Tensor* t = tensor_of(h)) return Operand(*t);
  return Operand(to_scalar(h, fn));
}

// The Python signature text (and the docstring's type) of an operand, and the keyword's signature.
std::string type_of(bool number) { return number ? "Tensor | Number" : "Tensor"; }
std::string doc_type(bool number) { return number ? "Tensor or Number" : "Tensor"; }
std::string keyword_sig(Keyword k) {
  switch (k) {
    case Keyword::alpha: return "alpha: Number = 1";
    case Keyword::rounding_mode: return "rounding_mode: str | None = None";
    case Keyword::none: break;
  }
  return "";
}

// The row's docstring, with `Args:` and `Keyword args:` from its operands and keyword unless it has its own.
std::string function_doc(const Row& r, const std::string& input, const std::string& other) {
  std::string doc = r.doc;
  if (doc.find("\nArgs:") != std::string::npos) return doc;
  const bool both = r.numbers == BinaryNumbers::Both, number_other = r.numbers != BinaryNumbers::Neither;
  if (r.family >= 0) {
    doc +=
        "\n\nThe degree n is truncated toward zero, and a negative degree gives 0. There is no gradient (as in "
        "PyTorch).\n\nArgs:\n    " +
        input + " (Tensor or Number): the points x.\n    " + other +
        " (Tensor or Number): the degree n. At least one of the two is a tensor.";
  } else {
    doc += "\n\nArgs:\n    " + input + " (" + doc_type(both) + "): the first operand.\n    " + other + " (" +
           doc_type(number_other) + "): the second operand." + (both ? " At least one of the two is a tensor." : "");
  }
  doc += "\n\nKeyword args:\n";
  if (r.keyword == Keyword::alpha) doc += "    alpha (Number): the multiplier of `" + other + "`. Default: 1.\n";
  doc += "    out (Tensor, optional): the output tensor.";
  return doc;
}

// Python's reflected operator of `name` ("__radd__" of "__add__"), listed in the same row.
bool is_reflected(const std::string& name, const std::vector<std::string>& names) {
  if (name.rfind("__r", 0) != 0) return false;
  const std::string forward = "__" + name.substr(3);
  for (const std::string& n : names)
    if (n == "Tensor." + forward) return true;
  return false;
}

void def_operator(nb::handle cls, const std::string& name, const std::vector<std::string>& names, BinaryOp op,
                  const char* fn) {
  // Operators return NotImplemented for other types, so that Python can try the reflected form (x == None is
  // False).
  if (name.rfind("__i", 0) == 0) {
    cls.attr(name.c_str()) = nb::cpp_function(
        [op, fn](nb::handle self, nb::handle b) -> nb::object {
          if (!is_operand(b)) return nb::not_implemented();
          const Tensor& t = nb::cast<const Tensor&>(self);
          binary_op(op, t, operand(b, fn), t);
          return nb::borrow(self);
        },
        nb::name(name.c_str()), nb::is_method(), nb::arg("other").none());
  } else if (is_reflected(name, names)) {
    cls.attr(name.c_str()) = nb::cpp_function(
        [op, fn](const Tensor& self, nb::handle b) -> nb::object {
          if (!is_operand(b)) return nb::not_implemented();
          // number / x is PyTorch's x.reciprocal() * number (Tensor.__rtruediv__): the same roundings, and the ops
          // a dispatch mode sees.
          if (op == BinaryOp::Div && !nb::isinstance<Tensor>(b))
            return nb::cast(binary_op(BinaryOp::Mul, reciprocal(self), operand(b, fn)));
          return nb::cast(binary_op(op, operand(b, fn), self));
        },
        nb::name(name.c_str()), nb::is_method(), nb::arg("other").none());
  } else {
    cls.attr(name.c_str()) = nb::cpp_function(
        [op, fn](const Tensor& self, nb::handle b) -> nb::object {
          if (!is_operand(b)) return nb::not_implemented();
          return nb::cast(binary_op(op, self, operand(b, fn)));
        },
        nb::name(name.c_str()), nb::is_method(), nb::arg("other").none());
  }
}

// One row's Python names (the grammar is in binary.def's header).
void def_row(nb::module_& m, nb::module_& special, nb::handle cls, const Row& r) {
  std::vector<std::string> params = words(r.params);
  // "input|self": the first operand may also be passed as self (an overload of the functions).
  std::string input = params.at(0), self_alias;
  if (const size_t bar = input.find('|'); bar != std::string::npos) {
    self_alias = input.substr(bar + 1);
    input = input.substr(0, bar);
  }
  const std::string& other = params.at(1);
  const bool number_input = r.numbers == BinaryNumbers::Both, number_other = r.numbers != BinaryNumbers::Neither;
  const std::string doc = function_doc(r, input, other);
  const std::vector<std::string> names = words(r.python);
  // The function the methods' docstrings point to: the row's first function name.
  std::string main_fn;
  for (const std::string& n : names)
    if (n.rfind("Tensor.", 0) != 0 && n.back() != '_' && n.front() != '_') {
      main_fn = n;
      break;
    }
  const std::string kw = keyword_sig(r.keyword), kw_name = r.keyword == Keyword::alpha ? "alpha" : "rounding_mode";
  const char* operator_fn = binary_op_name(r.op);
  for (const std::string& full : names) {
    const bool method = full.rfind("Tensor.", 0) == 0, in_special = full.rfind("special.", 0) == 0;
    const std::string name = method ? full.substr(7) : in_special ? full.substr(8) : full;
    if (method && name.rfind("__", 0) == 0) {
      def_operator(cls, name, names, r.op, operator_fn);
      continue;
    }
    const bool inplace = name.back() == '_';
    const std::string base = inplace ? name.substr(0, name.size() - 1) : name;
    const Spec* s = &specs().emplace_back(
        Spec{r.op, r.numbers, r.keyword, r.family >= 0 ? Scalar(r.family) : Scalar(1), name, input, other});
    const std::string other_sig = other + ": " + type_of(number_other);
    if (method) {
      const std::string sig = "def " + name + "(self, " + other_sig + (kw.empty() ? "" : ", *, " + kw) + ") -> Tensor";
      const std::string mdoc = inplace ? inplace_doc(base.c_str()) : method_doc(doc.c_str(), main_fn.c_str());
      if (r.keyword == Keyword::none)
        cls.attr(name.c_str()) = nb::cpp_function(
            [s, inplace](nb::handle self, nb::handle b) { return call_method(*s, self, b, nb::none(), inplace); },
            nb::is_method(), nb::arg(other.c_str()), nb::name(name.c_str()), nb::scope(cls), nb::sig(sig.c_str()),
            mdoc.c_str());
      else
        cls.attr(name.c_str()) = nb::cpp_function(
            [s, inplace](nb::handle self, nb::handle b, nb::handle k) { return call_method(*s, self, b, k, inplace); },
            nb::is_method(), nb::arg(other.c_str()), nb::kw_only(), nb::arg(kw_name.c_str()) = nb::none(),
            nb::name(name.c_str()), nb::scope(cls), nb::sig(sig.c_str()), mdoc.c_str());
    } else if (inplace) {  // ember.xlogy_(input, other)
      const std::string sig = "def " + name + "(" + input + ": Tensor, " + other_sig + ") -> Tensor";
      const std::string idoc = "In-place version of :func:`ember." + base + "`: writes the result into ``" + input +
                               "`` and returns it.\n\nArgs:\n    " + input +
                               " (Tensor): the tensor to overwrite.\n    " + other + " (" + doc_type(number_other) +
                               "): the second operand.";
      m.def(
          name.c_str(), [s](nb::handle a, nb::handle b) { return call_method(*s, a, b, nb::none(), true, true); },
          nb::arg(input.c_str()), nb::arg(other.c_str()), nb::sig(sig.c_str()), idoc.c_str());
    } else {
      nb::module_& target = in_special ? special : m;
      const std::string params_sig = input + ": " + type_of(number_input) + ", " + other_sig + ", *, " +
                                     (kw.empty() ? "" : kw + ", ") + "out: Tensor | None = None";
      const std::string sig = "def " + name + "(" + params_sig + ") -> Tensor";
      if (r.keyword == Keyword::none)
        target.def(
            name.c_str(),
            [s](nb::handle a, nb::handle b, nb::handle out) { return call_function(*s, a, b, nb::none(), out); },
            nb::arg(input.c_str()), nb::arg(other.c_str()), nb::kw_only(), nb::arg("out") = nb::none(),
            nb::sig(sig.c_str()), doc.c_str());
      else
        target.def(
            name.c_str(),
            [s](nb::handle a, nb::handle b, nb::handle k, nb::handle out) { return call_function(*s, a, b, k, out); },
            nb::arg(input.c_str()), nb::arg(other.c_str()), nb::kw_only(), nb::arg(kw_name.c_str()) = nb::none(),
            nb::arg("out") = nb::none(), nb::sig(sig.c_str()), doc.c_str());
      if (!self_alias.empty()) {  // pow(self: Number, exponent: Tensor): the base named self (an overload)
        const std::string alias_sig = "def " + name + "(" + self_alias + ": Number, " + other +
                                      ": Tensor, *, out: Tensor | None = None) -> Tensor";
        target.def(
            name.c_str(),
            [s](nb::handle a, nb::handle b, nb::handle out) { return call_function(*s, a, b, nb::none(), out); },
            nb::arg(self_alias.c_str()), nb::arg(other.c_str()), nb::kw_only(), nb::arg("out") = nb::none(),
            nb::sig(alias_sig.c_str()), doc.c_str());
      }
    }
  }
}

constexpr const char* kRsubDoc =
    R"doc(Subtracts `input`, scaled by `alpha`, from `other` (:func:`ember.sub` reflected).

.. math::
    \text{out}_i = \text{other}_i - \text{alpha} \times \text{input}_i

``2 - t`` calls it. The operands broadcast and promote as in :func:`ember.sub` (a bool operand raises).

Args:
    input (Tensor): the tensor subtracted.
    other (Tensor or Number): the tensor or number subtracted from.

Keyword args:
    alpha (Number): the multiplier of `input`. Default: 1.)doc";

}  // namespace

void init_binary(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  nb::module_ special = special_module(m);
  for (const Row& r : kRows) def_row(m, special, cls, r);
  // As PyTorch's: NumPy scalars and arrays on the left defer to the tensor's reflected operators
  // (np.int64(3) - t is a tensor, not a NumPy array).
  cls.attr("__array_priority__") = 1000;
  // Tensors hash by identity, as in PyTorch (defining __eq__ would otherwise drop __hash__).
  cls.attr("__hash__") = nb::cpp_function([](nb::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); },
                                          nb::name("__hash__"), nb::is_method());
  m.def(
      "rsub",
      [](const Tensor& a, nb::handle b, nb::handle alpha) {
        return binary_op(BinaryOp::Sub, operand(b, "rsub"), a, {},
                         alpha.is_none() ? Scalar(1) : to_scalar(alpha, "rsub"));
      },
      nb::arg("input"), nb::arg("other"), nb::kw_only(), nb::arg("alpha") = nb::none(),
      nb::sig("def rsub(input: Tensor, other: Tensor | Number, *, alpha: Number = 1) -> Tensor"), kRsubDoc);
}

}  // namespace ember::py
