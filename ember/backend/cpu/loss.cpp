// CPU kernels of the losses that are not compositions: cross entropy over class indices (Note [Fused cross entropy]
// in ember/nn/functional/loss.cpp) and CTC (the alpha and beta recursions of Graves et al. 2006, in log space).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/backend/cpu/lanes.h"
#include "ember/backend/cpu/vec_math.h"
#include "ember/backend/kernels/nn/loss.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

template <class T>
constexpr T kNegInf = -std::numeric_limits<T>::infinity();

template <class T>
void exp_inplace(T* p, int64_t n) {
  if (!vec_unary(UnaryOp::Exp, p, p, n))
    for (int64_t i = 0; i < n; ++i) p[i] = std::exp(p[i]);
}

// The shift that keeps exp from overflowing: the max, or 0 when it is infinite (all -inf gives lse = -inf).
template <class T>
T finite_or_zero(T m) {
  return std::isinf(m) ? T(0) : m;
}

// ---- cross entropy: per position lse over the C classes, and lse - x[target]
template <class T>
void cross_entropy_logits_typed(const Tensor& nll, const Tensor& lse, const Tensor& x, const Tensor& target,
                                int64_t ignore_index) {
  const int64_t outer = x.size(0), classes = x.size(1), inner = x.size(2);
  const T* xp = x.data<T>();
  const int64_t* tp = target.data<int64_t>();
  T* np = nll.data<T>();
  T* lp = lse.data<T>();
  // pos: the position's index; first: x at class 0 for it; stride: between classes.
  auto finish = [&](int64_t pos, const T* first, int64_t stride, T l) {
    lp[pos] = l;
    const int64_t t = tp[pos];
    if (t == ignore_index) {
      np[pos] = T(0);
      return;
    }
    if (t < 0 || t >= classes) fail<IndexError>("Target ", t, " is out of bounds.");
    np[pos] = l - first[t * stride];
  };
  const int64_t grain = std::max<int64_t>(1, kGrainSize / (classes * inner));
  if (inner == 1) {  // rows of classes are contiguous
    // exp(x - max) in chunks that stay in the L1 cache between the subtraction, the exp and the sum
    constexpr int64_t kChunk = 2048;
    parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
      std::vector<T> buf(static_cast<size_t>(std::min(classes, kChunk)));
      for (int64_t r = b; r < e; ++r) {
        const T* row = xp + r * classes;
        // (the max may pass over a NaN: the sum below is NaN then, and so is the lse, lanes.h)
        const T m = finite_or_zero(lanes::max_of<T>(classes, kNegInf<T>, [&](auto at) { return at(row); }));
        T sum = 0;
        for (int64_t c0 = 0; c0 < classes; c0 += kChunk) {
          const int64_t n = std::min(kChunk, classes - c0);
          T* out = buf.data();
          const T* in = row + c0;
          lanes::for_each<T>(n, [&](auto at) { at.store(out, at(in) - m); });
          exp_inplace(out, n);
          sum += lanes::sum<T>(n, [&](auto at) { return at(out); });
        }
        finish(r, row, 1, std::log(sum) + m);
      }
    });
    return;
  }
  // Spatial inputs: each class is a contiguous row of `inner` positions; work along those rows.
  parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
    std::vector<T> m(inner), s(inner), buf(inner);
    for (int64_t r = b; r < e; ++r) {
      const T* base = xp + r * classes * inner;
      std::fill(m.begin(), m.end(), kNegInf<T>);
      std::fill(s.begin(), s.end(), T(0));
      for (int64_t c = 0; c < classes; ++c)
        for (int64_t j = 0; j < inner; ++j) m[j] = std::max(m[j], base[c * inner + j]);
      for (int64_t j = 0; j < inner; ++j) m[j] = finite_or_zero(m[j]);
      for (int64_t c = 0; c < classes; ++c) {
        for (int64_t j = 0; j < inner; ++j) buf[j] = base[c * inner + j] - m[j];
        exp_inplace(buf.data(), inner);
        for (int64_t j = 0; j < inner; ++j) s[j] += buf[j];
      }
      for (int64_t j = 0; j < inner; ++j) finish(r * inner + j, base + j, inner, std::log(s[j]) + m[j]);
    }
  });
}

void cross_entropy_logits_cpu(const Tensor& nll, const Tensor& lse, const Tensor& x, const Tensor& target,
                              int64_t ignore_index) {
  if (x.dtype() == ScalarType::Float64)
    cross_entropy_logits_typed<double>(nll, lse, x, target, ignore_index);
  else
    cross_entropy_logits_typed<float>(nll, lse, x, target, ignore_index);
}

