// Host-side plans of the CUDA kernels (ember/backend/cuda/reduce.cuh): how reductions are split into blocks, lanes
// and chunks, and how the optimizers' multi-tensor launches are packed. Plain C++, so they run without a GPU; the
// tests replay the kernels' index arithmetic on the host and check that every element is visited exactly once.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <vector>

#include "ember/backend/cuda/reduce.cuh"

using namespace ember::cuda;

namespace {

// The kernels' offset arithmetic (reduce.cuh: kept_offset, red_offset), on the host.
int64_t kept_off(const ReduceGeometry& g, int64_t o, const int64_t* st) {
  int64_t off = 0;
  for (int d = 0; d < g.nk; ++d) {
    off += (o % g.ksize[d]) * st[d];
    o /= g.ksize[d];
  }
  return off;
}
int64_t red_off(const ReduceGeometry& g, int64_t r) {
  int64_t off = 0;
  for (int d = 0; d < g.nr; ++d) {
    off += (r % g.rsize[d]) * g.rin[d];
    r /= g.rsize[d];
  }
  return off;
}

// A contiguous (row-major) tensor of `sizes`, reduced over `red`: the dims as reduce.cu builds them, with the output
// in keepdim form (contiguous too).
std::vector<ReduceDim> dims_of(const std::vector<int64_t>& sizes, const std::set<int>& red,
                               std::vector<int> perm = {}) {
  const int n = static_cast<int>(sizes.size());
  if (perm.empty())
    for (int i = 0; i < n; ++i) perm.push_back(i);
  // input strides: contiguous in the order perm (perm.back() innermost)
  std::vector<int64_t> in(n), out(n);
  int64_t s = 1;
  for (int i = n - 1; i >= 0; --i) in[perm[i]] = s, s *= sizes[perm[i]];
  s = 1;
  for (int i = n - 1; i >= 0; --i) out[i] = s, s *= red.count(i) ? 1 : sizes[i];
  std::vector<ReduceDim> dims;
  for (int i = 0; i < n; ++i) {
    const bool r = red.count(i) && sizes[i] != 1;
    dims.push_back({sizes[i], in[i], r ? 0 : out[i], 0, r});
  }
  return dims;
}

// Every (output, input element) pair the geometry produces, as input offset -> output offset.
std::map<int64_t, int64_t> enumerate(const ReduceGeometry& g) {
  std::map<int64_t, int64_t> m;
  for (int64_t o = 0; o < g.n_out; ++o)
    for (int64_t r = 0; r < g.n_red; ++r) {
      const int64_t in = kept_off(g, o, g.kin) + red_off(g, r);
      EXPECT_EQ(m.count(in), 0u) << "input offset " << in << " visited twice";
      m[in] = kept_off(g, o, g.kout);
    }
  return m;
}

// The reference: for a contiguous input, the output offset of each input element.
std::map<int64_t, int64_t> reference(const std::vector<int64_t>& sizes, const std::set<int>& red,
                                     const std::vector<ReduceDim>& dims) {
  std::map<int64_t, int64_t> m;
  int64_t total = 1;
  for (int64_t s : sizes) total *= s;
  for (int64_t lin = 0; lin < total; ++lin) {
    int64_t rem = lin, in = 0, out = 0;
    for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
      const int64_t k = rem % sizes[d];
      rem /= sizes[d];
      in += k * dims[d].in;
      if (!red.count(d)) out += k * dims[d].out;
    }
    m[in] = out;
  }
  return m;
}

TEST(CudaReducePlan, GeometryMergesAndSplitsLikeTheCpu) {
  // [4, 5, 6] over the last dim: inner, the kept dims merged.
  ReduceGeometry g = make_reduce_geometry(dims_of({4, 5, 6}, {2}));
  EXPECT_TRUE(g.inner);
  EXPECT_EQ(g.nk, 1);
  EXPECT_EQ(g.nr, 1);
  EXPECT_EQ(g.n_out, 20);
  EXPECT_EQ(g.n_red, 6);
  EXPECT_EQ(g.rin[0], 1);
  EXPECT_TRUE(g.fits32);
  // over dim 0: outer (the innermost dim is kept), kept dims merged into one of 30.
  g = make_reduce_geometry(dims_of({4, 5, 6}, {0}));
  EXPECT_FALSE(g.inner);
  EXPECT_EQ(g.nk, 1);
  EXPECT_EQ(g.ksize[0], 30);
  EXPECT_EQ(g.kin[0], 1);
  EXPECT_EQ(g.rin[0], 30);
  // over dims 0 and 2: two reduced dims that do not merge.
  g = make_reduce_geometry(dims_of({4, 5, 6}, {0, 2}));
  EXPECT_TRUE(g.inner);
  EXPECT_EQ(g.nr, 2);
  EXPECT_EQ(g.n_red, 24);
  EXPECT_EQ(g.n_out, 5);
  // everything: one merged reduced dim, nothing kept.
  g = make_reduce_geometry(dims_of({4, 5, 6}, {0, 1, 2}));
  EXPECT_TRUE(g.inner);
  EXPECT_EQ(g.nk, 0);
  EXPECT_EQ(g.nr, 1);
  EXPECT_EQ(g.n_red, 120);
  EXPECT_EQ(g.n_out, 1);
  // size-1 dims vanish; a 0-d tensor reduces one element.
  g = make_reduce_geometry(dims_of({1, 7, 1}, {0, 2}));
  EXPECT_EQ(g.n_red, 1);
  EXPECT_EQ(g.n_out, 7);
  g = make_reduce_geometry({});
  EXPECT_EQ(g.n_out, 1);
  EXPECT_EQ(g.n_red, 1);
  // empty inputs
  g = make_reduce_geometry(dims_of({3, 0}, {1}));
  EXPECT_EQ(g.n_red, 0);
  EXPECT_EQ(g.n_out, 3);
  g = make_reduce_geometry(dims_of({0, 4}, {1}));
  EXPECT_EQ(g.n_out, 0);
}

