// How the CUDA elementwise launcher runs a StridedIter (ember/backend/launch_plan.h, Note [CUDA elementwise
// launcher]): host logic, checked without a GPU on iterators over CPU tensors and on hand-made geometries.
#include <gtest/gtest.h>

#include "ember/backend/launch_plan.h"
#include "ember/ops.h"

using namespace ember;

namespace {

constexpr ScalarType F32 = ScalarType::Float32;

LaunchPlan plan(const StridedIter& it, std::initializer_list<ScalarType> want, int vec_max = 4) {
  return plan_launch(it, std::data(want), vec_max);
}

TEST(LaunchPlan, ContiguousSameDtypeIsLinearAndVectorized) {
  Tensor a = empty({{1000}}, TensorOptions(F32)), out = empty({{1000}}, TensorOptions(F32));
  const LaunchPlan p = plan(StridedIter::make({&out, &a}, out.sizes()), {F32, F32});
  EXPECT_EQ(p.kind, LaunchPlan::Linear);
  EXPECT_TRUE(p.index32);
  EXPECT_EQ(p.vec, 4);
}

TEST(LaunchPlan, MisalignedStartFallsBackToOneElementPerThread) {
  Tensor a = empty({{1001}}, TensorOptions(F32)), out = empty({{1000}}, TensorOptions(F32));
  Tensor tail = narrow(a, 0, 1, 1000);  // 4 bytes past a 16-byte boundary
  const LaunchPlan p = plan(StridedIter::make({&out, &tail}, out.sizes()), {F32, F32});
  EXPECT_EQ(p.kind, LaunchPlan::Linear);
  EXPECT_EQ(p.vec, 1);
}

TEST(LaunchPlan, BroadcastScalarInputStaysLinear) {
  Tensor s = empty({{1}}, TensorOptions(F32)), out = empty({{8, 16}}, TensorOptions(F32));
  Tensor b = expand(s, {{8, 16}});
  Tensor a = empty({{8, 16}}, TensorOptions(F32));
  const LaunchPlan p = plan(StridedIter::make({&out, &a, &b}, out.sizes()), {F32, F32, F32});
  EXPECT_EQ(p.kind, LaunchPlan::Linear);
  EXPECT_EQ(p.vec, 4);
}

TEST(LaunchPlan, TransposedInputIsStrided) {
  Tensor a = empty({{64, 32}}, TensorOptions(F32)), out = empty({{32, 64}}, TensorOptions(F32));
  Tensor t = transpose(a, 0, 1);
  const LaunchPlan p = plan(StridedIter::make({&out, &t}, out.sizes()), {F32, F32});
  EXPECT_EQ(p.kind, LaunchPlan::Strided);
  EXPECT_TRUE(p.index32);
}

TEST(LaunchPlan, OtherDtypesAreCast) {
  Tensor a = empty({{100}}, TensorOptions(ScalarType::Int32)), out = empty({{100}}, TensorOptions(F32));
  EXPECT_EQ(plan(StridedIter::make({&out, &a}, out.sizes()), {F32, F32}).kind, LaunchPlan::Cast);
  // bool output of a comparison: the functor writes bool, so a bool output is not a cast
  Tensor o = empty({{100}}, TensorOptions(ScalarType::Bool)), b = empty({{100}}, TensorOptions(F32));
  const LaunchPlan p = plan(StridedIter::make({&o, &b}, o.sizes()), {ScalarType::Bool, F32});
  EXPECT_EQ(p.kind, LaunchPlan::Linear);
}

// Geometries too large to allocate: the 32-bit decision looks at the element count and every byte offset.
StridedIter fake(int64_t n, int64_t out_stride, int64_t in_stride) {
  StridedIter it;
  it.ntensors = 2;
  it.ndim = 1;
  it.shape = DimVector{n};
  it.strides[0] = DimVector{out_stride};
  it.strides[1] = DimVector{in_stride};
  it.dtypes[0] = it.dtypes[1] = F32;
  it.data[0] = it.data[1] = reinterpret_cast<char*>(uintptr_t(1) << 20);
  it.numel = n;
  return it;
}

TEST(LaunchPlan, ThirtyTwoBitIndexingOnlyWhenEveryOffsetFits) {
  EXPECT_TRUE(plan(fake(int64_t(1) << 28, 4, 4), {F32, F32}).index32);      // 1 GiB per operand
  EXPECT_FALSE(plan(fake(int64_t(1) << 29, 4, 4), {F32, F32}).index32);     // 2 GiB: offsets overflow
  EXPECT_FALSE(plan(fake(int64_t(1) << 31, 4, 0), {F32, F32}).index32);     // 2^31 elements
  EXPECT_FALSE(plan(fake(int64_t(1) << 20, 4, 4096), {F32, F32}).index32);  // a widely strided input
  EXPECT_EQ(plan(fake(int64_t(1) << 20, 4, 4096), {F32, F32}).kind, LaunchPlan::Strided);
  EXPECT_EQ(plan(fake(int64_t(1) << 20, 4, 0), {F32, F32}).kind, LaunchPlan::Linear);
}

}  // namespace
