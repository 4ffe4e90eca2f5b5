// Note [oneDNN primitives]
// Making a oneDNN primitive (descriptor, implementation search, JIT code) costs tens of microseconds to
// milliseconds, so each is made once per key (op, dtype, shapes, strides, parameters, thread count) and kept in a
// bounded LRU cache together with its operands' layouts and reorders. Execution takes memory from ember's caching
// allocator for the scratchpad (user scratchpad mode: concurrent calls on different threads never share one) and
// for reordered copies of operands.
//
// Layouts (convolutions): with `any` (the default), the primitive picks its layouts (blocked nChw16c on AVX-512,
// where oneDNN's direct JIT kernels run) and ember's plain NCHW tensors are reordered in and out each call, as
// PyTorch's ideep path does; with `plain` (EMBER_DNNL_LAYOUT=plain), the primitive works on the tensors' own
// layout and oneDNN falls back to im2col + GEMM. Measured with benchmarks/conv.py (batch 32, 32x32, 3x3, one
// thread, CPU time): 64->64 forward 16 ms with `any` against 28 ms plain, forward+backward 57 against 108; 3->64
// 1.4 / 3.0 against 1.6 / 4.9. The reorders cost about 1.5 ms per 8 MiB tensor, so conv_backward reorders
// grad_out once for both of its primitives.
//
// Threads: Debian's oneDNN runs on OpenMP, whose thread count is a per-thread setting; the stream accessor sets it to
// one on each calling thread (looked up in the libgomp oneDNN loaded, so ember needs no OpenMP of its own), so
// libgomp never starts a worker for ember.
//
// Note [Primitives on ember's threads]
// OpenMP splits a primitive statically among its threads: when one of them is descheduled (a busy machine) the
// others wait for it at the primitive's end, and between primitives libgomp's threads spin for the next region,
// holding cores that ember's workers and OpenBLAS's threads want. On two cores the small CNN of the demo ran no
// faster on two threads than on one, and 1.6x slower than on one when a busy process ran beside it. So convolutions
// and poolings over a batch run each slice of the batch as a one-thread primitive on ember's pool, whose workers
// claim slices (Note [Intra-op parallelism]): a descheduled worker's slice is run by the caller. A convolution cuts
// its batch into up to kChunksPerThread slices per thread, as parallel_for does, while each slice keeps
// kMinConvPiece multiply-adds: with one slice per thread, a worker that started its slice late (woken on a busy
// core) kept the caller waiting for most of it. The weight gradient sums one partial per slice, element by element in
// slice order, on the pool. Some convolutions split channels instead (Note [Splitting a convolution]), 16-bit matmuls
// their output's rows or columns (Note [16-bit products on ember's threads] in dnnl_matmul.cpp). Everything else here
// runs one OpenMP thread per call.
//
// Note [Splitting a convolution]
// Slices of the batch each read the whole weight and reorder it into the primitive's blocked layout, and their
// weight gradients are whole-weight partials, reordered back and summed: work that grows with the slice count. For
// the deep layers of a CNN on small images the weight is far bigger than the activations (ResNet-18 at 32x32,
// batch 32: 512x512x3x3 weights, 9.4 MB, against 64 KB of input), so two slices did twice the weight's reorders and
// a serial sum, and two threads were no faster than one. Such a convolution, whose weight has more elements than
// its input and output together, and any batch of one, splits channels instead, in blocks of 16 (oneDNN's channel
// block) or whole groups: the forward and the weight gradient split the output channels (each piece reads the
// whole input, reorders and writes only its own part of the weight), grad_input splits the input channels (each
// piece reads the whole of grad_out). No partials, and the reorders are split with the work: ResNet-18's CIFAR
// training step (batch 32) at two threads took 78 ms of CPU time in all, 62 at one thread; now 62 at both. The
// pieces of a forward share one reordered copy of the input, and whole groups are cut on 16-channel boundaries
// (a piece of 36 channels is reordered through a padded layout, 3x slower per element than 32): a piece may run on
// the caller alone when the workers are busy elsewhere, and then the split must cost no more than the whole.
#include "ember/backend/cpu/dnnl.h"

#include <dlfcn.h>
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <list>
#include <mutex>
#include <unordered_map>

#include "ember/backend/cpu/dnnl_reorder.h"
#include "ember/backend/kernels/nn/conv.h"
#include "ember/backend/kernels/nn/pooling.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/parallel.h"
#include "ember/sizes.h"
#include "ember/storage.h"
#include "ember/storage_watch.h"

namespace ember::dnnl_cpu {

using dnnl::memory;

namespace {

// Sets the calling thread's OpenMP thread count to one, once per thread (Note [Primitives on ember's threads]).
void follow_thread_count() {
  using SetFn = void (*)(int);
  static const SetFn set = [] {
    void* h = dlopen("libgomp.so.1", RTLD_LAZY | RTLD_NOLOAD);
    return h ? reinterpret_cast<SetFn>(dlsym(h, "omp_set_num_threads")) : nullptr;
  }();
  thread_local bool done = false;
  if (!done && set) set(1);
  done = true;
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  follow_thread_count();
  return s;
}

Tensor buffer(size_t bytes) { return empty({{static_cast<int64_t>(bytes)}}, TensorOptions(ScalarType::UInt8)); }

class Cache {
 public:
  std::shared_ptr<const Prim> get(const std::string& key, const std::function<Prim()>& make) {
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = map_.find(key);
      if (it != map_.end()) {
        lru_.splice(lru_.begin(), lru_, it->second.second);
        return it->second.first;
      }
    }
    room_for_code();
    auto p = std::make_shared<const Prim>(make());  // outside the lock: making one may take milliseconds
    std::lock_guard<std::mutex> l(mu_);
    if (map_.find(key) == map_.end()) {
      lru_.push_front(key);
      map_.emplace(key, std::make_pair(p, lru_.begin()));
      if (map_.size() > kCapacity) {
        map_.erase(lru_.back());
        lru_.pop_back();
      }
    }
    return p;
  }

 private:
  static constexpr size_t kCapacity = 256;
  std::mutex mu_;
  std::list<std::string> lru_;
  std::unordered_map<std::string, std::pair<std::shared_ptr<const Prim>, std::list<std::string>::iterator>> map_;
};

memory::dims dims_of(IntArrayRef v) { return memory::dims(v.begin(), v.end()); }

}  // namespace

void follow_openmp_threads() { follow_thread_count(); }

