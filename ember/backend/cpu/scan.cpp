// CPU scans along one dim: cumsum, cumprod, cummax/cummin and logcumsumexp share one loop; each op is a small
// running-state struct (first element, step, current value).
#include <cmath>
#include <cstdlib>
#include <limits>

#include "ember/backend/cpu/binary.h"
#include "ember/backend/kernels/scan.h"
#include "ember/ops/detail/util.h"

namespace ember::cpu {

namespace {

// PyTorch's CPU accumulation types (at::acc_type<T, false>), so that results match it bit for bit.
template <class T>
using ScanAcc =
    std::conditional_t<std::is_integral_v<T>, int64_t, std::conditional_t<std::is_same_v<T, float>, double, Acc<T>>>;

// Integer accumulators wrap like PyTorch's instead of overflowing (undefined behaviour for int64).
template <class A>
A wrap_add(A a, A b) {
  if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else
    return a + b;
}
template <class A>
A wrap_mul(A a, A b) {
  if constexpr (std::is_integral_v<A>)
    return static_cast<A>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else
    return a * b;
}

template <class T>
struct CumSum {
  static constexpr bool kIndex = false;
  ScanAcc<T> acc;
  void first(T x, int64_t) { acc = convert<ScanAcc<T>>(x); }
  void step(T x, int64_t) { acc = wrap_add(acc, convert<ScanAcc<T>>(x)); }
  T value() const { return convert<T>(acc); }
  int64_t index() const { return 0; }
};

template <class T>
struct CumProd {
  static constexpr bool kIndex = false;
  ScanAcc<T> acc;
  void first(T x, int64_t) { acc = convert<ScanAcc<T>>(x); }
  void step(T x, int64_t) { acc = wrap_mul(acc, convert<ScanAcc<T>>(x)); }
  T value() const { return convert<T>(acc); }
  int64_t index() const { return 0; }
};

// Ties move the index to the latest position and a NaN sticks (each new NaN moves it), as in PyTorch.
template <class T, bool IsMax>
struct CumExtremum {
  static constexpr bool kIndex = true;
  Acc<T> best;
  int64_t idx;
  void first(T x, int64_t k) {
    best = static_cast<Acc<T>>(x);
    idx = k;
  }
  void step(T x, int64_t k) {
    const Acc<T> v = static_cast<Acc<T>>(x);
    if (v != v || (IsMax ? v >= best : v <= best)) {
      best = v;
      idx = k;
    }
  }
  T value() const { return static_cast<T>(best); }
  int64_t index() const { return idx; }
};

// log(exp(acc) + exp(x)) as PyTorch's _log_add_exp_helper: equal infinities stay put, NaN propagates.
template <class T>
struct LogCumSumExp {
  static constexpr bool kIndex = false;
  using A = ScanAcc<T>;
  A acc;
  void first(T x, int64_t) { acc = static_cast<A>(x); }
  void step(T x, int64_t) {
    const A v = static_cast<A>(x);
    const A lo = std::isnan(acc) ? acc : std::min(v, acc), hi = std::isnan(acc) ? acc : std::max(v, acc);
    acc = (lo != hi || std::isfinite(lo)) ? std::log1p(std::exp(lo - hi)) + hi : v;
  }
  T value() const { return static_cast<T>(acc); }
  int64_t index() const { return 0; }
};

// Byte strides along the scanned dim and pointers to one slice of each operand.
struct Slice {
  char* out;
  const char* in;
  char* ind;
};
struct DimStrides {
  int64_t n, out, in, ind;
};

template <class S, class T>
void scan_slice(const Slice& p, const DimStrides& d) {
  S s;
  for (int64_t k = 0; k < d.n; ++k) {
    const T x = *reinterpret_cast<const T*>(p.in + k * d.in);
    if (k == 0)
      s.first(x, 0);
    else
      s.step(x, k);
    *reinterpret_cast<T*>(p.out + k * d.out) = s.value();
    if constexpr (S::kIndex) *reinterpret_cast<int64_t*>(p.ind + k * d.ind) = s.index();
  }
}

// Slices that sit next to each other in memory advance together, so the inner loop walks memory in order
// (e.g. cumsum over dim 0 of a row-major matrix).
template <class S, class T>
void scan_block(const Slice& p, const int64_t* st, int64_t m, const DimStrides& d) {
  constexpr int64_t kBlock = 64;
  S s[kBlock];
  for (int64_t b0 = 0; b0 < m; b0 += kBlock) {
    const int64_t mb = std::min(kBlock, m - b0);
    for (int64_t k = 0; k < d.n; ++k) {
      const char* in = p.in + b0 * st[1] + k * d.in;
      char* out = p.out + b0 * st[0] + k * d.out;
      for (int64_t i = 0; i < mb; ++i) {
        const T x = *reinterpret_cast<const T*>(in + i * st[1]);
        if (k == 0)
          s[i].first(x, 0);
        else
          s[i].step(x, k);
        *reinterpret_cast<T*>(out + i * st[0]) = s[i].value();
      }
      if constexpr (S::kIndex) {
        char* ind = p.ind + b0 * st[2] + k * d.ind;
        for (int64_t i = 0; i < mb; ++i) *reinterpret_cast<int64_t*>(ind + i * st[2]) = s[i].index();
      }
    }
  }
}

template <class S, class T>
void scan_typed(const Tensor& out, const Tensor& ind, const Tensor& in, int64_t dim) {
  const int64_t es = sizeof(T);
  const DimStrides d{in.sizes()[dim], out.strides()[dim] * es, in.strides()[dim] * es,
                     ind.defined() ? ind.strides()[dim] * 8 : 0};
  // One element per slice: the operands with the scanned dim collapsed.
  DimVector sz(in.sizes());
  sz[dim] = 1;
  auto collapse = [&](const Tensor& t) { return make_view(t, sz, t.strides(), t.storage_offset()); };
  const Tensor ov = collapse(out), iv = collapse(in), xv = ind.defined() ? collapse(ind) : iv;
  const StridedIter it = StridedIter::make({&ov, &iv, &xv}, sz);
  for_each_run(
      it,
      [&](char** p, const int64_t* st, int64_t m) {
        const Slice s{p[0], p[1], p[2]};
        if (m > 1 && std::abs(st[1]) < std::abs(d.in)) return scan_block<S, T>(s, st, m, d);
        for (int64_t i = 0; i < m; ++i) scan_slice<S, T>({p[0] + i * st[0], p[1] + i * st[1], p[2] + i * st[2]}, d);
      },
      std::max<int64_t>(1, kGrainSize / std::max<int64_t>(d.n, 1)));
}

void scan(ScanOp op, const Tensor& out, const Tensor& indices, const Tensor& in, int64_t dim) {
  dispatch_all(in.dtype(), [&](auto v) {
    using T = decltype(v);
    switch (op) {
      case ScanOp::Sum: return scan_typed<CumSum<T>, T>(out, indices, in, dim);
      case ScanOp::Prod: return scan_typed<CumProd<T>, T>(out, indices, in, dim);
      case ScanOp::Max: return scan_typed<CumExtremum<T, true>, T>(out, indices, in, dim);
      case ScanOp::Min: return scan_typed<CumExtremum<T, false>, T>(out, indices, in, dim);
      case ScanOp::LogSumExp:
        if constexpr (is_fp<T>) return scan_typed<LogCumSumExp<T>, T>(out, indices, in, dim);
        fail<Error>("logcumsumexp(): expected a floating point input, but got ", in.dtype());
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(scan, CPU, scan)

}  // namespace ember::cpu
