// Bindings of the vector norms and the ops built on them (ember/ops/sort.h, ops/stats.cpp): norm, renorm, dist, and
// with PyTorch's signatures and docstrings (ember.linalg.vector_norm is bound in linalg_functions.cpp).
#include "common.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/ops.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

// dim=None (all dims), an int, or a sequence of ints (() also means all dims, as in torch.norm).
DimVector dims_of(nb::handle h, const char* fn) {
  if (h.is_none()) return {};
  if (is_seq(h)) return to_int_list(h, fn, "dim");
  return {to_int(h, fn, "dim")};
}

// torch.norm: p is a number, None (2), 'fro' or 'nuc'.
Tensor norm_impl(const Tensor& x, nb::handle p, nb::handle dim, bool keepdim, nb::handle dtype) {
  const DimVector dims = dims_of(dim, "norm");
  if (!p.is_none() && PyUnicode_Check(p.ptr())) {
    const std::string s = nb::cast<std::string>(p);
    if (!dtype.is_none() && (s == "fro" || s == "nuc"))
      fail<ValueError>("dtype argument is not supported in ", s == "fro" ? "frobenius" : "nuclear", " norm");
    return norm(x, std::string_view(s), dims, keepdim);
  }
  const double pv = p.is_none() ? 2.0 : to_scalar(p, "norm").to_double();
  return norm(x, pv, dims, keepdim, to_dtype(dtype));
}

Scalar number(nb::handle h, const char* fn) {
  if (nb::isinstance<Tensor>(h)) {
    const Tensor& t = nb::cast<const Tensor&>(h);
    EMBER_CHECK(t.numel() == 1, fn, ": expected a number or a one-element tensor, got shape ", shape_str(t.sizes()));
    return item(t);
  }
  return to_scalar(h, fn);
}

constexpr const char* kNormDoc = R"(
Returns the vector norm of ``input`` over all of its elements or over the dims ``dim``, or its Frobenius norm.

With a number ``p``:

.. math::
    \|x\|_p = \left(\sum_i |x_i|^p\right)^{1/p}

(``p=inf``: the largest :math:`|x_i|`; ``-inf``: the smallest; ``0``: the number of non-zero elements). ``p='fro'``
(the default) is the Frobenius norm, the 2-norm of the elements, over at most two dims; ``p='nuc'`` (the nuclear
norm) raises ``NotImplementedError``. ``input`` must be a floating-point type (or give ``dtype``). This is PyTorch's
legacy function: :func:`ember.linalg.vector_norm` and :func:`ember.linalg.matrix_norm` are the current ones.

Args:
    input (Tensor): the input tensor.
    p (int, float, inf, -inf, 'fro' or 'nuc', optional): the order of the norm; ``None`` is 2. Default: ``'fro'``.
    dim (int or tuple of ints, optional): the dims to reduce. Default: all of them.
    keepdim (bool): whether the reduced dims stay in the result with size 1. Default: ``False``.
    out (Tensor, optional): the output tensor.
    dtype (ember.dtype, optional): the dtype to compute in and return (numeric ``p`` only).

Example::

    >>> x = ember.tensor([[3., 4.], [6., 8.]])
    >>> ember.norm(x, dim=1)
    tensor([ 5., 10.])
    >>> ember.norm(x, p=1)
    tensor(21.)
)";

constexpr const char* kRenormDoc = R"(
Scales each slice of ``input`` along ``dim`` whose ``p``-norm exceeds ``maxnorm`` down to norm ``maxnorm``.

Each sub-tensor ``input.select(dim, i)`` keeps its direction: it is multiplied by ``maxnorm / (norm + 1e-7)`` when
its ``p``-norm is larger than ``maxnorm``, and left as it is otherwise. ``input`` must be a floating-point tensor
with at least 2 dims.

Args:
    input (Tensor): the input tensor.
    p (float): the order of the norm (positive).
    dim (int): the dim whose slices are renormalized.
    maxnorm (float): the largest norm a slice may keep (non-negative).