void room_for_code() {
  // Address space only (never touched), mapped directly: a 32 MiB malloc and free would move glibc's mmap threshold.
  constexpr size_t kRoom = size_t{32} << 20;
  auto probe = [] {
    void* p = mmap(nullptr, kRoom, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    munmap(p, kRoom);
    return true;
  };
  if (probe()) return;
  cpu_allocator()->empty_cache();
  if (!probe())
    fail<OutOfMemoryError>("CPU out of memory: oneDNN needs about ", kRoom >> 20,
                           " MiB free to compile a kernel, and the address space is full");
}

// Note [Blocked weights]
// A convolution's primitive wants its weight in a blocked layout (OIhw16i16o and the like), and reordering the
// plain weight into it reads and writes the whole weight on every call: for a batch of one on small images, where
// the weights are much bigger than the activations, most of the time (ResNet-18 at 32x32: 3.7 of 5.8 ms). PyTorch's
// eager mode pays it too, or runs im2col + GEMM on the plain weight. So a reordered weight is kept for later calls
// that see the same bytes: the same storage at the same version (Note [Caches derived from a storage]), view offset
// and primitive. It is kept only from its second use at one version on, so that training, whose optimizer step
// writes every weight between two forwards, never holds a copy, while inference, evaluation and frozen layers
// (whose backward reads the weight in a layout of its own) reuse theirs. Memory shared outside ember (NumPy, DLPack)
// is never cached. A copy goes when its storage is destroyed, when its entry sees a newer version, or when the
// copies would exceed EMBER_DNNL_WEIGHT_CACHE_MB (default 1024; 0 turns the cache off), least recently used first.
// In C++, a write to a weight through a raw pointer must be followed by bump_version(), as autograd expects.
namespace {

class BlockedWeights {
 public:
  static BlockedWeights& get() {
    static auto* c = new BlockedWeights;  // never destroyed: storages freed during exit still call release
    return *c;
  }

  // The weight w of operand `a` of the primitive keyed `key`, in the primitive's layout, from the cache (held by
  // `hold` while it runs); nullopt where the caller reorders it itself.
  std::optional<memory> find(const std::string& key, const Prim::Arg& a, const Tensor& w, Tensor& hold) {
    if (!a.reorder || capacity_ == 0 || !w.device().is_cpu()) return std::nullopt;
    const StorageImpl* st = w.impl()->storage().get();
    if (shared_outside(st)) return std::nullopt;
    const uint32_t version = st->version();
    KeyWriter k;
    k.s = key;
    k << int64_t(a.id) << static_cast<int64_t>(reinterpret_cast<uintptr_t>(st)) << w.storage_offset();
    {
      std::lock_guard<std::mutex> l(mu_);
      auto it = map_.find(k.s);
      if (it == map_.end()) {
        watch_storage(st);
        lru_.push_front(k.s);
        map_.emplace(k.s, Entry{st, version, a.inner, {}, lru_.begin()});
        trim();
        return std::nullopt;
      }
      Entry& e = it->second;
      lru_.splice(lru_.begin(), lru_, e.lru);
      if (e.version != version || !(e.inner == a.inner)) {  // new bytes: remember them, reorder this time
        drop(e);
        e.version = version;
        e.inner = a.inner;
        return std::nullopt;
      }
      if (e.blocked.defined()) {
        hold = e.blocked;
        return memory(a.inner, engine(), hold.data_ptr());
      }
    }
    // The second use of these bytes: reorder them into a copy kept for the next ones.
    memory m = prepare_input(a, w, hold);
    std::lock_guard<std::mutex> l(mu_);
    auto it = map_.find(k.s);
    if (it != map_.end() && it->second.version == version && it->second.inner == a.inner &&
        !it->second.blocked.defined()) {
      it->second.blocked = hold;
      bytes_ += hold.nbytes();
      trim();
    }
    return m;
  }

 private:
  BlockedWeights() {
    const char* env = std::getenv("EMBER_DNNL_WEIGHT_CACHE_MB");
    capacity_ = static_cast<size_t>(env ? std::strtoull(env, nullptr, 10) : 1024) << 20;
    set_storage_release_listener(&BlockedWeights::release);
  }

  struct Entry {
    const StorageImpl* storage;
    uint32_t version;
    memory::desc inner;
    Tensor blocked;  // undefined: seen once at this version
    std::list<std::string>::iterator lru;
  };

  void drop(Entry& e) {
    if (e.blocked.defined()) bytes_ -= e.blocked.nbytes();
    e.blocked = Tensor();
  }
  // Evicts least recently used entries while the copies exceed the capacity or the entries kMaxEntries.
  void trim() {
    while (!lru_.empty() && (bytes_ > capacity_ || map_.size() > kMaxEntries)) {
      auto it = map_.find(lru_.back());
      drop(it->second);
      map_.erase(it);
      lru_.pop_back();
    }
  }
  // A watched storage is being destroyed: its entries go (their copies are freed after the lock is released).
  static void release(const StorageImpl* st) {
    BlockedWeights& c = get();
    std::vector<Tensor> freed;
    std::lock_guard<std::mutex> l(c.mu_);
    for (auto it = c.map_.begin(); it != c.map_.end();) {
      if (it->second.storage != st) {
        ++it;
        continue;
      }
      if (it->second.blocked.defined()) {
        c.bytes_ -= it->second.blocked.nbytes();
        freed.push_back(std::move(it->second.blocked));
      }
      c.lru_.erase(it->second.lru);
      it = c.map_.erase(it);
    }
  }

  static constexpr size_t kMaxEntries = 4096;
  size_t capacity_ = 0, bytes_ = 0;
  std::mutex mu_;
  std::list<std::string> lru_;
  std::unordered_map<std::string, Entry> map_;
};

}  // namespace

bool any_layout() {
  static const bool any = [] {
    const char* env = std::getenv("EMBER_DNNL_LAYOUT");
    return !(env && std::strcmp(env, "plain") == 0);
  }();
  return any;
}

const dnnl::engine& engine() {
  static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

memory::data_type data_type(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return memory::data_type::f32;
    case ScalarType::BFloat16: return memory::data_type::bf16;
    case ScalarType::Float16: return memory::data_type::f16;
    default: fail<NotImplementedError>("oneDNN: no support for dtype ", t);
  }
}

memory::desc plain_desc(const Tensor& t) {
  return memory::desc(dims_of(t.sizes()), data_type(t.dtype()), dims_of(t.strides()));
}

memory::desc contiguous_desc(const memory::dims& dims, memory::data_type dt) {
  memory::dims strides(dims.size());
  int64_t s = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    strides[i] = s;
    s *= dims[i];
  }
  return memory::desc(dims, dt, strides);
}

dnnl::primitive_attr default_attr() {
  dnnl::primitive_attr a;
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

void Prim::add(int id, bool input, const memory::desc& user, const memory::desc& inner) {
  Arg a{id, input, user, inner, std::nullopt};
  // Plain <-> blocked reorders use no scratchpad, so they keep the default (library) mode.
  if (!(user == inner)) {
    const auto pd = input ? dnnl::reorder::primitive_desc(engine(), user, engine(), inner)
                          : dnnl::reorder::primitive_desc(engine(), inner, engine(), user);
    a.reorder = dnnl::reorder(pd);
    // oneDNN's kernel for whole channel blocks (`jit:blk`) is faster than the copy on one thread; its generic one
    // is not.
    const bool blk = std::strcmp(pd.impl_info_str(), "jit:blk") == 0, copy = copyable(user, inner);
    a.by_copy = copy && !blk;
    a.by_copy_alone = copy && blk;
  }
  args.push_back(std::move(a));
}

std::shared_ptr<const Prim> cached(std::string key, const std::function<Prim()>& make) {
  static Cache cache;
  follow_thread_count();  // implementations are chosen for the one thread they will run with
  return cache.get(key, make);
}

bool Prim::Arg::copies() const { return by_copy || (by_copy_alone && !in_parallel_region() && expected_threads() > 1); }

memory prepare_input(const Prim::Arg& a, const Tensor& t, Tensor& keep) {
  memory user(a.user, engine(), t.data_ptr());
  if (!a.reorder) return user;
  if (a.copies()) {
    keep = blocked_buffer(a.inner);
    copy_blocked(a.user, t, a.inner, keep, true);
    return memory(a.inner, engine(), keep.data_ptr());
  }
  keep = buffer(a.inner.get_size());
  memory inner(a.inner, engine(), keep.data_ptr());
  a.reorder->execute(stream(), {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, inner}});
  return inner;
}

void execute(const Prim& p, std::initializer_list<const Tensor*> tensors,
             const std::vector<std::pair<int, memory>>& ready) {
  EMBER_CHECK(tensors.size() == p.args.size(), "oneDNN: expected ", p.args.size(), " operands");
  dnnl::stream& s = stream();
  std::unordered_map<int, memory> m(ready.begin(), ready.end());
  std::vector<Tensor> keep(p.args.size());  // reordered copies live until the primitive has run
  struct Output {
    const Prim::Arg* arg;
    size_t operand;
    bool copy;
  };
  std::vector<Output> outputs;  // to reorder back
  const int64_t scratch_bytes = std::max<int64_t>(static_cast<int64_t>(p.scratchpad_bytes), 1);
  Tensor scratch = buffer(scratch_bytes);
  memory scratch_mem(memory::desc({scratch_bytes}, memory::data_type::u8, memory::format_tag::a), engine(),
                     scratch.data_ptr());
  auto it = tensors.begin();
  for (size_t i = 0; i < p.args.size(); ++i) {
    const Prim::Arg& a = p.args[i];
    const Tensor* t = *it++;
    if (!t || !t->defined() || m.count(a.id)) continue;
    if (a.input) {
      m.emplace(a.id, prepare_input(a, *t, keep[i]));
    } else if (!a.reorder) {
      m.emplace(a.id, memory(a.user, engine(), t->data_ptr()));
    } else {
      const bool copy = a.copies();
      keep[i] = copy ? blocked_buffer(a.inner) : buffer(a.inner.get_size());
      m.emplace(a.id, memory(a.inner, engine(), keep[i].data_ptr()));
      outputs.push_back({&a, i, copy});
    }
  }
  m.emplace(DNNL_ARG_SCRATCHPAD, scratch_mem);
  p.prim.execute(s, m);
  s.wait();
  for (const Output& o : outputs) write_output(*o.arg, **(tensors.begin() + o.operand), keep[o.operand], o.copy);
}

