// Bindings of the spatial ops (interpolate, grid_sample, affine_grid, pixel_shuffle, unfold/fold) and the distances:
// torch.nn.functional's names and defaults into nn, the ones PyTorch also has at top level (torch.cdist,
// torch.pixel_shuffle, ...) into m. The attention ops are in nn_attention.cpp, registered from here.
#include <nanobind/stl/vector.h>

#include "common.h"
#include "ember/nn/functional/distance.h"
#include "ember/nn/functional/spatial.h"
#include "nn_doc.h"

namespace ember::py {

void init_nn_attention(nb::module_& m, nb::module_& nn);  // nn_attention.cpp

namespace {

using nb::arg;

nb::object none() { return nb::none(); }

bool is_sequence(nb::handle h) { return PyTuple_Check(h.ptr()) || PyList_Check(h.ptr()); }

// An int or a sequence of ints, as a vector (empty for None).
std::vector<int64_t> ints_of(nb::handle h, const char* fn, const char* what) {
  if (h.is_none()) return {};
  DimVector v = is_sequence(h) ? to_int_list(h, fn, what) : DimVector{to_int(h, fn, what)};
  return std::vector<int64_t>(v.begin(), v.end());
}

std::vector<double> floats_of(nb::handle h, const char* fn, const char* what) {
  if (h.is_none()) return {};
  std::vector<double> r;
  if (is_sequence(h)) {
    for (nb::handle item : nb::borrow<nb::sequence>(h)) r.push_back(to_scalar(item, fn).to_double());
  } else {
    r.push_back(to_scalar(h, fn).to_double());
  }
  EMBER_CHECK_TYPE(!r.empty(), fn, "(): ", what, " must not be empty");
  return r;
}

std::optional<bool> opt_bool(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return truthy(h);
}

Tensor interpolate_py(const Tensor& input, nb::handle size, nb::handle scale_factor, const std::string& mode,
                      nb::handle align_corners, nb::handle recompute_scale_factor, bool antialias) {
  if (!size.is_none() && is_sequence(size))
    for (nb::handle item : nb::borrow<nb::sequence>(size))
      EMBER_CHECK_TYPE(PyLong_Check(item.ptr()) || nb::isinstance<Tensor>(item),
                       "expected size to be one of int or "
                       "Tuple[int] or Tuple[int, int] or Tuple[int, int, int], but got size with types [",
                       nb::inst_name(item).c_str(), ", ...]");
  // A sequence must name every spatial dim (a single number applies to all of them).
  const int64_t dims = input.dim() - 2;
  const std::string spatial = shape_str(input.dim() >= 2 ? input.sizes().subspan(2) : input.sizes());
  EMBER_CHECK_VALUE(size.is_none() || !is_sequence(size) || static_cast<int64_t>(nb::len(size)) == dims,
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    "dimensions of ",
                    spatial, " and output size of ", nb::repr(size).c_str(),
                    ". Please provide input "
                    "tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.");
  EMBER_CHECK_VALUE(
      scale_factor.is_none() || !is_sequence(scale_factor) || static_cast<int64_t>(nb::len(scale_factor)) == dims,
      "Input and scale_factor must have the same number of spatial dimensions, but got input with "
      "spatial dimensions of ",
      spatial, " and scale_factor of shape ", nb::repr(scale_factor).c_str(),
      ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, "
      "...,sK) format.");
  return interpolate(input, ints_of(size, "interpolate", "size"),
                     floats_of(scale_factor, "interpolate", "scale_factor"), mode, opt_bool(align_corners),
                     opt_bool(recompute_scale_factor), antialias);
}

// ---- docstrings (Note [Python surface])
constexpr const char* kInterpolateDoc = R"doc(Resizes the input by up- or down-sampling its spatial dimensions.

The input is :math:`(N, C, d_1, ..., d_K)` with :math:`K` = 1, 2 or 3 spatial dimensions; give either the output
``size`` or a ``scale_factor``. Every mode is a linear map along each spatial dimension (so gradients of any order
exist).

Args:
    input (Tensor): the input, of shape :math:`(N, C, *)` with 1 to 3 spatial dimensions.
    size (int or tuple, optional): the output's spatial size, one value for every dimension or one per
        dimension. Default: ``None``
    scale_factor (float or tuple, optional): the multiplier of each spatial size. Default: ``None``
    mode (str, optional): ``'nearest'``, ``'nearest-exact'``, ``'linear'`` (1 spatial dimension),
        ``'bilinear'`` (2), ``'bicubic'`` (2), ``'trilinear'`` (3) or ``'area'`` (adaptive average pooling).
        Default: ``'nearest'``
    align_corners (bool, optional): for the linear and cubic modes, ``True`` aligns the centres of the corner
        pixels of input and output (and keeps their values); ``False`` aligns their outer edges, and samples
        outside the input take the edge values. Default: ``None`` (``False``)
    recompute_scale_factor (bool, optional): with ``scale_factor``, compute the output size from it and then
        sample with the ratio of the sizes instead of the given factor. Default: ``None``
    antialias (bool, optional): when down-sampling with ``'bilinear'`` or ``'bicubic'``, widen the filter so that
        every input contributes (as PIL does). Default: ``False``

Example::

