// Bindings of the convolution and pooling ops (ember/nn/conv.h, ember/nn/pooling.h) with PyTorch's signatures and
// docstrings: torch.nn.functional's forms in ember._C._nn, and those PyTorch also has at top level (torch.conv2d,
// torch.max_pool2d, torch.avg_pool1d, ...) in ember._C. The 1-, 2- and 3-d members of a family share docstring
// templates (nd_text).
#include <nanobind/stl/pair.h>

#include "common.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/functional/pooling.h"
#include "nn_doc.h"

namespace ember::py {

namespace {

// An int or a sequence of ints; None (or an empty sequence) gives an empty list, which the ops read as the default.
DimVector ints(nb::handle h, const char* fn, const char* what) {
  if (h.is_none()) return {};
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) return to_int_list(h, fn, what);
  return {to_int(h, fn, what)};
}

Tensor opt_tensor(nb::handle h, const char* fn, const char* what) {
  if (h.is_none()) return {};
  EMBER_CHECK_TYPE(nb::isinstance<Tensor>(h), fn, "(): argument '", what, "' must be Tensor, not ",
                   nb::inst_name(h).c_str());
  return nb::cast<Tensor>(h);
}

std::optional<int64_t> opt_int(nb::handle h, const char* fn, const char* what) {
  if (h.is_none()) return std::nullopt;
  return to_int(h, fn, what);
}

// Adaptive pooling's output_size: an int, or a sequence whose None entries keep the input's size.
DimVector output_size(const Tensor& x, nb::handle h, size_t nsp, const char* fn) {
  if (!(PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()))) return {to_int(h, fn, "output_size")};
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(h.ptr());
  PyObject** items = PySequence_Fast_ITEMS(h.ptr());
  DimVector r;
  for (Py_ssize_t i = 0; i < n; ++i) {
    nb::handle item(items[i]);
    const int64_t dim = x.dim() - static_cast<int64_t>(nsp) + i;
    r.push_back(item.is_none() && dim >= 0 && dim < x.dim() ? x.size(dim) : to_int(item, fn, "output_size"));
  }
  return r;
}

nb::object values_or_pair(std::pair<Tensor, Tensor> r, bool return_indices) {
  if (return_indices) return nb::make_tuple(std::move(r.first), std::move(r.second));
  return nb::cast(std::move(r.first));
}

using Conv = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, int64_t);
using ConvStr = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, IntArrayRef, std::string_view, IntArrayRef,
                           int64_t);
using ConvT = Tensor (*)(const Tensor&, const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, int64_t,
                         IntArrayRef);
using MaxPool = std::pair<Tensor, Tensor> (*)(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool);
using MaxPoolValues = Tensor (*)(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool);
using AdaptiveAvg = Tensor (*)(const Tensor&, IntArrayRef);
using AdaptiveMax = std::pair<Tensor, Tensor> (*)(const Tensor&, IntArrayRef);
using Unpool = Tensor (*)(const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef);

struct Family {
  size_t nsp;
  const char *conv, *conv_t, *max_pool, *max_pool_wi, *avg_pool, *adaptive_avg, *adaptive_max, *adaptive_max_wi,
      *unpool;
  Conv conv_fn;
  ConvStr conv_str_fn;
  ConvT conv_t_fn;
  MaxPool max_pool_fn;
  MaxPoolValues max_pool_values_fn;
  AdaptiveAvg adaptive_avg_fn;
  AdaptiveMax adaptive_max_fn;
  Unpool unpool_fn;
};

