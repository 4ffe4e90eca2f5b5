// Random sampling ops. Kernels fill contiguous outputs from a Philox stream (Note [Random numbers]);
// the ops here validate, pick the generator, reserve its words, and copy into non-contiguous targets.
#include <cmath>
#include <limits>

#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/random.h"
#include "ember/detail/random_math.h"
#include "ember/dispatch_hook.h"
#include "ember/ops.h"
#include "ember/ops/detail/util.h"

namespace ember {

Generator& rnd::pick_generator(Generator* gen, Device d, const char* op) {
  // Meta tensors draw nothing: a private generator keeps the other devices' streams untouched (as PyTorch's).
  if (!gen || d.is_meta()) return default_generator(d);
  EMBER_CHECK(gen->device().type == d.type, op, ": Expected a '", device_type_name(d.type),
              "' device type for generator but found '", device_type_name(gen->device().type), "'");
  return *gen;
}

namespace {

void check_float(ScalarType t, const char* op) {
  EMBER_CHECK(is_floating(t), op, ": expected a floating point dtype, got ", t);
}

// Runs fill(contiguous target) on t, going through a temporary when t is not contiguous. Version
// bumps are left to the public in-place ops: tensors that an op has just made start at version 0.
template <class F>
const Tensor& fill_inplace(const Tensor& t, F fill) {
  if (t.numel() == 0) return t;
  if (t.is_contiguous()) {
    fill(t);
  } else {
    Tensor tmp = empty(t.sizes(), TensorOptions(t.dtype()).device(t.device()));
    fill(tmp);
    copy_into(t, tmp);
  }
  return t;
}

const Tensor& bumped(const Tensor& t) {
  t.bump_version();
  return t;
}

// Sampling is not differentiated through its parameters (no reparameterization, as in PyTorch): inputs that
// require grad get zero gradients, and an in-place sample gives the overwritten value a zero gradient.
void record_zero_grad(const char* name, std::initializer_list<const Tensor*> inputs, const Tensor& out) {
  auto n = autograd::make_node(name, inputs, [](autograd::FormulaNode& n, autograd::TensorList& g) {
    autograd::TensorList r(n.next_edges.size());
    for (size_t i = 0; i < r.size(); ++i)
      if (n.needs(i)) r[i] = zeros_like(g[0]);
    return r;
  });
  if (n) autograd::set_history(out, n);
}

// An in-place sampler: fill(t) writes t; while recording, t's history becomes a zero-gradient node.
template <class F>
const Tensor& sample_inplace(const Tensor& t, const char* op, F&& fill) {
  if (const Tensor * in[] = {&t}; autograd::needs_grad(in))
    return autograd::inplace_with_grad(t, op, [&] {
      Tensor r = empty_like(t);
      fill(r);
      return r;
    });
  fill(t);
  return bumped(t);
}

const Tensor& uniform_impl(const Tensor& t, double from, double to, Generator* gen, const char* op);
const Tensor& normal_impl(const Tensor& t, double mean, double std, const Tensor& mt, const Tensor& st, Generator* gen,
                          const char* op);

// A complex tensor is sampled as PyTorch's: its real and imaginary parts are independent samples of the real
// distribution (a normal's std divided by sqrt(2), so that E|z - mean|^2 = std^2), drawn through view_as_real. A
// conjugate view is filled through a temporary (Note [The conjugate bit]).
template <class F>
const Tensor& complex_parts(const Tensor& t, F fill) {
  autograd::NoGradGuard no_grad;
  const bool chalf = t.dtype() == ScalarType::ComplexHalf;  // drawn as complex64 and rounded, as PyTorch's
  if (t.is_conj() || chalf) {
    Tensor tmp = empty(t.sizes(), TensorOptions(chalf ? ScalarType::ComplexFloat : t.dtype()).device(t.device()));
    fill(view_as_real(tmp));
    copy_into(t, tmp);
  } else {
    fill(view_as_real(t));
  }
  return t;
}

const Tensor& uniform_impl(const Tensor& t, double from, double to, Generator* gen, const char* op) {
  if (is_complex(t.dtype()))
    return complex_parts(t, [&](const Tensor& parts) { uniform_impl(parts, from, to, gen, op); });
  check_float(t.dtype(), op);
  EMBER_CHECK(from <= to, op, ": expects to return a [from, to) range, but found from=", from, " > to=", to);
  Generator& g = rnd::pick_generator(gen, t.device(), op);
  return fill_inplace(t, [&](const Tensor& c) {
    const uint64_t words = c.numel() * rnd::uniform_words(c.dtype() == ScalarType::Float64);
    uniform_kernel[c.device()](c, from, to, g.take(words));
  });
}

const Tensor& normal_impl(const Tensor& t, double mean, double std, const Tensor& mt, const Tensor& st, Generator* gen,
                          const char* op) {
  if (is_complex(t.dtype()) && !mt.defined() && !st.defined())
    return complex_parts(t, [&](const Tensor& parts) {
      EMBER_CHECK(std >= 0, op, ": expects std >= 0.0, but found std ", std);
      normal_impl(parts, mean, std / std::sqrt(2.0), mt, st, gen, op);
    });
  check_float(t.dtype(), op);
  EMBER_CHECK(std >= 0, op, ": expects std >= 0.0, but found std ", std);
  Generator& g = rnd::pick_generator(gen, t.device(), op);
  return fill_inplace(t, [&](const Tensor& c) {
    const uint64_t words = c.numel() * rnd::normal_words(c.dtype() == ScalarType::Float64);
    normal_kernel[c.device()](c, mean, std, mt, st, g.take(words));
  });
}

// A float64 contiguous copy of t broadcast to `shape`, on t's device (for per-element parameters).
Tensor as_f64(const Tensor& t, IntArrayRef shape) { return contiguous(to(expand(t, shape), ScalarType::Float64)); }

}  // namespace

// The in-place samplers offered to __torch_dispatch__ (Note [Python dispatch]) when they draw from the default
// generator; the handler updates t.
static bool offer_sampler(const char* op, std::vector<dispatch::Value> v, Generator* gen) {
  return !gen && dispatch::enabled() && dispatch::call(op, std::move(v)).has_value();
}

const Tensor& uniform_(const Tensor& t, double from, double to, Generator* gen) {
  if (offer_sampler("aten.uniform_.default", dispatch::values(t, from, to), gen)) [[unlikely]]
    return t;
  return sample_inplace(t, "uniform_", [&](const Tensor& x) { uniform_impl(x, from, to, gen, "uniform_"); });
}

const Tensor& normal_(const Tensor& t, double mean, double std, Generator* gen) {
  if (offer_sampler("aten.normal_.default", dispatch::values(t, mean, std), gen)) [[unlikely]]
    return t;
  return sample_inplace(t, "normal_",
                        [&](const Tensor& x) { normal_impl(x, mean, std, Tensor(), Tensor(), gen, "normal_"); });
}

Tensor rand(IntArrayRef size, Generator* gen, TensorOptions opts) {
  Tensor t = empty(size, opts.requires_grad(false));
  uniform_impl(t, 0, 1, gen, "rand");
  if (opts.requires_grad_) t.set_requires_grad(true);
  return t;
}

Tensor randn(IntArrayRef size, Generator* gen, TensorOptions opts) {
  Tensor t = empty(size, opts.requires_grad(false));
  normal_impl(t, 0, 1, Tensor(), Tensor(), gen, "randn");
  if (opts.requires_grad_) t.set_requires_grad(true);
  return t;
}

Tensor normal(double mean, double std, IntArrayRef size, Generator* gen, TensorOptions opts) {
  Tensor t = empty(size, opts.requires_grad(false));
  normal_impl(t, mean, std, Tensor(), Tensor(), gen, "normal");
  if (opts.requires_grad_) t.set_requires_grad(true);
  return t;
}

namespace {
// normal(mean, std) for a complex mean: each part is normal about mean's part with std / sqrt(2) (PyTorch's).
Tensor complex_normal(const Tensor& mean, const Tensor& std, Generator* gen) {
  Tensor parts_std = unsqueeze(div(std.to(mean.device()), std::sqrt(2.0)), -1);
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    out = view_as_complex(normal(view_as_real(resolve_conj(mean)), parts_std, gen).contiguous());
  }
  record_zero_grad("NormalBackward3", {&mean, &std}, out);
  return out;
}
}  // namespace

Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen) {
  EMBER_CHECK(mean.device() == std.device(),
              "normal: Expected all tensors to be on the same device, but found at "
              "least two devices, ",
              mean.device(), " and ", std.device(), "!");
  EMBER_CHECK(!is_complex(std.dtype()), "normal expects standard deviation to be non-complex");
  if (is_complex(mean.dtype())) return complex_normal(mean, std, gen);
  check_float(mean.dtype(), "normal");
  DimVector shape = broadcast_shapes(mean.sizes(), std.sizes(), "normal");
  Tensor out = empty(shape, TensorOptions(promote_types(mean.dtype(), std.dtype())).device(mean.device()));
  Tensor sd = as_f64(std, shape);
  if (sd.device()
          .is_cpu())  // a CUDA kernel checks std itself (Note [Deferred device errors]): no wait for the GPU here
    for (int64_t i = 0, n = sd.numel(); i < n; ++i)
      EMBER_CHECK(sd.data<double>()[i] >= 0, "normal: expects all elements of std >= 0.0");
  normal_impl(out, 0, 1, as_f64(mean, shape), sd, gen, "normal");
  record_zero_grad("NormalBackward3", {&mean, &std}, out);
  return out;
}

