// Real transforms (Note [FFT engine]). An even length n = 2h packs x into h complex numbers z_j = x_2j + i x_2j+1:
// Z = DFT_h(z) holds the spectra E and O of the even and odd samples, E_k = (Z_k + conj Z_{h-k}) / 2 and
// O_k = (Z_k - conj Z_{h-k}) / 2i, and X_k = E_k + exp(-2 pi i k / n) O_k. c2r runs the same steps backwards. An odd
// length transforms the full complex sequence.
#include <algorithm>
#include <cmath>

#include "ember/backend/cpu/fft_plan.h"

namespace ember::cpu::fft {

template <class T>
RealPlan<T>::RealPlan(int64_t n) : n_(n) {
  const bool even = n % 2 == 0;
  plan_ = complex_plan<T>(even ? n / 2 : n);
  work_ = plan_->size() + plan_->work_size();
  if (!even) return;
  tw_.resize(n / 2);
  constexpr long double kTwoPi = 6.283185307179586476925286766559005768L;
  for (int64_t k = 0; k < n / 2; ++k) {
    const long double a = kTwoPi * static_cast<long double>(k) / static_cast<long double>(n);
    tw_[k] = {static_cast<T>(std::cos(a)), static_cast<T>(-std::sin(a))};
  }
}

template <class T>
template <class V>
void RealPlan<T>::r2c(const V* x, Cx<V>* out, Cx<V>* work) const {
  const int64_t m = plan_->size();
  Cx<V>*z = work, *w = work + m;
  if (n_ % 2) {
    for (int64_t j = 0; j < n_; ++j) z[j] = {x[j], V{}};
    plan_->exec(z, w, true);
    std::copy(z, z + n_ / 2 + 1, out);
    return;
  }
  for (int64_t j = 0; j < m; ++j) z[j] = {x[2 * j], x[2 * j + 1]};
  plan_->exec(z, w, true);
  untangle(z, out);
}

template <class T>
template <class V>
void RealPlan<T>::untangle(const Cx<V>* z, Cx<V>* out) const {
  const int64_t m = n_ / 2;
  out[0] = {z[0].r + z[0].i, V{}};
  out[m] = {z[0].r - z[0].i, V{}};
  const T half = T(0.5);
  for (int64_t k = 1; k < m; ++k) {
    const Cx<V> a = z[k], b = conj(z[m - k]);
    out[k] = scale(a + b, half) + twiddle<true>(quarter<true>(scale(a - b, half)), tw_[k]);
  }
}

template <class T>
template <class V>
void RealPlan<T>::c2r(const Cx<V>* in, V* x, Cx<V>* work) const {
  const int64_t m = plan_->size();
  Cx<V>*z = work, *w = work + m;
  if (n_ % 2) {
    z[0] = {in[0].r, V{}};
    for (int64_t k = 1; k <= n_ / 2; ++k) z[k] = in[k], z[n_ - k] = conj(in[k]);
    plan_->exec(z, w, false);
    for (int64_t j = 0; j < n_; ++j) x[j] = z[j].r;
    return;
  }
  pack(in, z);
  plan_->exec(z, w, false);
  for (int64_t j = 0; j < m; ++j) x[2 * j] = z[j].r, x[2 * j + 1] = z[j].i;
}

template <class T>
template <class V>
void RealPlan<T>::pack(const Cx<V>* in, Cx<V>* z) const {
  // Z_k = E_k + i O_k with E_k = X_k + conj X_{h-k}, O_k = (X_k - conj X_{h-k}) exp(2 pi i k / n): twice the packed
  // spectrum, so that the unnormalised backward transform of length h gives n x.
  const int64_t m = n_ / 2;
  z[0] = {in[0].r + in[m].r, in[0].r - in[m].r};
  for (int64_t k = 1; k < m; ++k) {
    const Cx<V> a = in[k], b = conj(in[m - k]);
    z[k] = (a + b) + quarter<false>(twiddle<false>(a - b, tw_[k]));
  }
}

template class RealPlan<float>;
template class RealPlan<double>;
template void RealPlan<float>::r2c(const float*, Cx<float>*, Cx<float>*) const;
template void RealPlan<float>::r2c(const lanes::Vec<float>*, Cx<lanes::Vec<float>>*, Cx<lanes::Vec<float>>*) const;
template void RealPlan<double>::r2c(const double*, Cx<double>*, Cx<double>*) const;
template void RealPlan<double>::r2c(const lanes::Vec<double>*, Cx<lanes::Vec<double>>*, Cx<lanes::Vec<double>>*) const;
template void RealPlan<float>::untangle(const Cx<float>*, Cx<float>*) const;
template void RealPlan<float>::pack(const Cx<float>*, Cx<float>*) const;
template void RealPlan<double>::pack(const Cx<double>*, Cx<double>*) const;
template void RealPlan<double>::untangle(const Cx<double>*, Cx<double>*) const;
template void RealPlan<float>::c2r(const Cx<float>*, float*, Cx<float>*) const;
template void RealPlan<float>::c2r(const Cx<lanes::Vec<float>>*, lanes::Vec<float>*, Cx<lanes::Vec<float>>*) const;
template void RealPlan<double>::c2r(const Cx<double>*, double*, Cx<double>*) const;
template void RealPlan<double>::c2r(const Cx<lanes::Vec<double>>*, lanes::Vec<double>*, Cx<lanes::Vec<double>>*) const;

}  // namespace ember::cpu::fft
