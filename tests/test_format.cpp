// Tensor printing. Expected strings are PyTorch 1.13's repr of the same tensors, with "torch." -> "ember."
// in dtype suffixes (ember's dtypes are named ember.float64).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ember/cuda.h"
#include "ember/format.h"
#include "ember/ops.h"

namespace ember {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor vals(std::vector<double> v, ScalarType dtype = ScalarType::Float32) {
  return from_blob_copy(v.data(), ScalarType::Float64, DimVector{static_cast<int64_t>(v.size())}, TensorOptions(dtype));
}

// 0, step, 2*step, ... computed in double, as torch.arange(n) * step does for these exact steps.
Tensor seq(int64_t n, double step, ScalarType dtype = ScalarType::Float32) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(i) * step;
  return vals(v, dtype);
}

Tensor int64_exact() {
  std::vector<int64_t> v = {9007199254740993, std::numeric_limits<int64_t>::min()};
  return from_blob_copy(v.data(), ScalarType::Int64, DimVector{2}, TensorOptions(ScalarType::Int64));
}

// Tiny values only in the middle, which summarisation hides: they must not switch on sci mode.
Tensor summarized_stats() {
  std::vector<double> v(2000, 1e-9);
  const double ends[] = {1.5, 2., 3., 4., 5., 6.};
  for (int i = 0; i < 3; ++i) v[i] = ends[i], v[1997 + i] = ends[3 + i];
  return vals(v);
}

class FormatTest : public ::testing::Test {
 protected:
  void TearDown() override {
    print_options() = PrintOptions();
    set_default_dtype(ScalarType::Float32);
  }
};

struct Case {
  const char* name;
  Tensor t;
  const char* expected;
};

