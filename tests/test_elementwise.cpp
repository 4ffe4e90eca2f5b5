// The elementwise engine and reductions from C++ (ember/ops/binary.h, unary.h, ternary.h, reduce.h):
// operators, Operand with numbers, promotion, the threaded path, reductions over permuted tensors, and
// the exceptions errors throw.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "ember/ops.h"
#include "ember/parallel.h"

using namespace ember;

namespace {

template <class T>
std::vector<T> values(const Tensor& t) {
  const Tensor c = contiguous(t);
  const T* p = c.data<T>();
  return std::vector<T>(p, p + c.numel());
}

template <class T>
Tensor make(std::vector<T> v, std::initializer_list<int64_t> shape) {
  std::vector<int64_t> s(shape);
  return from_blob_copy(v.data(), scalar_type_of<T>, s, TensorOptions(scalar_type_of<T>));
}

Tensor f32(std::vector<float> v) { return make<float>(v, {static_cast<int64_t>(v.size())}); }
Tensor bools(std::vector<uint8_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return from_blob_copy(v.data(), ScalarType::UInt8, DimVector{n}, TensorOptions(ScalarType::Bool));
}
Tensor i64(std::vector<int64_t> v) { return make<int64_t>(v, {static_cast<int64_t>(v.size())}); }

// Restores the thread count on scope exit.
struct Threads {
  int before = get_num_threads();
  explicit Threads(int n) { set_num_threads(n); }
  ~Threads() { set_num_threads(before); }
};

}  // namespace