void write_output(const Prim::Arg& a, const Tensor& t, const Tensor& inner, std::optional<bool> copy) {
  if (copy.value_or(a.copies())) {
    copy_blocked(a.user, t, a.inner, inner, false);
    return;
  }
  dnnl::stream& s = stream();
  a.reorder->execute(s, {{DNNL_ARG_FROM, memory(a.inner, engine(), inner.data_ptr())},
                         {DNNL_ARG_TO, memory(a.user, engine(), t.data_ptr())}});
  s.wait();
}

// ---- convolutions

namespace {

struct ConvDescs {
  memory::desc src, weights, bias, dst;                  // as the tensors are
  memory::desc src_any, weights_any, bias_any, dst_any;  // what the primitive may choose
  memory::dims strides, dilates, pad_l, pad_r;
};

// src [N, C, *in], weight [O, C/G, *k] (regrouped to [G, O/G, C/G, *k] when grouped), dst [N, O, *out], each with
// its own strides.
ConvDescs conv_descs(const Tensor& src, const Tensor& weight, bool bias, const Tensor& dst, const ConvGeometry& g) {
  ConvDescs d;
  d.src = plain_desc(src);
  d.dst = plain_desc(dst);
  if (g.groups == 1) {
    d.weights = plain_desc(weight);
  } else {  // [O, ...] split into [G, O/G, ...], keeping the weight's strides (channels-last ones too)
    const int64_t og = weight.size(0) / g.groups;
    memory::dims w{g.groups, og}, st{og * weight.stride(0), weight.stride(0)};
    for (int64_t i = 1; i < weight.dim(); ++i) {
      w.push_back(weight.size(i));
      st.push_back(weight.stride(i));
    }
    d.weights = memory::desc(w, data_type(weight.dtype()), st);
  }
  const auto dt = data_type(src.dtype());
  if (bias) d.bias = memory::desc({weight.size(0)}, dt, memory::format_tag::a);
  const bool any = any_layout();
  auto choose = [&](const memory::desc& md) { return any ? memory::desc(md.dims(), dt, memory::format_tag::any) : md; };
  // Activations dense in channels-last stay in it: oneDNN's kernels take NHWC as it is (Note [oneDNN primitives]).
  const bool nhwc = suggest_memory_format(src) != MemoryFormat::Contiguous &&
                    suggest_memory_format(dst) != MemoryFormat::Contiguous;
  d.src_any = nhwc ? d.src : choose(d.src);
  d.weights_any = choose(d.weights);
  d.dst_any = nhwc ? d.dst : choose(d.dst);
  d.bias_any = d.bias;
  for (size_t i = 0; i < g.dims(); ++i) {
    d.strides.push_back(g.stride[i]);
    d.dilates.push_back(g.dilation[i] - 1);  // oneDNN counts the gaps
    d.pad_l.push_back(g.pad_l[i]);
    d.pad_r.push_back(g.pad_r[i]);
  }
  return d;
}

std::string conv_key(char op, const Tensor& src, const Tensor& weight, bool bias, const Tensor& dst,
                     const ConvGeometry& g) {
  KeyWriter k;
  k << int64_t(op) << int64_t(src.dtype()) << int64_t(any_layout()) << int64_t(bias) << g.groups << src.sizes()
    << src.strides() << weight.sizes() << weight.strides() << dst.sizes() << dst.strides() << g.stride << g.pad_l
    << g.pad_r << g.dilation;
  return std::move(k.s);
}

// float32 convolutions always run in oneDNN; 16-bit ones only where it has a real kernel for them (the caller
// widens them to float32 otherwise). An empty primitive descriptor is no kernel.
template <class PD>
bool fast_enough(const PD& pd, ScalarType t) {
  return t == ScalarType::Float32 || (pd && fast_impl(pd));
}

dnnl::convolution_forward::primitive_desc forward_pd(const ConvDescs& d) {
  dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                       d.src_any, d.weights_any, d.bias_any, d.dst_any, d.strides, d.dilates, d.pad_l,
                                       d.pad_r);
  return {desc, default_attr(), engine(), d.src.data_type() != memory::data_type::f32};
}

template <class F>
void guarded(const char* what, F f) {
  try {
    f();
  } catch (const dnnl::error& e) {
    fail<Error>(what, ": oneDNN failed: ", e.what());
  }
}

// One piece of n units per thread (1 inside a parallel region).
int64_t thread_parts(int64_t n) { return n > 1 && !in_parallel_region() ? std::min<int64_t>(n, get_num_threads()) : 1; }

// Multiply-adds below which a slice of a convolution is not worth a chunk of its own on the pool.
constexpr int64_t kMinConvPiece = int64_t{1} << 20;

// Multiply-adds of a convolution (each of its backward's two halves costs as much).
int64_t conv_macs(const Tensor& weight, const Tensor& out) { return weight.numel() / weight.size(0) * out.numel(); }

// The slices a convolution over a batch of n runs in (Note [Primitives on ember's threads]): one per thread, and up
// to kChunksPerThread per thread while each keeps kMinConvPiece multiply-adds, so that the slices a late worker
// would have run are taken by the others, as parallel_for's chunks are.
int64_t conv_batch_parts(int64_t n, int64_t macs) {
  const int64_t t = thread_parts(n);
  return t > 1 ? std::max(t, std::min({n, t * kChunksPerThread, macs / kMinConvPiece})) : 1;
}

// Runs f(slice, begin, end) over `parts` slices of [0, n) on ember's pool.
template <class F>
void over_batch(int64_t n, int64_t parts, const F& f) {
  if (parts <= 1) return f(0, 0, n);
  parallel_for(0, parts, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) f(c, c * n / parts, (c + 1) * n / parts);
  });
}

// Note [Bounded reorder buffers]
// With blocked layouts (Note [oneDNN primitives]) a convolution's forward reorders its input into a copy and computes
// its output into a blocked buffer that is then reordered into the tensor: two temporaries as large as the slice of
// the batch one primitive run covers. With one slice per thread they were as large as the operands themselves: at
// batch 32 the 1x1 expansion of efficientnet_b0's second stage (16 -> 96 channels at 112x112) held 170 MiB of them
// beside its 147 MiB output, and these odd-sized blocks then sat in the CPU cache beside the activations (Note [CPU
// caching allocator]): 1.12x torchvision's peak RSS. So a float32 batch is cut into more slices, each sample's input
// and output together being counted against kReorderSlice, and the threads claim slices as before; the temporaries of
// the slices running at one time stay under about threads x kReorderSlice. A primitive run over a few samples of a
// large image does as much work per call as before (the call costs microseconds against milliseconds).
constexpr int64_t kReorderSlice = int64_t{16} << 20;

// The slices a float32 forward over a batch of n runs in: at least one per thread, and enough to keep each slice's
// reordered copies under kReorderSlice (Note [Bounded reorder buffers]).
int64_t forward_parts(int64_t n, bool fp32, const Tensor& input, const Tensor& weight, const Tensor& out) {
  const int64_t parts = fp32 ? conv_batch_parts(n, conv_macs(weight, out)) : 1;
  if (!fp32 || !any_layout() || n <= 1) return parts;
  const int64_t bytes = static_cast<int64_t>(input.nbytes() + out.nbytes());
  return std::min(n, std::max(parts, (bytes + kReorderSlice - 1) / kReorderSlice));
}

// One primitive run of a convolution's forward (slice of a batch, or the whole of it); false: no fast kernel.
// The forward's primitive for these operands under `key` (conv_key); its prim is empty where oneDNN has no fast kernel.
std::shared_ptr<const Prim> conv_forward_prim(const std::string& key, const Tensor& out, const Tensor& input,
                                              const Tensor& weight, const Tensor& bias, const ConvGeometry& g) {
  return cached(key, [&] {
    const ConvDescs d = conv_descs(input, weight, bias.defined(), out, g);
    Prim r;
    auto pd = forward_pd(d);
    if (!fast_enough(pd, input.dtype())) return r;
    r.prim = dnnl::convolution_forward(pd);
    r.scratchpad_bytes = pd.scratchpad_desc().get_size();
    r.add(DNNL_ARG_SRC, true, d.src, pd.src_desc());
    r.add(DNNL_ARG_WEIGHTS, true, d.weights, pd.weights_desc());
    r.add(DNNL_ARG_BIAS, true, d.bias, pd.bias_desc());
    r.add(DNNL_ARG_DST, false, d.dst, pd.dst_desc());
    return r;
  });
}

