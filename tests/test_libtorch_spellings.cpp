// libtorch's everyday C++ spellings work on ember (issue 20): braced sizes, compound assignment, requires_grad_(),
// a custom Module with register_module/register_parameter, and save/load of a module held by a shared_ptr.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

std::vector<float> values(const Tensor& t) {
  Tensor c = t.contiguous();
  return {c.data<float>(), c.data<float>() + c.numel()};
}

}  // namespace

TEST(LibtorchSpellings, BracedSizes) {
  manual_seed(0);
  Tensor r = randn({2, 3});
  EXPECT_EQ(r.dim(), 2);
  EXPECT_EQ(r.size(0), 2);
  EXPECT_EQ(r.size(1), 3);
  Tensor v = arange(12.0).view({-1, 4});  // -1 inferred: 3 x 4
  EXPECT_EQ(v.size(0), 3);
  EXPECT_EQ(values(sum(v, {1})), (std::vector<float>{6, 22, 38}));
  EXPECT_EQ(zeros({2, 2}).numel(), 4);
  EXPECT_EQ(sum(full({3}, 2.5)).item<double>(), 7.5);
  EXPECT_THROW(arange(6.0).view({4, -1}), Error);  // 6 is not a multiple of 4
}

TEST(LibtorchSpellings, CompoundAssignmentIsInPlace) {
  Tensor a = arange(4.0);
  Tensor alias = a;  // the same tensor: compound assignment writes into it, as libtorch's
  a += 1;
  a *= arange(4.0);
  a -= 0.5;
  a /= 2;
  // ((i + 1) * i - 0.5) / 2
  EXPECT_EQ(values(alias), (std::vector<float>{-0.25f, 0.75f, 2.75f, 5.75f}));
  Tensor i = arange(3);  // int64: a float result cannot be written into it
  EXPECT_THROW(i /= 2, Error);
  Tensor small = ones({2});
  EXPECT_THROW(small += ones({3, 2}), Error);  // the result would not fit small's shape
}

TEST(LibtorchSpellings, RequiresGradUnderscore) {
  Tensor w = ones({3}).requires_grad_();
  EXPECT_TRUE(w.requires_grad());
  sum(w * w).backward();
  EXPECT_EQ(values(w.grad()), (std::vector<float>{2, 2, 2}));
  w.requires_grad_(false);
  EXPECT_FALSE(w.requires_grad());
}

namespace {

// A custom Module as libtorch users write them: submodules and a parameter registered by name.
struct Net : nn::Module {
  Net() : nn::Module("Net") {
    fc1 = register_module("fc1", std::make_shared<nn::Linear>(4, 8));
    fc2 = register_module("fc2", std::make_shared<nn::Linear>(8, 2));
    scale = register_parameter("scale", ones({2}));
  }
  Tensor forward(const Tensor& x) override { return fc2->forward(relu(fc1->forward(x))) * scale; }
  std::shared_ptr<nn::Linear> fc1, fc2;
  Tensor scale;
};

}  // namespace

TEST(LibtorchSpellings, CustomModuleSaveAndLoad) {
  manual_seed(1);
  auto net = std::make_shared<Net>();
  std::vector<std::string> names;
  for (const auto& [name, p] : net->named_parameters()) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}));
  Tensor x = randn({5, 4});
  Tensor before = net->forward(x);
  const auto path = (std::filesystem::temp_directory_path() / "ember_libtorch_spellings.ckpt").string();
  save(net, path);
  auto other = std::make_shared<Net>();  // different random weights
  EXPECT_NE(values(other->forward(x)), values(before));
  load(other, path);
  EXPECT_EQ(values(other->forward(x)), values(before));
  std::remove(path.c_str());
}
