// CPU kernels of the fused optimizer steps (ember/optim/fused.h): each algorithm's per-element update written once
// as a generic lambda (lanes.h: AVX2 vectors, then the tail), run over all parameters of a group in one
// parallel_for.
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "ember/backend/cpu/lanes.h"
#include "ember/backend/kernels/optim.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

using lanes::Vec;

float vsqrt(float x) { return std::sqrt(x); }
double vsqrt(double x) { return std::sqrt(x); }
Vec<float> vsqrt(Vec<float> v) { return _mm256_sqrt_ps(v); }
Vec<double> vsqrt(Vec<double> v) { return _mm256_sqrt_pd(v); }

template <class V>
V vabs(V v) {
  return v < 0 ? -v : v;
}

// The larger of a and b, NaN if either is (torch.amax propagates NaN).
template <class V>
V nanmax(V a, V b) {
  return a != a ? a : (a > b ? a : b);
}

template <class T>
struct Item {
  T* q[optim::kSlots];
  T c[optim::kCoefs];
};

// f(q, c, at) over every element of every item, the items' elements concatenated and split across threads.
template <class T, class F>
void run(const std::vector<optim::Work>& work, F f) {
  std::vector<Item<T>> items;
  std::vector<int64_t> start{0};
  for (const optim::Work& w : work) {
    Item<T> it{};
    for (int k = 0; k < optim::kSlots; ++k) it.q[k] = w.t[k].defined() ? static_cast<T*>(w.t[k].data_ptr()) : nullptr;
    for (int k = 0; k < optim::kCoefs; ++k) it.c[k] = T(w.c[k]);
    items.push_back(it);
    start.push_back(start.back() + w.t[0].numel());
  }
  parallel_for(0, start.back(), kGrainSize, [&](int64_t b, int64_t e) {
    size_t i = std::upper_bound(start.begin(), start.end(), b) - start.begin() - 1;
    for (; i < items.size() && start[i] < e; ++i) {
      const int64_t lo = std::max(b, start[i]) - start[i], hi = std::min(e, start[i + 1]) - start[i];
      T* q[optim::kSlots];
      for (int k = 0; k < optim::kSlots; ++k) q[k] = items[i].q[k] ? items[i].q[k] + lo : nullptr;
      const T* c = items[i].c;
      lanes::for_each<T>(hi - lo, [&](auto at) { f(q, c, at); });
    }
  });
}

// The gradient as the update sees it: negated with maximize, plus L2 weight decay (wd * p) when it is on.
template <class T, class V>
V l2_grad(V p, V g, T dir, T wd) {
  g = dir * g;
  return wd != 0 ? g + wd * p : g;
}

// What Adam, NAdam and RAdam start with (their first seven coefficients share one layout): weight decay, decoupled
// (the parameter shrinks) or L2, then the moments m and v updated and stored. Returns (p, g, m, v).
static_assert(optim::nadam::decoupled == optim::adam::decoupled && optim::radam::decoupled == optim::adam::decoupled &&
              optim::nadam::dir == optim::adam::dir && optim::radam::dir == optim::adam::dir);
template <class T, class At>
auto adam_moments(T* const* q, const T* c, At at) {
  using namespace optim::adam;
  auto p = at(q[0]);
  auto g = c[dir] * at(q[1]);
  if (c[wd] != 0) {
    if (c[decoupled] != 0)
      p = p * (1 - c[lr] * c[wd]);
    else
      g = g + c[wd] * p;
  }
  auto m = at(q[2]);
  m = m + (1 - c[b1]) * (g - m);  // lerp(m, g, 1 - b1), as PyTorch's lerp_ computes it for weights < 0.5
  const auto v = c[b2] * at(q[3]) + (1 - c[b2]) * g * g;
  at.store(q[2], m);
  at.store(q[3], v);
  return std::tuple{p, g, m, v};
}