    >>> x = ember.tensor([[[1.0, 2.0]]])
    >>> F.interpolate(x, scale_factor=2)
    tensor([[[1., 1., 2., 2.]]])
    >>> F.interpolate(x, size=3, mode='linear', align_corners=True)
    tensor([[[1.0000, 1.5000, 2.0000]]])
)doc";

constexpr const char* kUpsampleDoc =
    R"doc(Resizes the input by up- or down-sampling its spatial dimensions (deprecated).

Deprecated in favour of :func:`interpolate` (with a warning), which it calls with these arguments.

Args:
    input (Tensor): the input, of shape :math:`(N, C, *)` with 1 to 3 spatial dimensions.
    size (int or tuple, optional): the output's spatial size. Default: ``None``
    scale_factor (float or tuple, optional): the multiplier of each spatial size. Default: ``None``
    mode (str, optional): the interpolation mode, as in :func:`interpolate`. Default: ``'nearest'``
    align_corners (bool, optional): as in :func:`interpolate`. Default: ``None``
)doc";

constexpr const char* kUpsampleNearestDoc =
    R"doc(Up-samples the input with nearest-neighbour interpolation (deprecated).

Deprecated in favour of ``interpolate(..., mode='nearest')`` (with a warning).

Args:
    input (Tensor): the input, of shape :math:`(N, C, *)` with 1 to 3 spatial dimensions.
    size (int or tuple, optional): the output's spatial size. Default: ``None``
    scale_factor (float or tuple, optional): the multiplier of each spatial size. Default: ``None``
)doc";

constexpr const char* kUpsampleBilinearDoc =
    R"doc(Up-samples a batch of images with bilinear interpolation (deprecated).

Deprecated in favour of ``interpolate(..., mode='bilinear', align_corners=True)`` (with a warning).

Args:
    input (Tensor): the input, of shape :math:`(N, C, H, W)`.
    size (int or tuple, optional): the output's spatial size. Default: ``None``
    scale_factor (float or tuple, optional): the multiplier of each spatial size. Default: ``None``
)doc";

constexpr const char* kGridSampleDoc = R"doc(Samples the input at the locations given by a grid.

Each output location :math:`(n, h, w)` takes the input's value at the point ``grid[n, h, w]``, a pair
:math:`(x, y)` of coordinates normalized to :math:`[-1, 1]` (-1 the left/top edge, 1 the right/bottom one);
5-d inputs take triples :math:`(x, y, z)`. Gradients flow to the input and to the grid.

