// The plan cache behind ember.backends.cuda.cufft_plan_cache (Note [Plan caches] in ember/backend/plan_cache.h),
// checked with a fake plan that counts its constructions and destructions, and the host-side planning of the cuFFT
// calls (Note [cuFFT layouts] in backend/cuda/cufft_glue.h) against brute-force enumeration of the addresses.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ember/backend/cuda/cufft_glue.h"
#include "ember/backend/cufft_plan_cache.h"
#include "ember/backend/kernels/fft.h"
#include "ember/backend/plan_cache.h"
#include "ember/cuda.h"

using namespace ember;
using namespace ember::cuda;

namespace {

std::atomic<int> g_alive{0};

struct FakePlan {
  int key;
  explicit FakePlan(int k) : key(k) { ++g_alive; }
  ~FakePlan() { --g_alive; }
};

using Cache = PlanCache<int, FakePlan>;

// Looks key up, counting the plans made.
std::shared_ptr<FakePlan> get(Cache& c, int key, int& made) {
  return c.get(key, [&] {
    ++made;
    return std::make_unique<FakePlan>(key);
  });
}

TEST(PlanCache, DefaultsToPyTorchsCapacity) {
  Cache c;
  EXPECT_EQ(c.max_size(), 4096);
  EXPECT_EQ(c.size(), 0);
}

TEST(PlanCache, HitReturnsTheSamePlanWithoutMakingOne) {
  Cache c(4);
  int made = 0;
  auto a = get(c, 7, made);
  auto b = get(c, 7, made);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(a->key, 7);
  EXPECT_EQ(c.size(), 1);
  EXPECT_EQ(c.hits(), 1);
  EXPECT_EQ(c.misses(), 1);
}

TEST(PlanCache, EvictsTheLeastRecentlyUsed) {
  const int before = g_alive;
  {
    Cache c(3);
    int made = 0;
    for (int k : {1, 2, 3}) get(c, k, made);
    get(c, 1, made);  // 1 becomes the most recent: the order is 1, 3, 2
    get(c, 4, made);  // evicts 2
    EXPECT_EQ(made, 4);
    EXPECT_EQ(c.size(), 3);
    EXPECT_TRUE(c.contains(1));
    EXPECT_FALSE(c.contains(2));
    EXPECT_TRUE(c.contains(3));
    EXPECT_TRUE(c.contains(4));
    EXPECT_EQ(g_alive - before, 3);  // the evicted plan was destroyed
    get(c, 2, made);                 // made again, evicting 3 (order was 4, 1, 3)
    EXPECT_EQ(made, 5);
    EXPECT_FALSE(c.contains(3));
    EXPECT_TRUE(c.contains(1));
  }
  EXPECT_EQ(g_alive, before);
}

// Against a model: a list of keys, most recent first, truncated to the capacity.
TEST(PlanCache, MatchesAnLruModelOnRandomLookups) {
  std::mt19937 rng(5);
  for (int cap : {1, 2, 5}) {
    Cache c(cap);
    std::vector<int> model;
    int made = 0, expected_made = 0;
    for (int i = 0; i < 400; ++i) {
      const int k = static_cast<int>(rng() % 8);
      auto it = std::find(model.begin(), model.end(), k);
      if (it == model.end()) {
        ++expected_made;
      } else {
        model.erase(it);
      }
      model.insert(model.begin(), k);
      if (static_cast<int>(model.size()) > cap) model.pop_back();
      EXPECT_EQ(get(c, k, made)->key, k);
      ASSERT_EQ(made, expected_made) << "lookup " << i << ", capacity " << cap;
      ASSERT_EQ(c.size(), static_cast<int64_t>(model.size()));
      for (int m : model) ASSERT_TRUE(c.contains(m));
    }
  }
}

TEST(PlanCache, LoweringMaxSizeEvictsTheOldestAtOnce) {
  Cache c(8);
  int made = 0;
  for (int k = 0; k < 6; ++k) get(c, k, made);
  c.set_max_size(2);
  EXPECT_EQ(c.max_size(), 2);
  EXPECT_EQ(c.size(), 2);
  EXPECT_TRUE(c.contains(5));
  EXPECT_TRUE(c.contains(4));
  EXPECT_FALSE(c.contains(3));
  c.set_max_size(10);  // raising keeps what is there
  EXPECT_EQ(c.size(), 2);
}

TEST(PlanCache, MaxSizeZeroCachesNothing) {
  const int before = g_alive;
  Cache c(0);
  int made = 0;
  auto a = get(c, 1, made);
  auto b = get(c, 1, made);
  EXPECT_EQ(made, 2);
  EXPECT_NE(a.get(), b.get());
  EXPECT_EQ(c.size(), 0);
  a.reset();
  b.reset();
  EXPECT_EQ(g_alive, before);
}

TEST(PlanCache, NegativeMaxSizeRaisesPyTorchsError) {
  Cache c(3);
  try {
    c.set_max_size(-1);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuFFT plan cache size must be non-negative, but got -1"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(c.max_size(), 3);
  EXPECT_THROW(Cache(-2), Error);
}

TEST(PlanCache, ClearDropsEveryPlanButThoseInUse) {
  const int before = g_alive;
  Cache c(4);
  int made = 0;
  auto held = get(c, 1, made);
  get(c, 2, made);
  c.clear();
  EXPECT_EQ(c.size(), 0);
  EXPECT_EQ(g_alive - before, 1);  // plan 1 lives while a caller still runs it
  EXPECT_EQ(held->key, 1);
  get(c, 1, made);  // made again after the clear
  EXPECT_EQ(made, 3);
  held.reset();
  c.clear();
  EXPECT_EQ(g_alive, before);
}

TEST(PlanCache, AFailedMakeLeavesTheCacheAsItWas) {
  Cache c(2);
  int made = 0;
  get(c, 1, made);
  get(c, 2, made);
  EXPECT_THROW(c.get(3, []() -> std::unique_ptr<FakePlan> { throw std::runtime_error("cufftMakePlan failed"); }),
               std::runtime_error);
  EXPECT_EQ(c.size(), 2);
  EXPECT_TRUE(c.contains(1));  // nothing was evicted for the plan that was never made
  EXPECT_TRUE(c.contains(2));
}

TEST(PlanCache, ThreadsWantingOnePlanMakeItOnce) {
  Cache c(16);
  std::atomic<int> made{0};
  std::vector<std::thread> ts;
  std::vector<FakePlan*> got(8);
  for (int t = 0; t < 8; ++t)
    ts.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        auto p = c.get(i % 4, [&] {
          ++made;
          return std::make_unique<FakePlan>(i % 4);
        });
        if (i % 4 == 0) got[t] = p.get();
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(made.load(), 4);
  for (FakePlan* p : got) EXPECT_EQ(p, got[0]);
}

// ---- cuFFT layouts

using V = std::vector<int64_t>;

// Every (input offset, output offset) pair of element x of every line, enumerated from the tensor strides directly.
std::multiset<std::pair<int64_t, int64_t>> direct(const FftLines& l) {
  std::multiset<std::pair<int64_t, int64_t>> r;
  int64_t lines = 1;
  for (int64_t s : l.sizes) lines *= s;
  for (int64_t b = 0; b < lines; ++b) {
    int64_t rest = b, oi = 0, oo = 0;
    for (size_t d = l.sizes.size(); d-- > 0;) {
      const int64_t q = rest % l.sizes[d];
      rest /= l.sizes[d];
      oi += q * l.in_strides[d];
      oo += q * l.out_strides[d];
    }
    for (int64_t x = 0; x < l.n; ++x) r.insert({oi + x * l.in_stride, oo + x * l.out_stride});
  }
  return r;
}

// The same pairs as cuFFT computes them from the plan: call offsets, then b * idist + x * istride.
std::multiset<std::pair<int64_t, int64_t>> planned(const FftLines& l, const FftLayout& p) {
  std::multiset<std::pair<int64_t, int64_t>> r;
  for (int64_t c = 0; c < p.calls(); ++c) {
    int64_t a, o;
    p.call_offsets(c, a, o);
    for (int64_t b = 0; b < p.batch; ++b)
      for (int64_t x = 0; x < l.n; ++x) r.insert({a + b * p.idist + x * p.istride, o + b * p.odist + x * p.ostride});
  }
  return r;
}

TEST(CufftLayout, ContiguousInnermostDimIsOneCall) {
  // [6, 5, 8] along the last dim: 30 lines of 8, one batch.
  FftLines l{8, 1, 1, V{6, 5}, V{40, 8}, V{40, 8}};
  FftLayout p;
  ASSERT_TRUE(plan_fft_lines(l, p));
  EXPECT_EQ(p.calls(), 1);
  EXPECT_EQ(p.batch, 30);
  EXPECT_EQ(p.idist, 8);
  EXPECT_EQ(p.odist, 8);
  EXPECT_EQ(p.istride, 1);
  EXPECT_EQ(planned(l, p), direct(l));
}

TEST(CufftLayout, OutermostDimReadsInterleavedLines) {
  // [8, 12] along dim 0: lines start one element apart, their points 12 apart.
  FftLines l{8, 12, 12, V{12}, V{1}, V{1}};
  FftLayout p;
  ASSERT_TRUE(plan_fft_lines(l, p));
  EXPECT_EQ(p.calls(), 1);
  EXPECT_EQ(p.batch, 12);
  EXPECT_EQ(p.idist, 1);
  EXPECT_EQ(p.istride, 12);
  EXPECT_EQ(planned(l, p), direct(l));
}

TEST(CufftLayout, MiddleDimLoopsOverTheSmallerBatchDim) {
  // [3, 8, 10] along dim 1: batch dims 3 (stride 80) and 10 (stride 1) do not merge; 10 is cuFFT's batch.
  FftLines l{8, 10, 10, V{3, 10}, V{80, 1}, V{80, 1}};
  FftLayout p;
  ASSERT_TRUE(plan_fft_lines(l, p));
  EXPECT_EQ(p.batch, 10);
  EXPECT_EQ(p.calls(), 3);
  EXPECT_EQ(planned(l, p), direct(l));
}

TEST(CufftLayout, RealToComplexSidesHaveTheirOwnStrides) {
  // r2c of real [4, 16] along dim 1 into complex [4, 9]: input lines 16 apart, output lines 9 apart.
  FftLines l{16, 1, 1, V{4}, V{16}, V{9}};
  FftLayout p;
  ASSERT_TRUE(plan_fft_lines(l, p));
  EXPECT_EQ(p.batch, 4);
  EXPECT_EQ(p.idist, 16);
  EXPECT_EQ(p.odist, 9);
}

TEST(CufftLayout, DeclinesExpandedInputsAndLongLoops) {
  FftLayout p;
  EXPECT_FALSE(plan_fft_lines(FftLines{8, 1, 1, V{5}, V{0}, V{8}}, p));  // an expanded batch dim
  EXPECT_FALSE(plan_fft_lines(FftLines{8, 0, 1, V{5}, V{1}, V{8}}, p));  // an expanded line
  EXPECT_TRUE(plan_fft_lines(FftLines{1, 0, 1, V{5}, V{1}, V{1}}, p));   // one point: its stride is never used
  // Three batch dims that merge with nothing: 4 * 5 calls of batch 6 exceed a limit of 16.
  FftLines l{2, 1, 1, V{4, 5, 6}, V{1000, 100, 3}, V{60, 12, 2}};
  EXPECT_FALSE(plan_fft_lines(l, p, 16));
  ASSERT_TRUE(plan_fft_lines(l, p, 20));
  EXPECT_EQ(p.calls(), 20);
  EXPECT_EQ(planned(l, p), direct(l));
}

TEST(CufftLayout, NoBatchDimsIsOneLine) {
  FftLines l{7, 3, 1, V{}, V{}, V{}};
  FftLayout p;
  ASSERT_TRUE(plan_fft_lines(l, p));
  EXPECT_EQ(p.batch, 1);
  EXPECT_EQ(p.calls(), 1);
  EXPECT_EQ(planned(l, p), direct(l));
}

// Permuted and sliced views of random shapes: whatever is planned addresses exactly the elements the strides do.
TEST(CufftLayout, RandomViewsAddressWhatTheirStridesDo) {
  std::mt19937 rng(11);
  int planned_count = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    V sizes(rank);
    for (auto& s : sizes) s = 1 + static_cast<int64_t>(rng() % 4);
    // Contiguous strides of a permutation of the dims, some dims stepped (sliced with a step of 2).
    std::vector<int> perm(rank);
    for (int i = 0; i < rank; ++i) perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    auto strides_of = [&](int64_t step_dim) {
      V st(rank);
      int64_t s = 1;
      for (int i = rank - 1; i >= 0; --i) {
        const int d = perm[i];
        const int64_t step = d == step_dim ? 2 : 1;
        st[d] = s * step;
        s *= sizes[d] * step;
      }
      return st;
    };
    const V in = strides_of(static_cast<int64_t>(rng() % (rank + 1)) - 1);
    V out(rank);
    for (int64_t d = rank - 1, s = 1; d >= 0; --d) out[d] = s, s *= sizes[d];  // the kernels' fresh output
    const int dim = static_cast<int>(rng() % rank);
    FftLines l;
    l.n = sizes[dim];
    l.in_stride = in[dim];
    l.out_stride = out[dim];
    for (int d = 0; d < rank; ++d)
      if (d != dim) l.sizes.push_back(sizes[d]), l.in_strides.push_back(in[d]), l.out_strides.push_back(out[d]);
    FftLayout p;
    if (!plan_fft_lines(l, p, 4)) continue;
    ++planned_count;
    ASSERT_EQ(planned(l, p), direct(l)) << "trial " << trial;
  }
  EXPECT_GT(planned_count, 200);
}

TEST(CufftLayout, KeysTellLayoutsApart) {
  FftLayout a;
  a.batch = 4, a.idist = 8, a.odist = 8;
  FftLayout b = a;
  b.odist = 5;
  const FftKey ka = fft_key(FftKind::C2C, false, 8, a), kb = fft_key(FftKind::C2C, false, 8, b);
  EXPECT_FALSE(ka == kb);
  EXPECT_FALSE(ka == fft_key(FftKind::C2C, true, 8, a));
  EXPECT_FALSE(ka == fft_key(FftKind::R2C, false, 8, a));
  EXPECT_TRUE(ka == fft_key(FftKind::C2C, false, 8, a));
  EXPECT_EQ(FftKeyHash()(ka), FftKeyHash()(fft_key(FftKind::C2C, false, 8, a)));
  // A cache keyed by them holds one plan per layout.
  PlanCache<FftKey, int, FftKeyHash> c(8);
  int made = 0;
  auto mk = [&] {
    ++made;
    return std::make_unique<int>(made);
  };
  c.get(ka, mk);
  c.get(kb, mk);
  c.get(ka, mk);
  EXPECT_EQ(made, 2);
  EXPECT_EQ(c.size(), 2);
}

// A CUDA build registers cuFFT's kernels (a CPU-only build has none), and its per-device caches refuse an index
// that is not a device, as PyTorch's; without CUDA every access raises.
TEST(CufftPlanCacheApi, KernelsAndDeviceChecks) {
  const int cuda = static_cast<int>(DeviceType::CUDA);
  EXPECT_EQ(fft_c2c_kernel.fn[cuda] != nullptr, cuda::is_built());
  EXPECT_EQ(fft_r2c_kernel.fn[cuda] != nullptr, cuda::is_built());
  EXPECT_EQ(fft_c2r_kernel.fn[cuda] != nullptr, cuda::is_built());
  const int n = cuda::device_count();
  try {
    cuda::cufft_plan_cache_size(n);
    FAIL() << "no exception for device " << n;
  } catch (const Error& e) {
    const std::string want = cuda::is_built() ? "cufft_plan_cache: expected 0 <= device index < " + std::to_string(n) +
                                                    ", but got device with index " + std::to_string(n)
                                              : "built without CUDA support";
    EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
  }
  EXPECT_THROW(cuda::set_cufft_plan_cache_max_size(-1, 5), Error);
  EXPECT_THROW(cuda::clear_cufft_plan_cache(n), Error);
  if (n > 0) {  // a device: PyTorch's default capacity, and max_size round-trips
    const int64_t before = cuda::cufft_plan_cache_max_size(0);
    cuda::set_cufft_plan_cache_max_size(0, 7);
    EXPECT_EQ(cuda::cufft_plan_cache_max_size(0), 7);
    EXPECT_THROW(cuda::set_cufft_plan_cache_max_size(0, -3), Error);
    cuda::set_cufft_plan_cache_max_size(0, before);
  }
}

}  // namespace