// Note [One weight for all slices]
// Every slice of a batch (Note [Primitives on ember's threads]) ran its own primitive on the whole weight: eight
// slices at two threads reordered the weight eight times into the forward's layout, eight times into the backward's,
// and reordered eight weight-gradient partials back before summing them. Now the weight is reordered once before the
// slices run (on the pool) and handed to every slice whose primitive wants that layout, and the partials stay in the
// primitive's layout, are summed there and reordered back once. A ResNet-50 training step (batch 8, 128x128, two
// threads, alternated against the code before): 267-277 ms -> 256-257 row-major, 281-318 -> 265-271 channels-last.
struct SharedWeight {
  memory::desc inner;      // the layout of `blocked`
  Tensor blocked, held;    // the weight in it (held: a copy from BlockedWeights' cache)
  std::vector<Tensor> gw;  // per slice, its weight-gradient partial in the backward-weights primitive's layout
  memory::desc gw_inner;
};

// The weight (operand `a` of the primitive keyed `key`) in a's layout, for all slices; undefined when a needs none.
void share_weight(SharedWeight& sw, const std::string& key, const Prim::Arg& a, const Tensor& weight) {
  if (!a.reorder) return;
  sw.inner = a.inner;
  if (auto w = BlockedWeights::get().find(key, a, weight, sw.held)) {
    sw.blocked = sw.held;
    return;
  }
  prepare_input(a, weight, sw.blocked);
}

// Adds the shared weight to `ready` as operand `id` where primitive argument `a` wants its layout; true when it did.
bool use_shared(const SharedWeight* sw, const Prim::Arg& a, int id, std::vector<std::pair<int, memory>>& ready) {
  if (!sw || !sw->blocked.defined() || !(sw->inner == a.inner)) return false;
  ready.emplace_back(id, memory(a.inner, engine(), sw->blocked.data_ptr()));
  return true;
}

// Runs primitive p (from conv_forward_prim under `key`); `src`, when given, is the input already in p's layout, and
// `dst` where p writes its output in its own layout (then `out` is not written).
void conv_forward_exec(const Prim& p, const std::string& key, const Tensor& out, const Tensor& input,
                       const Tensor& weight, const Tensor& bias, const memory* src = nullptr,
                       const SharedWeight* sw = nullptr, const memory* dst = nullptr) {
  std::vector<std::pair<int, memory>> ready;
  if (src) ready.emplace_back(DNNL_ARG_SRC, *src);
  if (dst) ready.emplace_back(DNNL_ARG_DST, *dst);
  Tensor held;
  if (!use_shared(sw, p.args[1], DNNL_ARG_WEIGHTS, ready))
    if (auto w = BlockedWeights::get().find(key, p.args[1], weight, held)) ready.emplace_back(DNNL_ARG_WEIGHTS, *w);
  execute(p, {&input, &weight, &bias, &out}, ready);
}

bool conv_forward_run(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const ConvGeometry& g, const SharedWeight* sw = nullptr) {
  const std::string key = conv_key('f', input, weight, bias.defined(), out, g);
  auto p = conv_forward_prim(key, out, input, weight, bias, g);
  if (!p->prim) return false;
  conv_forward_exec(*p, key, out, input, weight, bias, nullptr, sw);
  return true;
}

// A convolution's backward primitives for these operands (either may be null: not wanted); their prims are empty
// where oneDNN has no fast kernel.
struct BackwardPrims {
  std::shared_ptr<const Prim> data, weights;
  std::string data_key;
};

BackwardPrims conv_backward_prims(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                                  const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                                  const ConvGeometry& g) {
  std::shared_ptr<const Prim> data, weights;
  const std::string data_key = grad_input.defined() ? conv_key('d', grad_input, weight, false, grad_out, g) : "";
  if (grad_input.defined())
    data = cached(data_key, [&] {
      const ConvDescs d = conv_descs(grad_input, weight, false, grad_out, g);
      dnnl::convolution_backward_data::desc desc(dnnl::algorithm::convolution_direct, d.src_any, d.weights_any,
                                                 d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r);
      Prim r;
      const auto fwd = forward_pd(d);
      if (!fast_enough(fwd, grad_out.dtype())) return r;
      dnnl::convolution_backward_data::primitive_desc pd(desc, default_attr(), engine(), fwd, true);
      if (!fast_enough(pd, grad_out.dtype())) return r;
      r.prim = dnnl::convolution_backward_data(pd);
      r.scratchpad_bytes = pd.scratchpad_desc().get_size();
      r.add(DNNL_ARG_DIFF_DST, true, d.dst, pd.diff_dst_desc());
      r.add(DNNL_ARG_WEIGHTS, true, d.weights, pd.weights_desc());
      r.add(DNNL_ARG_DIFF_SRC, false, d.src, pd.diff_src_desc());
      return r;
    });
  const bool bias = grad_bias.defined();
  if (grad_weight.defined())
    weights = cached(conv_key('w', input, grad_weight, bias, grad_out, g), [&] {
      const ConvDescs d = conv_descs(input, grad_weight, bias, grad_out, g);
      dnnl::convolution_backward_weights::desc desc(dnnl::algorithm::convolution_direct, d.src_any, d.weights_any,
                                                    d.bias_any, d.dst_any, d.strides, d.dilates, d.pad_l, d.pad_r);
      Prim r;
      const auto fwd = forward_pd(d);
      if (!fast_enough(fwd, grad_out.dtype())) return r;
      dnnl::convolution_backward_weights::primitive_desc pd(desc, default_attr(), engine(), fwd, true);
      if (!fast_enough(pd, grad_out.dtype())) return r;
      r.prim = dnnl::convolution_backward_weights(pd);
      r.scratchpad_bytes = pd.scratchpad_desc().get_size();
      r.add(DNNL_ARG_DIFF_DST, true, d.dst, pd.diff_dst_desc());
      r.add(DNNL_ARG_SRC, true, d.src, pd.src_desc());
      r.add(DNNL_ARG_DIFF_WEIGHTS, false, d.weights, pd.diff_weights_desc());
      r.add(DNNL_ARG_DIFF_BIAS, false, d.bias, pd.diff_bias_desc());
      return r;
    });
  return {data, weights, data_key};
}

// One run of a convolution's backward primitives over a slice of the batch (or the whole of it); `sw` holds what the
// slices share (Note [One weight for all slices]), this slice's weight-gradient partial among it.
bool conv_backward_run(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                       const Tensor& grad_out, const Tensor& input, const Tensor& weight, const ConvGeometry& g,
                       const SharedWeight* sw = nullptr, int64_t slice = 0) {
  const auto [data, weights, data_key] = conv_backward_prims(grad_input, grad_weight, grad_bias, grad_out, input,
                                                             weight, g);
  if ((data && !data->prim) || (weights && !weights->prim)) return false;
  // grad_out goes into both primitives: reorder it once when they want the same layout.
  std::vector<std::pair<int, memory>> ready;
  Tensor keep;
  if (data && weights && data->args[0].inner == weights->args[0].inner)
    ready.emplace_back(DNNL_ARG_DIFF_DST, prepare_input(data->args[0], grad_out, keep));
  if (data) {
    // (a frozen layer's weight: the same bytes at every step)
    std::vector<std::pair<int, memory>> data_ready = ready;
    Tensor held;
    if (!use_shared(sw, data->args[1], DNNL_ARG_WEIGHTS, data_ready))
      if (auto w = BlockedWeights::get().find(data_key, data->args[1], weight, held))
        data_ready.emplace_back(DNNL_ARG_WEIGHTS, *w);
    execute(*data, {&grad_out, &weight, &grad_input}, data_ready);
  }
  if (weights) {
    if (sw && !sw->gw.empty()) {
      EMBER_CHECK(sw->gw_inner == weights->args[2].inner, "convolution backward: internal error: slices disagree on",
                  " the weight gradient's layout");
      ready.emplace_back(DNNL_ARG_DIFF_WEIGHTS,
                         memory(sw->gw_inner, engine(), sw->gw[static_cast<size_t>(slice)].data_ptr()));
    }
    execute(*weights, {&grad_out, &input, &grad_weight, &grad_bias}, ready);
  }
  return true;
}

Tensor slice_of(const Tensor& t, int64_t b, int64_t e) { return t.defined() ? t.narrow(0, b, e - b) : t; }

// parts[0] += parts[1] + ... over dense float32 tensors laid out alike (a partial is empty_like its gradient), each
// element summed in slice order, so that the result does not depend on how the elements are split across threads.
void sum_partials(const std::vector<Tensor>& parts) {
  float* d = parts[0].data<float>();
  std::vector<const float*> src;
  for (size_t c = 1; c < parts.size(); ++c) src.push_back(parts[c].data<float>());
  parallel_for(0, parts[0].numel(), kGrainSize, [&](int64_t b, int64_t e) {
    for (const float* s : src)
      for (int64_t i = b; i < e; ++i) d[i] += s[i];
  });
}