Args:
    input (Tensor): the input, of shape :math:`(N, C, H, W)` or :math:`(N, C, D, H, W)`.
    grid (Tensor): the sampling points, of shape :math:`(N, H_{out}, W_{out}, 2)` or
        :math:`(N, D_{out}, H_{out}, W_{out}, 3)`.
    mode (str, optional): ``'bilinear'``, ``'nearest'`` or ``'bicubic'`` (4-d input only). Default:
        ``'bilinear'``
    padding_mode (str, optional): the values of points outside the input: ``'zeros'``, ``'border'`` (the
        nearest edge value) or ``'reflection'`` (mirrored at the edges). Default: ``'zeros'``
    align_corners (bool, optional): ``True`` puts -1 and 1 at the centres of the corner pixels, ``False`` at
        their outer edges. Default: ``None`` (``False``)

Example::

    >>> x = ember.arange(4.).reshape(1, 1, 2, 2)
    >>> grid = ember.tensor([[[[-1.0, -1.0], [1.0, 1.0]]]])
    >>> F.grid_sample(x, grid, align_corners=True)
    tensor([[[[0., 3.]]]])
)doc";

constexpr const char* kAffineGridDoc = R"doc(Generates the sampling grid of a batch of affine transformations.

The result feeds :func:`grid_sample`: each output location's normalized coordinates (in :math:`[-1, 1]`) mapped by
``theta``.

Args:
    theta (Tensor): the affine matrices, :math:`(N, 2, 3)` for 2-d or :math:`(N, 3, 4)` for 3-d.
    size (tuple): the target output size, :math:`(N, C, H, W)` or :math:`(N, C, D, H, W)`.
    align_corners (bool, optional): as in :func:`grid_sample`. Default: ``None`` (``False``)

Returns:
    Tensor: the grid, of shape :math:`(N, H, W, 2)` or :math:`(N, D, H, W, 3)`.

Example::

    >>> theta = ember.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> F.affine_grid(theta, (1, 1, 1, 2), align_corners=True)
    tensor([[[[-1.,  0.],
              [ 1.,  0.]]]])
)doc";

constexpr const char* kPixelShuffleDoc =
    R"doc(Rearranges the elements of a tensor of shape :math:`(*, C r^2, H, W)` to :math:`(*, C, H r, W r)`.

Each group of :math:`r^2` channels becomes an :math:`r \times r` block of pixels, with :math:`r` the
``upscale_factor`` (Shi et al., 2016, "Real-Time Single Image and Video Super-Resolution Using an Efficient
Sub-Pixel Convolutional Neural Network").

Args:
    input (Tensor): the input, of shape :math:`(*, C r^2, H, W)`.
    upscale_factor (int): the factor :math:`r` the spatial size grows by.

Example::

    >>> F.pixel_shuffle(ember.arange(4.).reshape(1, 4, 1, 1), 2)
    tensor([[[[0., 1.],
              [2., 3.]]]])
)doc";

constexpr const char* kPixelUnshuffleDoc =
    R"doc(Rearranges the elements of a tensor of shape :math:`(*, C, H r, W r)` to :math:`(*, C r^2, H, W)`.

The inverse of :func:`pixel_shuffle`: each :math:`r \times r` block of pixels becomes :math:`r^2` channels, with
:math:`r` the ``downscale_factor``.

Args:
    input (Tensor): the input, of shape :math:`(*, C, H r, W r)`.
    downscale_factor (int): the factor :math:`r` the spatial size shrinks by.

Example::

    >>> F.pixel_unshuffle(ember.arange(4.).reshape(1, 1, 2, 2), 2).flatten()
    tensor([0., 1., 2., 3.])
)doc";

constexpr const char* kUnfoldDoc = R"doc(Extracts sliding local blocks from a batched input tensor (im2col).

Each block of ``kernel_size`` pixels of all channels becomes a column: the result has shape
:math:`(N, C \times \prod(\text{kernel\_size}), L)` with :math:`L` the number of block positions. Only 4-d inputs
(batches of images) and 3-d ones (a single image) are supported.

