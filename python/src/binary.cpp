// Bindings of the binary ops: functions (ember.add), methods (t.add, t.add_), and Python operators
// (+, +=, reflected forms). One table drives them all.
#include "common.h"

namespace ember::py {

namespace {

bool is_operand(nb::handle h) { return nb::isinstance<Tensor>(h) || is_scalar(h) || PyIndex_Check(h.ptr()); }

Operand operand(nb::handle h, const char* fn) {
  if (nb::isinstance<Tensor>(h)) return Operand(nb::cast<const Tensor&>(h));
  return Operand(to_scalar(h, fn));
}

struct BinaryDef {
  const char* name;
  BinaryOp op;
  const char* dunder = nullptr;   // __add__
  const char* rdunder = nullptr;  // __radd__
  const char* idunder = nullptr;  // __iadd__
  bool has_alpha = false;
  bool inplace = true;            // t.name_() exists
  std::initializer_list<const char*> aliases = {};
  bool tensor_only = false;       // both operands must be tensors (PyTorch's signature has no Scalar overload)
  bool method = true;             // t.name() exists
  const char* other = "other";    // the second argument's name
};

// PyTorch's argument-parser TypeError for a number where its signature takes a Tensor.
void check_tensor_arg(nb::handle h, const char* fn, const char* arg, int pos) {
  if (nb::isinstance<Tensor>(h)) return;
  fail<TypeError>(fn, "(): argument '", arg, "' (position ", pos, ") must be Tensor, not ",
                  nb::type_name(h.type()).c_str());
}

// rounding_mode applies to div only; alpha to add and sub.
BinaryOp div_op(nb::handle mode) {
  if (mode.is_none()) return BinaryOp::Div;
  std::string m = nb::cast<std::string>(mode);
  if (m == "trunc") return BinaryOp::DivTrunc;
  if (m == "floor") return BinaryOp::DivFloor;
  fail<Error>("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", m, "'");
}

void def_binary(nb::module_& m, nb::handle cls, const BinaryDef& d) {
  const BinaryOp op = d.op;
  const char* name = d.name;
  const bool is_div = op == BinaryOp::Div;
  const bool tensor_only = d.tensor_only;
  const char* other = d.other;

  // ember.name(input, other, *, alpha=1, rounding_mode=None, out=None)
  auto fn = nb::cpp_function(
      [op, name, is_div, tensor_only, other](nb::handle a, nb::handle b, nb::kwargs kw) -> nb::object {
        if (tensor_only) {
          check_tensor_arg(a, name, "input", 1);
          check_tensor_arg(b, name, other, 2);
        }
        nb::handle alpha_h, mode_h, out_h;
        FactoryArgs unused;
        parse_factory_kwargs(kw, name, kOut, unused, {{"alpha", &alpha_h}, {"rounding_mode", &mode_h}});
        const BinaryOp o = is_div && mode_h.is_valid() ? div_op(mode_h) : op;
        const Scalar alpha = alpha_h.is_valid() ? to_scalar(alpha_h, name) : Scalar(1);
        if (unused.out.is_valid() && !unused.out.is_none()) {
          binary_op(o, operand(a, name), operand(b, name), nb::cast<const Tensor&>(unused.out), alpha);
          return nb::borrow(unused.out);
        }
        return nb::cast(binary_op(o, operand(a, name), operand(b, name), {}, alpha));
      },
      nb::arg("input"), nb::arg(other), nb::arg("kwargs"));
  m.attr(name) = fn;
  for (const char* alias : d.aliases) m.attr(alias) = fn;
  if (!d.method) return;

  // t.name(other, ...) and t.name_(other, ...)
  auto method = nb::cpp_function(
      [op, name, is_div, tensor_only, other](const Tensor& self, nb::handle b, nb::kwargs kw) {
        if (tensor_only) check_tensor_arg(b, name, other, 1);
        nb::handle alpha_h, mode_h;
        FactoryArgs unused;
        parse_factory_kwargs(kw, name, 0, unused, {{"alpha", &alpha_h}, {"rounding_mode", &mode_h}});
        const BinaryOp o = is_div && mode_h.is_valid() ? div_op(mode_h) : op;
        return binary_op(o, self, operand(b, name), {}, alpha_h.is_valid() ? to_scalar(alpha_h, name) : Scalar(1));
      },
      nb::is_method(), nb::arg(other), nb::arg("kwargs"));
  cls.attr(name) = method;
  for (const char* alias : d.aliases) cls.attr(alias) = method;
  if (d.inplace) {
    auto imethod = nb::cpp_function(
        [op, name, is_div, tensor_only, other](nb::handle self, nb::handle b, nb::kwargs kw) {
          if (tensor_only) check_tensor_arg(b, name, other, 1);
          nb::handle alpha_h, mode_h;
          FactoryArgs unused;
          parse_factory_kwargs(kw, name, 0, unused, {{"alpha", &alpha_h}, {"rounding_mode", &mode_h}});
          const BinaryOp o = is_div && mode_h.is_valid() ? div_op(mode_h) : op;
          const Tensor& t = nb::cast<const Tensor&>(self);
          binary_op(o, t, operand(b, name), t, alpha_h.is_valid() ? to_scalar(alpha_h, name) : Scalar(1));
          return nb::borrow(self);
        },
        nb::is_method(), nb::arg(other), nb::arg("kwargs"));
    cls.attr((std::string(name) + "_").c_str()) = imethod;
    for (const char* alias : d.aliases) cls.attr((std::string(alias) + "_").c_str()) = imethod;
  }

  // Operators return NotImplemented for other types, so Python can try the reflected form.
  if (d.dunder)
    cls.attr(d.dunder) = nb::cpp_function(
        [op, name](const Tensor& self, nb::handle b) -> nb::object {
          if (!is_operand(b)) return nb::not_implemented();
          return nb::cast(binary_op(op, self, operand(b, name)));
        },
        nb::is_method(), nb::arg("other").none());
  if (d.rdunder)
    cls.attr(d.rdunder) = nb::cpp_function(
        [op, name](const Tensor& self, nb::handle b) -> nb::object {
          if (!is_operand(b)) return nb::not_implemented();
          return nb::cast(binary_op(op, operand(b, name), self));
        },
        nb::is_method(), nb::arg("other").none());
  if (d.idunder)
    cls.attr(d.idunder) = nb::cpp_function(
        [op, name](nb::handle self, nb::handle b) -> nb::object {
          if (!is_operand(b)) return nb::not_implemented();
          const Tensor& t = nb::cast<const Tensor&>(self);
          binary_op(op, t, operand(b, name), t);
          return nb::borrow(self);
        },
        nb::is_method(), nb::arg("other").none());
}

}  // namespace

void init_binary(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  using B = BinaryOp;
  const BinaryDef defs[] = {
      {"add", B::Add, "__add__", "__radd__", "__iadd__", true},
      {"sub", B::Sub, "__sub__", "__rsub__", "__isub__", true, true, {"subtract"}},
      {"mul", B::Mul, "__mul__", "__rmul__", "__imul__", false, true, {"multiply"}},
      {"div", B::Div, "__truediv__", "__rtruediv__", "__itruediv__", false, true, {"divide", "true_divide"}},
      {"floor_divide", B::DivFloor, "__floordiv__", "__rfloordiv__", "__ifloordiv__"},
      {"remainder", B::Remainder, "__mod__", "__rmod__", "__imod__"},
      {"fmod", B::Fmod},
      {"pow", B::Pow, "__pow__", "__rpow__", "__ipow__"},
      {"atan2", B::Atan2, nullptr, nullptr, nullptr, false, true, {"arctan2"}},
      {"hypot", B::Hypot},
      {"copysign", B::Copysign},
      {"maximum", B::Maximum, nullptr, nullptr, nullptr, false, false},
      {"minimum", B::Minimum, nullptr, nullptr, nullptr, false, false},
      {"fmax", B::Fmax, nullptr, nullptr, nullptr, false, false},
      {"fmin", B::Fmin, nullptr, nullptr, nullptr, false, false},
      {"bitwise_and", B::BitAnd, "__and__", "__rand__", "__iand__"},
      {"bitwise_or", B::BitOr, "__or__", "__ror__", "__ior__"},
      {"bitwise_xor", B::BitXor, "__xor__", "__rxor__", "__ixor__"},
      {"bitwise_left_shift", B::Shl, "__lshift__", "__rlshift__", "__ilshift__"},
      {"bitwise_right_shift", B::Shr, "__rshift__", "__rrshift__", "__irshift__"},
      {"logical_and", B::LogicalAnd},
      {"logical_or", B::LogicalOr},
      {"logical_xor", B::LogicalXor},
      {"eq", B::Eq, "__eq__"},
      {"ne", B::Ne, "__ne__", nullptr, nullptr, false, true, {"not_equal"}},
      {"lt", B::Lt, "__lt__", nullptr, nullptr, false, true, {"less"}},
      {"le", B::Le, "__le__", nullptr, nullptr, false, true, {"less_equal"}},
      {"gt", B::Gt, "__gt__", nullptr, nullptr, false, true, {"greater"}},
      {"ge", B::Ge, "__ge__", nullptr, nullptr, false, true, {"greater_equal"}},
      // special functions (ember.special names the torch.special ones: python/ember/special.py)
      {"logaddexp", B::Logaddexp, nullptr, nullptr, nullptr, false, false, {}, true},
      {"logaddexp2", B::Logaddexp2, nullptr, nullptr, nullptr, false, false, {}, true},
      {"xlogy", B::Xlogy},
      {"_special_xlog1py", B::Xlog1py, nullptr, nullptr, nullptr, false, false, {}, false, false},
      {"heaviside", B::Heaviside, nullptr, nullptr, nullptr, false, true, {}, true, true, "values"},
      {"gcd", B::Gcd, nullptr, nullptr, nullptr, false, true, {}, true},
      {"lcm", B::Lcm, nullptr, nullptr, nullptr, false, true, {}, true},
      {"nextafter", B::Nextafter, nullptr, nullptr, nullptr, false, true, {}, true},
      {"igamma", B::Igamma, nullptr, nullptr, nullptr, false, true, {}, true},
      {"igammac", B::Igammac, nullptr, nullptr, nullptr, false, true, {}, true},
      {"_special_zeta", B::Zeta, nullptr, nullptr, nullptr, false, false, {}, false, false},
  };
  for (const BinaryDef& d : defs) def_binary(m, cls, d);
  // As PyTorch's: NumPy scalars and arrays on the left defer to the tensor's reflected operators
  // (np.int64(3) - t is a tensor, not a NumPy array).
  cls.attr("__array_priority__") = 1000;
  // Tensors hash by identity, as in PyTorch (defining __eq__ would otherwise drop __hash__).
  cls.attr("__hash__") = nb::cpp_function([](nb::handle self) { return reinterpret_cast<intptr_t>(self.ptr()); },
                                          nb::is_method());
  // rsub(input, other, alpha) = other - alpha * input
  m.def("rsub", [](const Tensor& a, nb::handle b, nb::handle alpha) {
    return binary_op(BinaryOp::Sub, operand(b, "rsub"), a, {}, alpha.is_none() ? Scalar(1) : to_scalar(alpha, "rsub"));
  }, nb::arg("input"), nb::arg("other"), nb::arg("alpha") = nb::none());
}

}  // namespace ember::py