TEST(CudaReducePlan, GeometryVisitsEveryElementOnce) {
  const std::vector<std::vector<int64_t>> shapes = {{3, 4, 5}, {2, 3, 4, 5}, {7, 1, 3}, {6}, {2, 2, 2, 2, 2}};
  std::mt19937 rng(7);
  for (const auto& sizes : shapes) {
    const int n = static_cast<int>(sizes.size());
    for (int mask = 1; mask < (1 << n); ++mask) {
      std::set<int> red;
      for (int i = 0; i < n; ++i)
        if (mask >> i & 1) red.insert(i);
      std::vector<int> perm(n);
      for (int i = 0; i < n; ++i) perm[i] = i;
      for (int trial = 0; trial < 3; ++trial) {  // contiguous, then permuted (transposed) inputs
        if (trial) std::shuffle(perm.begin(), perm.end(), rng);
        const auto dims = dims_of(sizes, red, perm);
        const ReduceGeometry g = make_reduce_geometry(dims);
        EXPECT_EQ(enumerate(g), reference(sizes, red, dims)) << "mask " << mask << " trial " << trial;
      }
    }
  }
}

TEST(CudaReducePlan, LargeOffsetsUse64BitIndexing) {
  ReduceGeometry g = make_reduce_geometry({{2, int64_t(1) << 31, 0, 0, true}, {4, 1, 1, 0, false}});
  EXPECT_FALSE(g.fits32);
  g = make_reduce_geometry({{int64_t(3) << 30, 1, 0, 0, true}});
  EXPECT_FALSE(g.fits32);
  g = make_reduce_geometry({{1 << 20, 1, 0, 0, true}, {1 << 10, 1 << 20, 1, 0, false}});
  EXPECT_TRUE(g.fits32);
}

// Replays the kernels' work split: block (x, y) with threads (tx, ty); returns how often each (output, r) is visited.
void check_plan(int64_t n_out, int64_t n_red, bool inner, int64_t target, int64_t max_per_thread) {
  const ReducePlan p = plan_reduce(n_out, n_red, inner, target, max_per_thread);
  SCOPED_TRACE(testing::Message() << "n_out " << n_out << " n_red " << n_red << " inner " << inner);
  ASSERT_EQ(p.bx * p.by, kReduceThreads);
  ASSERT_EQ(p.lanes & (p.lanes - 1), 0) << "lanes must be a power of two for the tree";
  ASSERT_EQ(p.lanes, inner ? p.bx : p.by);
  ASSERT_GE(p.splits, 1);
  ASSERT_LE(p.splits, kReduceMaxGridY);
  const int64_t per_block = inner ? p.by : p.bx;
  ASSERT_GE(p.grid_x * per_block, n_out);
  ASSERT_LT((p.grid_x - 1) * per_block, std::max<int64_t>(n_out, 1));
  if (n_red == 0) return;
  ASSERT_GE(p.splits * p.chunk, n_red);
  ASSERT_LT((p.splits - 1) * p.chunk, n_red) << "every split has work";
  if (p.splits < kReduceMaxGridY) {
    ASSERT_LE((p.chunk + p.lanes - 1) / p.lanes, max_per_thread) << "serial work per thread bounded";
  }
  if (n_out * n_red > 200000) return;  // the replay below is for small cases
  std::vector<int> seen(n_out * n_red, 0);
  for (int64_t bx = 0; bx < p.grid_x; ++bx)
    for (int64_t by = 0; by < p.splits; ++by)
      for (int ty = 0; ty < p.by; ++ty)
        for (int tx = 0; tx < p.bx; ++tx) {
          const int lane = inner ? tx : ty;
          const int64_t o = bx * per_block + (inner ? ty : tx);
          if (o >= n_out) continue;
          const int64_t r0 = by * p.chunk, r1 = std::min(n_red, (by + 1) * p.chunk);
          for (int64_t r = r0 + lane; r < r1; r += p.lanes) ++seen[o * n_red + r];
        }
  for (int v : seen) ASSERT_EQ(v, 1);
}