TEST(Elementwise, OperatorsAndBroadcasting) {
  Tensor a = make<float>({1, 2, 3}, {3, 1});
  Tensor b = make<float>({10, 20, 30, 40}, {1, 4});
  Tensor s = a + b;
  ASSERT_EQ(std::vector<int64_t>(s.sizes().begin(), s.sizes().end()), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(values<float>(s), (std::vector<float>{11, 21, 31, 41, 12, 22, 32, 42, 13, 23, 33, 43}));
  EXPECT_EQ(values<float>(b - a), (std::vector<float>{9, 19, 29, 39, 8, 18, 28, 38, 7, 17, 27, 37}));
  EXPECT_EQ(values<float>(a * 2), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(values<float>(a / 2), (std::vector<float>{0.5f, 1, 1.5f}));
  EXPECT_EQ(values<float>(-a), (std::vector<float>{-1, -2, -3}));
  // Number on the left (Scalar overloads), reflected like Python's 2 - t, 1 / t.
  EXPECT_EQ(values<float>(2 - f32({1, 2, 3})), (std::vector<float>{1, 0, -1}));
  EXPECT_EQ(values<float>(1 / f32({1, 2, 4})), (std::vector<float>{1, 0.5f, 0.25f}));
  EXPECT_EQ(values<float>(3.0 * f32({1, 2})), (std::vector<float>{3, 6}));
  EXPECT_EQ(values<float>(add(f32({1, 2}), f32({3, 4}), 2)), (std::vector<float>{7, 10}));
  EXPECT_EQ(values<float>(sub(f32({1, 2}), 1, 0.5)), (std::vector<float>{0.5f, 1.5f}));
}

TEST(Elementwise, OperandWithNumbersIsWeak) {
  Tensor i32 = to(i64({1, 2, 3}), ScalarType::Int32);
  Tensor r = mul(i32, 2.5);  // a float number lifts integers to the default float dtype
  EXPECT_EQ(r.dtype(), ScalarType::Float32);
  EXPECT_EQ(values<float>(r), (std::vector<float>{2.5f, 5, 7.5f}));
  EXPECT_EQ(add(i32, 1).dtype(), ScalarType::Int32);  // an int number keeps int32
  EXPECT_EQ(add(to(f32({1}), ScalarType::Float16), 1.0).dtype(), ScalarType::Float16);
  Tensor u8 = to(i64({1, 2}), ScalarType::UInt8);
  Tensor w = add(u8, 1000);  // stays uint8 and wraps, as PyTorch
  EXPECT_EQ(w.dtype(), ScalarType::UInt8);
  EXPECT_EQ(values<uint8_t>(w), (std::vector<uint8_t>{(1 + 1000) % 256, (2 + 1000) % 256}));
  EXPECT_EQ(add(u8, true).dtype(), ScalarType::UInt8);
  EXPECT_EQ(add(full({}, 1.5, TensorOptions(ScalarType::Float64)), i32).dtype(), ScalarType::Float64);  // 0-d float
  EXPECT_EQ(add(full({}, 1000, TensorOptions(ScalarType::Int64)), to(i32, ScalarType::Int8)).dtype(),
            ScalarType::Int8);  // a 0-d int does not lift int8
  EXPECT_EQ(div(i64({1, 2}), i64({2, 2})).dtype(), ScalarType::Float32);
  EXPECT_EQ(values<int64_t>(div(i64({7, -7}), 2, "floor")), (std::vector<int64_t>{3, -4}));
  EXPECT_EQ(values<int64_t>(div(i64({7, -7}), 2, "trunc")), (std::vector<int64_t>{3, -3}));
  EXPECT_EQ(values<int64_t>(remainder(i64({7, -7, 7, -7}), i64({3, 3, -3, -3}))), (std::vector<int64_t>{1, 2, -2, -1}));
  EXPECT_EQ(values<int64_t>(fmod(i64({7, -7, 7, -7}), i64({3, 3, -3, -3}))), (std::vector<int64_t>{1, -1, 1, -1}));
  EXPECT_EQ(values<bool>(gt(i64({1, 5}), 3)), (std::vector<bool>{false, true}));  // (Tensor, Scalar), as PyTorch
  EXPECT_EQ(values<int64_t>(pow(2, i64({0, 3, 10}))), (std::vector<int64_t>{1, 8, 1024}));
  EXPECT_EQ(values<int64_t>(bitwise_left_shift(i64({1, 1}), i64({3, 64}))), (std::vector<int64_t>{8, 0}));
}

TEST(Elementwise, InPlaceThroughOut) {
  Tensor a = f32({1, 2, 3});
  const uint32_t v0 = a.version();
  binary_op(BinaryOp::Add, a, a, a);  // a += a
  EXPECT_EQ(values<float>(a), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(a.version(), v0 + 1);
  // overlapping in place: a[1:] += a[:-1] reads the old values
  Tensor b = f32({1, 2, 3, 4});
  binary_op(BinaryOp::Add, b.slice(0, 1, std::nullopt), b.slice(0, std::nullopt, -1), b.slice(0, 1, std::nullopt));
  EXPECT_EQ(values<float>(b), (std::vector<float>{1, 3, 5, 7}));
  unary_op(UnaryOp::Sqrt, f32({4, 9}), a.slice(0, 0, 2));
  EXPECT_EQ(values<float>(a), (std::vector<float>{2, 3, 6}));
}

TEST(Elementwise, ThreadedPathMatchesScalarLoop) {
  Threads threads(4);
  const int64_t n = 5 * 32768 + 77;
  Tensor x = arange(n, TensorOptions(ScalarType::Float64));
  Tensor y = remainder(x, 97.0);
  Tensor z = add(mul(y, y), 1, 3);  // y * y + 3, in several threads
  const std::vector<double> zv = values<double>(z);
  ASSERT_EQ(static_cast<int64_t>(zv.size()), n);
  for (int64_t i = 0; i < n; i += 1013) {
    const double yi = std::fmod(static_cast<double>(i), 97.0);
    ASSERT_EQ(zv[i], yi * yi + 3) << i;
  }
  EXPECT_EQ(zv[n - 1], std::fmod(n - 1.0, 97.0) * std::fmod(n - 1.0, 97.0) + 3);
  // a transposed operand of another dtype: the blocked casting path in several threads
  Tensor m = to(reshape(remainder(arange(n - 77, TensorOptions(ScalarType::Int64)), 1000), {{5 * 256, 128}}),
                ScalarType::Int32);
  Tensor r = add(m.t(), 0.5);
  ASSERT_EQ(r.dtype(), ScalarType::Float32);
  const std::vector<float> rv = values<float>(r);
  for (int64_t i = 0; i < 128; i += 7)
    for (int64_t j = 0; j < 5 * 256; j += 11)
      ASSERT_EQ(rv[i * 5 * 256 + j], static_cast<float>((j * 128 + i) % 1000) + 0.5f);
  // integer division by zero inside a threaded run comes back as an exception
  Tensor d = ones(DimVector{n}, TensorOptions(ScalarType::Int32));
  fill_(d.slice(0, n - 5, n - 4), 0);
  EXPECT_THROW(floor_divide(d, d), Error);
  EXPECT_THROW(remainder(d, 0), Error);
  EXPECT_NO_THROW(
      floor_divide(full(DimVector{3}, std::numeric_limits<int32_t>::min(), TensorOptions(ScalarType::Int32)), -1));
}

TEST(Elementwise, UnaryAndTernary) {
  Tensor x = f32({-1.5f, 0, 2.25f});
  EXPECT_EQ(values<float>(abs(x)), (std::vector<float>{1.5f, 0, 2.25f}));
  EXPECT_EQ(values<float>(floor(x)), (std::vector<float>{-2, 0, 2}));
  EXPECT_EQ(values<float>(round(f32({0.5f, 1.5f, 2.5f}))), (std::vector<float>{0, 2, 2}));
  EXPECT_EQ(sqrt(i64({4})).dtype(), ScalarType::Float32);
  EXPECT_EQ(values<float>(clamp(x, Scalar(0), Scalar(2))), (std::vector<float>{0, 0, 2}));
  EXPECT_EQ(values<float>(clamp(x, Scalar(2), Scalar(1))), (std::vector<float>{1, 1, 1}));  // min > max: max
  EXPECT_TRUE(std::isnan(values<float>(clamp(x, Scalar(std::nan("")), std::nullopt))[0]));
  Tensor w = where(gt(x, 0), x, 0);
  EXPECT_EQ(values<float>(w), (std::vector<float>{0, 0, 2.25f}));
  EXPECT_EQ(where(gt(x, 0), 1, 2.5).dtype(), ScalarType::Float32);
  EXPECT_EQ(values<float>(lerp(f32({0, 10}), f32({10, 20}), 0.25)), (std::vector<float>{2.5f, 12.5f}));
  EXPECT_EQ(values<float>(addcmul(f32({1, 1}), f32({2, 3}), f32({4, 5}), 0.5)), (std::vector<float>{5, 8.5f}));
  EXPECT_EQ(values<float>(addcdiv(f32({1, 1}), f32({2, 3}), f32({4, 6}), 2)), (std::vector<float>{2, 2}));
}

TEST(ElementwiseReduce, PermutedTensor) {
  // x[i, j, k, l] = i * 1000 + j * 100 + k * 10 + l over [3, 4, 5, 6], then permuted to [5, 3, 6, 4].
  std::vector<double> vals(360);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k)
        for (int l = 0; l < 6; ++l) vals[((i * 4 + j) * 5 + k) * 6 + l] = i * 1000 + j * 100 + k * 10 + l;
  Tensor base = make<double>(vals, {3, 4, 5, 6});
  Tensor p = base.permute({{2, 0, 3, 1}});  // [5, 3, 6, 4]
  ASSERT_FALSE(p.is_contiguous());
  // reduce dims (0, 2) of the permuted tensor = original dims k and l; result [3, 4] over (i, j)
  Tensor s = sum(p, {{0, 2}});
  ASSERT_EQ(std::vector<int64_t>(s.sizes().begin(), s.sizes().end()), (std::vector<int64_t>{3, 4}));
  const std::vector<double> sv = values<double>(s);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(sv[i * 4 + j], 30 * (i * 1000 + j * 100) + 6 * 100 + 5 * 15) << i << j;
  Tensor keep = sum(p, {{0, 2}}, true);
  EXPECT_EQ(std::vector<int64_t>(keep.sizes().begin(), keep.sizes().end()), (std::vector<int64_t>{1, 3, 1, 4}));
  Tensor mx = amax(p, {{1, 3}});  // over i and j: [5, 6] over (k, l)
  const std::vector<double> mv = values<double>(mx);
  for (int k = 0; k < 5; ++k)
    for (int l = 0; l < 6; ++l) EXPECT_EQ(mv[k * 6 + l], 2000 + 300 + k * 10 + l);
  auto [v, idx] = max(p, 1);  // along i: always the last index
  EXPECT_EQ(values<int64_t>(idx), std::vector<int64_t>(5 * 6 * 4, 2));
  EXPECT_EQ(values<double>(mean(p)), std::vector<double>{(2000 + 300 + 40 + 5) / 2.0});
  EXPECT_EQ(sum(to(p, ScalarType::Int32)).dtype(), ScalarType::Int64);
  EXPECT_EQ(values<int64_t>(sum(to(p, ScalarType::Int32))),
            std::vector<int64_t>{static_cast<int64_t>(std::accumulate(vals.begin(), vals.end(), 0.0))});
}

TEST(ElementwiseReduce, LongSumsAreExactAndThreaded) {
  Threads threads(4);
  EXPECT_EQ(values<float>(sum(ones(DimVector{1 << 25})))[0], 33554432.0f);
  EXPECT_EQ(values<float>(sum(ones(DimVector{4096}, TensorOptions(ScalarType::Float16))).to(ScalarType::Float32))[0],
            4096.0f);
  // the outer strategy: a long reduced outer dim
  const std::vector<float> o = values<float>(
      sum(full(DimVector{1000000, 2}, 0.1, TensorOptions(ScalarType::Float32)), {{0}}));
  EXPECT_NEAR(o[0], 1e6 * 0.1f, 1.0);
  EXPECT_NEAR(o[1], 1e6 * 0.1f, 1.0);
  Tensor big = remainder(arange(200001, TensorOptions(ScalarType::Int64)), 1000);
  EXPECT_EQ(values<int64_t>(sum(big))[0], 200 * 499500);
  EXPECT_EQ(values<int64_t>(argmax(big))[0], 999);
}

TEST(ElementwiseErrors, TypesOfExceptions) {
  EXPECT_THROW(f32({1, 2, 3}) + f32({1, 2}), Error);  // shapes don't broadcast
  EXPECT_THROW(floor_divide(i64({1}), 0), Error);     // integer division by zero
  EXPECT_THROW(pow(i64({2}), -1), Error);             // negative integer power
  EXPECT_THROW(sub(bools({1}), bools({1})), Error);
  EXPECT_THROW(sub(i64({1}), true), Error);
  EXPECT_THROW(bitwise_and(f32({1}), f32({1})), Error);
  EXPECT_THROW(div(f32({1}), f32({1}), "round"), Error);
  EXPECT_THROW(binary_op(BinaryOp::Add, i64({1}), 1.5, i64({1})), Error);  // Float can't be cast to Long
  EXPECT_THROW(neg(bools({1})), Error);
  EXPECT_THROW(sum(f32({1, 2}), {{1}}), IndexError);         // dim out of range
  EXPECT_THROW(sum(f32({1, 2}), {{0, 0}}), Error);           // repeated dim
  EXPECT_THROW(max(zeros(DimVector{0, 3}), 0), IndexError);  // reduction over an empty dim
  EXPECT_THROW(max(zeros(DimVector{0})), Error);
  EXPECT_THROW(mean(i64({1, 2})), Error);
  EXPECT_THROW(where(i64({1}), f32({1}), f32({2})), Error);  // non-bool condition
  EXPECT_THROW(clamp(to(i64({1}), ScalarType::UInt8), Scalar(-1), Scalar(300)), Error);
  try {
    sum(f32({1, 2}), {{3}});
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("Dimension out of range"), std::string::npos) << e.what();
  }
  try {
    floor_divide(i64({1}), 0);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ZeroDivisionError"), std::string::npos) << e.what();
  }
}
