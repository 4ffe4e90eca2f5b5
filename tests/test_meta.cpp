// The meta device (Note [Meta device] in ember/backend/meta/kernels.cpp): tensors with geometry and no data; ops
// give the CPU's shapes, strides and dtypes through the same code, and reading data raises.
#include <gtest/gtest.h>

#include <vector>

#include "ember/allocator.h"
#include "ember/nn/functional.h"
#include "ember/ops.h"

using namespace ember;

namespace {

std::vector<int64_t> vec(IntArrayRef a) { return {a.begin(), a.end()}; }

// The same op on a CPU and a meta input gives the same geometry, and the meta result is on meta.
template <class F>
void expect_same_geometry(F op, std::vector<DimVector> shapes) {
  std::vector<Tensor> cpu, meta;
  for (const DimVector& s : shapes) {
    cpu.push_back(randn(s));
    meta.push_back(randn(s, nullptr, TensorOptions(kMeta)));
  }
  const Tensor c = op(cpu), m = op(meta);
  EXPECT_TRUE(m.device().is_meta());
  EXPECT_EQ(vec(m.sizes()), vec(c.sizes()));
  EXPECT_EQ(vec(m.strides()), vec(c.strides()));
  EXPECT_EQ(m.dtype(), c.dtype());
}

}  // namespace

TEST(Meta, DeviceParsesAndPrints) {
  Device d("meta");
  EXPECT_TRUE(d.is_meta());
  EXPECT_EQ(d.str(), "meta");
  EXPECT_EQ(Device("meta:0").str(), "meta:0");
  EXPECT_STREQ(device_type_name(DeviceType::Meta), "meta");
  EXPECT_THROW(Device("metal"), Error);
}

TEST(Meta, AllocatesNothing) {
  const MemoryStats before = cpu_allocator()->stats();
  Tensor t = empty({{1 << 20, 1 << 20}}, TensorOptions(kMeta));  // 4 TiB of float32
  EXPECT_TRUE(t.is_meta());
  EXPECT_EQ(t.impl()->storage()->nbytes(), size_t{4} << 40);  // the size is recorded, as PyTorch's
  EXPECT_EQ(t.impl()->storage()->data(), nullptr);
  EXPECT_EQ(cpu_allocator()->stats().allocated, before.allocated);
  EXPECT_EQ(meta_allocator()->stats().allocated, 0);
  Tensor r = matmul(t, t.t());  // 4 TiB by 4 TiB: only the geometry is computed
  EXPECT_EQ(vec(r.sizes()), (std::vector<int64_t>{1 << 20, 1 << 20}));
}

TEST(Meta, OpsGiveTheCpuGeometry) {
  using V = std::vector<Tensor>;
  expect_same_geometry([](const V& t) { return add(t[0], t[1]); }, {{4, 1, 3}, {5, 1}});
  expect_same_geometry([](const V& t) { return mul(t[0].t(), 2.5); }, {{3, 7}});
  expect_same_geometry([](const V& t) { return sum(t[0], {{1}}, true); }, {{2, 3, 4}});
  expect_same_geometry([](const V& t) { return matmul(t[0], t[1]); }, {{2, 3, 4}, {4, 5}});
  expect_same_geometry([](const V& t) { return cat({t[0], t[1]}, 1); }, {{2, 3}, {2, 5}});
  expect_same_geometry([](const V& t) { return contiguous(t[0].permute({{2, 0, 1}})); }, {{2, 3, 4}});
  expect_same_geometry([](const V& t) { return softmax(t[0], -1); }, {{2, 3, 4}});
  expect_same_geometry([](const V& t) { return layer_norm(t[0], {{4}}, t[1], t[2]); }, {{2, 3, 4}, {4}, {4}});
  expect_same_geometry(
      [](const V& t) {
        return conv2d(t[0], t[1], t[2], {{2, 2}}, {{1, 1}});
      },
      {{2, 3, 9, 9}, {8, 3, 3, 3}, {8}});
}

TEST(Meta, AutogradComputesShapes) {
  Tensor w = randn({{4, 3}}, nullptr, TensorOptions(kMeta)).requires_grad_();
  Tensor x = randn({{5, 3}}, nullptr, TensorOptions(kMeta));
  sum(matmul(x, w.t())).backward();
  ASSERT_TRUE(w.grad().defined());
  EXPECT_TRUE(w.grad().is_meta());
  EXPECT_EQ(vec(w.grad().sizes()), (std::vector<int64_t>{4, 3}));
}

TEST(Meta, DataRaises) {
  Tensor m = ones({{2, 3}}, TensorOptions(kMeta));
  EXPECT_THROW(m.to(kCPU), NotImplementedError);  // "Cannot copy out of meta tensor; no data!"
  EXPECT_THROW(item(sum(m)), Error);              // "Tensor.item() cannot be called on meta tensors"
  EXPECT_THROW(nonzero(m), NotImplementedError);
  Tensor c = ones({{2, 3}});
  EXPECT_THROW(add(m, c), Error);  // devices differ
  EXPECT_THROW(cat({m, c}), Error);
  // Copying into a meta tensor is a no-op; a 0-d CPU tensor joins a meta op as a number does.
  EXPECT_TRUE(c.to(kMeta).is_meta());
  EXPECT_TRUE(m.copy_(c).is_same(m));
  EXPECT_TRUE(add(m, full({}, 2.0)).is_meta());
}