// Whether a convolution splits channels rather than the batch (Note [Splitting a convolution]): a batch of one, or a
// weight bigger than the activations a slice of the batch would read.
bool split_channels(const Tensor& input, const Tensor& weight, const Tensor& out) {
  return input.size(0) == 1 || weight.numel() > input.numel() + out.numel();
}

// The pieces a convolution of `macs` multiply-adds splits `units` channel blocks (or groups) into.
int64_t channel_parts(int64_t units, int64_t macs) {
  return std::min<int64_t>(thread_parts(units), macs / kMinConvPiece);
}

// Channel blocks of `channels` (oneDNN's 16, so that a piece's channels fill whole blocks of its layout).
constexpr int64_t kChannelBlock = 16;
int64_t channel_blocks(int64_t channels) { return (channels + kChannelBlock - 1) / kChannelBlock; }
// The channels of blocks [b, e) of `channels`, as (first, count).
std::pair<int64_t, int64_t> block_channels(int64_t b, int64_t e, int64_t channels) {
  const int64_t c0 = b * kChannelBlock, c1 = std::min(e * kChannelBlock, channels);
  return {c0, c1 - c0};
}
// Groups per piece boundary of a grouped convolution with `og` output channels per group: as many as fill oneDNN's
// channel block, so that every piece but the last starts and ends on a whole block (a piece whose channels do not
// fill whole blocks is reordered into and out of a padded layout, about 3x slower per element).
int64_t group_block(int64_t og) {
  return og > 0 && og < kChannelBlock && kChannelBlock % og == 0 ? kChannelBlock / og : 1;
}
// A grouped convolution's groups in units of group_block(og), the pieces' boundaries.
struct GroupUnits {
  int64_t groups, per_unit, units;
  GroupUnits(int64_t groups, int64_t og)
      : groups(groups), per_unit(group_block(og)), units((groups + per_unit - 1) / per_unit) {}
  // The groups of units [ub, ue), as (first, count).
  std::pair<int64_t, int64_t> of(int64_t ub, int64_t ue) const {
    const int64_t b = ub * per_unit;
    return {b, std::min(ue * per_unit, groups) - b};
  }
};

Tensor narrow_of(const Tensor& t, int64_t dim, std::pair<int64_t, int64_t> r) {
  return t.defined() ? t.narrow(dim, r.first, r.second) : t;
}

// The layout oneDNN's channel-blocked activations `descs` have in common (aBcd16b: [N][C/16][H][W][16], and its
// 8-channel, 1-D and 3-D kin) and its channel block, or none.
std::optional<std::pair<memory::format_tag, int64_t>> common_channel_blocks(const std::vector<memory::desc>& descs) {
  using tag = memory::format_tag;
  static constexpr std::array<std::pair<std::array<tag, 3>, int64_t>, 2> families{
      {{{tag::aBc16b, tag::aBcd16b, tag::aBcde16b}, 16}, {{tag::aBc8b, tag::aBcd8b, tag::aBcde8b}, 8}}};
  const int nd = descs[0].data.ndims;
  if (nd < 3 || nd > 5) return std::nullopt;
  for (const auto& [tags, block] : families) {
    const tag t = tags[static_cast<size_t>(nd - 3)];
    if (std::all_of(descs.begin(), descs.end(),
                    [&](const memory::desc& md) { return md == memory::desc(md.dims(), md.data_type(), t); }))
      return std::make_pair(t, block);
  }
  return std::nullopt;
}

// Note [One output for all pieces]
// The channel pieces of a batch-1 forward (Note [Splitting a convolution]) each wrote their output in the primitive's
// channel-blocked layout and reordered it into their part of `out`: a reorder per piece, of a padded layout where a
// piece ends inside a block (24 channels split 16 + 8); and each piece of a grouped convolution reordered its own
// part of the input. With a batch of one, the channels of a piece that starts on a block are one contiguous stretch
// of the whole tensor's blocked layout, so the input is reordered whole, once, the pieces read and write their
// stretches, and the whole output is reordered once, as one convolution does: on a loaded machine, where the pieces
// run one after another on the caller, the split costs no more reorders than the whole, and on an idle one the two
// reorders run on the pool. A depthwise 3x3 over 672x14x14 at two threads: 55 us with a reorder per piece, 49 now
// (one thread: 48).
struct ChannelPiece {
  Tensor out, input, weight, bias;
  ConvGeometry g;
  int64_t in_c0, out_c0;  // the piece's first input and output channels (in_c0 < 0: it reads the whole input)
  std::string key;
  std::shared_ptr<const Prim> prim;
};

// Where the pieces' `arg` (their DNNL_ARG_SRC or DNNL_ARG_DST) can live in one blocked buffer for the whole of
// `whole`: the buffer's reorder (a Prim with that one argument, cached under `key`), or none. `first` gives a piece's
// first channel there.
template <class First>
std::shared_ptr<const Prim> whole_blocks(const std::vector<ChannelPiece>& pieces, size_t arg, bool input,
                                         const Tensor& whole, const std::string& key, First first) {
  std::vector<memory::desc> descs;
  for (const ChannelPiece& p : pieces) {
    if (!p.prim->args[arg].reorder) return nullptr;
    descs.push_back(p.prim->args[arg].inner);
  }
  const auto blocks = common_channel_blocks(descs);
  if (!blocks || !std::all_of(pieces.begin(), pieces.end(),
                              [&](const ChannelPiece& p) { return first(p) >= 0 && first(p) % blocks->second == 0; }))
    return nullptr;
  return cached(key, [&] {
    Prim r;
    const memory::desc user = plain_desc(whole);
    r.add(input ? DNNL_ARG_SRC : DNNL_ARG_DST, input, user, memory::desc(user.dims(), user.data_type(), blocks->first));
    return r;
  });
}

// The forward of a convolution over `pieces` of its channels, on the pool. False (nothing computed) where a piece
// has no fast kernel.
bool conv_forward_pieces(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                         const ConvGeometry& g, std::vector<ChannelPiece>& pieces) {
  for (ChannelPiece& p : pieces) {
    p.key = conv_key('f', p.input, p.weight, p.bias.defined(), p.out, p.g);
    p.prim = conv_forward_prim(p.key, p.out, p.input, p.weight, p.bias, p.g);
    if (!p.prim->prim) return false;
  }
  const bool one = out.size(0) == 1;
  // The input: reordered once for pieces that all read it whole into the same layout, or whole (one) for pieces of
  // its channels (Note [One output for all pieces]).
  const bool whole_input = pieces[0].in_c0 < 0;
  std::shared_ptr<const Prim> in_whole, out_whole;
  if (one && !whole_input)
    in_whole = whole_blocks(pieces, 0, true, input, conv_key('i', input, weight, bias.defined(), out, g),
                            [](const ChannelPiece& p) { return p.in_c0; });
  const bool shared_src = whole_input && std::all_of(pieces.begin(), pieces.end(), [&](const ChannelPiece& p) {
                            return p.prim->args[0].reorder && p.prim->args[0].inner == pieces[0].prim->args[0].inner;
                          });
  if (one)
    out_whole = whole_blocks(pieces, 3, false, out, conv_key('o', input, weight, bias.defined(), out, g),
                             [](const ChannelPiece& p) { return p.out_c0; });
  Tensor src, dst;
  if (shared_src) prepare_input(pieces[0].prim->args[0], input, src);
  if (in_whole) prepare_input(in_whole->args[0], input, src);
  const bool copy_out = out_whole && out_whole->args[0].copies();
  if (out_whole)
    dst = copy_out ? blocked_buffer(out_whole->args[0].inner) : buffer(out_whole->args[0].inner.get_size());
  // piece channels c0.. of a batch of one start at element c0 * spatial of the whole blocked tensor
  auto at = [](const memory::desc& md, const Tensor& buf, const Tensor& whole, int64_t c0) {
    const int64_t spatial = whole.numel() / whole.size(1);
    return memory(md, engine(), static_cast<char*>(buf.data_ptr()) + c0 * spatial * int64_t(whole.element_size()));
  };
  over_batch(static_cast<int64_t>(pieces.size()), static_cast<int64_t>(pieces.size()),
             [&](int64_t c, int64_t, int64_t) {
               const ChannelPiece& p = pieces[static_cast<size_t>(c)];
               std::optional<memory> s, d;
               if (shared_src) s = memory(p.prim->args[0].inner, engine(), src.data_ptr());
               if (in_whole) s = at(p.prim->args[0].inner, src, input, p.in_c0);
               if (out_whole) d = at(p.prim->args[3].inner, dst, out, p.out_c0);
               conv_forward_exec(*p.prim, p.key, p.out, p.input, p.weight, p.bias, s ? &*s : nullptr, nullptr,
                                 d ? &*d : nullptr);
             });
  if (out_whole) write_output(out_whole->args[0], out, dst, copy_out);
  return true;
}