TEST_F(FormatTest, MatchesPyTorch) {
  const Case cases[] = {
      {"Float1d", arange(6, TensorOptions(ScalarType::Float32)), R"(tensor([0., 1., 2., 3., 4., 5.]))"},
      {"Float1dFrac", vals({1.5, -2.25, 3.0}), R"(tensor([ 1.5000, -2.2500,  3.0000]))"},
      {"Float2dInt", arange(6, TensorOptions(ScalarType::Float32)).view(DimVector{2, 3}),
       R"(tensor([[0., 1., 2.],
        [3., 4., 5.]]))"},
      {"Float3d", seq(24, 1.0 / 8).view(DimVector{2, 3, 4}),
       R"(tensor([[[0.0000, 0.1250, 0.2500, 0.3750],
         [0.5000, 0.6250, 0.7500, 0.8750],
         [1.0000, 1.1250, 1.2500, 1.3750]],

        [[1.5000, 1.6250, 1.7500, 1.8750],
         [2.0000, 2.1250, 2.2500, 2.3750],
         [2.5000, 2.6250, 2.7500, 2.8750]]]))"},
      {"Transposed", arange(6, TensorOptions(ScalarType::Float32)).view(DimVector{2, 3}).t(),
       R"(tensor([[0., 3.],
        [1., 4.],
        [2., 5.]]))"},
      {"CommonWidth", vals({1., 10., 100., -5.}), R"(tensor([  1.,  10., 100.,  -5.]))"},
      {"Int64", arange(10), R"(tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))"},
      {"Int32", vals({-1, 20, 300, 4}, ScalarType::Int32).view(DimVector{2, 2}),
       R"(tensor([[ -1,  20],
        [300,   4]], dtype=ember.int32))"},
      {"Int8", vals({-128, 0, 127}, ScalarType::Int8), R"(tensor([-128,    0,  127], dtype=ember.int8))"},
      {"UInt8", vals({0, 255}, ScalarType::UInt8), R"(tensor([  0, 255], dtype=ember.uint8))"},
      {"Int64Exact", int64_exact(), R"(tensor([    9007199254740993, -9223372036854775808]))"},
      {"Bool", vals({1, 0, 0, 1}, ScalarType::Bool).view(DimVector{2, 2}),
       R"(tensor([[ True, False],
        [False,  True]]))"},
      {"Float64", vals({0.1, 2.5, -3.75}, ScalarType::Float64),
       R"(tensor([ 0.1000,  2.5000, -3.7500], dtype=ember.float64))"},
      {"Float64Large", vals({123456789.0, 1.0}, ScalarType::Float64),
       R"(tensor([1.2346e+08, 1.0000e+00], dtype=ember.float64))"},
      {"Float16", vals({0.1, 0.2, 65504.0}, ScalarType::Float16),
       R"(tensor([9.9976e-02, 1.9995e-01, 6.5504e+04], dtype=ember.float16))"},
      {"Float16Small", vals({0.1, 0.2, 0.3}, ScalarType::Float16),
       R"(tensor([0.1000, 0.2000, 0.3000], dtype=ember.float16))"},
      {"BFloat16", vals({0.1, 1.5, -2.0}, ScalarType::BFloat16),
       R"(tensor([ 0.1001,  1.5000, -2.0000], dtype=ember.bfloat16))"},
      {"EmptyRows", zeros(DimVector{0, 3}), R"(tensor([], size=(0, 3)))"},
      {"Empty1d", zeros(DimVector{0}), R"(tensor([]))"},
      {"EmptyInt64", zeros(DimVector{0}, TensorOptions(ScalarType::Int64)), R"(tensor([], dtype=ember.int64))"},
      {"EmptyFloat64_3d", zeros(DimVector{2, 0, 1}, TensorOptions(ScalarType::Float64)),
       R"(tensor([], size=(2, 0, 1), dtype=ember.float64))"},
      {"ZeroDim", full({}, 3.5), R"(tensor(3.5000))"},
      {"ZeroDimInt", full({}, 7), R"(tensor(7))"},
      {"ZeroDimIntFloat", full({}, 2.0), R"(tensor(2.))"},
      {"ZeroDimBool", full({}, true), R"(tensor(True))"},
      {"RequiresGrad", vals({1., 2.}).set_requires_grad(true), R"(tensor([1., 2.], requires_grad=True))"},
      {"NanInf", vals({kNan, kInf, -kInf, 1.5}), R"(tensor([   nan,    inf,   -inf, 1.5000]))"},
      {"NanIntMode", vals({kNan, 1., -20.}), R"(tensor([ nan,   1., -20.]))"},
      {"AllNan", vals({kNan, kNan}), R"(tensor([nan, nan]))"},
      {"AllZero", zeros(DimVector{2, 2}),
       R"(tensor([[0., 0.],
        [0., 0.]]))"},
      {"NegZero", vals({-0.0, 1.0}), R"(tensor([-0., 1.]))"},
      {"NegZeroFrac", vals({-0.0, 0.5}), R"(tensor([-0.0000, 0.5000]))"},
      {"SciLarge", vals({1e10, 1.0}), R"(tensor([1.0000e+10, 1.0000e+00]))"},
      {"SciSmall", vals({1e-5, 1.0}), R"(tensor([1.0000e-05, 1.0000e+00]))"},
      {"SciRatio", vals({0.5, 2000.5}), R"(tensor([5.0000e-01, 2.0005e+03]))"},
      {"SciNan", vals({1e-5, kNan, -kInf}), R"(tensor([1.0000e-05,        nan,       -inf]))"},
      {"Summarized1d", arange(2000, TensorOptions(ScalarType::Float32)),
       R"(tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,
        1.9990e+03]))"},
      {"Summarized2dInt", arange(10000).view(DimVector{100, 100}),
       R"(tensor([[   0,    1,    2,  ...,   97,   98,   99],
        [ 100,  101,  102,  ...,  197,  198,  199],
        [ 200,  201,  202,  ...,  297,  298,  299],
        ...,
        [9700, 9701, 9702,  ..., 9797, 9798, 9799],
        [9800, 9801, 9802,  ..., 9897, 9898, 9899],
        [9900, 9901, 9902,  ..., 9997, 9998, 9999]]))"},
      {"Summarized3d", seq(2400, 0.25).view(DimVector{20, 10, 12}),
       R"(tensor([[[0.0000e+00, 2.5000e-01, 5.0000e-01,  ..., 2.2500e+00,
          2.5000e+00, 2.7500e+00],
         [3.0000e+00, 3.2500e+00, 3.5000e+00,  ..., 5.2500e+00,
          5.5000e+00, 5.7500e+00],
         [6.0000e+00, 6.2500e+00, 6.5000e+00,  ..., 8.2500e+00,
          8.5000e+00, 8.7500e+00],
         ...,
         [2.1000e+01, 2.1250e+01, 2.1500e+01,  ..., 2.3250e+01,
          2.3500e+01, 2.3750e+01],
         [2.4000e+01, 2.4250e+01, 2.4500e+01,  ..., 2.6250e+01,
          2.6500e+01, 2.6750e+01],
         [2.7000e+01, 2.7250e+01, 2.7500e+01,  ..., 2.9250e+01,
          2.9500e+01, 2.9750e+01]],

        [[3.0000e+01, 3.0250e+01, 3.0500e+01,  ..., 3.2250e+01,
          3.2500e+01, 3.2750e+01],
         [3.3000e+01, 3.3250e+01, 3.3500e+01,  ..., 3.5250e+01,
          3.5500e+01, 3.5750e+01],
         [3.6000e+01, 3.6250e+01, 3.6500e+01,  ..., 3.8250e+01,
          3.8500e+01, 3.8750e+01],
         ...,
         [5.1000e+01, 5.1250e+01, 5.1500e+01,  ..., 5.3250e+01,
          5.3500e+01, 5.3750e+01],
         [5.4000e+01, 5.4250e+01, 5.4500e+01,  ..., 5.6250e+01,
          5.6500e+01, 5.6750e+01],
         [5.7000e+01, 5.7250e+01, 5.7500e+01,  ..., 5.9250e+01,
          5.9500e+01, 5.9750e+01]],

        [[6.0000e+01, 6.0250e+01, 6.0500e+01,  ..., 6.2250e+01,
          6.2500e+01, 6.2750e+01],
         [6.3000e+01, 6.3250e+01, 6.3500e+01,  ..., 6.5250e+01,
          6.5500e+01, 6.5750e+01],
         [6.6000e+01, 6.6250e+01, 6.6500e+01,  ..., 6.8250e+01,
          6.8500e+01, 6.8750e+01],
         ...,
         [8.1000e+01, 8.1250e+01, 8.1500e+01,  ..., 8.3250e+01,
          8.3500e+01, 8.3750e+01],
         [8.4000e+01, 8.4250e+01, 8.4500e+01,  ..., 8.6250e+01,
          8.6500e+01, 8.6750e+01],
         [8.7000e+01, 8.7250e+01, 8.7500e+01,  ..., 8.9250e+01,
          8.9500e+01, 8.9750e+01]],

        ...,

        [[5.1000e+02, 5.1025e+02, 5.1050e+02,  ..., 5.1225e+02,
          5.1250e+02, 5.1275e+02],
         [5.1300e+02, 5.1325e+02, 5.1350e+02,  ..., 5.1525e+02,
          5.1550e+02, 5.1575e+02],
         [5.1600e+02, 5.1625e+02, 5.1650e+02,  ..., 5.1825e+02,
          5.1850e+02, 5.1875e+02],
         ...,
         [5.3100e+02, 5.3125e+02, 5.3150e+02,  ..., 5.3325e+02,
          5.3350e+02, 5.3375e+02],
         [5.3400e+02, 5.3425e+02, 5.3450e+02,  ..., 5.3625e+02,
          5.3650e+02, 5.3675e+02],
         [5.3700e+02, 5.3725e+02, 5.3750e+02,  ..., 5.3925e+02,
          5.3950e+02, 5.3975e+02]],

        [[5.4000e+02, 5.4025e+02, 5.4050e+02,  ..., 5.4225e+02,
          5.4250e+02, 5.4275e+02],
         [5.4300e+02, 5.4325e+02, 5.4350e+02,  ..., 5.4525e+02,
          5.4550e+02, 5.4575e+02],
         [5.4600e+02, 5.4625e+02, 5.4650e+02,  ..., 5.4825e+02,
          5.4850e+02, 5.4875e+02],
         ...,
         [5.6100e+02, 5.6125e+02, 5.6150e+02,  ..., 5.6325e+02,
          5.6350e+02, 5.6375e+02],
         [5.6400e+02, 5.6425e+02, 5.6450e+02,  ..., 5.6625e+02,
          5.6650e+02, 5.6675e+02],
         [5.6700e+02, 5.6725e+02, 5.6750e+02,  ..., 5.6925e+02,
          5.6950e+02, 5.6975e+02]],

        [[5.7000e+02, 5.7025e+02, 5.7050e+02,  ..., 5.7225e+02,
          5.7250e+02, 5.7275e+02],
         [5.7300e+02, 5.7325e+02, 5.7350e+02,  ..., 5.7525e+02,
          5.7550e+02, 5.7575e+02],
         [5.7600e+02, 5.7625e+02, 5.7650e+02,  ..., 5.7825e+02,
          5.7850e+02, 5.7875e+02],
         ...,
         [5.9100e+02, 5.9125e+02, 5.9150e+02,  ..., 5.9325e+02,
          5.9350e+02, 5.9375e+02],
         [5.9400e+02, 5.9425e+02, 5.9450e+02,  ..., 5.9625e+02,
          5.9650e+02, 5.9675e+02],
         [5.9700e+02, 5.9725e+02, 5.9750e+02,  ..., 5.9925e+02,
          5.9950e+02, 5.9975e+02]]]))"},
      {"SummarizedStats", summarized_stats(), R"(tensor([1.5000, 2.0000, 3.0000,  ..., 4.0000, 5.0000, 6.0000]))"},
      {"Wrap", seq(30, 1.5),
       R"(tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,
        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,
        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,
        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000]))"},
      {"WrapInt", arange(100, 130),
       R"(tensor([100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113,
        114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127,
        128, 129]))"},
      {"SuffixWrap", seq(12, 1.5, ScalarType::Float64),
       R"(tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,
        12.0000, 13.5000, 15.0000, 16.5000], dtype=ember.float64))"},
      {"SuffixWrap2d", seq(12, 1000.25, ScalarType::Float64).view(DimVector{2, 6}),
       R"(tensor([[    0.0000,  1000.2500,  2000.5000,  3000.7500,  4001.0000,  5001.2500],
        [ 6001.5000,  7001.7500,  8002.0000,  9002.2500, 10002.5000, 11002.7500]],
       dtype=ember.float64))"},
  };
  for (const Case& c : cases) EXPECT_EQ(tensor_repr(c.t), c.expected) << c.name;
}