Tensor normal(const Tensor& mean, double std, Generator* gen) {
  if (is_complex(mean.dtype())) return complex_normal(mean, full({}, std, TensorOptions(to_real(mean.dtype()))), gen);
  check_float(mean.dtype(), "normal");
  Tensor out = empty(mean.sizes(), TensorOptions(mean.dtype()).device(mean.device()));
  normal_impl(out, 0, std, as_f64(mean, mean.sizes()), Tensor(), gen, "normal");
  record_zero_grad("NormalBackward1", {&mean}, out);
  return out;
}

Tensor normal(double mean, const Tensor& std, Generator* gen) {
  EMBER_CHECK(!is_complex(std.dtype()), "normal expects standard deviation to be non-complex");
  check_float(std.dtype(), "normal");
  return normal(full_like(std, mean), std, gen);
}

// PyTorch's check before it draws integers into a tensor.
static void check_random_bounds(ScalarType t) {
  EMBER_CHECK(!is_complex(t), "check_random_bounds handles only integral, floating-point and boolean types");
}

Tensor randint(int64_t low, int64_t high, IntArrayRef size, Generator* gen, TensorOptions opts) {
  EMBER_CHECK(low < high, "random_ expects 'from' to be less than 'to', but got from=", low, " >= to=", high);
  Tensor t = empty(size, opts.dtype(opts.dtype_or(ScalarType::Int64)));
  check_random_bounds(t.dtype());
  Generator& g = rnd::pick_generator(gen, t.device(), "randint");
  if (t.numel())
    random_int_kernel[t.device()](t, low, static_cast<uint64_t>(high) - static_cast<uint64_t>(low),
                                  g.take(t.numel() * rnd::kIntWords));
  return t;
}