TEST(CudaReducePlan, SplitsCoverEveryElementOnce) {
  for (bool inner : {true, false})
    for (int64_t n_out : {int64_t(0), int64_t(1), int64_t(3), int64_t(32), int64_t(100), int64_t(1000)})
      for (int64_t n_red :
           {int64_t(0), int64_t(1), int64_t(2), int64_t(31), int64_t(256), int64_t(1000), int64_t(40000)})
        check_plan(n_out, n_red, inner, 528, 128);
}

TEST(CudaReducePlan, FullReductionOfTenMillionIsSplitForAccuracyAndParallelism) {
  const ReducePlan p = plan_reduce(1, 10'000'000, true, 528, 128);
  EXPECT_EQ(p.lanes, 256);
  EXPECT_GE(p.splits, 528);  // fills the device
  EXPECT_LE((p.chunk + p.lanes - 1) / p.lanes, 128);
  check_plan(1, 10'000'000, true, 528, 128);
  check_plan(3, 10'000'000, false, 528, 128);
  // Many outputs, short rows: no splits, no workspace.
  const ReducePlan q = plan_reduce(1'000'000, 64, true, 528, 128);
  EXPECT_EQ(q.splits, 1);
  EXPECT_EQ(q.bx, 64);
  // Huge reductions are capped at the grid's y limit (more serial work per thread then).
  const ReducePlan h = plan_reduce(1, int64_t(1) << 40, true, 528, 128);
  EXPECT_EQ(h.splits, kReduceMaxGridY);
  EXPECT_GE(h.splits * h.chunk, int64_t(1) << 40);
}

// all/any/count_nonzero mask off only the sign bit of floats, at every width (the 16-bit mask was all ones, so -0.0
// in float16 and bfloat16 counted as nonzero on CUDA).
TEST(CudaReducePlan, NonzeroMaskDropsOnlyTheSignBitOfFloats) {
  EXPECT_EQ(nonzero_mask<uint8_t>(false), 0xffu);
  EXPECT_EQ(nonzero_mask<uint16_t>(true), 0x7fffu);
  EXPECT_EQ(nonzero_mask<uint16_t>(false), 0xffffu);
  EXPECT_EQ(nonzero_mask<uint32_t>(true), 0x7fffffffu);
  EXPECT_EQ(nonzero_mask<uint64_t>(true), 0x7fffffffffffffffull);
  EXPECT_EQ(nonzero_mask<uint64_t>(false), ~0ull);
  const uint16_t neg_zero_f16 = 0x8000, neg_zero_bf16 = 0x8000, tiny_f16 = 0x0001;
  EXPECT_EQ(neg_zero_f16 & nonzero_mask<uint16_t>(true), 0);
  EXPECT_EQ(neg_zero_bf16 & nonzero_mask<uint16_t>(true), 0);
  EXPECT_NE(tiny_f16 & nonzero_mask<uint16_t>(true), 0);
}

TEST(CudaMultiTensorPlan, ChunksCoverEveryTensorWithinLimits) {
  const std::vector<int64_t> numels = {10, 0, 65536, 65537, 1, 300000, 7};
  for (int max_t : {1, 2, 48})
    for (int max_c : {1, 3, 768}) {
      const auto launches = plan_chunk_launches(numels, 65536, max_t, max_c);
      std::map<int32_t, std::set<int64_t>> chunks;
      for (const ChunkLaunch& l : launches) {
        ASSERT_FALSE(l.chunks.empty());
        ASSERT_LE(static_cast<int>(l.tensors.size()), max_t);
        ASSERT_LE(static_cast<int>(l.chunks.size()), max_c);
        for (auto [t, k] : l.chunks) {
          ASSERT_LT(t, static_cast<int32_t>(l.tensors.size()));
          ASSERT_TRUE(chunks[l.tensors[t]].insert(k).second) << "chunk visited twice";
        }
      }
      for (size_t t = 0; t < numels.size(); ++t) {
        const int64_t n = (numels[t] + 65535) / 65536;
        ASSERT_EQ(static_cast<int64_t>(chunks[static_cast<int32_t>(t)].size()), n) << "tensor " << t;
        if (n) {
          ASSERT_EQ(*chunks[static_cast<int32_t>(t)].begin(), 0);
          ASSERT_EQ(*chunks[static_cast<int32_t>(t)].rbegin(), n - 1);
        }
      }
    }
  // The usual case: a whole group in one launch.
  EXPECT_EQ(plan_chunk_launches(numels, 65536, 48, 768).size(), 1u);
  EXPECT_TRUE(plan_chunk_launches({}, 65536, 48, 768).empty());
}

}  // namespace
