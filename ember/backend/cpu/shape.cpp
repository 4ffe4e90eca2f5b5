// CPU kernels whose output size depends on the data: nonzero and the index of repeat_interleave. Both split
// the input into parts, size each part's output first (a count or a prefix sum), then fill the parts in parallel.
#include <numeric>
#include <vector>

#include "ember/backend/cpu/loops.h"
#include "ember/backend/kernels/index.h"
#include "ember/ops.h"

namespace ember::cpu {
namespace {

// [begin, end) of part k of n elements split into `parts`.
std::pair<int64_t, int64_t> part_range(int64_t n, int64_t parts, int64_t k) {
  return {n * k / parts, n * (k + 1) / parts};
}

int64_t parts_for(int64_t n) {
  return n > kGrainSize && !in_parallel_region() ? std::min<int64_t>(get_num_threads(), n / kGrainSize) : 1;
}

// self is contiguous; its coordinates are walked with an odometer from each part's start.
void nonzero(const Tensor& out, const Tensor& self) {
  EMBER_CHECK(self.is_contiguous(), "nonzero kernel: expected a contiguous input");
  const int64_t n = self.numel(), nd = self.dim(), parts = parts_for(n);
  int64_t* o = out.data<int64_t>();
  dispatch_all(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(self.data_ptr());
    std::vector<int64_t> first(parts + 1, 0);  // the first output row of each part
    parallel_for(0, parts, 1, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        auto [lo, hi] = part_range(n, parts, k);
        int64_t c = 0;
        for (int64_t i = lo; i < hi; ++i) c += convert<bool>(x[i]);
        first[k + 1] = c;
      }
    });
    std::partial_sum(first.begin(), first.end(), first.begin());
    // The count came from another reduction: never write past the rows the op allocated.
    EMBER_CHECK(first[parts] == out.sizes()[0], "nonzero: found ", first[parts], " nonzero elements but expected ",
                out.sizes()[0]);
    parallel_for(0, parts, 1, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) {
        auto [lo, hi] = part_range(n, parts, k);
        DimVector coord(nd, 0);
        for (int64_t d = nd - 1, rem = lo; d >= 0; --d) {
          coord[d] = rem % self.sizes()[d];
          rem /= self.sizes()[d];
        }
        int64_t* row = o + first[k] * nd;
        for (int64_t i = lo; i < hi; ++i) {
          if (convert<bool>(x[i])) {
            std::copy(coord.begin(), coord.end(), row);
            row += nd;
          }
          for (int64_t d = nd - 1; d >= 0 && ++coord[d] == self.sizes()[d]; --d) coord[d] = 0;
        }
      }
    });
  });
}

void repeat_index(const Tensor& out, const Tensor& repeats) {
  const int64_t n = repeats.numel(), parts = parts_for(std::max(n, out.numel()));
  const int64_t* r = repeats.data<int64_t>();
  int64_t* o = out.data<int64_t>();
  std::vector<int64_t> start(n + 1, 0);
  std::partial_sum(r, r + n, start.begin() + 1);
  EMBER_CHECK(start[n] == out.numel(), "repeat_interleave: repeats sum to ", start[n], " but the output has ",
              out.numel(), " elements");
  parallel_for(0, parts, 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      auto [lo, hi] = part_range(n, parts, k);
      for (int64_t i = lo; i < hi; ++i) std::fill(o + start[i], o + start[i + 1], i);
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(nonzero, CPU, nonzero)
EMBER_REGISTER_KERNEL(repeat_index, CPU, repeat_index)

}  // namespace ember::cpu