// `parts` pieces of the output channels of a convolution's forward: whole groups of a grouped convolution (with
// their input channels), or blocks of channels of an ungrouped one (each reading the whole input).
std::vector<ChannelPiece> channel_pieces(const Tensor& out, const Tensor& input, const Tensor& weight,
                                         const Tensor& bias, const ConvGeometry& g, int64_t parts) {
  const int64_t O = weight.size(0), og = O / g.groups, cg = input.size(1) / g.groups;  // channels per group
  const GroupUnits gu(g.groups, og);
  const int64_t units = g.groups > 1 ? gu.units : channel_blocks(O);
  std::vector<ChannelPiece> pieces;
  for (int64_t c = 0; c < parts; ++c) {
    const int64_t ub = c * units / parts, ue = (c + 1) * units / parts;
    ChannelPiece p;
    p.g = g;
    std::pair<int64_t, int64_t> oc;
    if (g.groups > 1) {
      const auto [b, n] = gu.of(ub, ue);
      p.g.groups = n;
      oc = {b * og, n * og};
      p.in_c0 = b * cg;
      p.input = input.narrow(1, p.in_c0, n * cg);
    } else {
      oc = block_channels(ub, ue, O);
      p.in_c0 = -1;
      p.input = input;
    }
    p.out_c0 = oc.first;
    p.out = out.narrow(1, oc.first, oc.second);
    p.weight = weight.narrow(0, oc.first, oc.second);
    p.bias = narrow_of(bias, 0, oc);
    pieces.push_back(std::move(p));
  }
  return pieces;
}

// Note [Exact splits]
// A convolution's channel pieces (Note [Splitting a convolution]) are there for the threads. Beside a busy process
// the workers do not come (expected_threads()), the pieces run one after another on the caller, and two pieces of a
// 1x1 convolution each read the whole input: MobileNetV3-L at batch 1 ran 4-6% slower on two threads than on one
// under the same load. Running the whole convolution then would change the bits wherever oneDNN's kernel for a piece
// sums in another order than the whole one's (one of ResNet-50's 23 layer shapes at batch 1), and results must
// depend only on the sizes and the thread count. So the first time a split would be skipped, both ways run once on
// pseudo-random operands of the same sizes and strides: where every output bit agrees the kernels sum alike (an
// order that differs shows in some of thousands of random sums), and the forward runs whole whenever no worker is
// expected; where they differ it keeps the pieces. The verdict is kept per layer shape and thread count.

// The bytes a tensor of t's sizes and strides spans from its first element.
size_t span_bytes(const Tensor& t) {
  return static_cast<size_t>(storage_nbytes(t.sizes(), t.strides(), 0, t.element_size(), "convolution"));
}

// A float32 tensor of t's sizes and strides (undefined for an undefined t), all the memory it spans filled with
// pseudo-random values in [-1, 1) from `seed`, or zeroed for seed 0.
Tensor strided_like(const Tensor& t, uint64_t seed) {
  if (!t.defined()) return t;
  Tensor r = empty_strided(t.sizes(), t.strides(), TensorOptions(ScalarType::Float32));
  auto* f = static_cast<float*>(r.data_ptr());
  if (seed == 0) {
    std::memset(f, 0, span_bytes(r));
    return r;
  }
  const int64_t n = static_cast<int64_t>(span_bytes(r) / sizeof(float));
  uint64_t x = seed;
  for (int64_t i = 0; i < n; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;  // an LCG: a fixed sequence, not the user's generator
    f[i] = static_cast<float>(static_cast<int64_t>(x >> 40) - (int64_t{1} << 23)) * (1.0f / (1 << 23));
  }
  return r;
}

// Whether the forward over `parts` channel pieces gives the bits of one whole run, for float32 operands of these
// sizes and strides (Note [Exact splits]).
bool exact_split(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                 const ConvGeometry& g, int64_t parts) {
  static std::mutex mu;
  static std::unordered_map<std::string, bool> known;
  KeyWriter k;
  k.s = conv_key('f', input, weight, bias.defined(), out, g);
  k << parts << int64_t(get_num_threads());
  {
    std::lock_guard<std::mutex> l(mu);
    if (auto it = known.find(k.s); it != known.end()) return it->second;
  }
  const Tensor x = strided_like(input, 1), w = strided_like(weight, 2), b = strided_like(bias, 3);
  const Tensor whole = strided_like(out, 0), split = strided_like(out, 0);
  std::vector<ChannelPiece> pieces = channel_pieces(split, x, w, b, g, parts);
  const bool exact = conv_forward_run(whole, x, w, b, g) && conv_forward_pieces(split, x, w, b, g, pieces) &&
                     std::memcmp(whole.data_ptr(), split.data_ptr(), span_bytes(whole)) == 0;
  std::lock_guard<std::mutex> l(mu);
  if (known.size() >= 4096) known.clear();  // layer shapes are few; a stream of new ones is checked again
  known.emplace(k.s, exact);
  return exact;
}

// The forward over pieces of the output channels, or whole where that gives the same bits and no worker is expected
// to take a piece (Note [Exact splits]).
bool conv_forward_by_channels(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                              const ConvGeometry& g) {
  const int64_t units = g.groups > 1 ? GroupUnits(g.groups, weight.size(0) / g.groups).units
                                     : channel_blocks(weight.size(0));
  const int64_t parts = channel_parts(units, conv_macs(weight, out));
  if (parts <= 1 || (expected_threads() < 2 && exact_split(out, input, weight, bias, g, parts)))
    return conv_forward_run(out, input, weight, bias, g);
  std::vector<ChannelPiece> pieces = channel_pieces(out, input, weight, bias, g, parts);
  return conv_forward_pieces(out, input, weight, bias, g, pieces);
}

// The backward over pieces of channels: whole groups of a grouped convolution (both gradients of a group in one
// run); for an ungrouped one, grad_input over blocks of input channels (each reading the whole of grad_out) and the
// weight and bias gradients over blocks of output channels (each reading the whole input).
bool conv_backward_by_channels(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias,
                               const Tensor& grad_out, const Tensor& input, const Tensor& weight,
                               const ConvGeometry& g) {
  // (input is undefined without grad_weight, weight without grad_input: their gradients have their shapes)
  const Tensor& x = input.defined() ? input : grad_input;
  const Tensor& w = weight.defined() ? weight : grad_weight;
  const int64_t O = w.size(0), C = x.size(1), macs = conv_macs(w, grad_out);
  std::atomic<bool> done{true};
  auto run = [&](const Tensor& gi, const Tensor& gw, const Tensor& gb, const Tensor& go, const Tensor& in,
                 const Tensor& w, const ConvGeometry& sg) {
    if (!conv_backward_run(gi, gw, gb, go, in, w, sg)) done = false;
  };
  if (g.groups > 1) {
    const int64_t og = O / g.groups, cg = C / g.groups;
    const GroupUnits gu(g.groups, og);
    over_batch(gu.units, channel_parts(gu.units, macs), [&](int64_t, int64_t ub, int64_t ue) {
      const auto [b, n] = gu.of(ub, ue);
      ConvGeometry sg = g;
      sg.groups = n;
      const auto oc = std::make_pair(b * og, n * og), ic = std::make_pair(b * cg, n * cg);
      run(narrow_of(grad_input, 1, ic), narrow_of(grad_weight, 0, oc), narrow_of(grad_bias, 0, oc),
          grad_out.narrow(1, oc.first, oc.second), narrow_of(input, 1, ic), narrow_of(weight, 0, oc), sg);
    });
    return done;
  }
  const int64_t data_parts = channel_parts(channel_blocks(C), macs),
                weight_parts = channel_parts(channel_blocks(O), macs);
  if (data_parts <= 1 && weight_parts <= 1) {  // one run for both, which reorders grad_out once
    run(grad_input, grad_weight, grad_bias, grad_out, input, weight, g);
    return done;
  }
  if (grad_input.defined())
    over_batch(channel_blocks(C), data_parts, [&](int64_t, int64_t b, int64_t e) {
      const auto ic = block_channels(b, e, C);
      run(grad_input.narrow(1, ic.first, ic.second), Tensor(), Tensor(), grad_out, input,
          weight.narrow(1, ic.first, ic.second), g);
    });
  if (grad_weight.defined())
    over_batch(channel_blocks(O), weight_parts, [&](int64_t, int64_t b, int64_t e) {
      const auto oc = block_channels(b, e, O);
      run(Tensor(), grad_weight.narrow(0, oc.first, oc.second), narrow_of(grad_bias, 0, oc),
          grad_out.narrow(1, oc.first, oc.second), input, weight, g);
    });
  return done;
}

}  // namespace