TEST_F(FormatTest, StreamOperatorIsRepr) {
  std::ostringstream os;
  os << arange(3);
  EXPECT_EQ(os.str(), "tensor([0, 1, 2])");
}

TEST_F(FormatTest, GradFn) {
  EXPECT_EQ(tensor_repr(vals({2., 4.}).set_requires_grad(true), "MulBackward0"),
            "tensor([2., 4.], grad_fn=<MulBackward0>)");
  // The suffix goes on its own line when it would pass the line width.
  std::vector<double> v(100);
  for (int i = 0; i < 100; ++i) v[i] = 1.0 + 1.5 * i;
  EXPECT_EQ(tensor_repr(vals(v).view(DimVector{4, 25}), "AddBackward0"),
            R"(tensor([[  1.0000,   2.5000,   4.0000,   5.5000,   7.0000,   8.5000,  10.0000,
          11.5000,  13.0000,  14.5000,  16.0000,  17.5000,  19.0000,  20.5000,
          22.0000,  23.5000,  25.0000,  26.5000,  28.0000,  29.5000,  31.0000,
          32.5000,  34.0000,  35.5000,  37.0000],
        [ 38.5000,  40.0000,  41.5000,  43.0000,  44.5000,  46.0000,  47.5000,
          49.0000,  50.5000,  52.0000,  53.5000,  55.0000,  56.5000,  58.0000,
          59.5000,  61.0000,  62.5000,  64.0000,  65.5000,  67.0000,  68.5000,
          70.0000,  71.5000,  73.0000,  74.5000],
        [ 76.0000,  77.5000,  79.0000,  80.5000,  82.0000,  83.5000,  85.0000,
          86.5000,  88.0000,  89.5000,  91.0000,  92.5000,  94.0000,  95.5000,
          97.0000,  98.5000, 100.0000, 101.5000, 103.0000, 104.5000, 106.0000,
         107.5000, 109.0000, 110.5000, 112.0000],
        [113.5000, 115.0000, 116.5000, 118.0000, 119.5000, 121.0000, 122.5000,
         124.0000, 125.5000, 127.0000, 128.5000, 130.0000, 131.5000, 133.0000,
         134.5000, 136.0000, 137.5000, 139.0000, 140.5000, 142.0000, 143.5000,
         145.0000, 146.5000, 148.0000, 149.5000]], grad_fn=<AddBackward0>))");
}

