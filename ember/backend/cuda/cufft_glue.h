// Host-side planning of the cuFFT calls behind the FFT kernels (backend/kernels/fft.h): how one 1-d transform over a
// strided batch becomes cuFFT's advanced layout, and the plan cache's key. Plain C++ (no CUDA headers), so that
// tests/test_cufft_glue.cpp checks it on machines without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace ember::cuda {

// Note [cuFFT layouts]
// cuFFT's advanced layout reads line b's element x at b * idist + x * istride (rank 1): one batch dim. A transform
// along `dim` of a tensor has as many batch dims as the others. They are merged where all operands allow it
// (stride[d] == stride[d + 1] * size[d + 1] in both the input and the output, size-1 dims dropped); the largest
// merged dim becomes cuFFT's batch and the rest a loop of calls on the host (their offsets are pointer offsets). When
// that loop would be long, or the input repeats elements (a stride 0, from expand), the kernel copies the operands
// into buffers with the transformed dim innermost instead, where everything merges into one call. Strides are in
// elements of each side's type: complex numbers for a complex side.
struct FftLines {
  int64_t n = 1;                          // points per line (the input's for c2c and r2c, the output's for c2r)
  int64_t in_stride = 1, out_stride = 1;  // along the transformed dim
  std::vector<int64_t> sizes, in_strides, out_strides;  // the batch dims, outermost first
};

struct FftLayout {
  int64_t batch = 1, idist = 0, odist = 0;
  int64_t istride = 1, ostride = 1;
  std::vector<int64_t> loop_sizes, loop_in, loop_out;  // the host loop, outermost first
  int64_t calls() const {
    int64_t c = 1;
    for (int64_t s : loop_sizes) c *= s;
    return c;
  }
  // Element offsets into the input and the output of call i (0 <= i < calls()), row-major over the loop.
  void call_offsets(int64_t i, int64_t& in_off, int64_t& out_off) const {
    in_off = out_off = 0;
    for (size_t d = loop_sizes.size(); d-- > 0;) {
      const int64_t idx = i % loop_sizes[d];
      i /= loop_sizes[d];
      in_off += idx * loop_in[d];
      out_off += idx * loop_out[d];
    }
  }
};

// Plans `l` (Note [cuFFT layouts]); false when cuFFT should not read it in place: a non-positive stride along the
// line (n > 1) or of a batch dim of the input, a negative one of the output, or more than max_calls calls.
inline bool plan_fft_lines(const FftLines& l, FftLayout& p, int64_t max_calls = 16) {
  p = FftLayout{};
  if (l.n > 1 && (l.in_stride <= 0 || l.out_stride <= 0)) return false;
  p.istride = l.n > 1 ? l.in_stride : 1;
  p.ostride = l.n > 1 ? l.out_stride : 1;
  struct Dim {
    int64_t size, si, so;
  };
  std::vector<Dim> dims;
  for (size_t d = 0; d < l.sizes.size(); ++d) {
    if (l.sizes[d] == 1) continue;
    if (l.sizes[d] == 0) return false;  // an empty batch: the kernels return before planning
    if (l.in_strides[d] <= 0 || l.out_strides[d] < 0) return false;
    const Dim cur{l.sizes[d], l.in_strides[d], l.out_strides[d]};
    if (!dims.empty()) {
      Dim& prev = dims.back();
      if (prev.si == cur.si * cur.size && prev.so == cur.so * cur.size) {
        prev = Dim{prev.size * cur.size, cur.si, cur.so};
        continue;
      }
    }
    dims.push_back(cur);
  }
  if (dims.empty()) {
    p.idist = l.n * p.istride;
    p.odist = l.n * p.ostride;
    return true;
  }
  size_t best = 0;
  for (size_t d = 1; d < dims.size(); ++d)
    if (dims[d].size >= dims[best].size) best = d;  // ties: the inner one
  p.batch = dims[best].size;
  p.idist = dims[best].si;
  p.odist = dims[best].so;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (d == best) continue;
    p.loop_sizes.push_back(dims[d].size);
    p.loop_in.push_back(dims[d].si);
    p.loop_out.push_back(dims[d].so);
  }
  return p.calls() <= max_calls;
}

enum class FftKind : int8_t { C2C, R2C, C2R };

// What a cuFFT plan is made for (one device's cache holds them): the transform, the precision, and the layout.
struct FftKey {
  FftKind kind = FftKind::C2C;
  bool double_precision = false;
  int64_t n = 0, batch = 0, istride = 0, idist = 0, ostride = 0, odist = 0;
  bool operator==(const FftKey&) const = default;
};

struct FftKeyHash {
  size_t operator()(const FftKey& k) const {
    size_t h = std::hash<int>()(static_cast<int>(k.kind) * 2 + k.double_precision);
    for (int64_t v : {k.n, k.batch, k.istride, k.idist, k.ostride, k.odist})
      h ^= std::hash<int64_t>()(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
  }
};

inline FftKey fft_key(FftKind kind, bool double_precision, int64_t n, const FftLayout& p) {
  return {kind, double_precision, n, p.batch, p.istride, p.idist, p.ostride, p.odist};
}

}  // namespace ember::cuda
