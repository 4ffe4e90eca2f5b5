// Autocast state and casts (Note [Autocast] in autocast.h).
#include "ember/autocast.h"

#include <atomic>
#include <unordered_map>

#include "ember/error.h"
#include "ember/ops.h"

namespace ember::autocast {

namespace {

struct CacheEntry {
  Tensor src;  // held so that the key (its impl) cannot be reused by another tensor while the entry lives
  Tensor cast;
  uint32_t version;
};

// Threads with autocast enabled for some device type: while there are none (the common case), the ops' check is
// one relaxed load of this counter, not a thread-local access.
std::atomic<int> active_threads{0};

struct State {
  ~State() {
    if (enabled[0] || enabled[1]) active_threads.fetch_sub(1, std::memory_order_relaxed);
  }
  // Sets the flags, keeping active_threads in step.
  void set(bool cpu, bool cuda) {
    const bool before = enabled[0] || enabled[1], after = cpu || cuda;
    enabled[0] = cpu;
    enabled[1] = cuda;
    if (before != after) active_threads.fetch_add(after ? 1 : -1, std::memory_order_relaxed);
  }
  bool enabled[2] = {false, false};  // indexed by idx(DeviceType)
  ScalarType dtype[2] = {ScalarType::BFloat16, ScalarType::Float16};
  bool cache_enabled = true;
  bool excluded = false;
  int nesting = 0;
  std::unordered_map<const TensorImpl*, CacheEntry> cache;
};

thread_local State state;

int idx(DeviceType t) { return t == DeviceType::CUDA ? 1 : 0; }

}  // namespace

bool is_enabled(DeviceType t) { return state.enabled[idx(t)]; }
void set_enabled(DeviceType t, bool enabled) {
  state.set(t == DeviceType::CPU ? enabled : state.enabled[0], t == DeviceType::CUDA ? enabled : state.enabled[1]);
}
ScalarType get_dtype(DeviceType t) { return state.dtype[idx(t)]; }
void set_dtype(DeviceType t, ScalarType dtype) {
  EMBER_CHECK_TYPE(is_floating(dtype), "set_autocast_dtype(): the autocast dtype must be a floating dtype, got ",
                   dtype);
  state.dtype[idx(t)] = dtype;
}
bool is_cache_enabled() { return state.cache_enabled; }
void set_cache_enabled(bool enabled) { state.cache_enabled = enabled; }
int increment_nesting() { return ++state.nesting; }
int decrement_nesting() { return state.nesting > 0 ? --state.nesting : 0; }
void clear_cache() { state.cache.clear(); }
size_t cache_size() { return state.cache.size(); }
bool any_active() {
  if (active_threads.load(std::memory_order_relaxed) == 0) [[likely]]
    return false;
  return (state.enabled[0] || state.enabled[1]) && !state.excluded;
}

ExcludeGuard::ExcludeGuard() : prev_(state.excluded) { state.excluded = true; }
ExcludeGuard::~ExcludeGuard() { state.excluded = prev_; }

DisabledGuard::DisabledGuard() : prev_cpu_(state.enabled[0]), prev_cuda_(state.enabled[1]) { state.set(false, false); }
DisabledGuard::~DisabledGuard() { state.set(prev_cpu_, prev_cuda_); }

namespace detail {

Policy resolve(const OpPolicy& p, DeviceType dt) {
  if (!state.enabled[idx(dt)]) return Policy::None;
  Policy r = dt == DeviceType::CUDA ? p.cuda : p.cpu;
  if (r == Policy::Banned)
    fail<Error>(p.name ? p.name : "this op",
                " and torch.nn.BCELoss are unsafe to autocast.\nMany models use a sigmoid layer right before the "
                "binary cross entropy layer.\nIn this case, combine the two layers using "
                "torch.nn.functional.binary_cross_entropy_with_logits\nor torch.nn.BCEWithLogitsLoss.  "
                "binary_cross_entropy_with_logits and BCEWithLogits are\nsafe to autocast.");
  return r;
}

Tensor cast(const Tensor& t, ScalarType dtype, DeviceType dt, bool fp32_policy) {
  if (!t.defined() || t.device().type != dt || t.dtype() == dtype) return t;
  const ScalarType s = t.dtype();
  if (!is_floating(s) || s == ScalarType::Float64) return t;
  if (fp32_policy && s == ScalarType::Float32) return t;
  // Note [Autocast]: weights (float32 leaves that require grad, not views) are cast once per region.
  const bool cacheable = state.cache_enabled && s == ScalarType::Float32 && dtype == state.dtype[idx(dt)] &&
                         t.requires_grad() && t.is_leaf() && t.impl()->view_base() == nullptr;
  if (!cacheable) return t.to(dtype);
  auto it = state.cache.find(t.impl());
  if (it != state.cache.end() && it->second.version == t.version() && it->second.cast.dtype() == dtype)
    return it->second.cast;
  Tensor r = t.to(dtype);
  state.cache.insert_or_assign(t.impl(), CacheEntry{t, r, t.version()});
  return r;
}

}  // namespace detail
}  // namespace ember::autocast