const Family kFamilies[] = {
    {1, "conv1d", "conv_transpose1d", "max_pool1d", "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d",
     "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices", "max_unpool1d", &conv1d, &conv1d, &conv_transpose1d,
     &max_pool1d_with_indices, &max_pool1d, &adaptive_avg_pool1d, &adaptive_max_pool1d, &max_unpool1d},
    {2, "conv2d", "conv_transpose2d", "max_pool2d", "max_pool2d_with_indices", "avg_pool2d", "adaptive_avg_pool2d",
     "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices", "max_unpool2d", &conv2d, &conv2d, &conv_transpose2d,
     &max_pool2d_with_indices, &max_pool2d, &adaptive_avg_pool2d, &adaptive_max_pool2d, &max_unpool2d},
    {3, "conv3d", "conv_transpose3d", "max_pool3d", "max_pool3d_with_indices", "avg_pool3d", "adaptive_avg_pool3d",
     "adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "max_unpool3d", &conv3d, &conv3d, &conv_transpose3d,
     &max_pool3d_with_indices, &max_pool3d, &adaptive_avg_pool3d, &adaptive_max_pool3d, &max_unpool3d},
};

// Docstrings of the n-d members of each family, as templates: $n -> "2", $sp -> the input's spatial sizes
// ("H_{in}, W_{in}"), $k -> the kernel's ("kH, kW"), $sz -> "8, 8" and $ks -> "3, 3" (the examples' sizes).
std::string nd_text(std::string_view t, size_t n) {
  static const char* const sp[] = {"L_{in}", "H_{in}, W_{in}", "D_{in}, H_{in}, W_{in}"};
  static const char* const k[] = {"kL", "kH, kW", "kD, kH, kW"};
  static const char* const sz[] = {"8", "8, 8", "8, 8, 8"};
  static const char* const ks[] = {"3", "3, 3", "3, 3, 3"};
  static const char* const half[] = {"4", "4, 4", "4, 4, 4"};
  return fill(t, {{"$sp", sp[n - 1]},
                  {"$ks", ks[n - 1]},
                  {"$sz", sz[n - 1]},
                  {"$half", half[n - 1]},
                  {"$k", k[n - 1]},
                  {"$n", std::to_string(n)}});
}

constexpr const char* kSizeArg = "int | Sequence[int]";

constexpr const char* kConvDoc = R"doc(Applies a $n-D convolution over an input signal made of several input planes.

Each output channel is the cross-correlation of its group's input channels with that channel's kernel, plus its
bias. Along each spatial dimension the output has

.. math::
    \text{out} = \left\lfloor \frac{\text{in} + 2 \times \text{padding} - \text{dilation} \times
    (\text{kernel\_size} - 1) - 1}{\text{stride}} \right\rfloor + 1

elements. float16 and bfloat16 inputs are computed in float32; gradients of every order are supported.

Args:
    input (Tensor): input of shape :math:`(N, C_{in}, $sp)`, or :math:`(C_{in}, $sp)`
        without a batch dimension (the output then has none either).
    weight (Tensor): kernels of shape :math:`(C_{out}, C_{in} / \text{groups}, $k)`, of the input's dtype.
    bias (Tensor, optional): bias of shape :math:`(C_{out})` added to every output position. Default: ``None``
    stride (int or tuple, optional): step of the kernel, one value for every spatial dimension or one per
        dimension. Default: 1
    padding (int, tuple or str, optional): zeros added on both sides of each spatial dimension, or ``'valid'``
        (no padding) or ``'same'`` (the output keeps the input's size; stride must be 1, and an even kernel pads
        one more at the end). Default: 0
    dilation (int or tuple, optional): spacing between kernel elements. Default: 1
    groups (int, optional): number of groups the input channels are split into, each convolved with its own
        :math:`C_{out} / \text{groups}` kernels; both channel counts must be divisible by it. Default: 1

Returns:
    Tensor: the output, of shape :math:`(N, C_{out}, *)` with the spatial sizes above.

Example::

    >>> x = ember.randn(1, 4, $sz)
    >>> w = ember.randn(6, 4, $ks)
    >>> F.conv$nd(x, w, padding=1).shape
    ember.Size([1, 6, $sz])
    >>> F.conv$nd(x, w, stride=2, padding=1).shape
    ember.Size([1, 6, $half])
)doc";

constexpr const char* kConvTransposeDoc =
    R"doc(Applies a $n-D transposed convolution (sometimes called "deconvolution") over an input made of several planes.

It is the gradient of :func:`conv$nd` with respect to its input: each input element scatters its value times the
kernel into the output. Along each spatial dimension the output has