// The per-element updates, formula for formula PyTorch's single-tensor implementations (torch/optim/*.py).
// Coefficients that depend only on the step count were computed per parameter in ember/optim/fused.cpp.
template <class T>
void step(optim::Algo algo, const std::vector<optim::Work>& work) {
  using optim::Algo;
  switch (algo) {
    case Algo::SGD:
      return run<T>(work, [](T* const* q, const T* c, auto at) {
        using namespace optim::sgd;
        const auto p = at(q[0]);
        auto d = l2_grad(p, at(q[1]), c[dir], c[wd]);
        if (c[momentum] != 0) {
          const auto buf = c[init] != 0 ? d : c[momentum] * at(q[2]) + (1 - c[dampening]) * d;
          at.store(q[2], buf);
          d = c[nesterov] != 0 ? d + c[momentum] * buf : buf;
        }
        at.store(q[0], p - c[lr] * d);
      });
    case Algo::Adam:
      return run<T>(work, [](T* const* q, const T* c, auto at) {
        using namespace optim::adam;
        auto [p, g, m, v] = adam_moments(q, c, at);
        if (c[amsgrad] != 0) {
          v = nanmax(at(q[4]), v);
          at.store(q[4], v);
        }
        const auto denom = vsqrt(v) / c[bc2_sqrt] + c[eps];
        at.store(q[0], p - c[step_size] * (m / denom));
      });
    case Algo::NAdam:
      return run<T>(work, [](T* const* q, const T* c, auto at) {
        using namespace optim::nadam;
        const auto [p, g, m, v] = adam_moments(q, c, at);
        const auto denom = vsqrt(v / c[bc2]) + c[eps];
        at.store(q[0], (p - c[coef_grad] * (g / denom)) - c[coef_avg] * (m / denom));
      });
    case Algo::RAdam:
      return run<T>(work, [](T* const* q, const T* c, auto at) {
        using namespace optim::radam;
        const auto [p, g, m, v] = adam_moments(q, c, at);
        const auto corrected = m / c[bc1];
        if (c[rect] != 0)
          at.store(q[0], p - corrected * c[lr] * (c[bc2_sqrt] / (vsqrt(v) + c[eps])) * c[rect]);
        else
          at.store(q[0], p - corrected * c[lr]);
      });
    case Algo::RMSprop:
      return run<T>(work, [](T* const* q, const T* c, auto at) {
        using namespace optim::rmsprop;
        const auto p = at(q[0]);
        const auto g = l2_grad(p, at(q[1]), c[dir], c[wd]);
        const auto sq = c[alpha] * at(q[2]) + (1 - c[alpha]) * g * g;
        at.store(q[2], sq);
        auto avg = vsqrt(sq);
        if (c[centered] != 0) {
          auto ga = at(q[3]);
          ga = ga + (1 - c[alpha]) * (g - ga);
          at.store(q[3], ga);
          avg = vsqrt(sq - ga * ga);
        }
        avg = avg + c[eps];
        if (c[momentum] > 0) {
          const auto buf = c[momentum] * at(q[4]) + g / avg;
          at.store(q[4], buf);
          at.store(q[0], p - c[lr] * buf);
        } else {
          at.store(q[0], p - c[lr] * (g / avg));
        }
      });
    case Algo::Adagrad:
      return run<T>(work, [](T* const* q, const T* c, auto at) {
        using namespace optim::adagrad;
        const auto p = at(q[0]);
        const auto g = l2_grad(p, at(q[1]), c[dir], c[wd]);
        const auto sum = at(q[2]) + g * g;
        at.store(q[2], sum);
        at.store(q[0], p - c[clr] * (g / (vsqrt(sum) + c[eps])));
      });
    case Algo::Adadelta:
      return run<T>(work, [](T* const* q, const T* c, auto at) {
        using namespace optim::adadelta;
        const auto p = at(q[0]);
        const auto g = l2_grad(p, at(q[1]), c[dir], c[wd]);
        const auto sq = c[rho] * at(q[2]) + (1 - c[rho]) * g * g;
        const auto acc = at(q[3]);
        const auto delta = vsqrt(acc + c[eps]) / vsqrt(sq + c[eps]) * g;
        at.store(q[2], sq);
        at.store(q[3], c[rho] * acc + (1 - c[rho]) * delta * delta);
        at.store(q[0], p - c[lr] * delta);
      });
    case Algo::Adamax:
      return run<T>(work, [](T* const* q, const T* c, auto at) {
        using namespace optim::adamax;
        const auto p = at(q[0]);
        const auto g = l2_grad(p, at(q[1]), c[dir], c[wd]);
        auto m = at(q[2]);
        m = m + (1 - c[b1]) * (g - m);
        const auto u = nanmax(c[b2] * at(q[3]), vabs(g) + c[eps]);
        at.store(q[2], m);
        at.store(q[3], u);
        at.store(q[0], p - c[clr] * (m / u));
      });
    case Algo::Rprop:
      return run<T>(work, [](T* const* q, const T* c, auto at) {
        using namespace optim::rprop;
        using V = decltype(at(q[0]));
        const V zero{}, one = zero + T(1);
        const V g = c[dir] * at(q[1]);
        const V prod = g * at(q[2]);
        const V eta = prod > 0 ? zero + c[etaplus] : (prod < 0 ? zero + c[etaminus] : one);
        V step = at(q[3]) * eta;
        step = step < c[lo] ? zero + c[lo] : (step > c[hi] ? zero + c[hi] : step);  // clamp, NaN kept
        const V kept = prod < 0 ? zero : g;  // a sign change: no move now, and no sign to compare next time
        const V sign = kept > 0 ? one : (kept < 0 ? -one : zero);
        at.store(q[3], step);
        at.store(q[0], at(q[0]) - sign * step);
        at.store(q[2], kept);
      });
    case Algo::ASGD:
      return run<T>(work, [](T* const* q, const T* c, auto at) {
        using namespace optim::asgd;
        auto p = at(q[0]);
        const auto g = l2_grad(p, at(q[1]), c[dir], c[wd]);
        p = p * c[decay];
        p = p + c[neg_eta] * g;
        at.store(q[0], p);
        if (c[average] != 0) {
          const auto ax = at(q[2]);
          at.store(q[2], ax + (p - ax) * c[mu]);
        } else {
          at.store(q[2], p);
        }
      });
  }
}

}  // namespace

void optim_step(optim::Algo algo, const std::vector<optim::Work>& work) {
  std::vector<optim::Work> f32, f64;
  for (const optim::Work& w : work) (w.t[0].dtype() == ScalarType::Float64 ? f64 : f32).push_back(w);
  if (!f32.empty()) step<float>(algo, f32);
  if (!f64.empty()) step<double>(algo, f64);
}

}  // namespace ember::cpu