bool conv_forward(const Tensor& out, const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const ConvGeometry& g) {
  std::atomic<bool> done{true};
  guarded("convolution", [&] {
    const int64_t n = input.size(0);
    const bool fp32 = input.dtype() == ScalarType::Float32;
    if (fp32 && split_channels(input, weight, out)) {
      done = conv_forward_by_channels(out, input, weight, bias, g);
      return;
    }
    const int64_t parts = forward_parts(n, fp32, input, weight, out);
    SharedWeight sw;
    if (parts > 1) {  // Note [One weight for all slices], laid out as the first slice's primitive wants it
      const Tensor o0 = slice_of(out, 0, n / parts), i0 = slice_of(input, 0, n / parts);
      const std::string key = conv_key('f', i0, weight, bias.defined(), o0, g);
      auto p = conv_forward_prim(key, o0, i0, weight, bias, g);
      if (p->prim) share_weight(sw, key, p->args[1], weight);
    }
    over_batch(n, parts, [&](int64_t, int64_t b, int64_t e) {
      if (!conv_forward_run(slice_of(out, b, e), slice_of(input, b, e), weight, bias, g, &sw)) done = false;
    });
  });
  return done;
}

bool conv_backward(const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& grad_out,
                   const Tensor& input, const Tensor& weight, const ConvGeometry& g) {
  std::atomic<bool> done{true};
  guarded("convolution backward", [&] {
    const int64_t n = grad_out.size(0);
    const bool fp32 = grad_out.dtype() == ScalarType::Float32;
    if (fp32 &&
        split_channels(input.defined() ? input : grad_input, weight.defined() ? weight : grad_weight, grad_out)) {
      done = conv_backward_by_channels(grad_input, grad_weight, grad_bias, grad_out, input, weight, g);
      return;
    }
    // partials are made like the gradients and summed flat: the gradients must be dense
    const bool dense = (!grad_weight.defined() || is_contiguous(grad_weight, MemoryFormat::Preserve)) &&
                       (!grad_bias.defined() || grad_bias.is_contiguous());
    const int64_t parts = dense && fp32
                              ? conv_batch_parts(n, conv_macs(weight.defined() ? weight : grad_weight, grad_out))
                              : 1;
    // Slice 0 writes the weight and bias gradients; the others write partials, summed afterwards in slice order.
    // (Note [One weight for all slices]: weight-gradient partials in the primitive's layout, where it has its own.)
    SharedWeight sw;
    std::shared_ptr<const Prim> gw_prim;  // whose weight-gradient argument the partials are laid out for
    if (parts > 1) {
      // The slices have n / parts samples, or also n / parts + 1: the partials are shared when both sizes'
      // primitives lay the weight gradient out alike.
      bool alike = true;
      std::vector<int64_t> sizes{n / parts};
      if (n % parts) sizes.push_back(n / parts + 1);
      for (const int64_t size : sizes) {
        const auto prims = conv_backward_prims(slice_of(grad_input, 0, size), grad_weight, grad_bias,
                                               slice_of(grad_out, 0, size), slice_of(input, 0, size), weight, g);
        if (size == n / parts && prims.data && prims.data->prim)
          share_weight(sw, prims.data_key, prims.data->args[1], weight);
        if (!prims.weights || !prims.weights->prim || !prims.weights->args[2].reorder)
          alike = false;
        else if (!gw_prim)
          gw_prim = prims.weights;
        else
          alike = alike && gw_prim->args[2].inner == prims.weights->args[2].inner;
      }
      if (!alike) gw_prim.reset();
      if (gw_prim) {
        sw.gw_inner = gw_prim->args[2].inner;
        for (int64_t c = 0; c < parts; ++c) sw.gw.push_back(blocked_buffer(sw.gw_inner));
      }
    }
    std::vector<Tensor> gw(parts), gb(parts);
    for (int64_t c = 0; c < parts; ++c) {
      gw[c] = c == 0 || !grad_weight.defined() || gw_prim ? grad_weight : empty_like(grad_weight);
      gb[c] = c == 0 || !grad_bias.defined() ? grad_bias : empty_like(grad_bias);
    }
    over_batch(n, parts, [&](int64_t c, int64_t b, int64_t e) {
      if (!conv_backward_run(slice_of(grad_input, b, e), gw[c], gb[c], slice_of(grad_out, b, e), slice_of(input, b, e),
                             weight, g, &sw, c))
        done = false;
    });
    if (parts > 1 && done) {
      if (gw_prim) {
        sum_partials(sw.gw);
        write_output(gw_prim->args[2], grad_weight, sw.gw[0]);
      } else if (grad_weight.defined()) {
        sum_partials(gw);
      }
      if (grad_bias.defined()) sum_partials(gb);
    }
  });
  return done;
}

// ---- pooling