.. math::
    \text{out} = (\text{in} - 1) \times \text{stride} - 2 \times \text{padding} + \text{dilation} \times
    (\text{kernel\_size} - 1) + \text{output\_padding} + 1

elements. float16 and bfloat16 inputs are computed in float32; gradients of every order are supported.

Args:
    input (Tensor): input of shape :math:`(N, C_{in}, $sp)`, or :math:`(C_{in}, $sp)`
        without a batch dimension.
    weight (Tensor): kernels of shape :math:`(C_{in}, C_{out} / \text{groups}, $k)`.
    bias (Tensor, optional): bias of shape :math:`(C_{out})`. Default: ``None``
    stride (int or tuple, optional): step of the kernel over the output. Default: 1
    padding (int or tuple, optional): ``dilation * (kernel_size - 1) - padding`` zeros are added on both sides of
        each spatial dimension of the input; equivalently, ``padding`` elements are removed from both ends of the
        output. Default: 0
    output_padding (int or tuple, optional): extra size added at the end of each spatial dimension of the output
        (it picks one of the sizes a strided convolution maps to the same input size); must be smaller than stride
        or dilation. Default: 0
    groups (int, optional): number of groups the input channels are split into. Default: 1
    dilation (int or tuple, optional): spacing between kernel elements. Default: 1

Example::

    >>> x = ember.randn(1, 4, $half)
    >>> w = ember.randn(4, 6, $ks)
    >>> F.conv_transpose$nd(x, w, stride=2, padding=1, output_padding=1).shape
    ember.Size([1, 6, $sz])
)doc";

constexpr const char* kMaxPoolWindows = R"doc(
Each output element is the maximum of one window of ``kernel_size`` input elements (spaced by ``dilation``); the
windows move by ``stride``. Padding is implicit negative infinity and at most half the kernel size. Along each
spatial dimension the output has

.. math::
    \text{out} = \left\lfloor \frac{\text{in} + 2 \times \text{padding} - \text{dilation} \times
    (\text{kernel\_size} - 1) - 1}{\text{stride}} \right\rfloor + 1

elements (rounded up with ``ceil_mode``, as long as the last window starts inside the input or its left padding).
float16 and bfloat16 inputs are computed in float32.

Args:
    input (Tensor): input of shape :math:`(N, C, $sp)` or :math:`(C, $sp)`.
    kernel_size (int or tuple): size of the window, one value for every spatial dimension or one per dimension.
)doc";

constexpr const char* kMaxPoolDoc = R"doc(Applies a $n-D max pooling over an input signal made of several input planes.
$windows    stride (int or tuple, optional): step of the window. Default: ``kernel_size``
    padding (int or tuple, optional): implicit negative infinity added on both sides. Default: 0
    dilation (int or tuple, optional): spacing between the elements of a window. Default: 1
    ceil_mode (bool, optional): round the output size up instead of down. Default: ``False``
    return_indices (bool, optional): also return the indices of the maxima (each the flat position within its
        plane of the input, as :func:`max_unpool$nd` takes them). Default: ``False``

Returns:
    Tensor, or (Tensor, Tensor) with ``return_indices``: the pooled values (and their int64 indices).

Example::

    >>> x = ember.arange(16.).reshape(1, 1, 16)
    >>> F.max_pool1d(x, 4)
    tensor([[[ 3.,  7., 11., 15.]]])
    >>> F.max_pool$nd(ember.randn(1, 2, $sz), 2).shape
    ember.Size([1, 2, $half])
)doc";

constexpr const char* kMaxPoolWithIndicesDoc =
    R"doc(Applies a $n-D max pooling and returns the pooled values with the indices of the maxima.

The same as :func:`max_pool$nd` with ``return_indices=True`` (whatever ``return_indices`` says).
$windows    stride (int or tuple, optional): step of the window. Default: ``kernel_size``
    padding (int or tuple, optional): implicit negative infinity added on both sides. Default: 0
    dilation (int or tuple, optional): spacing between the elements of a window. Default: 1
    ceil_mode (bool, optional): round the output size up instead of down. Default: ``False``
    return_indices (bool, optional): ignored; the indices are always returned. Default: ``False``