Keyword args:
    out (Tensor, optional): the output tensor.

Example::

    >>> ember.renorm(ember.tensor([[3., 4.], [6., 8.]]), 2, 0, 5.)
    tensor([[3., 4.],
            [3., 4.]])
)";

constexpr const char* kDistDoc = R"(
Returns the ``p``-norm of ``input - other``, the distance between the two tensors.

``input`` and ``other`` broadcast together; integer differences are computed in the default dtype. ``p`` follows
:func:`ember.linalg.vector_norm` (``inf``, ``-inf`` and ``0`` included).

Args:
    input (Tensor): the first tensor.
    other (Tensor): the second tensor.
    p (float): the order of the norm. Default: ``2``.

Example::

    >>> ember.dist(ember.tensor([1., 1.]), ember.tensor([4., 5.]))
    tensor(5.)
)";

}  // namespace

void init_norms(nb::module_& m) {
  nb::handle cls = nb::type<Tensor>();
  def_fn(
      m, "norm",
      [](const Tensor& x, nb::handle p, nb::handle dim, bool keepdim, nb::handle out, nb::handle dtype) {
        return finish_out(norm_impl(x, p, dim, keepdim, dtype), out, "norm");
      },
      nb::sig("def norm(input: Tensor, p: float | str | None = 'fro', dim: int | Sequence[int] | None = None, "
              "keepdim: bool = False, out: Tensor | None = None, dtype: dtype | None = None) -> Tensor"),
      nb::arg("input"), nb::arg("p").none() = "fro", nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
      nb::arg("out") = nb::none(), nb::arg("dtype") = nb::none(), kNormDoc);
  def_method(cls, "norm", &norm_impl,
             nb::sig("def norm(self, p: float | str | None = 'fro', dim: int | "
                     "Sequence[int] | None = None, keepdim: bool = False, dtype: dtype | "
                     "None = None) -> Tensor"),
             nb::arg("p").none() = "fro", nb::arg("dim") = nb::none(), nb::arg("keepdim") = false,
             nb::arg("dtype") = nb::none(), method_doc(kNormDoc, "norm").c_str());
  auto renorm_fn = [](const Tensor& t, double p, int64_t dim, double maxnorm) { return renorm(t, p, dim, maxnorm); };
  def_fn(
      m, "renorm",
      [renorm_fn](const Tensor& t, double p, int64_t dim, double maxnorm, nb::handle out) {
        return finish_out(renorm_fn(t, p, dim, maxnorm), out, "renorm");
      },
      nb::sig("def renorm(input: Tensor, p: float, dim: int, maxnorm: float, *, out: Tensor | None = None) -> Tensor"),
      nb::arg("input"), nb::arg("p"), nb::arg("dim"), nb::arg("maxnorm"), nb::kw_only(), nb::arg("out") = nb::none(),
      kRenormDoc);
  def_method(cls, "renorm", renorm_fn, nb::arg("p"), nb::arg("dim"), nb::arg("maxnorm"),
             method_doc(kRenormDoc, "renorm").c_str());
  def_inplace<double, int64_t, double>(
      cls, "renorm_",
      [](const Tensor& t, double p, int64_t dim, double maxnorm) {
        if (autograd::is_grad_enabled() && t.requires_grad()) autograd::check_inplace(t, "renorm_");
        t.copy_(renorm(autograd::is_grad_enabled() && t.requires_grad() ? t.clone() : t, p, dim, maxnorm));
      },
      nb::arg("p"), nb::arg("dim"), nb::arg("maxnorm"));

  def_both(
      m, cls, "dist", Sig{"other: Tensor, p: float = 2"},
      [](const Tensor& a, const Tensor& b, nb::handle p) { return dist(a, b, number(p, "dist").to<double>()); },
      kDistDoc, nb::arg("other"), nb::arg("p") = 2);
}

}  // namespace ember::py