Args:
    input (Tensor): the input, of shape :math:`(N, C, H, W)` or :math:`(C, H, W)`.
    kernel_size (int or tuple): the size of the blocks.
    dilation (int or tuple, optional): the spacing of the elements of a block. Default: 1
    padding (int or tuple, optional): zeros added on both sides of each spatial dimension. Default: 0
    stride (int or tuple, optional): the step of the blocks. Default: 1

Example::

    >>> F.unfold(ember.arange(9.).reshape(1, 1, 3, 3), kernel_size=2).shape
    ember.Size([1, 4, 4])
)doc";

constexpr const char* kFoldDoc =
    R"doc(Combines an array of sliding local blocks into a large containing tensor (col2im).

The adjoint of :func:`unfold`: each column of the input is a block added into the output at its position, so
overlapping blocks sum.

Args:
    input (Tensor): the blocks, of shape :math:`(N, C \times \prod(\text{kernel\_size}), L)` or without
        :math:`N`.
    output_size (int or tuple): the spatial size :math:`(H, W)` of the output.
    kernel_size (int or tuple): the size of the blocks.
    dilation (int or tuple, optional): the spacing of the elements of a block. Default: 1
    padding (int or tuple, optional): the padding of the output that the blocks cover. Default: 0
    stride (int or tuple, optional): the step of the blocks. Default: 1

Example::

    >>> F.fold(ember.ones(1, 4, 4), output_size=(3, 3), kernel_size=2)
    tensor([[[[1., 2., 1.],
              [2., 4., 2.],
              [1., 2., 1.]]]])
)doc";

constexpr const char* kCosineSimilarityDoc =
    R"doc(Returns the cosine similarity between ``x1`` and ``x2`` along a dimension.

.. math::
    \text{similarity} = \frac{x_1 \cdot x_2}{\max(\lVert x_1 \rVert_2, \epsilon) \cdot \max(\lVert x_2 \rVert_2,
    \epsilon)}

The inputs broadcast to a common shape.

Args:
    x1 (Tensor): the first input.
    x2 (Tensor): the second input.
    dim (int, optional): the dimension of the vectors. Default: 1
    eps (float, optional): the least norm divided by. Default: 1e-8

Example::

    >>> F.cosine_similarity(ember.tensor([[1.0, 0.0]]), ember.tensor([[1.0, 1.0]]))
    tensor([0.7071])
)doc";

constexpr const char* kPairwiseDistanceDoc =
    R"doc(Computes the pairwise distance between the vectors of ``x1`` and ``x2``.

.. math::
    \lVert x_1 - x_2 + \epsilon \rVert_p

over the last dimension of the broadcast inputs.

Args:
    x1 (Tensor): the first input, of shape :math:`(N, D)` or :math:`(D)`.
    x2 (Tensor): the second input, which broadcasts with ``x1``.
    p (float, optional): the norm degree. Default: 2
    eps (float, optional): added to the differences, avoiding a zero norm. Default: 1e-6
    keepdim (bool, optional): keep the vector dimension (of size 1). Default: ``False``

Example::

    >>> F.pairwise_distance(ember.tensor([[0.0, 0.0]]), ember.tensor([[3.0, 4.0]]), eps=0.0)
    tensor([5.])
)doc";

constexpr const char* kPdistDoc = R"doc(Computes the p-norm distance between every pair of row vectors of the input.

For an input :math:`(N, M)` the result holds the :math:`N (N - 1) / 2` distances
:math:`\lVert x_i - x_j \rVert_p`, :math:`i < j`, in row-major order (the upper triangle of the distance matrix).

Args:
    input (Tensor): the row vectors, of shape :math:`(N, M)`.
    p (float, optional): the norm degree, in :math:`[0, \infty]`. Default: 2

Example::

    >>> F.pdist(ember.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]))
    tensor([5.0000, 1.0000, 4.2426])
)doc";

constexpr const char* kCdistDoc =
    R"doc(Computes the batched p-norm distance between each pair of the two collections of row vectors.