Returns:
    (Tensor, Tensor): the pooled values and the int64 flat position of each maximum within its plane of the input.
)doc";

constexpr const char* kTopMaxPoolDoc =
    R"doc(Applies a $n-D max pooling over an input signal made of several input planes.

The form of :func:`ember.nn.functional.max_pool$nd` at top level: it returns the values only, and an empty stride
means ``kernel_size``.
$windows    stride (int or tuple, optional): step of the window; empty means ``kernel_size``. Default: ``()``
    padding (int or tuple, optional): implicit negative infinity added on both sides. Default: 0
    dilation (int or tuple, optional): spacing between the elements of a window. Default: 1
    ceil_mode (bool, optional): round the output size up instead of down. Default: ``False``
)doc";

constexpr const char* kTopMaxPoolWithIndicesDoc =
    R"doc(Applies a 1-D max pooling and returns the pooled values with the indices of the maxima.

The form of :func:`ember.nn.functional.max_pool1d_with_indices` at top level.
$windows    stride (int or tuple, optional): step of the window; empty means ``kernel_size``. Default: ``()``
    padding (int or tuple, optional): implicit negative infinity added on both sides. Default: 0
    dilation (int or tuple, optional): spacing between the elements of a window. Default: 1
    ceil_mode (bool, optional): round the output size up instead of down. Default: ``False``

Returns:
    (Tensor, Tensor): the pooled values and the int64 position of each maximum within its row of the input.
)doc";

constexpr const char* kAvgPoolDoc =
    R"doc(Applies a $n-D average pooling over an input signal made of several input planes.

Each output element is the mean of one window of ``kernel_size`` input elements; the windows move by ``stride``.
Along each spatial dimension the output has

.. math::
    \text{out} = \left\lfloor \frac{\text{in} + 2 \times \text{padding} - \text{kernel\_size}}{\text{stride}}
    \right\rfloor + 1

elements (rounded up with ``ceil_mode``, as long as the last window starts inside the input or its left padding).
float16 and bfloat16 inputs are computed in float32.

Args:
    input (Tensor): input of shape :math:`(N, C, $sp)` or :math:`(C, $sp)`.
    kernel_size (int or tuple): size of the window, one value for every spatial dimension or one per dimension.
    stride (int or tuple, optional): step of the window. Default: ``kernel_size``
    padding (int or tuple, optional): zeros added on both sides; at most half the kernel size. Default: 0
    ceil_mode (bool, optional): round the output size up instead of down. Default: ``False``
    count_include_pad (bool, optional): count the padding zeros in the divisor of a window that overlaps them.
        Default: ``True``
$divisor
Example::

    >>> F.avg_pool1d(ember.tensor([[[1., 2., 3., 4., 5., 6.]]]), kernel_size=3, stride=2)
    tensor([[[2., 4.]]])
    >>> F.avg_pool$nd(ember.ones(1, 2, $sz), 2).shape
    ember.Size([1, 2, $half])
)doc";

constexpr const char* kDivisorArg =
    "    divisor_override (int, optional): divide every window's sum by this instead of its size. Default: ``None``\n";

constexpr const char* kAdaptiveAvgDoc =
    R"doc(Applies a $n-D adaptive average pooling over an input signal made of several input planes.

The windows are chosen so that the output has the requested size: along a dimension of size ``in`` pooled to
``out``, output ``i`` averages the inputs :math:`\lfloor i \cdot in / out \rfloor` to
:math:`\lceil (i + 1) \cdot in / out \rceil - 1`. float16 and bfloat16 inputs are computed in float32.

Args:
    input (Tensor): input of shape :math:`(N, C, $sp)` or :math:`(C, $sp)`.
    output_size (int or tuple): the spatial size of the output, one value for every spatial dimension or one per
        dimension; a ``None`` entry keeps that dimension's input size.

