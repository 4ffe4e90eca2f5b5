// Bindings of the complex-number views and helpers (ember/ops/complex.h): view_as_real, view_as_complex, real, imag,
// complex, polar, conj, conj_physical, resolve_conj, angle, isreal, and Tensor.real / Tensor.imag as writable views.
#include "common.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

constexpr const char* kViewAsRealDoc = R"(
Returns a view of a complex tensor as a real one whose last dimension, of size 2, holds the real and imaginary parts.

Args:
    input (Tensor): the complex input tensor.

Example::

    >>> ember.view_as_real(ember.tensor([1 + 2j, 3 - 4j]))
    tensor([[ 1.,  2.],
            [ 3., -4.]])
)";

constexpr const char* kViewAsComplexDoc = R"(
Returns a view of a real tensor whose last dimension has size 2 and stride 1 as a complex tensor: the inverse of
:func:`ember.view_as_real`. The other strides and the storage offset must be even.

Args:
    input (Tensor): the float32 or float64 input tensor.

Example::

    >>> ember.view_as_complex(ember.tensor([[1.0, 2.0], [3.0, -4.0]]))
    tensor([1.+2.j, 3.-4.j])
)";

constexpr const char* kRealDoc = R"(
Returns a tensor of the real parts of a complex tensor: a view sharing its memory (a real tensor is returned as it is).

Args:
    input (Tensor): the input tensor.

Example::

    >>> ember.real(ember.tensor([1 + 2j, 3 - 4j]))
    tensor([1., 3.])
)";

constexpr const char* kImagDoc = R"(
Returns a tensor of the imaginary parts of a complex tensor: a view sharing its memory. Real tensors raise.

Args:
    input (Tensor): the complex input tensor.

Example::

    >>> ember.imag(ember.tensor([1 + 2j, 3 - 4j]))
    tensor([ 2., -4.])
)";

constexpr const char* kComplexDoc = R"(
Constructs a complex tensor whose real part is ``real`` and imaginary part is ``imag`` (broadcast together).

Args:
    real (Tensor): the real parts, float32 or float64.
    imag (Tensor): the imaginary parts, of the same dtype as ``real``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.complex(ember.tensor([1.0, 2.0]), ember.tensor([3.0, -4.0]))
    tensor([1.+3.j, 2.-4.j])
)";

constexpr const char* kPolarDoc = R"(
Constructs a complex tensor from absolute values and angles: ``abs * (cos(angle) + i sin(angle))``.

Args:
    abs (Tensor): the absolute values, float32 or float64.
    angle (Tensor): the angles in radians, of the same dtype as ``abs``.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.polar(ember.tensor([2.0]), ember.tensor([0.0]))
    tensor([2.+0.j])
)";

constexpr const char* kConjDoc = R"(
Returns the complex conjugate of ``input`` (a real tensor is returned as it is).

For a complex tensor this is a lazy view: it shares ``input``'s memory and has its conjugate bit set
(:func:`ember.is_conj`), and every op reads it conjugated; :func:`ember.resolve_conj` materializes it.

Args:
    input (Tensor): the input tensor.

Example::

    >>> ember.conj(ember.tensor([1 + 2j]))
    tensor([1.-2.j])
)";

constexpr const char* kConjPhysicalDoc = R"(
Computes the elementwise complex conjugate of ``input`` into a new tensor (a real tensor is returned as it is).

Args:
    input (Tensor): the input tensor.

Keyword args:
    out (Tensor, optional): the output tensor.
)";

constexpr const char* kResolveConjDoc = R"(
Returns ``input`` with its conjugation materialized: a new tensor without the conjugate bit when ``input`` has it,
``input`` itself otherwise.

Args:
    input (Tensor): the input tensor.
)";

constexpr const char* kIsConjDoc = R"(
Returns True if ``input``'s conjugate bit is set: a lazy conjugate view made by :func:`ember.conj`.

Args:
    input (Tensor): the input tensor.
)";

constexpr const char* kAngleDoc = R"(
Computes the elementwise angle (argument, in radians) of ``input``.

For a complex number it is ``atan2(imag, real)``; for a real one 0 for x >= 0 (and -0.0), pi for x < 0, and NaN for
NaN (integer and bool tensors give the default floating-point dtype; the gradient is zero, as PyTorch's).

Args:
    input (Tensor): the input tensor.

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.angle(ember.tensor([-2.0, 0.0, 3.0]))
    tensor([3.1416, 0.0000, 0.0000])
)";

constexpr const char* kIsRealDoc = R"(
Returns a boolean tensor of ``input``'s shape that says which elements are real: those of a complex tensor with a zero
imaginary part; all True for a real tensor (NaN and inf included).

Args:
    input (Tensor): the input tensor.

Example::

    >>> ember.isreal(ember.tensor([1 + 0j, 1 + 1j]))
    tensor([ True, False])
)";

const Sig kOutSig{"*, out: Tensor | None = None", "Tensor"};

// out=: resized to the result's shape first when it differs (an empty out, as PyTorch's resize of outputs).
nb::object write_out(Tensor r, nb::handle out, const char* fn) {
  if (out.is_valid() && !out.is_none()) {
    const Tensor& o = nb::cast<const Tensor&>(out);
    if (!std::ranges::equal(o.sizes(), r.sizes())) resize_(o, r.sizes());
  }
  return finish_out(std::move(r), out, fn);
}