template <class T>
void cross_entropy_logits_backward_typed(const Tensor& gx, const Tensor& x, const Tensor& lse, const Tensor& coef,
                                         const Tensor& target, const Tensor& gnll) {
  const int64_t outer = x.size(0), classes = x.size(1);
  const T *xp = x.data<T>(), *lp = lse.data<T>(), *cp = coef.data<T>();
  const T* gp = gnll.defined() ? gnll.data<T>() : nullptr;
  const int64_t* tp = target.data<int64_t>();
  T* out = gx.data<T>();
  parallel_for(0, outer, std::max<int64_t>(1, kGrainSize / classes), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) {  // one pass over the row (the composition made four, each allocating)
      const T *row = xp + r * classes, l = lp[r], k = cp[r];
      T* o = out + r * classes;
      for (int64_t c = 0; c < classes; ++c) o[c] = row[c] - l;
      exp_inplace(o, classes);
      for (int64_t c = 0; c < classes; ++c) o[c] *= k;
      if (gp && tp[r] >= 0 && tp[r] < classes) o[tp[r]] -= gp[r];
    }
  });
}

void cross_entropy_logits_backward_cpu(const Tensor& gx, const Tensor& x, const Tensor& lse, const Tensor& coef,
                                       const Tensor& target, const Tensor& gnll) {
  if (x.dtype() == ScalarType::Float64)
    cross_entropy_logits_backward_typed<double>(gx, x, lse, coef, target, gnll);
  else
    cross_entropy_logits_backward_typed<float>(gx, x, lse, coef, target, gnll);
}

// ---- CTC
// log(exp(a) + exp(b) + exp(c)) with -inf terms allowed.
template <class T>
T log_sum3(T a, T b, T c) {
  T m = std::max(a, std::max(b, c));
  if (m == kNegInf<T>) return kNegInf<T>;
  return std::log(std::exp(a - m) + std::exp(b - m) + std::exp(c - m)) + m;
}
template <class T>
T log_add(T a, T b) {
  return log_sum3(a, b, kNegInf<T>);
}

// One sample's geometry: the extended target l' = (blank, l1, blank, l2, ..., blank) of length 2L + 1.
struct CtcSample {
  const int64_t* target;  // L labels
  int64_t length, input_length, blank;
  int64_t label(int64_t s) const { return s % 2 == 0 ? blank : target[s / 2]; }
  // Whether the path may skip from s - 2 to s (a label that differs from the one two back).
  bool can_skip(int64_t s) const { return s > 1 && label(s - 2) != label(s); }
};

CtcSample ctc_sample(const Tensor& targets, const CtcArgs& a, int64_t n) {
  return {targets.data<int64_t>() + a.offsets[n], a.target_lengths[n], a.input_lengths[n], a.blank};
}

template <class T>
void ctc_forward_typed(const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs, const Tensor& targets,
                       const CtcArgs& a) {
  const int64_t steps = log_probs.size(0), batch = log_probs.size(1), classes = log_probs.size(2);
  const int64_t width = log_alpha.size(2);
  const T* lp = log_probs.data<T>();
  T* alpha_all = log_alpha.data<T>();
  T* out = nll.data<T>();
  parallel_for(0, batch, 1, [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n) {
      const CtcSample smp = ctc_sample(targets, a, n);
      T* alpha = alpha_all + n * steps * width;
      std::fill(alpha, alpha + steps * width, kNegInf<T>);
      const int64_t len = 2 * smp.length + 1;
      auto prob = [&](int64_t t, int64_t s) { return lp[(t * batch + n) * classes + smp.label(s)]; };
      if (smp.input_length == 0) {  // only the empty target is possible
        out[n] = smp.length == 0 ? T(0) : std::numeric_limits<T>::infinity();
        continue;
      }
      alpha[0] = prob(0, 0);
      if (smp.length > 0) alpha[1] = prob(0, 1);
      for (int64_t t = 1; t < smp.input_length; ++t) {
        const T* prev = alpha + (t - 1) * width;
        T* cur = alpha + t * width;
        for (int64_t s = 0; s < len; ++s) {
          const T stay = prev[s], step = s > 0 ? prev[s - 1] : kNegInf<T>;
          const T skip = smp.can_skip(s) ? prev[s - 2] : kNegInf<T>;
          cur[s] = log_sum3(stay, step, skip) + prob(t, s);
        }
      }
      // A path ends in the last label or the blank after it.
      const T* last = alpha + (smp.input_length - 1) * width;
      out[n] = -(smp.length > 0 ? log_add(last[len - 1], last[len - 2]) : last[0]);
    }
  });
}