Example::

    >>> F.adaptive_avg_pool1d(ember.tensor([[[1., 2., 3., 4., 5.]]]), 2)
    tensor([[[2., 4.]]])
    >>> F.adaptive_avg_pool$nd(ember.ones(1, 2, $sz), 1).shape
    ember.Size([1, 2, $one])
)doc";

constexpr const char* kAdaptiveMaxDoc =
    R"doc(Applies a $n-D adaptive max pooling over an input signal made of several input planes.

The windows are chosen so that the output has the requested size: along a dimension of size ``in`` pooled to
``out``, output ``i`` is the maximum of the inputs :math:`\lfloor i \cdot in / out \rfloor` to
:math:`\lceil (i + 1) \cdot in / out \rceil - 1`.

Args:
    input (Tensor): input of shape :math:`(N, C, $sp)` or :math:`(C, $sp)`.
    output_size (int or tuple): the spatial size of the output, one value for every spatial dimension or one per
        dimension; a ``None`` entry keeps that dimension's input size.
    return_indices (bool, optional): also return the int64 indices of the maxima (flat positions within each
        plane of the input). Default: ``False``$always

Example::

    >>> F.adaptive_max_pool1d(ember.tensor([[[1., 5., 3., 4., 2.]]]), 2)
    tensor([[[5., 4.]]])
)doc";

constexpr const char* kTopAdaptiveMaxDoc =
    R"doc(Applies a 1-D adaptive max pooling and returns the pooled values with the indices of the maxima.

The form of :func:`ember.nn.functional.adaptive_max_pool1d` at top level (it always returns the indices): output
``i`` of ``out`` along a dimension of size ``in`` is the maximum of the inputs :math:`\lfloor i \cdot in / out
\rfloor` to :math:`\lceil (i + 1) \cdot in / out \rceil - 1`.

Args:
    input (Tensor): input of shape :math:`(N, C, L_{in})` or :math:`(C, L_{in})`.
    output_size (int or tuple): the output length.

Returns:
    (Tensor, Tensor): the pooled values and the int64 position of each maximum within its row of the input.
)doc";

constexpr const char* kUnpoolDoc = R"doc(Computes a partial inverse of :func:`max_pool$nd`.

Each value of ``input`` is written at its position in ``indices`` (as :func:`max_pool$nd` returns them, flat within
each plane) of an output filled with zeros; the positions that held no maximum stay zero. Along each spatial
dimension the output has, unless ``output_size`` says otherwise,

.. math::
    \text{out} = (\text{in} - 1) \times \text{stride} - 2 \times \text{padding} + \text{kernel\_size}

elements.

Args:
    input (Tensor): the pooled values, of shape :math:`(N, C, $sp)` or
        :math:`(C, $sp)`.
    indices (Tensor): the int64 indices :func:`max_pool$nd` returned with them.
    kernel_size (int or tuple): the pooling's window size.
    stride (int or tuple, optional): the pooling's stride. Default: ``kernel_size``
    padding (int or tuple, optional): the pooling's padding. Default: 0
    output_size (tuple, optional): the spatial size of the output (or the whole output shape, of which the last
        dimensions count), when the pooling's input size is not the default one. Default: ``None``

Example::

    >>> x = ember.tensor([[[1., 4., 2., 3.]]])
    >>> values, indices = F.max_pool1d(x, 2, return_indices=True)
    >>> F.max_unpool1d(values, indices, 2)
    tensor([[[0., 4., 0., 3.]]])
)doc";

// A docstring template with the text shared by the max-pooling forms ($windows) and `extra_key` filled in, then
// its n-d member.
std::string pool_doc(const char* t, size_t n, std::string_view extra_key = {}, std::string_view extra = {}) {
  const char* one = n == 1 ? "1" : n == 2 ? "1, 1" : "1, 1, 1";
  return nd_text(fill(t, {{"$windows", kMaxPoolWindows}, {"$one", one}, {extra_key, extra}}), n);
}

