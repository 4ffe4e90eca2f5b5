// Random sampling (ops/random.cpp); gen = nullptr uses the device's default generator (Note [Random numbers]).
#pragma once

#include <optional>

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember {

Tensor rand(IntArrayRef size, Generator* gen = nullptr, TensorOptions opts = {});
Tensor randn(IntArrayRef size, Generator* gen = nullptr, TensorOptions opts = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef size, Generator* gen = nullptr, TensorOptions opts = {});
Tensor randperm(int64_t n, Generator* gen = nullptr, TensorOptions opts = {});
Tensor normal(double mean, double std, IntArrayRef size, Generator* gen = nullptr, TensorOptions opts = {});
Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen = nullptr);
Tensor normal(const Tensor& mean, double std, Generator* gen = nullptr);
Tensor normal(double mean, const Tensor& std, Generator* gen = nullptr);
Tensor bernoulli(const Tensor& p, Generator* gen = nullptr);
Tensor bernoulli(const Tensor& t, double p, Generator* gen = nullptr);
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false, Generator* gen = nullptr);
const Tensor& uniform_(const Tensor& t, double from = 0, double to = 1, Generator* gen = nullptr);
const Tensor& normal_(const Tensor& t, double mean = 0, double std = 1, Generator* gen = nullptr);
const Tensor& bernoulli_(const Tensor& t, double p, Generator* gen = nullptr);
const Tensor& random_(const Tensor& t, int64_t from, std::optional<int64_t> to, Generator* gen = nullptr);

}  // namespace ember
