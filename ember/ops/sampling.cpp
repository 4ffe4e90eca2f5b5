// The distribution samplers: validate, draw into a float64 buffer from the Philox stream (one generic kernel,
// ember/backend/math/sampling.h), cast into the target. Note [Random numbers], Note [Rejection samplers].
#include "ember/ops/sampling.h"

#include <cmath>

#include "ember/autograd/node.h"
#include "ember/backend/kernels/sampling.h"
#include "ember/backend/math/sampling.h"
#include "ember/detail/random_math.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"
#include "ember/ops/reduce.h"

namespace ember {

namespace {

void check_floating(const Tensor& t, const char* op, const char* what) {
  EMBER_CHECK(is_floating(t.dtype()), op, ": expected a floating point ", what, ", got ", t.dtype());
}

double tiny_of(ScalarType t) {
  switch (t) {
    case ScalarType::Float64: return 2.2250738585072014e-308;
    case ScalarType::Float16: return 6.103515625e-05;
    default: return 1.1754943508222875e-38;  // float32, bfloat16
  }
}

Tensor f64_of(const Tensor& t, IntArrayRef shape) { return contiguous(to(expand(t, shape), ScalarType::Float64)); }

// Draws `shape` values of `kind` as float64 on `dev`. Tensor parameters of CPU tensors are checked here; the CUDA
// kernels check theirs (Note [Deferred device errors]), so no wait for the GPU.
Tensor draw(int kind, IntArrayRef shape, Device dev, const Tensor& a, const Tensor& b, double sa, double sb,
            double tiny, Generator* gen, const char* op, const char* domain) {
  Tensor out = empty(shape, TensorOptions(ScalarType::Float64).device(dev));
  if (dev.is_cpu() && a.defined()) {
    const double* pa = a.data<double>();
    const double* pb = b.defined() ? b.data<double>() : nullptr;
    for (int64_t i = 0, n = a.numel(); i < n; ++i)
      EMBER_CHECK(rnd::sample_params_ok(kind, pa[i], pb ? pb[i] : 0), op, ": ", domain, " (element ", i,
                  " is out of range)");
  }
  Generator& g = rnd::pick_generator(gen, dev, op);
  if (out.numel())
    sample_kernel[dev](out, kind, a, b, sa, sb, tiny,
                       g.take(static_cast<uint64_t>(out.numel()) * rnd::sample_words(kind)));
  return out;
}

// Fills t in place with `kind` samples (random.cpp's in-place samplers' conventions: a sampled value has no
// gradient; while recording, the overwritten tensor's history is replaced).
const Tensor& fill_(const Tensor& t, int kind, double sa, double sb, Generator* gen, const char* op) {
  auto draw_f64 = [&] { return draw(kind, t.sizes(), t.device(), {}, {}, sa, sb, 0, gen, op, ""); };
  if (const Tensor * in[] = {&t}; autograd::needs_grad(in))
    return autograd::inplace_with_grad(t, op, [&] { return to(draw_f64(), t.dtype()); });
  if (t.numel()) copy_into(t, draw_f64());  // the copy casts to t's dtype
  t.bump_version();
  return t;
}

}  // namespace

const Tensor& exponential_(const Tensor& t, double lambd, Generator* gen) {
  check_floating(t, "exponential_", "tensor");
  EMBER_CHECK(lambd >= 0, "exponential_ expects lambda >= 0.0, but found lambda=", lambd);
  return fill_(t, rnd::kExponential, lambd, 0, gen, "exponential_");
}

const Tensor& geometric_(const Tensor& t, double p, Generator* gen) {
  EMBER_CHECK(t.dtype() != ScalarType::Bool, "geometric_: not implemented for bool tensors");
  EMBER_CHECK(p > 0 && p < 1, "geometric_ expects p to be in (0, 1), but got p=", p);
  return fill_(t, rnd::kGeometric, p, 0, gen, "geometric_");
}

const Tensor& cauchy_(const Tensor& t, double median, double sigma, Generator* gen) {
  check_floating(t, "cauchy_", "tensor");
  return fill_(t, rnd::kCauchy, median, sigma, gen, "cauchy_");
}

const Tensor& log_normal_(const Tensor& t, double mean, double std, Generator* gen) {
  check_floating(t, "log_normal_", "tensor");
  EMBER_CHECK(std > 0, "log_normal_ expects std > 0.0, but found std=", std);
  return fill_(t, rnd::kLogNormal, mean, std, gen, "log_normal_");
}

Tensor standard_gamma(const Tensor& alpha, Generator* gen) {
  check_floating(alpha, "_standard_gamma", "alpha");
  Tensor out = to(
      draw(rnd::kGamma, alpha.sizes(), alpha.device(), f64_of(alpha, alpha.sizes()), {}, 0, 0, tiny_of(alpha.dtype()),
           gen, "_standard_gamma", "expects all elements of alpha to be non-negative"),
      alpha.dtype());
  if (auto n = autograd::make_node(
          "StandardGammaBackward0", {&alpha}, [](autograd::FormulaNode& n, autograd::TensorList& g) {
            return autograd::TensorList{g[0] * standard_gamma_grad(n.saved_tensor(0), n.saved_tensor(1))};
          })) {
    n->save(alpha);
    n->save_output(out);
    autograd::set_history(out, n);
  }
  return out;
}

Tensor standard_gamma_grad(const Tensor& alpha, const Tensor& x) {
  check_floating(alpha, "_standard_gamma_grad", "alpha");
  EMBER_CHECK(alpha.device() == x.device(),
              "_standard_gamma_grad: Expected all tensors to be on the same device, "
              "but found at least two devices, ",
              alpha.device(), " and ", x.device(), "!");
  DimVector shape = broadcast_shapes(alpha.sizes(), x.sizes(), "_standard_gamma_grad");
  Tensor out = empty(shape, TensorOptions(ScalarType::Float64).device(alpha.device()));
  if (out.numel()) standard_gamma_grad_kernel[out.device()](out, f64_of(alpha, shape), f64_of(x, shape));
  Tensor r = to(out, promote_types(alpha.dtype(), x.dtype()));
  const Tensor* in[] = {&alpha, &x};
  autograd::record_not_implemented("_standard_gamma_grad", in, std::span(&r, 1));
  return r;
}

Tensor sample_dirichlet(const Tensor& alpha, Generator* gen) {
  check_floating(alpha, "_sample_dirichlet", "alpha");
  EMBER_CHECK(alpha.dim() >= 1, "_sample_dirichlet: expected alpha with at least one dimension");
  Tensor g = draw(rnd::kGamma, alpha.sizes(), alpha.device(), f64_of(alpha, alpha.sizes()), {}, 0, 0,
                  tiny_of(alpha.dtype()), gen, "_sample_dirichlet", "expects all elements of alpha to be non-negative");
  const int64_t last = -1;
  Tensor x = clamp(to(g / sum(g, {&last, 1}, true), alpha.dtype()), tiny_of(alpha.dtype()), std::nullopt);
  const Tensor* in[] = {&alpha};
  autograd::record_not_implemented("_sample_dirichlet", in, std::span(&x, 1));  // as PyTorch
  return x;
}

Tensor poisson(const Tensor& rates, Generator* gen) {
  check_floating(rates, "poisson", "rates tensor");
  Tensor out = to(draw(rnd::kPoisson, rates.sizes(), rates.device(), f64_of(rates, rates.sizes()), {}, 0, 0, 0, gen,
                       "poisson", "invalid Poisson rate, expected rate to be non-negative"),
                  rates.dtype());
  // as PyTorch: the rates get a zero gradient
  if (auto n = autograd::make_node("PoissonBackward0", {&rates}, [](autograd::FormulaNode&, autograd::TensorList& g) {
        return autograd::TensorList{zeros_like(g[0])};
      }))
    autograd::set_history(out, n);
  return out;
}

namespace {
// A sampler of two broadcast tensor parameters a (named an) and b (bn); the result has their promoted dtype.
Tensor sample_two(int kind, const Tensor& a, const Tensor& b, Generator* gen, const char* op, const char* an,
                  const char* bn, const char* domain) {
  check_floating(a, op, an);
  check_floating(b, op, bn);
  EMBER_CHECK(a.device() == b.device(), op,
              ": Expected all tensors to be on the same device, but found at least two "
              "devices, ",
              a.device(), " and ", b.device(), "!");
  DimVector shape = broadcast_shapes(a.sizes(), b.sizes(), op);
  return to(draw(kind, shape, a.device(), f64_of(a, shape), f64_of(b, shape), 0, 0, 0, gen, op, domain),
            promote_types(a.dtype(), b.dtype()));
}
}  // namespace

Tensor binomial(const Tensor& count, const Tensor& prob, Generator* gen) {
  Tensor r = sample_two(rnd::kBinomial, count, prob, gen, "binomial", "count", "prob",
                        "expects count >= 0 and prob in [0, 1]");
  const Tensor* in[] = {&count, &prob};
  autograd::record_not_implemented("binomial", in, std::span(&r, 1));  // as PyTorch
  return r;
}

Tensor sample_von_mises(const Tensor& loc, const Tensor& concentration, Generator* gen) {
  return sample_two(rnd::kVonMises, loc, concentration, gen, "_sample_von_mises", "loc", "concentration",
                    "expects finite loc and concentration >= 0");
}

}  // namespace ember
