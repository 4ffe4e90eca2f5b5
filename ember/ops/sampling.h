// Samplers of the distributions (ops/sampling.cpp): exponential_, geometric_, cauchy_, log_normal_, the gamma,
// Dirichlet, Poisson and binomial samplers, and the gamma reparameterization gradient. Formulas and word use:
// ember/backend/math/sampling.h and docs/random.md.
#pragma once

#include "ember/generator.h"
#include "ember/tensor.h"

namespace ember {

const Tensor& exponential_(const Tensor& t, double lambd = 1, Generator* gen = nullptr);
const Tensor& geometric_(const Tensor& t, double p, Generator* gen = nullptr);
const Tensor& cauchy_(const Tensor& t, double median = 0, double sigma = 1, Generator* gen = nullptr);
const Tensor& log_normal_(const Tensor& t, double mean = 1, double std = 2, Generator* gen = nullptr);
// Gamma(alpha, 1) samples, differentiable in alpha (implicit reparameterization, standard_gamma_grad).
Tensor standard_gamma(const Tensor& alpha, Generator* gen = nullptr);
Tensor standard_gamma_grad(const Tensor& alpha, const Tensor& x);
// Dirichlet(alpha) samples along the last dim: gamma samples normalized (not differentiated, as PyTorch's).
Tensor sample_dirichlet(const Tensor& alpha, Generator* gen = nullptr);
Tensor poisson(const Tensor& rates, Generator* gen = nullptr);
// count and prob broadcast; the result has their promoted floating dtype.
Tensor binomial(const Tensor& count, const Tensor& prob, Generator* gen = nullptr);
// von Mises samples on [-pi, pi) (ember.distributions.VonMises); loc and concentration broadcast.
Tensor sample_von_mises(const Tensor& loc, const Tensor& concentration, Generator* gen = nullptr);

}  // namespace ember