const Tensor& random_(const Tensor& t, int64_t from, std::optional<int64_t> to_, Generator* gen) {
  check_random_bounds(t.dtype());
  int64_t to;
  if (to_) {
    to = *to_;
  } else {  // the largest value of the dtype that integers map to exactly, plus one
    to = dispatch_all(t.dtype(), [](auto v) -> int64_t {
      using T = decltype(v);
      if constexpr (std::is_same_v<T, bool>)
        return 2;
      else if constexpr (std::is_same_v<T, int64_t>)
        return std::numeric_limits<int64_t>::max();
      else if constexpr (std::is_integral_v<T>)
        return int64_t(std::numeric_limits<T>::max()) + 1;
      else if constexpr (std::is_same_v<T, Half>)
        return (1 << 11) + 1;
      else if constexpr (std::is_same_v<T, BFloat16>)
        return (1 << 8) + 1;
      else
        return (int64_t(1) << std::numeric_limits<T>::digits) + 1;
    });
  }
  EMBER_CHECK(from < to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", to);
  Generator& g = rnd::pick_generator(gen, t.device(), "random_");
  return sample_inplace(t, "random_", [&](const Tensor& x) {
    fill_inplace(x, [&](const Tensor& c) {
      random_int_kernel[c.device()](c, from, static_cast<uint64_t>(to) - static_cast<uint64_t>(from),
                                    g.take(c.numel() * rnd::kIntWords));
    });
  });
}

Tensor randperm(int64_t n, Generator* gen, TensorOptions opts) {
  EMBER_CHECK(n >= 0, "randperm: n must be non-negative, got ", n);
  const ScalarType dtype = opts.dtype_or(ScalarType::Int64);
  Tensor host = empty({&n, 1}, ScalarType::Int64);
  Device dev = resolve_device(opts.device_);
  Generator& g = rnd::pick_generator(gen, dev, "randperm");
  randperm_kernel[kCPU](host, g.take(2 * static_cast<uint64_t>(n)));
  return to(host, dev, dtype);
}

Tensor bernoulli(const Tensor& p, Generator* gen) {
  if (!gen) EMBER_PY_DISPATCH(Tensor, "aten.bernoulli.default", p);
  check_float(p.dtype(), "bernoulli");
  Tensor pf = as_f64(p, p.sizes());
  if (pf.device().is_cpu())  // a CUDA kernel checks p itself (Note [Deferred device errors]): no wait for the GPU here
    for (int64_t i = 0, n = pf.numel(); i < n; ++i) {
      const double v = pf.data<double>()[i];
      EMBER_CHECK(v >= 0 && v <= 1, "bernoulli: expects all elements of p to be in [0, 1], found ", v);
    }
  Tensor out = empty(p.sizes(), TensorOptions(p.dtype()).device(p.device()));
  Generator& g = rnd::pick_generator(gen, p.device(), "bernoulli");
  if (out.numel()) bernoulli_kernel[out.device()](out, pf, g.take(out.numel() * rnd::kBernoulliWords));
  record_zero_grad("BernoulliBackward0", {&p}, out);
  return out;
}

namespace {
const Tensor& bernoulli_impl(const Tensor& t, double p, Generator* gen, const char* op) {
  EMBER_CHECK(p >= 0 && p <= 1, op, " expects p to be in [0, 1], but got p=", p);
  Generator& g = rnd::pick_generator(gen, t.device(), op);
  return fill_inplace(t, [&](const Tensor& c) {
    Tensor pt = full(c.sizes(), p, TensorOptions(ScalarType::Float64).device(c.device()));
    bernoulli_kernel[c.device()](c, pt, g.take(c.numel() * rnd::kBernoulliWords));
  });
}
}  // namespace

const Tensor& bernoulli_(const Tensor& t, double p, Generator* gen) {
  if (offer_sampler("aten.bernoulli_.float", dispatch::values(t, p), gen)) [[unlikely]]
    return t;
  return sample_inplace(t, "bernoulli_", [&](const Tensor& x) { bernoulli_impl(x, p, gen, "bernoulli_"); });
}

Tensor bernoulli(const Tensor& t, double p, Generator* gen) {
  Tensor out = empty_like(t);
  bernoulli_impl(out, p, gen, "bernoulli");
  return out;
}

Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, Generator* gen) {
  EMBER_CHECK(probs.dim() == 1 || probs.dim() == 2, "multinomial: prob_dist must be 1 or 2 dim, got shape ",
              shape_str(probs.sizes()));
  check_float(probs.dtype(), "multinomial");
  EMBER_CHECK(num_samples > 0, "multinomial: cannot sample n_sample <= 0 samples");
  const int64_t cats = probs.size(-1);
  EMBER_CHECK(replacement || num_samples <= cats, "multinomial: cannot sample n_sample > prob_dist.size(-1) samples ",
              "without replacement (", num_samples, " > ", cats, ")");
  Tensor p2 = probs.dim() == 1 ? unsqueeze(probs, 0) : probs;
  Tensor p = to(as_f64(p2, p2.sizes()), kCPU);
  const int64_t rows = p.size(0);
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    int64_t nonzero = 0;
    for (int64_t c = 0; c < cats; ++c) {
      const double v = p.data<double>()[r * cats + c];
      EMBER_CHECK(std::isfinite(v) && v >= 0,
                  "multinomial: probability tensor contains either `inf`, `nan` or element < 0");
      sum += v;
      nonzero += v > 0;
    }
    EMBER_CHECK(sum > 0, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
    EMBER_CHECK(replacement || nonzero >= num_samples,
                "multinomial: invalid multinomial distribution (with "
                "replacement=False, not enough non-negative category to sample)");
  }
  const int64_t shape[] = {rows, num_samples};
  Tensor out = empty(shape, ScalarType::Int64);
  Generator& g = rnd::pick_generator(gen, probs.device(), "multinomial");
  multinomial_kernel[kCPU](out, p, replacement, g.take(2 * static_cast<uint64_t>(rows * num_samples)));
  if (probs.dim() == 1) out = squeeze(out, 0);
  return to(out, probs.device());
}

}  // namespace ember