For ``x1`` :math:`(*, P, M)` and ``x2`` :math:`(*, R, M)` the result :math:`(*, P, R)` holds
:math:`\lVert x_{1i} - x_{2j} \rVert_p`; the batch dimensions broadcast.

Args:
    x1 (Tensor): the first collection, of shape :math:`(*, P, M)`.
    x2 (Tensor): the second collection, of shape :math:`(*, R, M)`.
    p (float, optional): the norm degree, in :math:`[0, \infty]`. Default: 2.0
    compute_mode (str, optional): for ``p = 2``: ``'use_mm_for_euclid_dist_if_necessary'`` (through a matrix
        product when P or R exceeds 25, faster and less exact), ``'use_mm_for_euclid_dist'`` (always) or
        ``'donot_use_mm_for_euclid_dist'`` (never). Default: ``'use_mm_for_euclid_dist_if_necessary'``

Example::

    >>> ember.cdist(ember.tensor([[0.0, 0.0]]), ember.tensor([[3.0, 4.0], [0.0, 1.0]]))
    tensor([[5., 1.]])
)doc";

}  // namespace

void init_nn_spatial(nb::module_& m, nb::module_& nn) {
  // ---- interpolate and the deprecated upsample forms
  const char* sizes = "size: int | Sequence[int] | None = None, scale_factor: float | Sequence[float] | None = None";
  nn.def("interpolate", &interpolate_py,
         nb::sig((std::string("def interpolate(input: Tensor, ") + sizes +
                  ", mode: str = 'nearest', align_corners: "
                  "bool | None = None, recompute_scale_factor: bool | None = None, antialias: bool = False) -> Tensor")
                     .c_str()),
         arg("input"), none_arg("size"), none_arg("scale_factor"), arg("mode") = "nearest", none_arg("align_corners"),
         none_arg("recompute_scale_factor"), arg("antialias") = false, kInterpolateDoc);
  nn.def(
      "upsample",
      [](const Tensor& input, nb::handle size, nb::handle scale_factor, const std::string& mode,
         nb::handle align_corners) {
        warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.");
        return interpolate_py(input, size, scale_factor, mode, align_corners, none(), false);
      },
      nb::sig((std::string("def upsample(input: Tensor, ") + sizes +
               ", mode: str = 'nearest', align_corners: bool | "
               "None = None) -> Tensor")
                  .c_str()),
      arg("input"), none_arg("size"), none_arg("scale_factor"), arg("mode") = "nearest", none_arg("align_corners"),
      kUpsampleDoc);
  nn.def(
      "upsample_nearest",
      [](const Tensor& input, nb::handle size, nb::handle scale_factor) {
        warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.");
        return interpolate_py(input, size, scale_factor, "nearest", none(), none(), false);
      },
      nb::sig((std::string("def upsample_nearest(input: Tensor, ") + sizes + ") -> Tensor").c_str()), arg("input"),
      none_arg("size"), none_arg("scale_factor"), kUpsampleNearestDoc);
  nn.def(
      "upsample_bilinear",
      [](const Tensor& input, nb::handle size, nb::handle scale_factor) {
        warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.");
        return interpolate_py(input, size, scale_factor, "bilinear", nb::bool_(true), none(), false);
      },
      nb::sig((std::string("def upsample_bilinear(input: Tensor, ") + sizes + ") -> Tensor").c_str()), arg("input"),
      none_arg("size"), none_arg("scale_factor"), kUpsampleBilinearDoc);

  // ---- sampling grids
  nn.def(
      "grid_sample",
      [](const Tensor& input, const Tensor& grid, const std::string& mode, const std::string& padding_mode,
         nb::handle align_corners) {
        return grid_sample(input, grid, mode, padding_mode, opt_bool(align_corners).value_or(false));
      },
      nb::sig("def grid_sample(input: Tensor, grid: Tensor, mode: str = 'bilinear', padding_mode: str = 'zeros', "
              "align_corners: bool | None = None) -> Tensor"),
      arg("input"), arg("grid"), arg("mode") = "bilinear", arg("padding_mode") = "zeros", none_arg("align_corners"),
      kGridSampleDoc);
  nn.def(
      "affine_grid",
      [](const Tensor& theta, nb::handle size, nb::handle align_corners) {
        return affine_grid(theta, ints_of(size, "affine_grid", "size"), opt_bool(align_corners).value_or(false));
      },
      nb::sig("def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool | None = None) -> Tensor"),
      arg("theta"), arg("size"), none_arg("align_corners"), kAffineGridDoc);

  // ---- pixel shuffle, unfold, fold
  for (nb::module_* mod : {&m, &nn}) {
    mod->def("pixel_shuffle", &pixel_shuffle, arg("input"), arg("upscale_factor"), kPixelShuffleDoc);
    mod->def("pixel_unshuffle", &pixel_unshuffle, arg("input"), arg("downscale_factor"), kPixelUnshuffleDoc);
  }
  const char* size = "int | Sequence[int]";
  nn.def(
      "unfold",
      [](const Tensor& input, nb::handle kernel_size, nb::handle dilation, nb::handle padding, nb::handle stride) {
        const char* fn = "unfold";
        return im2col(input, ints_of(kernel_size, fn, "kernel_size"), ints_of(dilation, fn, "dilation"),
                      ints_of(padding, fn, "padding"), ints_of(stride, fn, "stride"));
      },
      nb::sig(fill("def unfold(input: Tensor, kernel_size: $s, dilation: $s = 1, padding: $s = 0, stride: $s = 1) -> "
                   "Tensor",
                   {{"$s", size}})
                  .c_str()),
      arg("input"), arg("kernel_size"), arg("dilation") = 1, arg("padding") = 0, arg("stride") = 1, kUnfoldDoc);
  nn.def(
      "fold",
      [](const Tensor& input, nb::handle output_size, nb::handle kernel_size, nb::handle dilation, nb::handle padding,
         nb::handle stride) {
        const char* fn = "fold";
        return col2im(input, ints_of(output_size, fn, "output_size"), ints_of(kernel_size, fn, "kernel_size"),
                      ints_of(dilation, fn, "dilation"), ints_of(padding, fn, "padding"),
                      ints_of(stride, fn, "stride"));
      },
      nb::sig(fill("def fold(input: Tensor, output_size: $s, kernel_size: $s, dilation: $s = 1, padding: $s = 0, "
                   "stride: $s = 1) -> Tensor",
                   {{"$s", size}})
                  .c_str()),
      arg("input"), arg("output_size"), arg("kernel_size"), arg("dilation") = 1, arg("padding") = 0, arg("stride") = 1,
      kFoldDoc);

  // ---- distances
  for (nb::module_* mod : {&m, &nn}) {
    mod->def("cosine_similarity", &cosine_similarity, arg("x1"), arg("x2"), arg("dim") = 1, arg("eps") = 1e-8,
             kCosineSimilarityDoc);
    mod->def("pairwise_distance", &pairwise_distance, arg("x1"), arg("x2"), arg("p") = 2.0, arg("eps") = 1e-6,
             arg("keepdim") = false, kPairwiseDistanceDoc);
    mod->def("pdist", &pdist, arg("input"), arg("p") = 2.0, kPdistDoc);
  }
  // compute_mode=None is accepted too (the default), beyond PyTorch.
  m.def(
      "cdist",
      [](const Tensor& x1, const Tensor& x2, double p, nb::handle compute_mode) {
        return cdist(x1, x2, p, compute_mode.is_none() ? "use_mm_for_euclid_dist_if_necessary" : utf8(compute_mode));
      },
      nb::sig("def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "
              "'use_mm_for_euclid_dist_if_necessary') -> Tensor"),
      arg("x1"), arg("x2"), arg("p") = 2.0, arg("compute_mode").none() = "use_mm_for_euclid_dist_if_necessary",
      kCdistDoc);

  init_nn_attention(m, nn);
}

}  // namespace ember::py