template <class T>
void ctc_backward_typed(const Tensor& grad, const Tensor& log_probs, const Tensor& targets, const Tensor& nll,
                        const Tensor& log_alpha, const CtcArgs& a, bool zero_infinity) {
  const int64_t steps = log_probs.size(0), batch = log_probs.size(1), classes = log_probs.size(2);
  const int64_t width = log_alpha.size(2);
  const T* lp = log_probs.data<T>();
  const T* alpha_all = log_alpha.data<T>();
  const T* loss = nll.data<T>();
  T* g = grad.data<T>();
  parallel_for(0, batch, 1, [&](int64_t b, int64_t e) {
    std::vector<T> beta(steps * width), occupancy(classes);
    for (int64_t n = b; n < e; ++n) {
      const CtcSample smp = ctc_sample(targets, a, n);
      const T* alpha = alpha_all + n * steps * width;
      const int64_t len = 2 * smp.length + 1, il = smp.input_length;
      auto at = [&](int64_t t, int64_t c) -> T& { return g[(t * batch + n) * classes + c]; };
      auto prob = [&](int64_t t, int64_t s) { return lp[(t * batch + n) * classes + smp.label(s)]; };
      for (int64_t t = 0; t < steps; ++t)
        for (int64_t c = 0; c < classes; ++c) at(t, c) = T(0);
      if (il == 0 || (zero_infinity && std::isinf(loss[n]))) continue;
      std::fill(beta.begin(), beta.end(), kNegInf<T>);
      T* last = beta.data() + (il - 1) * width;
      last[len - 1] = prob(il - 1, len - 1);
      if (smp.length > 0) last[len - 2] = prob(il - 1, len - 2);
      for (int64_t t = il - 2; t >= 0; --t) {
        const T* next = beta.data() + (t + 1) * width;
        T* cur = beta.data() + t * width;
        for (int64_t s = len - 1; s >= 0; --s) {
          const T stay = next[s], step = s + 1 < len ? next[s + 1] : kNegInf<T>;
          const T skip = s + 2 < len && smp.label(s + 2) != smp.label(s) ? next[s + 2] : kNegInf<T>;
          cur[s] = log_sum3(stay, step, skip) + prob(t, s);
        }
      }
      // d nll / d log_probs[t, c] = -sum over s with l'(s) = c of alpha_t(s) beta_t(s) / (y_t(c) Z): both alpha and
      // beta include y_t(c) once, Z = exp(-nll). (PyTorch returns exp(lp) plus this, the gradient with respect to
      // the logits of a log_softmax; through a log_softmax both give the same.)
      for (int64_t t = 0; t < il; ++t) {
        std::fill(occupancy.begin(), occupancy.end(), kNegInf<T>);
        for (int64_t s = 0; s < len; ++s) {
          const int64_t c = smp.label(s);
          occupancy[c] = log_add(occupancy[c], alpha[t * width + s] + beta[t * width + s]);
        }
        for (int64_t c = 0; c < classes; ++c)
          if (occupancy[c] != kNegInf<T>)
            at(t, c) = -std::exp(occupancy[c] + loss[n] - lp[(t * batch + n) * classes + c]);
      }
    }
  });
}

void ctc_forward_cpu(const Tensor& nll, const Tensor& log_alpha, const Tensor& log_probs, const Tensor& targets,
                     const CtcArgs& a) {
  if (log_probs.dtype() == ScalarType::Float64)
    ctc_forward_typed<double>(nll, log_alpha, log_probs, targets, a);
  else
    ctc_forward_typed<float>(nll, log_alpha, log_probs, targets, a);
}

void ctc_backward_cpu(const Tensor& grad, const Tensor& log_probs, const Tensor& targets, const Tensor& nll,
                      const Tensor& log_alpha, const CtcArgs& a, bool zero_infinity) {
  if (log_probs.dtype() == ScalarType::Float64)
    ctc_backward_typed<double>(grad, log_probs, targets, nll, log_alpha, a, zero_infinity);
  else
    ctc_backward_typed<float>(grad, log_probs, targets, nll, log_alpha, a, zero_infinity);
}

}  // namespace

EMBER_REGISTER_KERNEL(cross_entropy_logits, CPU, cross_entropy_logits_cpu)
EMBER_REGISTER_KERNEL(cross_entropy_logits_backward, CPU, cross_entropy_logits_backward_cpu)
EMBER_REGISTER_KERNEL(ctc_loss_forward, CPU, ctc_forward_cpu)
EMBER_REGISTER_KERNEL(ctc_loss_backward, CPU, ctc_backward_cpu)

}  // namespace ember::cpu