// The value assigned to x.real or x.imag: a tensor, or a number written to every element.
void assign(const Tensor& part, nb::handle v, const char* what) {
  if (nb::isinstance<Tensor>(v))
    part.copy_(nb::cast<const Tensor&>(v));
  else
    part.fill_(to_scalar(v, what));
}

}  // namespace

void init_complex(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  def_fn(
      m, "view_as_real", [](const Tensor& t) { return view_as_real(t); }, nb::arg("input"), kViewAsRealDoc);
  def_fn(
      m, "view_as_complex", [](const Tensor& t) { return view_as_complex(t); }, nb::arg("input"), kViewAsComplexDoc);
  def_fn(
      m, "real", [](const Tensor& t) { return real(t); }, nb::arg("input"), kRealDoc);
  def_fn(
      m, "imag", [](const Tensor& t) { return imag(t); }, nb::arg("input"), kImagDoc);
  def_fn(
      m, "complex",
      [](const Tensor& re, const Tensor& im, nb::handle out) { return write_out(complex(re, im), out, "complex"); },
      nb::sig("def complex(real: Tensor, imag: Tensor, *, out: Tensor | None = None) -> Tensor"), nb::arg("real"),
      nb::arg("imag"), nb::kw_only(), nb::arg("out") = nb::none(), kComplexDoc);
  def_fn(
      m, "polar",
      [](const Tensor& abs, const Tensor& angle, nb::handle out) { return write_out(polar(abs, angle), out, "polar"); },
      nb::sig("def polar(abs: Tensor, angle: Tensor, *, out: Tensor | None = None) -> Tensor"), nb::arg("abs"),
      nb::arg("angle"), nb::kw_only(), nb::arg("out") = nb::none(), kPolarDoc);
  def_both(
      m, cls, "conj", [](const Tensor& t) { return conj(t); }, kConjDoc);
  def_both(
      m, cls, "resolve_conj", [](const Tensor& t) { return resolve_conj(t); }, kResolveConjDoc);
  def_both(
      m, cls, "is_conj", [](const Tensor& t) { return t.is_conj(); }, kIsConjDoc);
  def_fn(
      m, "conj_physical",
      [](const Tensor& t, nb::handle out) { return write_out(conj_physical(t), out, "conj_physical"); },
      nb::sig(kOutSig.text("conj_physical", "input: Tensor").c_str()), nb::arg("input"), nb::kw_only(),
      nb::arg("out") = nb::none(), kConjPhysicalDoc);
  def_fn(
      cls, "conj_physical", [](const Tensor& t) { return conj_physical(t); }, nb::is_method(),
      method_doc(kConjPhysicalDoc, "conj_physical").c_str());
  // torch._C._set_conj: sets or clears the bit in place (the loaders use it to restore a saved conjugate view).
  m.def(
      "_set_conj",
      [](const Tensor& t, bool conj) {
        EMBER_CHECK(!conj || is_complex(t.dtype()), "_set_conj: only a complex tensor can have the conjugate bit, got ",
                    t.dtype());
        t.impl()->set_conj(conj);
      },
      nb::arg("input"), nb::arg("conj"));
  def_inplace<>(cls, "conj_physical_", [](const Tensor& t) { conj_physical_(t); });
  def_fn(
      m, "angle", [](const Tensor& t, nb::handle out) { return write_out(angle(t), out, "angle"); },
      nb::sig(kOutSig.text("angle", "input: Tensor").c_str()), nb::arg("input"), nb::kw_only(),
      nb::arg("out") = nb::none(), kAngleDoc);
  def_fn(
      cls, "angle", [](const Tensor& t) { return angle(t); }, nb::is_method(), method_doc(kAngleDoc, "angle").c_str());
  def_both(
      m, cls, "isreal", [](const Tensor& t) { return isreal(t); }, kIsRealDoc);
  // Tensor.real and Tensor.imag: views, so `x.imag[0] = 1` and `x.real = y` write into x.
  nb::object prop = nb::module_::import_("builtins").attr("property");
  cls.attr("real") = prop(
      nb::cpp_function([](const Tensor& t) { return real(t); }, nb::name("real")),
      nb::cpp_function([](const Tensor& t, nb::handle v) { assign(real(t), v, "real"); }, nb::name("real")), nb::none(),
      "The real part of the tensor: a view of a complex tensor's real parts (a real tensor itself).");
  cls.attr("imag") = prop(nb::cpp_function([](const Tensor& t) { return imag(t); }, nb::name("imag")),
                          nb::cpp_function(
                              [](const Tensor& t, nb::handle v) {
                                if (!t.is_conj()) return assign(imag(t), v, "imag");
                                // A conjugate view's imaginary parts are its memory's negated (Note [The conjugate
                                // bit]).
                                Tensor im = imag(conj(t));
                                assign(im, v, "imag");
                                im.copy_(neg(im));
                              },
                              nb::name("imag")),
                          nb::none(), "The imaginary part of a complex tensor, as a view; real tensors raise.");
}

}  // namespace ember::py
