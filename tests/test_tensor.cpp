#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "ember/iterator.h"
#include "ember/ops.h"

using namespace ember;

namespace {
std::vector<int64_t> vec(IntArrayRef a) { return {a.begin(), a.end()}; }

// Reads element `idx` (a multi-index) of a float tensor through its strides.
float at(const Tensor& t, std::initializer_list<int64_t> idx) {
  const float* p = static_cast<const float*>(t.data_ptr());
  int64_t off = 0, d = 0;
  for (int64_t i : idx) off += i * t.strides()[d++];
  return p[off];
}
}  // namespace

TEST(Tensor, EmptyIsContiguousWithRowMajorStrides) {
  Tensor t = empty({{2, 3, 4}});
  EXPECT_EQ(vec(t.sizes()), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(vec(t.strides()), (std::vector<int64_t>{12, 4, 1}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.dtype(), ScalarType::Float32);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u);  // 64-byte aligned
}

TEST(Tensor, ArangeViewTransposeMatchesHandComputedStrides) {
  Tensor x = arange(6.0).view({{2, 3}}).t();
  EXPECT_EQ(vec(x.sizes()), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(vec(x.strides()), (std::vector<int64_t>{1, 3}));
  EXPECT_FALSE(x.is_contiguous());
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) EXPECT_EQ(at(x, {i, j}), static_cast<float>(j * 3 + i));
  Tensor c = x.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  const float* p = c.data<float>();
  EXPECT_EQ((std::vector<float>(p, p + 6)), (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(Tensor, ViewsShareStorageAndVersion) {
  Tensor base = zeros({{4, 4}});
  Tensor row = base.select(0, 2);
  Tensor col = base.slice(1, 1, std::nullopt, 2);  // columns 1 and 3
  EXPECT_EQ(row.storage_offset(), 8);
  EXPECT_EQ(vec(col.strides()), (std::vector<int64_t>{4, 2}));
  const uint32_t v0 = base.version();
  row.fill_(5);
  EXPECT_EQ(base.version(), v0 + 1);  // Note [Version counter]: shared through the storage
  col.fill_(1);
  const float* p = base.data<float>();
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 4; ++j) EXPECT_EQ(p[i * 4 + j], (j % 2 == 1) ? 1.f : (i == 2 ? 5.f : 0.f));
}

TEST(Tensor, ViewOfNonContiguousFollowsPyTorchRules) {
  Tensor x = arange(24.0).view({{2, 3, 4}}).permute({{1, 0, 2}});  // sizes [3, 2, 4], strides [4, 12, 1]
  Tensor v = x.view({{3, 2, 2, 2}});                               // splitting the last dim is legal
  EXPECT_EQ(vec(v.strides()), (std::vector<int64_t>{4, 12, 2, 1}));
  EXPECT_THROW(x.view({{6, 4}}), Error);  // merging dims 0 and 1 is not
  Tensor r = x.reshape({{6, 4}});         // reshape copies instead
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_NE(r.data_ptr(), x.data_ptr());
  EXPECT_EQ(r.data<float>()[4], 12.f);  // row 1 = x[0][1] = base[1][0]
}

TEST(Tensor, ExpandDiagonalUnfold) {
  Tensor e = arange(3.0).view({{3, 1}}).expand({{3, 4}});
  EXPECT_EQ(vec(e.strides()), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(at(e, {2, 3}), 2.f);
  Tensor d = diagonal(arange(12.0).view({{3, 4}}), 1, 0, 1);
  EXPECT_EQ(vec(d.sizes()), (std::vector<int64_t>{3}));
  EXPECT_EQ(at(d, {0}), 1.f);
  EXPECT_EQ(at(d, {2}), 11.f);
  Tensor u = unfold(arange(7.0), 0, 3, 2);  // windows [0..2], [2..4], [4..6]
  EXPECT_EQ(vec(u.sizes()), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(vec(u.strides()), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(at(u, {2, 2}), 6.f);
}

TEST(Tensor, CopyCastsAndBroadcasts) {
  Tensor dst = zeros({{2, 3}}, TensorOptions(ScalarType::Int32));
  Tensor src = arange(3.0).view({{1, 3}});
  src.fill_(2.75);
  dst.copy_(src);
  const int32_t* p = dst.data<int32_t>();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(p[i], 2);  // truncation toward zero, as a C cast
  Tensor b = full({{3}}, Scalar(-1.5)).to(ScalarType::Bool);
  EXPECT_TRUE(b.data<bool>()[0]);
  Tensor h = full({{2}}, Scalar(0.1)).to(ScalarType::Float16);
  EXPECT_EQ(reinterpret_cast<const uint16_t*>(h.data_ptr())[0], 0x2e66);  // 0.1 rounded to half
}

TEST(Tensor, OverlappingCopyReadsBeforeWriting) {
  Tensor x = arange(6.0);
  x.slice(0, 1, std::nullopt).copy_(x.slice(0, 0, 5));  // shift right by one
  const float* p = x.data<float>();
  EXPECT_EQ((std::vector<float>(p, p + 6)), (std::vector<float>{0, 0, 1, 2, 3, 4}));
  EXPECT_THROW(arange(3.0).expand({{2, 3}}).copy_(zeros({{2, 3}})), Error);  // internal overlap
}

TEST(Tensor, MemoryIsFreedWithTheLastReference) {
  Allocator* a = cpu_allocator();
  const int64_t before = a->stats().allocated;
  {
    Tensor big = empty({{1 << 20}});  // 4 MiB
    EXPECT_GE(a->stats().allocated, before + (4 << 20));
    Tensor view = big.slice(0, 10, 20);
    big = Tensor();
    EXPECT_GE(a->stats().allocated, before + (4 << 20));  // the view keeps the storage alive
  }
  EXPECT_EQ(a->stats().allocated, before);
}

TEST(Tensor, CachingAllocatorReusesFreedBlocks) {
  Allocator* a = cpu_allocator();
  { Tensor warm = empty({{4 << 20}}); }
  const int64_t sys_before = a->stats().num_sys_allocs;
  for (int i = 0; i < 10; ++i) Tensor t = empty({{4 << 20}});  // 16 MiB each
  EXPECT_EQ(a->stats().num_sys_allocs, sys_before);
}

// Note [Larger cached blocks]: a request of at least 1 MiB whose class is empty takes a cached block of a larger class
// up to twice its size, which goes back to its own class when freed; smaller requests and blocks past twice stay apart.
TEST(Tensor, CachingAllocatorLendsLargerBlocks) {
  Allocator* a = cpu_allocator();
  a->empty_cache();
  const MemoryStats s0 = a->stats();
  { Tensor big = empty({{1 << 20}}); }  // a 4 MiB block, now cached
  EXPECT_EQ(a->stats().num_sys_allocs, s0.num_sys_allocs + 1);
  {
    Tensor mid = empty({{(3 << 20) / 4}});  // 3 MiB, a class of its own: served by the 4 MiB block
    EXPECT_EQ(a->stats().num_sys_allocs, s0.num_sys_allocs + 1);
    EXPECT_EQ(a->stats().allocated, s0.allocated + (3 << 20));  // counted by its own class
    EXPECT_EQ(a->stats().reserved, s0.reserved + (4 << 20));
    Tensor small = empty({{(3 << 20) / 16}});  // 768 KiB: below 1 MiB, never lent a larger block
    EXPECT_EQ(a->stats().num_sys_allocs, s0.num_sys_allocs + 2);
  }
  EXPECT_EQ(a->stats().allocated, s0.allocated);
  {
    Tensor again = empty({{1 << 20}});  // the 4 MiB block went back to its class
    EXPECT_EQ(a->stats().num_sys_allocs, s0.num_sys_allocs + 2);
    Tensor tiny = empty({{(3 << 20) / 8}});  // 1.5 MiB: the cached 768 KiB block is smaller, nothing larger is free
    EXPECT_EQ(a->stats().num_sys_allocs, s0.num_sys_allocs + 3);
  }
  {
    Tensor a1 = empty({{1 << 20}});       // 4 MiB from the cache
    Tensor quarter = empty({{1 << 18}});  // 1 MiB: the cached 1.5 MiB block (<= 2 MiB) serves it
    EXPECT_EQ(a->stats().num_sys_allocs, s0.num_sys_allocs + 3);
    Tensor one = empty({{1 << 18}});  // another 1 MiB: the 4 MiB block is out, and past twice anyway
    EXPECT_EQ(a->stats().num_sys_allocs, s0.num_sys_allocs + 4);
  }
  a->empty_cache();
  EXPECT_EQ(a->stats().reserved, s0.reserved);
}

// The VmFlags of the mapping that holds p, from /proc/self/smaps ("" if none does).
std::string vm_flags_at(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' '))
      inside = lo <= at && at < hi;  // a mapping's first line: "lo-hi perms offset dev inode path"
    else if (inside && line.rfind("VmFlags:", 0) == 0)
      return line;
  }
  return "";
}

// Note [Huge pages]: blocks of a huge page and more start on one and ask the kernel for huge pages; smaller ones do
// not need to.
TEST(Tensor, LargeBlocksStartOnAHugePageAndAskForIt) {
  std::ifstream size_file("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
  uint64_t huge = 0;
  if (!(size_file >> huge) || huge != (2u << 20)) GTEST_SKIP() << "no 2 MiB transparent huge pages here";
  cpu_allocator()->empty_cache();  // fresh blocks from the system
  for (int64_t floats : {int64_t(3) << 18, int64_t(1) << 22, (int64_t(5) << 20) + 3}) {
    Tensor t = empty({{floats}});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % huge, 0u) << floats;
    EXPECT_NE(vm_flags_at(t.data_ptr()).find(" hg"), std::string::npos) << vm_flags_at(t.data_ptr());
    t.fill_(1.0);
    EXPECT_EQ(sum(t).item<float>(), static_cast<float>(floats));  // all of it is usable
  }
  Tensor small = empty({{int64_t(1) << 18}});  // 1 MiB: below a huge page, mapped as it comes
  EXPECT_EQ(vm_flags_at(small.data_ptr()).find(" hg"), std::string::npos) << vm_flags_at(small.data_ptr());
}

TEST(Tensor, ErrorsNameTheOpAndShapes) {
  Tensor x = zeros({{2, 3}});
  try {
    x.view({{4, 2}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("shape '[4, 2]' is invalid for input of size 6"), std::string::npos);
  }
  EXPECT_THROW(x.transpose(0, 2), IndexError);
  EXPECT_THROW(x.select(0, 2), IndexError);
  EXPECT_THROW(zeros({{-1}}), Error);
  EXPECT_THROW(x.expand({{3, 3}}), Error);
  EXPECT_THROW(x.item(), Error);
  EXPECT_THROW(zeros({{2}}, TensorOptions(ScalarType::Int64)).set_requires_grad(true), Error);
  EXPECT_THROW(zeros({{2}}, TensorOptions(Device(DeviceType::CUDA, 0))), Error);
  EXPECT_THROW(Device("tpu"), Error);
  EXPECT_THROW(Device("cuda:x"), Error);
}

TEST(StridedIter, CoalescesContiguousAndReordersTransposed) {
  Tensor a = empty({{4, 5, 6}});
  Tensor b = empty({{4, 5, 6}});
  StridedIter it = StridedIter::make({&a, &b}, a.sizes());
  EXPECT_EQ(it.ndim, 1);
  EXPECT_TRUE(it.is_contiguous());
  EXPECT_EQ(it.shape[0], 120);
  // A transposed output is walked in its memory order: the innermost dim is the one of stride 1.
  Tensor t = empty({{6, 4}}).t();
  Tensor s = empty({{4, 6}});
  StridedIter it2 = StridedIter::make({&t, &s}, t.sizes());
  EXPECT_EQ(it2.ndim, 2);
  EXPECT_EQ(it2.strides[0][0], 4);   // output: stride 1 element
  EXPECT_EQ(it2.strides[1][0], 24);  // input: stride 6 elements
  // Broadcast inputs get stride 0.
  Tensor row = empty({{6}});
  StridedIter it3 = StridedIter::make({&a, &row}, a.sizes());
  EXPECT_EQ(it3.ndim, 2);
  EXPECT_EQ(it3.strides[1][1], 0);
}

TEST(Promotion, PythonScalarsAreWeak) {
  Tensor i32 = zeros({{2}}, TensorOptions(ScalarType::Int32));
  Tensor f16 = zeros({{2}}, TensorOptions(ScalarType::Float16));
  Tensor u8 = zeros({{2}}, TensorOptions(ScalarType::UInt8));
  EXPECT_EQ(result_type(i32, Scalar(2.5)), ScalarType::Float32);
  EXPECT_EQ(result_type(f16, Scalar(1.0)), ScalarType::Float16);
  EXPECT_EQ(result_type(u8, Scalar(int64_t(1000))), ScalarType::UInt8);
  EXPECT_EQ(result_type(zeros({{2}}, TensorOptions(ScalarType::Bool)), Scalar(int64_t(1))), ScalarType::Int64);
  // A 0-d tensor is weaker than a dimensioned one, unless of a higher category.
  EXPECT_EQ(result_type(i32, zeros({}, TensorOptions(ScalarType::Int64))), ScalarType::Int32);
  EXPECT_EQ(result_type(i32, zeros({}, TensorOptions(ScalarType::Float64))), ScalarType::Float64);
}
