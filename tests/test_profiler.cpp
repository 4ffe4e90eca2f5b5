// The profiler's recorder (ember/profiler/profiler.h, Note [Profiler]): which kernel-slot calls, scopes, autograd
// nodes and allocations it records, their tree, shapes, threads, memory, and device timing through a fake timer.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "ember/autograd/engine.h"
#include "ember/backend/caching_allocator.h"
#include "ember/backend/kernels/reduce.h"
#include "ember/ops.h"
#include "ember/profiler/profiler.h"
#include "fake_device.h"

using namespace ember;
namespace prof = ember::profiler;

namespace {

std::map<std::string, int> counts(const std::vector<prof::Event>& events) {
  std::map<std::string, int> c;
  for (const auto& e : events) ++c[e.name];
  return c;
}

const prof::Event* find(const std::vector<prof::Event>& events, const std::string& name) {
  for (const auto& e : events)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace

TEST(Profiler, OffRecordsNothing) {
  Tensor a = ones({{4, 4}});
  EXPECT_FALSE(prof::enabled());
  Tensor b = matmul(a, a);  // before any session
  prof::start({});
  std::vector<prof::Event> events = prof::stop();
  EXPECT_TRUE(events.empty());
  b = relu(b);  // after it: not recorded in the next one either
  prof::start({});
  EXPECT_TRUE(prof::stop().empty());
}

TEST(Profiler, CountsOpsOfAKnownProgram) {
  Tensor a = ones({{8, 8}}), b = ones({{8, 8}});
  prof::start({});
  Tensor c = matmul(a, b);
  c = matmul(c, b);
  c = matmul(c, b);
  Tensor r = relu(c);
  std::vector<prof::Event> events = prof::stop();
  auto n = counts(events);
  EXPECT_EQ(n["ember::matmul"], 3);
  EXPECT_EQ(n["ember::relu"], 1);
  for (const auto& e : events) {
    EXPECT_LE(e.start_ns, e.end_ns) << e.name;
    EXPECT_GT(e.thread, 0u);
  }
}

TEST(Profiler, ScopesNestAndShapesAreRecorded) {
  Tensor a = ones({{4, 5}}), b = ones({{5, 6}});
  prof::start({.record_shapes = true});
  int64_t outer_id = 0;
  {
    prof::RecordScope outer("outer");
    outer_id = outer.id();
    Tensor c = matmul(a, b);
  }
  std::vector<prof::Event> events = prof::stop();
  const prof::Event* outer = find(events, "outer");
  const prof::Event* mm = find(events, "ember::matmul");
  ASSERT_TRUE(outer && mm);
  EXPECT_EQ(outer->id, outer_id);
  EXPECT_EQ(outer->parent, -1);
  EXPECT_EQ(mm->parent, outer->id);
  EXPECT_GE(mm->start_ns, outer->start_ns);
  EXPECT_LE(mm->end_ns, outer->end_ns);
  ASSERT_GE(mm->shapes.size(), 3u);  // (out, a, b, alpha, beta)
  EXPECT_EQ(mm->shapes[0], (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(mm->shapes[1], (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(mm->shapes[2], (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(mm->dtypes[1], "float32");
  EXPECT_TRUE(mm->shapes[3].empty());  // a Scalar
}

TEST(Profiler, MemoryIsAttributedToTheInnermostScope) {
  prof::start({.profile_memory = true});
  {
    prof::RecordScope s("alloc");
    Tensor t = empty({{1000}}, ScalarType::Float32);
  }
  std::vector<prof::Event> events = prof::stop();
  const prof::Event* scope = find(events, "alloc");
  ASSERT_TRUE(scope);
  int64_t allocated = 0, freed = 0;
  for (const auto& e : events) {
    if (e.kind != prof::EventKind::Memory) continue;
    if (e.bytes > 0) {
      allocated += e.bytes;
      const prof::Event* parent = nullptr;
      for (const auto& p : events)
        if (p.id == e.parent) parent = &p;
      ASSERT_TRUE(parent);
      EXPECT_EQ(parent->name, "ember::empty");  // the storage's own scope, inside "alloc"
      EXPECT_EQ(parent->parent, scope->id);
    } else {
      freed += e.bytes;
      EXPECT_EQ(e.parent, scope->id);  // the tensor dies at the end of the scope's block
    }
  }
  EXPECT_EQ(allocated, 4000);
  EXPECT_EQ(freed, -4000);
}

TEST(Profiler, CachingAllocatorEventsNameTheirDevice) {
  ember::test_support::FakeFixture<CachingAllocator> f(64 << 20, "cuda:1", CachingAllocator::Options{});
  prof::start({.profile_memory = true});
  void* p = f.alloc->allocate(1000);
  f.alloc->deallocate(p, 1000);
  std::vector<prof::Event> events = prof::stop();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].bytes, 1000);
  EXPECT_EQ(events[1].bytes, -1000);
  EXPECT_TRUE(events[0].device.is_cuda());
  EXPECT_EQ(events[0].device.index, 1);
  EXPECT_EQ(events[0].address, reinterpret_cast<uint64_t>(p));
}

TEST(Profiler, AutogradNodesAreRecorded) {
  Tensor x = ones({{3}}, TensorOptions().requires_grad(true));
  Tensor y = mul(x, x);
  Tensor loss = sum(y);
  prof::start({});
  autograd::backward({loss});
  auto n = counts(prof::stop());
  EXPECT_EQ(n["autograd::engine::evaluate_function: MulBackward0"], 1);
  EXPECT_EQ(n["autograd::engine::evaluate_function: SumBackward0"], 1);
}

TEST(Profiler, ThreadsRecordIntoTheirOwnBuffers) {
  Tensor a = ones({{16}});
  prof::start({});
  auto work = [&] {
    for (int i = 0; i < 50; ++i) Tensor r = relu(a);
  };
  std::thread t(work);
  work();
  t.join();
  std::vector<prof::Event> events = prof::stop();
  std::map<uint64_t, int> per_thread;
  for (const auto& e : events)
    if (e.name == "ember::relu") ++per_thread[e.thread];
  ASSERT_EQ(per_thread.size(), 2u);
  for (auto& [tid, k] : per_thread) EXPECT_EQ(k, 50);
}

TEST(Profiler, StartTwiceRaisesAndClearDropsEarlierEvents) {
  Tensor a = ones({{4}});
  prof::start({});
  EXPECT_THROW(prof::start({}), Error);
  Tensor r = relu(a);
  prof::clear();
  r = neg(a);
  auto n = counts(prof::stop());
  EXPECT_EQ(n.count("ember::relu"), 0u);
  EXPECT_EQ(n["ember::neg"], 1);
}

namespace {
// A device timer on the CPU: handle i is "on the device" at 1000 * (i + 1) ns.
struct FakeTimer : prof::DeviceTimer {
  int64_t next = 0;
  bool released = false;
  int64_t record(Device) override { return next++; }
  int64_t to_host_ns(int64_t h) override { return 1000 * (h + 1); }
  void release() override { released = true; }
};
}  // namespace

TEST(Profiler, DeviceTimesComeFromTheDevicesTimer) {
  FakeTimer timer;
  prof::register_device_timer(DeviceType::CPU, &timer);
  Tensor a = ones({{4}});
  prof::start({.device_timing = true});
  Tensor r = relu(a);
  std::vector<prof::Event> events = prof::stop();
  prof::register_device_timer(DeviceType::CPU, nullptr);
  const prof::Event* e = find(events, "ember::relu");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->device_start_ns, 1000);  // handles 0 and 1: before and after the kernel
  EXPECT_EQ(e->device_end_ns, 2000);
  EXPECT_TRUE(timer.released);
  // Without the activity, no device events are recorded.
  timer.next = 0;
  prof::register_device_timer(DeviceType::CPU, &timer);
  prof::start({});
  r = relu(a);
  events = prof::stop();
  prof::register_device_timer(DeviceType::CPU, nullptr);
  EXPECT_EQ(timer.next, 0);
  EXPECT_EQ(find(events, "ember::relu")->device_start_ns, -1);
}

TEST(Profiler, KernelNamesComeFromTheOpEnum) {
  EXPECT_EQ(prof::kernel_event_name("unary", {prof::kernel_arg(UnaryOp::Relu)}), "ember::relu");
  EXPECT_EQ(prof::kernel_event_name("binary", {prof::kernel_arg(BinaryOp::Add)}), "ember::add");
  EXPECT_EQ(prof::kernel_event_name("reduce", {prof::kernel_arg(ReduceOp::Sum)}), "ember::sum");
  EXPECT_EQ(prof::kernel_event_name("copy", {prof::kernel_arg(Tensor())}), "ember::copy");
}
