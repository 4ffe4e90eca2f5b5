// Note [Profiler]
// Off, the recorder costs each kernel-slot call one relaxed load of g_state. On, each thread appends to its own
// buffer (a mutex that only stop() and a scope closed from another thread contend for); a scope keeps a handle
// (buffer, index, id, session generation) and stamps its end there. The innermost open scope of a thread is the
// parent of what begins inside it, which gives the tree that self time and memory attribution are computed from
// (in Python, ember/autograd/profiler_util.py). A new session (start, or clear at the schedule's warmup -> record
// step) bumps the generation: buffers of an older one are dropped when their thread next records, and scopes that
// close late into an older generation change nothing.
#include "ember/profiler/profiler.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <typeinfo>

#include "ember/backend/kernels/reduce.h"
#include "ember/backend/kernels/scan.h"
#include "ember/backend/kernels/sort.h"
#include "ember/error.h"
#include "ember/ops/binary.h"
#include "ember/ops/ternary.h"
#include "ember/ops/unary_op.h"
#include "ember/tensor.h"

namespace ember::profiler {

std::atomic<uint32_t> g_state{0};

namespace {

constexpr uint32_t kOn = 1, kShapes = 2, kMemory = 4, kDevice = 8, kNvtx = 16;
constexpr uint32_t kRecording = kOn | kShapes | kMemory | kDevice;

struct Record {
  Event e;
  int64_t device_start = -1, device_end = -1;  // DeviceTimer handles
  bool closed = false;
};

struct ThreadBuffer {
  std::mutex mu;
  uint64_t tid = 0;
  uint64_t generation = 0;
  std::vector<Record> records;
  std::vector<std::pair<uint64_t, int64_t>> stack;  // open scopes: (generation, id), innermost last
};

std::mutex g_mu;  // the registry and session changes
std::vector<std::shared_ptr<ThreadBuffer>> g_buffers;
std::atomic<uint64_t> g_generation{0};
std::atomic<int64_t> g_next_id{1};
std::atomic<uint64_t> g_next_tid{1};
DeviceTimer* g_timers[kNumDeviceTypes] = {};  // indexed by DeviceType
RangeMarker g_marker;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The calling thread's buffer; nullptr once the thread's thread-locals are being destroyed (a tensor freed by a
// later thread-local's destructor then goes unrecorded).
thread_local bool t_exiting = false;
struct BufferHolder {
  std::shared_ptr<ThreadBuffer> buf;
  ~BufferHolder() { t_exiting = true; }
};

ThreadBuffer* this_thread() {
  if (t_exiting) [[unlikely]]
    return nullptr;
  thread_local BufferHolder holder;
  if (!holder.buf) [[unlikely]] {
    auto b = std::make_shared<ThreadBuffer>();
    b->tid = g_next_tid.fetch_add(1);
    std::lock_guard<std::mutex> l(g_mu);
    g_buffers.push_back(b);
    holder.buf = std::move(b);
  }
  return holder.buf.get();
}

// Under b.mu: the buffer of the current session, the innermost open scope's id (-1 if none).
int64_t prepare(ThreadBuffer& b, uint64_t gen) {
  if (b.generation != gen) {
    b.records.clear();
    b.generation = gen;
  }
  for (auto it = b.stack.rbegin(); it != b.stack.rend(); ++it)
    if (it->first == gen) return it->second;
  return -1;
}

ScopeHandle open(std::string name, EventKind kind, Device device, int64_t start) {
  ThreadBuffer* b = this_thread();
  if (!b) return {};
  const uint64_t gen = g_generation.load();
  ScopeHandle h{b, -1, g_next_id.fetch_add(1), gen};
  std::lock_guard<std::mutex> l(b->mu);
  Record r;
  r.e.name = std::move(name);
  r.e.kind = kind;
  r.e.id = h.id;
  r.e.parent = prepare(*b, gen);
  r.e.start_ns = start;
  r.e.thread = b->tid;
  r.e.device = device;
  h.index = static_cast<int64_t>(b->records.size());
  b->records.push_back(std::move(r));
  b->stack.emplace_back(gen, h.id);
  return h;
}

Record* record_of(ThreadBuffer* b, const ScopeHandle& h) {
  if (b->generation != h.generation || h.index >= static_cast<int64_t>(b->records.size())) return nullptr;
  return &b->records[h.index];
}

void close(ScopeHandle& h, int64_t device_end = -1) {
  if (!h.thread) return;
  const int64_t end = now_ns();
  auto* b = static_cast<ThreadBuffer*>(h.thread);
  std::lock_guard<std::mutex> l(b->mu);
  for (auto it = b->stack.rbegin(); it != b->stack.rend(); ++it)
    if (it->second == h.id) {
      b->stack.erase(std::next(it).base());
      break;
    }
  if (Record* r = record_of(b, h)) {
    r->e.end_ns = end;
    r->device_end = device_end;
    r->closed = true;
  }
  h.thread = nullptr;
}

const char* enum_label(const KernelArg& a) {
  const std::type_info& t = *a.enum_type;
  const int v = a.enum_value;
  if (t == typeid(UnaryOp)) return unary_op_name(static_cast<UnaryOp>(v));
  if (t == typeid(BinaryOp)) return binary_op_name(static_cast<BinaryOp>(v));
  if (t == typeid(ReduceOp)) return reduce_op_name(static_cast<ReduceOp>(v));
  if (t == typeid(TernaryOp)) return ternary_op_name(static_cast<TernaryOp>(v));
  if (t == typeid(ScanOp)) return scan_op_name(static_cast<ScanOp>(v));
  if (t == typeid(SelectOp)) return select_op_name(static_cast<SelectOp>(v));
  return nullptr;
}

}  // namespace

std::string kernel_event_name(const char* slot, std::initializer_list<KernelArg> args) {
  for (const KernelArg& a : args)
    if (a.enum_type) {
      if (const char* label = enum_label(a)) return std::string("ember::") + label;
      break;
    }
  return std::string("ember::") + slot;
}

KernelScope::KernelScope(const char* slot, Device device, std::initializer_list<KernelArg> args) : device_(device) {
  const uint32_t state = g_state.load(std::memory_order_relaxed);
  const int64_t start = now_ns();
  std::string name = kernel_event_name(slot, args);
  if ((state & kNvtx) && g_marker.push) {
    g_marker.push(name.c_str());
    nvtx_ = true;
  }
  if (!(state & kOn)) return;
  h_ = open(std::move(name), EventKind::Kernel, device, start);
  if (!h_.thread) return;
  DeviceTimer* timer = (state & kDevice) ? g_timers[static_cast<int>(device.type)] : nullptr;
  const int64_t dstart = timer ? timer->record(device) : -1;
  timed_ = timer != nullptr;
  if (!(state & kShapes) && dstart < 0) return;
  auto* b = static_cast<ThreadBuffer*>(h_.thread);
  std::lock_guard<std::mutex> l(b->mu);
  Record* r = record_of(b, h_);
  if (!r) return;
  r->device_start = dstart;
  if (state & kShapes)
    for (const KernelArg& a : args) {
      if (a.tensor && a.tensor->defined()) {
        auto s = a.tensor->sizes();
        r->e.shapes.emplace_back(s.begin(), s.end());
        r->e.dtypes.emplace_back(dtype_name(a.tensor->dtype()));
      } else {
        r->e.shapes.emplace_back();
        r->e.dtypes.emplace_back(a.enum_type ? "Enum" : (a.tensor ? "" : "Scalar"));
      }
    }
}

KernelScope::~KernelScope() {
  int64_t dend = -1;
  if (timed_ && (g_state.load(std::memory_order_relaxed) & kDevice))
    if (DeviceTimer* timer = g_timers[static_cast<int>(device_.type)]) dend = timer->record(device_);
  close(h_, dend);
  if (nvtx_) g_marker.pop();
}

RecordScope::RecordScope(std::string name, EventKind kind) {
  const uint32_t state = g_state.load(std::memory_order_relaxed);
  if ((state & kNvtx) && g_marker.push) {
    g_marker.push(name.c_str());
    nvtx_ = true;
  }
  if (state & kOn) h_ = open(std::move(name), kind, Device(DeviceType::CPU), now_ns());
}

void RecordScope::end() {
  close(h_);
  if (nvtx_) g_marker.pop();
  nvtx_ = false;
}

int64_t push_scope(const std::string& name) {
  if (!active()) return 0;
  return reinterpret_cast<int64_t>(new RecordScope(name));
}

void pop_scope(int64_t handle) { delete reinterpret_cast<RecordScope*>(handle); }

void record_memory_slow(const void* ptr, int64_t bytes, Device device) {
  if (!bytes) return;
  const int64_t t = now_ns();
  ThreadBuffer* b = this_thread();
  if (!b) return;
  const uint64_t gen = g_generation.load();
  std::lock_guard<std::mutex> l(b->mu);
  Record r;
  r.e.name = "[memory]";
  r.e.kind = EventKind::Memory;
  r.e.id = g_next_id.fetch_add(1);
  r.e.parent = prepare(*b, gen);
  r.e.start_ns = r.e.end_ns = t;
  r.e.thread = b->tid;
  r.e.device = device;
  r.e.bytes = bytes;
  r.e.address = reinterpret_cast<uint64_t>(ptr);
  r.closed = true;
  b->records.push_back(std::move(r));
}

void start(const Config& c) {
  std::lock_guard<std::mutex> l(g_mu);
  EMBER_CHECK(!(g_state.load() & kOn), "profiler: it is already running (one profile() at a time)");
  // Threads that have ended and left only an old session's events behind.
  std::erase_if(g_buffers, [](const std::shared_ptr<ThreadBuffer>& b) { return b.use_count() == 1; });
  g_generation.fetch_add(1);
  g_state.store((g_state.load() & kNvtx) | kOn | (c.record_shapes ? kShapes : 0) | (c.profile_memory ? kMemory : 0) |
                (c.device_timing ? kDevice : 0));
}

void clear() {
  std::lock_guard<std::mutex> l(g_mu);
  g_generation.fetch_add(1);
}

bool enabled() { return g_state.load(std::memory_order_relaxed) & kOn; }

std::vector<Event> stop() {
  std::lock_guard<std::mutex> l(g_mu);
  const uint32_t state = g_state.fetch_and(~kRecording);
  std::vector<Event> out;
  if (!(state & kOn)) return out;
  const uint64_t gen = g_generation.load();
  for (auto& b : g_buffers) {
    std::lock_guard<std::mutex> bl(b->mu);
    if (b->generation != gen) continue;
    for (Record& r : b->records) {
      if (!r.closed) continue;  // still open (a scope that outlives the session): left out
      if (DeviceTimer* timer = g_timers[static_cast<int>(r.e.device.type)]; timer && r.device_start >= 0) {
        r.e.device_start_ns = timer->to_host_ns(r.device_start);
        r.e.device_end_ns = r.device_end >= 0 ? timer->to_host_ns(r.device_end) : -1;
      }
      out.push_back(std::move(r.e));
    }
    b->records.clear();
  }
  for (DeviceTimer* t : g_timers)
    if (t && (state & kDevice)) t->release();
  g_generation.fetch_add(1);  // late closes of this session's scopes change nothing
  std::stable_sort(out.begin(), out.end(), [](const Event& a, const Event& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.id < b.id;
  });
  return out;
}

void register_range_marker(RangeMarker marker) {
  std::lock_guard<std::mutex> l(g_mu);
  g_marker = marker;
}

bool nvtx_available() { return g_marker.push != nullptr; }

void set_nvtx(bool on) {
  std::lock_guard<std::mutex> l(g_mu);
  if (on && g_marker.push)
    g_state.fetch_or(kNvtx);
  else
    g_state.fetch_and(~kNvtx);
}

void register_device_timer(DeviceType type, DeviceTimer* timer) {
  std::lock_guard<std::mutex> l(g_mu);
  g_timers[static_cast<int>(type)] = timer;
}

}  // namespace ember::profiler