TEST_F(FormatTest, PrefixSetsIndent) {
  EXPECT_EQ(tensor_repr(arange(30, TensorOptions(ScalarType::Float32)).view(DimVector{2, 15}), {}, "MyTensor("),
            R"(MyTensor([[ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,
           14.],
          [15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27., 28.,
           29.]]))");
}

TEST_F(FormatTest, LargeTensorReadsOnlyEdges) {
  const char* expected = R"(tensor([[1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],
        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],
        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],
        ...,
        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],
        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],
        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000]]))";
  EXPECT_EQ(tensor_repr(full(DimVector{4096, 4096}, 1.5)), expected);
  // Hidden nan, huge and tiny values change neither the mode nor the width.
  Tensor t = full(DimVector{100, 100}, 2.5);
  t.select(0, 50).select(0, 50).fill_(1e-9);
  t.select(0, 3).select(0, 50).fill_(kNan);
  t.select(0, 0).select(0, 50).fill_(1e12);
  std::string same = expected;
  for (size_t p = same.find("1.5000"); p != std::string::npos; p = same.find("1.5000", p)) same[p] = '2';
  EXPECT_EQ(tensor_repr(t), same);
}

TEST_F(FormatTest, Precision) {
  print_options().precision = 2;
  EXPECT_EQ(tensor_repr(vals({1.12345, -2.5})), "tensor([ 1.12, -2.50])");
  EXPECT_EQ(tensor_repr(vals({1e-5, 1.0})), "tensor([1.00e-05, 1.00e+00])");
}