namespace {

struct PoolDims {
  memory::dims src, dst, kernel, strides, dilation, pad_l, pad_r;  // src/dst: [1, planes, *spatial]
  int64_t planes = 1;
};

// oneDNN's terms for a pooling over contiguous [*planes, *in], or nullopt where its results would differ from
// PyTorch's.
std::optional<PoolDims> pool_dims(const Tensor& input, const PoolGeometry& g, bool avg) {
  // (adaptive averages stay with ember's kernel, whose vectorized row sums beat oneDNN's on large windows)
  if (g.divisor_override || (avg && g.adaptive())) return std::nullopt;
  PoolDims d;
  int64_t in_n = 1;
  for (int64_t v : g.in) in_n *= v;
  d.planes = input.numel() / in_n;
  d.src = {1, d.planes};
  d.dst = {1, d.planes};
  for (size_t i = 0; i < g.in.size(); ++i) {
    int64_t k, s, p, dil;
    if (g.adaptive()) {  // adaptive max pooling with even windows is a regular pooling
      if (g.out[i] == 0 || g.in[i] % g.out[i]) return std::nullopt;
      k = s = g.in[i] / g.out[i];
      p = 0;
      dil = 1;
    } else {
      k = g.kernel[i], s = g.stride[i], p = g.padding[i], dil = g.dilation[i];
      // oneDNN visits every tap of a window, padding included (and the indices table below has one entry per tap);
      // a window longer than the input, mostly padding, stays with ember's loops, which visit only the taps inside.
      if (k > g.in[i]) return std::nullopt;
    }
    // pad_r: what the last window reaches past the input (0 when it stops short)
    const int64_t pr = std::max<int64_t>(0, (g.out[i] - 1) * s + (k - 1) * dil + 1 - g.in[i] - p);
    // oneDNN's include-padding average divides by the whole kernel; PyTorch leaves out ceil_mode's overhang.
    if (avg && g.count_include_pad && pr > p) return std::nullopt;
    d.src.push_back(g.in[i]);
    d.dst.push_back(g.out[i]);
    d.kernel.push_back(k);
    d.strides.push_back(s);
    d.dilation.push_back(dil - 1);
    d.pad_l.push_back(p);
    d.pad_r.push_back(pr);
  }
  return d;
}

std::string pool_key(char op, const PoolDims& d, int64_t alg) {
  KeyWriter k;
  k << int64_t(op) << alg;
  for (const memory::dims* v : {&d.src, &d.dst, &d.kernel, &d.strides, &d.dilation, &d.pad_l, &d.pad_r})
    k << IntArrayRef(v->data(), v->size());
  return std::move(k.s);
}

memory::desc f32_desc(const memory::dims& dims) { return contiguous_desc(dims, memory::data_type::f32); }

dnnl::pooling_v2_forward::primitive_desc pool_forward_pd(const PoolDims& d, dnnl::prop_kind prop, dnnl::algorithm alg) {
  dnnl::pooling_v2_forward::desc desc(prop, alg, f32_desc(d.src), f32_desc(d.dst), d.strides, d.kernel, d.dilation,
                                      d.pad_l, d.pad_r);
  return {desc, default_attr(), engine()};
}

dnnl::algorithm avg_algorithm(const PoolGeometry& g) {
  return g.count_include_pad ? dnnl::algorithm::pooling_avg_include_padding
                             : dnnl::algorithm::pooling_avg_exclude_padding;
}

// PyTorch's indices (flat positions within the plane) from oneDNN's workspace (each maximum's offset within its
// kernel window, laid out as the output): the window's first position plus a table entry per kernel offset.
template <class W>
void workspace_to_indices(const W* ws, int64_t* idx, const PoolDims& d) {
  const size_t n = d.kernel.size(), off = 3 - n;
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, k{1, 1, 1}, s{1, 1, 1}, p{0, 0, 0}, dil{1, 1, 1};
  for (size_t i = 0; i < n; ++i) {
    in[off + i] = d.src[i + 2], out[off + i] = d.dst[i + 2], k[off + i] = d.kernel[i];
    s[off + i] = d.strides[i], p[off + i] = d.pad_l[i], dil[off + i] = d.dilation[i] + 1;
  }
  std::vector<int64_t> rel;
  for (int64_t kd = 0; kd < k[0]; ++kd)
    for (int64_t kh = 0; kh < k[1]; ++kh)
      for (int64_t kw = 0; kw < k[2]; ++kw) rel.push_back((kd * dil[0] * in[1] + kh * dil[1]) * in[2] + kw * dil[2]);
  const int64_t out_n = out[0] * out[1] * out[2];
  parallel_for(0, d.planes, std::max<int64_t>(1, kGrainSize / out_n), [&](int64_t b, int64_t e) {
    for (int64_t j = b * out_n, pl = b; pl < e; ++pl)
      for (int64_t od = 0; od < out[0]; ++od)
        for (int64_t oh = 0; oh < out[1]; ++oh) {
          const int64_t row = ((od * s[0] - p[0]) * in[1] + oh * s[1] - p[1]) * in[2] - p[2];
          for (int64_t ow = 0; ow < out[2]; ++ow, ++j) idx[j] = row + ow * s[2] + rel[static_cast<size_t>(ws[j])];
        }
  });
}

// Runs f(dims, planes begin, planes end) over slices of a pooling's planes on ember's pool (Note [Primitives on
// ember's threads]).
template <class F>
void over_planes(const PoolDims& d, const F& f) {
  over_batch(d.planes, thread_parts(d.planes), [&](int64_t, int64_t b, int64_t e) {
    PoolDims s = d;
    s.planes = e - b;
    s.src[1] = s.dst[1] = e - b;
    f(s, b, e);
  });
}

// Planes [b, e) of a contiguous tensor of `planes` planes.
Tensor planes_of(const Tensor& t, int64_t planes, int64_t b, int64_t e) {
  return t.view({planes, t.numel() / std::max<int64_t>(planes, 1)}).narrow(0, b, e - b);
}

bool has_nan(const Tensor& t) {
  const float* x = t.data<float>();
  int any = 0;  // an int, not a bool, so that the compiler vectorizes the loop
  for (int64_t i = 0; i < t.numel(); ++i) any |= static_cast<int>(x[i] != x[i]);
  return any != 0;
}

// Returns false where oneDNN has no JIT kernel or the input holds a NaN (which oneDNN's max skips, PyTorch's
// propagates).
bool max_pool_run(const Tensor& out, const Tensor& indices, const Tensor& input, const PoolDims& d) {
  const bool training = indices.defined();
  auto p = cached(pool_key(training ? 'm' : 'i', d, 0), [&] {
    auto pd = pool_forward_pd(d, training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference,
                              dnnl::algorithm::pooling_max);
    Prim r;
    if (!fast_impl(pd)) return r;  // declined: an empty primitive (ember's loops are faster)
    r.prim = dnnl::pooling_v2_forward(pd);
    r.scratchpad_bytes = pd.scratchpad_desc().get_size();
    r.add(DNNL_ARG_SRC, true, f32_desc(d.src), pd.src_desc());
    r.add(DNNL_ARG_DST, false, f32_desc(d.dst), pd.dst_desc());
    if (training) r.add(DNNL_ARG_WORKSPACE, false, pd.workspace_desc(), pd.workspace_desc());
    return r;
  });
  if (!p->prim || has_nan(input)) return false;
  if (!training) {
    execute(*p, {&input, &out});
    return true;
  }
  // The workspace must be one offset per output, laid out as the output, to be read as indices.
  const memory::desc& ws = p->args[2].user;
  const auto dt = ws.data_type();
  if (!(dt == memory::data_type::u8 || dt == memory::data_type::s32) || !(ws == contiguous_desc(d.dst, dt)))
    return false;
  Tensor w = buffer(ws.get_size());
  execute(*p, {&input, &out, &w});
  if (dt == memory::data_type::u8)
    workspace_to_indices(static_cast<const uint8_t*>(w.data_ptr()), indices.data<int64_t>(), d);
  else
    workspace_to_indices(static_cast<const int32_t*>(w.data_ptr()), indices.data<int64_t>(), d);
  return true;
}

}  // namespace

bool max_pool(const Tensor& out, const Tensor& indices, const Tensor& input, const PoolGeometry& g) {
  const auto d = pool_dims(input, g, false);
  if (!d) return false;
  std::atomic<bool> done{true};
  guarded("max_pool", [&] {
    over_planes(*d, [&](const PoolDims& s, int64_t b, int64_t e) {
      const Tensor idx = indices.defined() ? planes_of(indices, d->planes, b, e) : indices;
      if (!max_pool_run(planes_of(out, d->planes, b, e), idx, planes_of(input, d->planes, b, e), s)) done = false;
    });
  });
  return done;
}

bool avg_pool(const Tensor& out, const Tensor& input, const PoolGeometry& g) {
  const auto d = pool_dims(input, g, true);
  if (!d) return false;
  std::atomic<bool> done{true};
  guarded("avg_pool", [&] {
    over_planes(*d, [&](const PoolDims& s, int64_t b, int64_t e) {
      auto p = cached(pool_key('a', s, static_cast<int64_t>(avg_algorithm(g))), [&] {
        auto pd = pool_forward_pd(s, dnnl::prop_kind::forward_inference, avg_algorithm(g));
        Prim r;
        if (!fast_impl(pd)) return r;
        r.prim = dnnl::pooling_v2_forward(pd);
        r.scratchpad_bytes = pd.scratchpad_desc().get_size();
        r.add(DNNL_ARG_SRC, true, f32_desc(s.src), pd.src_desc());
        r.add(DNNL_ARG_DST, false, f32_desc(s.dst), pd.dst_desc());
        return r;
      });
      if (!p->prim) {
        done = false;
        return;
      }
      const Tensor in = planes_of(input, d->planes, b, e), o = planes_of(out, d->planes, b, e);
      execute(*p, {&in, &o});
    });
  });
  return done;
}

bool avg_pool_backward(const Tensor& grad_input, const Tensor& grad_out, const PoolGeometry& g) {
  const auto d = pool_dims(grad_input, g, true);
  if (!d) return false;
  std::atomic<bool> done{true};
  guarded("avg_pool_backward", [&] {
    over_planes(*d, [&](const PoolDims& s, int64_t b, int64_t e) {
      auto p = cached(pool_key('b', s, static_cast<int64_t>(avg_algorithm(g))), [&] {
        dnnl::pooling_v2_backward::desc desc(avg_algorithm(g), f32_desc(s.src), f32_desc(s.dst), s.strides, s.kernel,
                                             s.dilation, s.pad_l, s.pad_r);
        dnnl::pooling_v2_backward::primitive_desc pd(
            desc, default_attr(), engine(), pool_forward_pd(s, dnnl::prop_kind::forward_training, avg_algorithm(g)));
        Prim r;
        if (!fast_impl(pd)) return r;
        r.prim = dnnl::pooling_v2_backward(pd);
        r.scratchpad_bytes = pd.scratchpad_desc().get_size();
        r.add(DNNL_ARG_DIFF_DST, true, f32_desc(s.dst), pd.diff_dst_desc());
        r.add(DNNL_ARG_DIFF_SRC, false, f32_desc(s.src), pd.diff_src_desc());
        return r;
      });
      if (!p->prim) {
        done = false;
        return;
      }
      const Tensor go = planes_of(grad_out, d->planes, b, e), gi = planes_of(grad_input, d->planes, b, e);
      execute(*p, {&go, &gi});
    });
  });
  return done;
}

}  // namespace ember::dnnl_cpu
