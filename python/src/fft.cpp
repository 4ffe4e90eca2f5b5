// Bindings of the internal spectral ops (ember/ops/fft.h): ember._C._fft_c2c, _fft_r2c and _fft_c2r with aten's
// signatures, on complex tensors in view_as_real's layout (docs/fft.md). ember.fft's public functions are written on
// top of them once ember has a complex dtype.
#include "common.h"
#include "ember/ops/fft.h"
#include "shape_defs.h"

namespace ember::py {

namespace {

constexpr const char* kC2cDoc = R"(
Computes the complex DFT of ``input`` (view_as_real's layout: a last dim of size 2) over the dims ``dim``.

.. math::
    X_k = s \sum_j x_j e^{\mp 2 \pi i jk / n}

with the minus sign when ``forward``; ``s`` is 1 (normalization 0), :math:`1/\sqrt{n}` (1) or :math:`1/n` (2), ``n``
the product of the signal sizes. aten's internal op; docs/fft.md.

Args:
    input (Tensor): a float32 or float64 tensor whose last dim of size 2 holds (re, im).
    dim (list of int): dims of the complex tensor to transform (the last dim of ``input`` excluded).
    normalization (int): 0, 1 or 2.
    forward (bool): the forward (negative exponent) or backward transform.
)";

constexpr const char* kR2cDoc = R"(
Computes the DFT of the real ``input`` over the dims ``dim``, in view_as_real's layout (a last dim of size 2).

With ``onesided`` only the ``n // 2 + 1`` non-redundant values along ``dim[-1]`` are kept. ``normalization`` is 0,
1 or 2 as for :func:`_fft_c2c`. aten's internal op; docs/fft.md.

Args:
    input (Tensor): a float32 or float64 tensor.
    dim (list of int): the dims to transform; the last one is the halved one.
    normalization (int): 0, 1 or 2.
    onesided (bool): keep only the non-redundant half along ``dim[-1]``.
)";

constexpr const char* kC2rDoc = R"(
Computes the real signal of ``last_dim_size`` points along ``dim[-1]`` whose onesided spectrum is ``input``.

The other dims of ``dim`` are complex backward transforms first; ``input.size(dim[-1])`` must be
``last_dim_size // 2 + 1``. ``normalization`` is 0, 1 or 2 (``n`` counts the output's signal sizes). aten's internal
op; docs/fft.md.

Args:
    input (Tensor): a float32 or float64 tensor whose last dim of size 2 holds (re, im).
    dim (list of int): dims of the complex tensor to transform.
    normalization (int): 0, 1 or 2.
    last_dim_size (int): the length of the real signal along ``dim[-1]``.
)";

}  // namespace

void init_fft(nb::module_& m) {
  def_fn(
      m, "_fft_c2c",
      [](const Tensor& x, nb::handle dim, int64_t normalization, bool forward) {
        return fft_c2c(x, to_int_list(dim, "_fft_c2c", "dim"), normalization, forward);
      },
      nb::sig("def _fft_c2c(input: Tensor, dim: Sequence[int], normalization: int, forward: bool) -> Tensor"),
      nb::arg("input"), nb::arg("dim"), nb::arg("normalization"), nb::arg("forward"), kC2cDoc);
  def_fn(
      m, "_fft_r2c",
      [](const Tensor& x, nb::handle dim, int64_t normalization, bool onesided) {
        return fft_r2c(x, to_int_list(dim, "_fft_r2c", "dim"), normalization, onesided);
      },
      nb::sig("def _fft_r2c(input: Tensor, dim: Sequence[int], normalization: int, onesided: bool) -> Tensor"),
      nb::arg("input"), nb::arg("dim"), nb::arg("normalization"), nb::arg("onesided"), kR2cDoc);
  def_fn(
      m, "_fft_c2r",
      [](const Tensor& x, nb::handle dim, int64_t normalization, int64_t last_dim_size) {
        return fft_c2r(x, to_int_list(dim, "_fft_c2r", "dim"), normalization, last_dim_size);
      },
      nb::sig("def _fft_c2r(input: Tensor, dim: Sequence[int], normalization: int, last_dim_size: int) -> Tensor"),
      nb::arg("input"), nb::arg("dim"), nb::arg("normalization"), nb::arg("last_dim_size"), kC2rDoc);
}

}  // namespace ember::py