void def_family(nb::module_& m, nb::module_& nn, const Family& f) {
  const size_t n = f.nsp;
  const std::string size = kSizeArg;
  // nb::sig lines: PyTorch's signatures (nanobind would show the int-or-sequence arguments as `object`).
  auto sig = [](const char* name, const std::string& params, const char* ret) {
    return std::string("def ") + name + "(" + params + ") -> " + ret;
  };
  const std::string conv_sig = sig(f.conv,
                                   "input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: " + size +
                                       " = 1, padding: " + size + " | str = 0, dilation: " + size +
                                       " = 1, groups: int = 1",
                                   "Tensor");
  const std::string conv_doc = nd_text(kConvDoc, n);
  auto conv = nb::cpp_function(
      [f](const Tensor& x, const Tensor& w, nb::handle bias, nb::handle stride, nb::handle padding, nb::handle dilation,
          int64_t groups) {
        const Tensor b = opt_tensor(bias, f.conv, "bias");
        const DimVector s = ints(stride, f.conv, "stride"), d = ints(dilation, f.conv, "dilation");
        if (PyUnicode_Check(padding.ptr())) return f.conv_str_fn(x, w, b, s, utf8(padding), d, groups);
        return f.conv_fn(x, w, b, s, ints(padding, f.conv, "padding"), d, groups);
      },
      nb::scope(m), nb::name(f.conv), nb::sig(conv_sig.c_str()), nb::arg("input"), nb::arg("weight"),
      nb::arg("bias") = nb::none(), nb::arg("stride") = 1, nb::arg("padding") = 0, nb::arg("dilation") = 1,
      nb::arg("groups") = 1, conv_doc.c_str());
  const std::string conv_t_sig = sig(f.conv_t,
                                     "input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: " + size +
                                         " = 1, padding: " + size + " = 0, output_padding: " + size +
                                         " = 0, groups: int = 1, "
                                         "dilation: " +
                                         size + " = 1",
                                     "Tensor");
  const std::string conv_t_doc = nd_text(kConvTransposeDoc, n);
  auto conv_t = nb::cpp_function(
      [f](const Tensor& x, const Tensor& w, nb::handle bias, nb::handle stride, nb::handle padding,
          nb::handle output_padding, int64_t groups, nb::handle dilation) {
        const char* fn = f.conv_t;
        return f.conv_t_fn(x, w, opt_tensor(bias, fn, "bias"), ints(stride, fn, "stride"), ints(padding, fn, "padding"),
                           ints(output_padding, fn, "output_padding"), groups, ints(dilation, fn, "dilation"));
      },
      nb::scope(m), nb::name(f.conv_t), nb::sig(conv_t_sig.c_str()), nb::arg("input"), nb::arg("weight"),
      nb::arg("bias") = nb::none(), nb::arg("stride") = 1, nb::arg("padding") = 0, nb::arg("output_padding") = 0,
      nb::arg("groups") = 1, nb::arg("dilation") = 1, conv_t_doc.c_str());
  nn.attr(f.conv) = conv;  // one callable, as PyTorch's torch.conv2d is F.conv2d (scope m sets ember._C's)
  nn.attr(f.conv_t) = conv_t;

  // (values, indices) when `indices`, else the values alone (computed without indices where no gradient needs them).
  auto max_pool = [f](const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding, nb::handle dilation,
                      bool ceil_mode, bool indices) -> nb::object {
    const char* fn = f.max_pool;
    const DimVector ks = ints(k, fn, "kernel_size"), s = ints(stride, fn, "stride"), p = ints(padding, fn, "padding"),
                    d = ints(dilation, fn, "dilation");
    if (indices) return values_or_pair(f.max_pool_fn(x, ks, s, p, d, ceil_mode), true);
    return nb::cast(f.max_pool_values_fn(x, ks, s, p, d, ceil_mode));
  };
  const std::string pool_params = "input: Tensor, kernel_size: " + size + ", stride: " + size +
                                  " | None = None, padding: " + size + " = 0, dilation: " + size +
                                  " = 1, ceil_mode: bool = False, return_indices: bool = False";
  // torch.nn.functional.max_pool*d(..., return_indices=False) and *_with_indices (always the pair).
  for (bool with_indices : {false, true}) {
    const char* name = with_indices ? f.max_pool_wi : f.max_pool;
    const std::string s = sig(name, pool_params,
                              with_indices ? "tuple[Tensor, Tensor]" : "Tensor | tuple[Tensor, Tensor]");
    const std::string doc = pool_doc(with_indices ? kMaxPoolWithIndicesDoc : kMaxPoolDoc, n);
    nb::cpp_function(
        [max_pool, with_indices](const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding,
                                 nb::handle dilation, bool ceil_mode, bool return_indices) {
          return max_pool(x, k, stride, padding, dilation, ceil_mode, with_indices || return_indices);
        },
        nb::scope(nn), nb::name(name), nb::sig(s.c_str()), nb::arg("input"), nb::arg("kernel_size"),
        nb::arg("stride") = nb::none(), nb::arg("padding") = 0, nb::arg("dilation") = 1, nb::arg("ceil_mode") = false,
        nb::arg("return_indices") = false, doc.c_str());
  }
  // torch.max_pool*d has no return_indices; torch.max_pool1d_with_indices returns the pair.
  for (bool with_indices : {false, true}) {
    if (with_indices && n != 1) continue;
    const char* name = with_indices ? f.max_pool_wi : f.max_pool;
    const std::string s = sig(name,
                              "input: Tensor, kernel_size: " + size + ", stride: " + size + " = (), padding: " + size +
                                  " = 0, dilation: " + size + " = 1, ceil_mode: bool = False",
                              with_indices ? "tuple[Tensor, Tensor]" : "Tensor");
    const std::string doc = pool_doc(with_indices ? kTopMaxPoolWithIndicesDoc : kTopMaxPoolDoc, n);
    nb::cpp_function([max_pool, with_indices](
                         const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding, nb::handle dilation,
                         bool ceil_mode) { return max_pool(x, k, stride, padding, dilation, ceil_mode, with_indices); },
                     nb::scope(m), nb::name(name), nb::sig(s.c_str()), nb::arg("input"), nb::arg("kernel_size"),
                     nb::arg("stride") = nb::tuple(), nb::arg("padding") = 0, nb::arg("dilation") = 1,
                     nb::arg("ceil_mode") = false, doc.c_str());
  }

  const std::string avg_params = "input: Tensor, kernel_size: " + size + ", stride: " + size +
                                 " | None = None, padding: " + size +
                                 " = 0, ceil_mode: bool = False, count_include_pad: bool = True";
  if (n == 1) {
    const std::string s = sig("avg_pool1d", avg_params, "Tensor");
    const std::string doc = pool_doc(kAvgPoolDoc, n, "$divisor", "");
    auto avg = nb::cpp_function(
        [](const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding, bool ceil_mode, bool include_pad) {
          const char* fn = "avg_pool1d";
          return avg_pool1d(x, ints(k, fn, "kernel_size"), ints(stride, fn, "stride"), ints(padding, fn, "padding"),
                            ceil_mode, include_pad);
        },
        nb::scope(m), nb::name("avg_pool1d"), nb::sig(s.c_str()), nb::arg("input"), nb::arg("kernel_size"),
        nb::arg("stride") = nb::none(), nb::arg("padding") = 0, nb::arg("ceil_mode") = false,
        nb::arg("count_include_pad") = true, doc.c_str());
    nn.attr("avg_pool1d") = avg;
  } else {
    const auto fn_ptr = n == 2 ? &avg_pool2d : &avg_pool3d;
    const std::string s = sig(f.avg_pool, avg_params + ", divisor_override: int | None = None", "Tensor");
    const std::string doc = pool_doc(kAvgPoolDoc, n, "$divisor", kDivisorArg);
    nb::cpp_function(
        [f, fn_ptr](const Tensor& x, nb::handle k, nb::handle stride, nb::handle padding, bool ceil_mode,
                    bool include_pad, nb::handle divisor_override) {
          const char* fn = f.avg_pool;
          return fn_ptr(x, ints(k, fn, "kernel_size"), ints(stride, fn, "stride"), ints(padding, fn, "padding"),
                        ceil_mode, include_pad, opt_int(divisor_override, fn, "divisor_override"));
        },
        nb::scope(nn), nb::name(f.avg_pool), nb::sig(s.c_str()), nb::arg("input"), nb::arg("kernel_size"),
        nb::arg("stride") = nb::none(), nb::arg("padding") = 0, nb::arg("ceil_mode") = false,
        nb::arg("count_include_pad") = true, nb::arg("divisor_override") = nb::none(), doc.c_str());
  }

  const std::string out_size = "output_size: int | Sequence[int | None]";
  const std::string adaptive_avg_sig = sig(f.adaptive_avg, "input: Tensor, " + out_size, "Tensor");
  const std::string adaptive_avg_doc = pool_doc(kAdaptiveAvgDoc, n);
  auto adaptive_avg = nb::cpp_function(
      [f](const Tensor& x, nb::handle size) {
        return f.adaptive_avg_fn(x, output_size(x, size, f.nsp, f.adaptive_avg));
      },
      nb::scope(nn), nb::name(f.adaptive_avg), nb::sig(adaptive_avg_sig.c_str()), nb::arg("input"),
      nb::arg("output_size"), adaptive_avg_doc.c_str());
  auto adaptive_max = [f](const Tensor& x, nb::handle size) {
    return f.adaptive_max_fn(x, output_size(x, size, f.nsp, f.adaptive_max));
  };
  for (bool with_indices : {false, true}) {
    const char* name = with_indices ? f.adaptive_max_wi : f.adaptive_max;
    const std::string s = sig(name, "input: Tensor, " + out_size + ", return_indices: bool = False",
                              with_indices ? "tuple[Tensor, Tensor]" : "Tensor | tuple[Tensor, Tensor]");
    const std::string doc = pool_doc(kAdaptiveMaxDoc, n, "$always",
                                     with_indices ? " (this form always returns them)" : "");
    nb::cpp_function(
        [adaptive_max, with_indices](const Tensor& x, nb::handle size, bool return_indices) {
          return values_or_pair(adaptive_max(x, size), with_indices || return_indices);
        },
        nb::scope(nn), nb::name(name), nb::sig(s.c_str()), nb::arg("input"), nb::arg("output_size"),
        nb::arg("return_indices") = false, doc.c_str());
  }
  if (n == 1) {
    m.attr(f.adaptive_avg) = adaptive_avg;
    const std::string s = sig(f.adaptive_max, "input: Tensor, output_size: int | Sequence[int]",
                              "tuple[Tensor, Tensor]");
    nb::cpp_function(
        [adaptive_max](const Tensor& x, nb::handle size) { return values_or_pair(adaptive_max(x, size), true); },
        nb::scope(m), nb::name(f.adaptive_max), nb::sig(s.c_str()), nb::arg("input"), nb::arg("output_size"),
        kTopAdaptiveMaxDoc);
  }

  const std::string unpool_sig = sig(f.unpool,
                                     "input: Tensor, indices: Tensor, kernel_size: " + size + ", stride: " + size +
                                         " | None = None, padding: " + size +
                                         " = 0, output_size: Sequence[int] | None = None",
                                     "Tensor");
  const std::string unpool_doc = pool_doc(kUnpoolDoc, n);
  nb::cpp_function(
      [f](const Tensor& x, const Tensor& indices, nb::handle k, nb::handle stride, nb::handle padding,
          nb::handle out_size) {
        const char* fn = f.unpool;
        return f.unpool_fn(x, indices, ints(k, fn, "kernel_size"), ints(stride, fn, "stride"),
                           ints(padding, fn, "padding"), ints(out_size, fn, "output_size"));
      },
      nb::scope(nn), nb::name(f.unpool), nb::sig(unpool_sig.c_str()), nb::arg("input"), nb::arg("indices"),
      nb::arg("kernel_size"), nb::arg("stride") = nb::none(), nb::arg("padding") = 0,
      nb::arg("output_size") = nb::none(), unpool_doc.c_str());
}

}  // namespace

void init_nn_conv(nb::module_& m, nb::module_& nn) {
  for (const Family& f : kFamilies) def_family(m, nn, f);
}

}  // namespace ember::py