TEST_F(FormatTest, SciModeOption) {
  print_options().sci_mode = true;
  EXPECT_EQ(tensor_repr(vals({1.5, 2.0})), "tensor([1.5000e+00, 2.0000e+00])");
  EXPECT_EQ(tensor_repr(zeros(DimVector{2})), "tensor([0., 0.])");  // PyTorch ignores the option without nonzero values
  EXPECT_EQ(tensor_repr(arange(3, TensorOptions(ScalarType::Float32))), "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00])");
  print_options().sci_mode = false;
  EXPECT_EQ(tensor_repr(vals({1e10, 1.0})), "tensor([10000000000.,         1.])");
  EXPECT_EQ(tensor_repr(vals({1e-5, 1.0})), "tensor([    0.0000,     1.0000])");
}

TEST_F(FormatTest, ThresholdAndEdgeItems) {
  print_options().threshold = 5;
  print_options().edgeitems = 2;
  EXPECT_EQ(tensor_repr(arange(10)), "tensor([0, 1,  ..., 8, 9])");
  EXPECT_EQ(tensor_repr(arange(12, TensorOptions(ScalarType::Float32)).view(DimVector{3, 4})),
            "tensor([[ 0.,  1.,  2.,  3.],\n        [ 4.,  5.,  6.,  7.],\n        [ 8.,  9., 10., 11.]])");
  print_options().edgeitems = 0;  // Python's t[-0:] is the whole tensor
  EXPECT_EQ(tensor_repr(arange(10)), "tensor([ ..., 0, 1, 2, 3, 4, 5, 6, 7, 8, 9])");
}

TEST_F(FormatTest, LineWidth) {
  print_options().linewidth = 20;
  EXPECT_EQ(tensor_repr(arange(10, TensorOptions(ScalarType::Float32))),
            "tensor([0., 1., 2.,\n        3., 4., 5.,\n        6., 7., 8.,\n        9.])");
  EXPECT_EQ(tensor_repr(arange(6, TensorOptions(ScalarType::Float64)).view(DimVector{2, 3})),
            "tensor([[0., 1., 2.],\n        [3., 4., 5.]],\n       dtype=ember.float64)");
}

TEST_F(FormatTest, DefaultDtype) {
  set_default_dtype(ScalarType::Float64);
  EXPECT_EQ(tensor_repr(vals({1.5, 2.}, ScalarType::Float64)), "tensor([1.5000, 2.0000])");
  EXPECT_EQ(tensor_repr(vals({1.5, 2.})), "tensor([1.5000, 2.0000], dtype=ember.float32)");
  EXPECT_EQ(tensor_repr(zeros(DimVector{0}, TensorOptions(ScalarType::Float32))), "tensor([], dtype=ember.float32)");
}

TEST_F(FormatTest, CudaDevice) {
  if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  Tensor t = to(arange(3, TensorOptions(ScalarType::Float32)), Device(DeviceType::CUDA, 0));
  EXPECT_EQ(tensor_repr(t), "tensor([0., 1., 2.], device='cuda:0')");
  EXPECT_EQ(tensor_repr(to(arange(2000), Device(DeviceType::CUDA, 0))),
            "tensor([   0,    1,    2,  ..., 1997, 1998, 1999], device='cuda:0')");
}

}  // namespace
}  // namespace ember
