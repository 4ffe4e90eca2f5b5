// CUDA random fills: the same per-element formulas as the CPU (ember/detail/random_math.h), so a seed gives
// the same numbers on both devices.
#include "ember/backend/cuda/device_error.cuh"
#include "ember/backend/cuda/launch.cuh"
#include "ember/backend/kernels.h"
#include "ember/backend/kernels/random.h"
#include "ember/detail/convert.h"
#include "ember/detail/random_math.h"

namespace ember::cuda {
namespace {

// Words of element i: word j is word i*k + j of the stream.
struct Words {
  PhiloxState s;
  uint64_t base;
  __device__ uint32_t operator()(int k) const { return philox_word(s, base + k); }
};

enum class Dist { Uniform, Normal, Int, Bernoulli };

template <class T, Dist D>
struct RandomFn {
  char* out;
  PhiloxState s;
  int words;
  int bits;              // uniform: random bits per value
  double a, b;           // uniform: from, to; normal: mean, std
  const double* mean_t;  // per-element parameters where given
  const double* std_t;
  const double* p;  // bernoulli probabilities; they and std_t are checked here, not on the host
  DeviceErrorReport* err;
  int64_t low;
  uint64_t range;
  __device__ void operator()(char* const* ptr) const {
    const int64_t i = (ptr[0] - out) / static_cast<int64_t>(sizeof(T));
    Words w{s, static_cast<uint64_t>(i) * words};
    double v = 0;
    if constexpr (D == Dist::Uniform) {
      v = a + (b - a) * rnd::uniform(bits, w);
    } else if constexpr (D == Dist::Normal) {
      const double sd = std_t ? std_t[i] : b;
      if (std_t && !(sd >= 0)) [[unlikely]]
        report_error(err, kNegativeStd, "normal", i, 0, 0);
      v = (mean_t ? mean_t[i] : a) + sd * rnd::normal(std::is_same_v<T, double>, w);
    } else if constexpr (D == Dist::Int) {
      const uint64_t x = rnd::bits64(w);
      *reinterpret_cast<T*>(ptr[0]) = convert<T>(
          static_cast<int64_t>(static_cast<uint64_t>(low) + (range ? x % range : x)));
      return;
    } else {
      const double pi = p[i];
      if (!(pi >= 0 && pi <= 1)) [[unlikely]]
        report_error(err, kProbabilityOutOfRange, "bernoulli", i, 0, 0);
      v = uniform_f64(w(0), w(1)) < pi ? 1.0 : 0.0;
    }
    *reinterpret_cast<T*>(ptr[0]) = convert<T>(v);
  }
};

template <Dist D>
void launch_random(const Tensor& dst, PhiloxState s, int words, double a, double b, const Tensor& mt, const Tensor& st,
                   const Tensor& p, int64_t low, uint64_t range) {
  StridedIter it = StridedIter::make({&dst}, dst.sizes());
  const int dev = dst.device().index >= 0 ? dst.device().index : current_device();
  DeviceGuard g(dev);
  auto ptr = [](const Tensor& t) { return t.defined() ? static_cast<const double*>(t.data_ptr()) : nullptr; };
  dispatch_all(dst.dtype(), [&](auto o) {
    using T = decltype(o);
    launch_elementwise<1>(
        it,
        RandomFn<T, D>{static_cast<char*>(dst.data_ptr()), s, words, rnd::uniform_bits(dst.dtype()), a, b, ptr(mt),
                       ptr(st), ptr(p), p.defined() || st.defined() ? device_error_slot(dev) : nullptr, low, range});
  });
}

void uniform(const Tensor& dst, double from, double to, PhiloxState s) {
  launch_random<Dist::Uniform>(dst, s, rnd::uniform_words(dst.dtype() == ScalarType::Float64), from, to, {}, {}, {}, 0,
                               0);
}

void normal(const Tensor& dst, double mean, double std, const Tensor& mt, const Tensor& st, PhiloxState s) {
  launch_random<Dist::Normal>(dst, s, rnd::normal_words(dst.dtype() == ScalarType::Float64), mean, std, mt, st, {}, 0,
                              0);
}

void random_int(const Tensor& dst, int64_t low, uint64_t range, PhiloxState s) {
  launch_random<Dist::Int>(dst, s, rnd::kIntWords, 0, 0, {}, {}, {}, low, range);
}

void bernoulli(const Tensor& dst, const Tensor& p, PhiloxState s) {
  launch_random<Dist::Bernoulli>(dst, s, rnd::kBernoulliWords, 0, 0, {}, {}, p, 0, 0);
}

}  // namespace

EMBER_REGISTER_KERNEL(uniform, CUDA, uniform)
EMBER_REGISTER_KERNEL(normal, CUDA, normal)
EMBER_REGISTER_KERNEL(random_int, CUDA, random_int)
EMBER_REGISTER_KERNEL(bernoulli, CUDA, bernoulli)

}  // namespace ember::cuda
