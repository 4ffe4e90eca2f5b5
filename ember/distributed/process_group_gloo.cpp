// ProcessGroupGloo: CPU collectives over Gloo's TCP transport.
// Note [Gloo worker]: every collective is a task on the group's one worker thread, run in the order issued (so
// all ranks run the same sequence with the same tags); the caller gets the Work at once and waits on it when it
// wants (synchronous ops wait right away). Operands are staged in contiguous buffers on the calling thread and the
// results copied back into non-contiguous outputs by the worker. Before each collective the ranks exchange a
// signature (op, dtype, element count, root) with a tiny allgather, so a mismatch raises on every rank instead of
// hanging or corrupting memory; ProcessGroupOptions.check_signatures turns that off. send/recv use Gloo's unbound
// buffers from the calling thread and are finished by Work.wait, as in c10d.
#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoallv.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/gather.h>
#include <gloo/reduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/scatter.h>
#include <gloo/transport/tcp/device.h>

#include <array>
#include <cstring>
#include <deque>
#include <thread>
#include <type_traits>

#include "ember/autograd/grad_mode.h"
#include "ember/distributed/process_group.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::distributed {

namespace {

using namespace pg_detail;
constexpr const char* kBackend = "gloo";

// Gloo's rendezvous over an ember Store.
class GlooStore : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(std::shared_ptr<distributed::Store> s) : s_(std::move(s)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    s_->set(key, Bytes(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    Bytes b = s_->get(key);
    return std::vector<char>(b.begin(), b.end());
  }
  void wait(const std::vector<std::string>& keys) override { s_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    s_->wait(keys, timeout);
  }

 private:
  std::shared_ptr<distributed::Store> s_;
};

// ---- reduction functions (Gloo's signature: c = a op b over n elements). Half and bfloat16 compute in float.
struct Sum {
  template <class T>
  T operator()(T a, T b) const {
    return a + b;
  }
};
struct Prod {
  template <class T>
  T operator()(T a, T b) const {
    return a * b;
  }
};
struct Min {
  template <class T>
  T operator()(T a, T b) const {
    return b < a ? b : a;
  }
};
struct Max {
  template <class T>
  T operator()(T a, T b) const {
    return a < b ? b : a;
  }
};
struct And {
  template <class T>
  T operator()(T a, T b) const {
    return a & b;
  }
};
struct Or {
  template <class T>
  T operator()(T a, T b) const {
    return a | b;
  }
};
struct Xor {
  template <class T>
  T operator()(T a, T b) const {
    return a ^ b;
  }
};

template <class T>
using Compute = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float,
                                   std::conditional_t<std::is_same_v<T, bool>, int, T>>;

template <class T, class F>
void reduce_into(void* c, const void* a, const void* b, size_t n) {
  auto* o = static_cast<T*>(c);
  auto* x = static_cast<const T*>(a);
  auto* y = static_cast<const T*>(b);
  F f;
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>)
      o[i] = f(int(x[i]), int(y[i])) != 0;
    else
      o[i] = static_cast<T>(f(static_cast<Compute<T>>(x[i]), static_cast<Compute<T>>(y[i])));
  }
}

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

ReduceFn reduce_fn(ScalarType dt, ReduceOp op) {
  return dispatch_all(dt, [&](auto v) -> ReduceFn {
    using T = decltype(v);
    switch (op) {
      case ReduceOp::SUM:
      case ReduceOp::AVG: return &reduce_into<T, Sum>;
      case ReduceOp::PRODUCT: return &reduce_into<T, Prod>;
      case ReduceOp::MIN: return &reduce_into<T, Min>;
      case ReduceOp::MAX: return &reduce_into<T, Max>;
      default: break;
    }
    if constexpr (std::is_integral_v<T>) {
      if (op == ReduceOp::BAND) return &reduce_into<T, And>;
      if (op == ReduceOp::BOR) return &reduce_into<T, Or>;
      return &reduce_into<T, Xor>;
    }
    fail<TypeError>("ReduceOp.", reduce_op_name(op), " is not defined for ", dtype_name(dt));
  });
}

// AVG: the sum divided by the group size, in place (floating dtypes only, checked before).
void divide(const Tensor& buf, int size) {
  dispatch_all(buf.dtype(), [&](auto v) {
    using T = decltype(v);
    if constexpr (!std::is_integral_v<T>) {
      auto* p = static_cast<T*>(buf.data_ptr());
      for (int64_t i = 0; i < buf.numel(); ++i) p[i] = static_cast<T>(static_cast<Compute<T>>(p[i]) / size);
    }
  });
}

// Calls f(U{}) with an unsigned type of the element size (Gloo's algorithms only look at sizeof).
template <class F>
void by_size(size_t es, F&& f) {
  switch (es) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
  }
  fail<Error>("unsupported element size ", es);
}

uint8_t g_empty_byte;
template <class U = uint8_t>
U* ptr_of(const Tensor& t) {
  return t.numel() ? static_cast<U*>(t.data_ptr()) : reinterpret_cast<U*>(&g_empty_byte);
}

// A contiguous buffer with t's values (t itself when contiguous).
Tensor staged(const Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }
// Copies buf back into t when buf is a staging copy.
void unstage(const Tensor& t, const Tensor& buf) {
  if (!buf.is_same(t)) t.detach().copy_(buf.view(t.sizes()));
}
Tensor flat_empty(int64_t n, const Tensor& like) {
  std::array<int64_t, 1> size{n};
  return empty(size, TensorOptions(like.dtype()));
}

enum OpCode : int64_t {
  kAllReduce = 1,
  kBroadcast,
  kReduce,
  kAllGather,
  kReduceScatter,
  kGather,
  kScatter,
  kAllToAll,
  kBarrier
};
const char* op_code_name(int64_t c) {
  static const char* names[] = {"?",      "all_reduce", "broadcast",  "reduce", "all_gather", "reduce_scatter",
                                "gather", "scatter",    "all_to_all", "barrier"};
  return c >= 1 && c <= kBarrier ? names[c] : "?";
}

// What every rank must agree on before a collective (-1: not compared).
struct Signature {
  int64_t op = 0, dtype = -1, numel = -1, root = -1, reduce = -1;
};

std::string describe(const int64_t* s) {
  std::string r = op_code_name(s[0]);
  if (s[1] >= 0) r += detail::cat(" with a ", dtype_name(static_cast<ScalarType>(s[1])), " tensor");
  if (s[2] >= 0) r += detail::cat(" of ", s[2], " elements");
  if (s[3] >= 0) r += detail::cat(", root ", s[3]);
  if (s[4] >= 0) r += detail::cat(", ReduceOp.", reduce_op_name(static_cast<ReduceOp>(s[4])));
  return r;
}

[[noreturn]] void rethrow_gloo(const std::string& op, Millis timeout, const std::exception& e) {
  std::string what = e.what();
  if (what.find("Application timeout caused pair closure") != std::string::npos)
    fail<Error>("[", op, "] failed: the connection was closed after an earlier timeout in this group (gloo: ", what,
                ")");
  if (what.find("Timed out") != std::string::npos || what.find("timed out") != std::string::npos)
    fail<Error>("[", op, "] timed out after ", timeout.count(), " ms waiting for the other ranks (gloo: ", what, ")");
  fail<Error>("[", op, "] failed: ", what);
}

// send/recv: finished by wait (c10d's SendWork/RecvWork).
class P2PWork : public Work {
 public:
  P2PWork(const char* op, std::unique_ptr<gloo::transport::UnboundBuffer> buf, bool is_send, Tensor target,
          Tensor stage, Millis default_timeout)
      : Work(op), buf_(std::move(buf)), send_(is_send), target_(std::move(target)), stage_(std::move(stage)),
        timeout_(default_timeout) {}
  ~P2PWork() override {
    if (!done_) {  // still registered with Gloo's loop: leave the buffer and its memory to it
      (void)buf_.release();
      (void)new Tensor(stage_);
    }
  }
  bool wait_for(Millis) override { return true; }
  bool wait(Millis timeout) override {
    {
      std::lock_guard<std::mutex> l(wait_mu_);
      if (!is_completed()) {
        Millis t = timeout.count() < 0 ? timeout_ : timeout;
        int peer = -1;
        try {
          bool ok = send_ ? buf_->waitSend(&peer, t) : buf_->waitRecv(&peer, t);
          EMBER_CHECK(ok, "[", op_, "] aborted");
        } catch (const gloo::Exception& e) {
          rethrow_gloo(op_, t, e);
        }
        if (!send_) {
          autograd::GradModeGuard g(false);
          unstage(target_, stage_);
          set_source_rank(peer);
          set_result({target_});
        }
        finish();
      }
    }
    return Work::wait(Millis(-1));
  }

 private:
  std::mutex wait_mu_;
  std::unique_ptr<gloo::transport::UnboundBuffer> buf_;
  bool send_;
  Tensor target_, stage_;
  Millis timeout_;
};

class ProcessGroupGloo : public ProcessGroup {
 public:
  ProcessGroupGloo(std::shared_ptr<Store> store, int rank, int size, const ProcessGroupOptions& o)
      : ProcessGroup(rank, size, o.timeout), check_(o.check_signatures) {
    gloo::transport::tcp::attr attr;
    if (!o.iface.empty())
      attr.iface = o.iface;
    else
      attr.hostname = o.hostname.empty() ? "127.0.0.1" : o.hostname;
    try {
      device_ = gloo::transport::tcp::CreateDevice(attr);
      ctx_ = std::make_shared<gloo::rendezvous::Context>(rank, size);
      ctx_->setTimeout(o.timeout);
      GlooStore gs(std::move(store));
      ctx_->connectFullMesh(gs, device_);
    } catch (const gloo::Exception& e) {
      fail<Error>("[init_process_group] gloo could not connect rank ", rank, " of ", size, ": ", e.what());
    }
    worker_ = std::make_unique<std::thread>([this] { run(); });
  }

  ~ProcessGroupGloo() override {
    if (::getpid() != owner_) {
      // A forked child (a DataLoader worker) has this memory but not the threads behind it (ours, Gloo's loop):
      // joining them would abort or hang, so the child leaves them alone.
      (void)worker_.release();
      (void)q_.release();  // its condition variable had the parent's worker waiting: destroying it would block
      (void)new std::shared_ptr<gloo::rendezvous::Context>(std::move(ctx_));
      (void)new std::shared_ptr<gloo::transport::Device>(std::move(device_));
      return;
    }
    {
      std::lock_guard<std::mutex> l(q_->mu);
      q_->stop = true;
    }
    q_->cv.notify_all();
    if (worker_->joinable()) worker_->join();
  }

  std::string backend_name() const override { return kBackend; }

  WorkPtr all_reduce(const Tensor& t, ReduceOp op) override {
    const char* name = "all_reduce";
    check_device(name, t, DeviceType::CPU, kBackend);
    check_reduce_op(name, op, t.dtype(), kBackend);
    Tensor buf = staged(t);
    return enqueue(name, sig(kAllReduce, t, -1, op), [=, this](Work& w) {
      allreduce_buffer(buf, op);
      unstage(t, buf);
      w.set_result({t});
    });
  }

  WorkPtr broadcast(const Tensor& t, int root) override {
    const char* name = "broadcast";
    check_device(name, t, DeviceType::CPU, kBackend);
    check_root(name, root, size_);
    Tensor buf = staged(t);
    return enqueue(name, sig(kBroadcast, t, root), [=, this](Work& w) {
      if (buf.numel()) {
        gloo::BroadcastOptions o(ctx_);
        o.setOutput(ptr_of(buf), buf.nbytes());
        o.setRoot(root);
        o.setTag(next_tag());
        gloo::broadcast(o);
      }
      if (rank_ != root) unstage(t, buf);
      w.set_result({t});
    });
  }

  WorkPtr reduce(const Tensor& t, int root, ReduceOp op) override {
    const char* name = "reduce";
    check_device(name, t, DeviceType::CPU, kBackend);
    check_root(name, root, size_);
    check_reduce_op(name, op, t.dtype(), kBackend);
    Tensor buf = staged(t);
    return enqueue(name, sig(kReduce, t, root, op), [=, this](Work& w) {
      if (buf.numel()) {
        // Off the root, Gloo writes partial results into the output: give it scratch so t keeps its values.
        Tensor out = rank_ == root ? buf : flat_empty(buf.numel(), buf);
        by_size(buf.element_size(), [&](auto u) {
          using U = decltype(u);
          gloo::ReduceOptions o(ctx_);
          if (rank_ != root) o.setInput(ptr_of<U>(buf), buf.numel());
          o.setOutput(ptr_of<U>(out), buf.numel());
          o.setRoot(root);
          o.setReduceFunction(reduce_fn(buf.dtype(), op));
          o.setTag(next_tag());
          gloo::reduce(o);
        });
        if (rank_ == root) {
          if (op == ReduceOp::AVG) divide(buf, size_);
          unstage(t, buf);
        }
      }
      w.set_result({t});
    });
  }

  WorkPtr all_gather(const std::vector<Tensor>& outs, const Tensor& in) override {
    const char* name = "all_gather";
    check_device(name, in, DeviceType::CPU, kBackend);
    check_list(name, outs, size_, in, true);
    Tensor src = staged(in);
    return enqueue(name, sig(kAllGather, in), [=, this](Work& w) {
      Tensor flat = flat_empty(src.numel() * size_, src);
      gather_all(src, flat);
      copy_chunks(flat, outs);
      w.set_result(outs);
    });
  }

  WorkPtr all_gather_into_tensor(const Tensor& out, const Tensor& in) override {
    const char* name = "all_gather_into_tensor";
    check_whole_and_part(name, out, in, size_, DeviceType::CPU, kBackend, "output");
    Tensor src = staged(in), dst = staged(out);
    return enqueue(name, sig(kAllGather, in), [=, this](Work& w) {
      gather_all(src, dst);
      unstage(out, dst);
      w.set_result({out});
    });
  }

  WorkPtr reduce_scatter(const Tensor& out, const std::vector<Tensor>& ins, ReduceOp op) override {
    const char* name = "reduce_scatter";
    check_device(name, out, DeviceType::CPU, kBackend);
    check_list(name, ins, size_, out, true);
    check_reduce_op(name, op, out.dtype(), kBackend);
    std::vector<Tensor> flat_ins;
    for (const auto& t : ins) flat_ins.push_back(t.flatten());
    Tensor flat = out.numel() ? cat(flat_ins) : flat_empty(0, out);
    return reduce_scatter_flat(name, out, flat, op);
  }

  WorkPtr reduce_scatter_tensor(const Tensor& out, const Tensor& in, ReduceOp op) override {
    const char* name = "reduce_scatter_tensor";
    check_whole_and_part(name, in, out, size_, DeviceType::CPU, kBackend, "input");
    check_reduce_op(name, op, out.dtype(), kBackend);
    return reduce_scatter_flat(name, out, in.contiguous().clone().flatten(), op);
  }

  WorkPtr gather(const std::vector<Tensor>& outs, const Tensor& in, int root) override {
    const char* name = "gather";
    check_device(name, in, DeviceType::CPU, kBackend);
    check_root(name, root, size_);
    if (rank_ == root) check_list(name, outs, size_, in, true);
    Tensor src = staged(in);
    return enqueue(name, sig(kGather, in, root), [=, this](Work& w) {
      Tensor flat = flat_empty(rank_ == root ? src.numel() * size_ : 0, src);
      if (src.numel()) {
        gloo::GatherOptions o(ctx_);
        o.setInput(ptr_of(src), src.nbytes());
        if (rank_ == root) o.setOutput(ptr_of(flat), flat.nbytes());
        o.setRoot(root);
        o.setTag(next_tag());
        gloo::gather(o);
      }
      if (rank_ == root) {
        copy_chunks(flat, outs);
        w.set_result(outs);
      }
    });
  }

  WorkPtr scatter(const Tensor& out, const std::vector<Tensor>& ins, int root) override {
    const char* name = "scatter";
    check_device(name, out, DeviceType::CPU, kBackend);
    check_root(name, root, size_);
    std::vector<Tensor> srcs;
    if (rank_ == root) {
      check_list(name, ins, size_, out, true);
      for (const auto& t : ins) srcs.push_back(staged(t));
    }
    Tensor dst = staged(out);
    return enqueue(name, sig(kScatter, out, root), [=, this](Work& w) {
      if (dst.numel()) {
        gloo::ScatterOptions o(ctx_);
        if (rank_ == root) {
          std::vector<uint8_t*> ptrs;
          for (const auto& t : srcs) ptrs.push_back(ptr_of(t));
          o.setInputs(ptrs, dst.nbytes());
        }
        o.setOutput(ptr_of(dst), dst.nbytes());
        o.setRoot(root);
        o.setTag(next_tag());
        gloo::scatter(o);
      }
      unstage(out, dst);
      w.set_result({out});
    });
  }

  WorkPtr all_to_all(const std::vector<Tensor>& outs, const std::vector<Tensor>& ins) override {
    const char* name = "all_to_all";
    Tensor src;
    Counts c = all_to_all_counts(name, outs, ins, size_, DeviceType::CPU, kBackend, &src);
    return enqueue(name, sig(kAllToAll, ins[0]), [=, this](Work& w) {
      Tensor dst = flat_empty(sum_of(c.out), src);
      exchange(name, src, dst, c.in, c.out);
      copy_chunks(dst, outs);
      w.set_result(outs);
    });
  }

  WorkPtr all_to_all_single(const Tensor& out, const Tensor& in, const std::vector<int64_t>& out_splits,
                            const std::vector<int64_t>& in_splits) override {
    const char* name = "all_to_all_single";
    Counts c = all_to_all_single_counts(name, out, in, out_splits, in_splits, size_, DeviceType::CPU, kBackend);
    Tensor src = staged(in), dst = staged(out);
    return enqueue(name, sig(kAllToAll, in), [=, this](Work& w) {
      exchange(name, src, dst, c.in, c.out);
      unstage(out, dst);
      w.set_result({out});
    });
  }

  WorkPtr barrier() override {
    Signature s;
    s.op = kBarrier;
    return enqueue("barrier", s, [this](Work&) {
      gloo::BarrierOptions o(ctx_);
      o.setTag(next_tag());
      gloo::barrier(o);
    });
  }

  WorkPtr send(const Tensor& t, int dst, int tag) override {
    const char* name = "send";
    check_device(name, t, DeviceType::CPU, kBackend);
    check_peer(name, dst, size_, false);
    EMBER_CHECK_VALUE(dst != rank_, "[send] a rank cannot send to itself (rank ", rank_, ")");
    Tensor buf = t.contiguous().clone();
    std::unique_ptr<gloo::transport::UnboundBuffer> ub;
    try {
      ub = ctx_->createUnboundBuffer(ptr_of(buf), buf.nbytes());
      ub->send(dst, p2p_slot(tag));
    } catch (const gloo::Exception& e) {
      rethrow_gloo(name, timeout_, e);
    }
    return std::make_shared<P2PWork>(name, std::move(ub), true, t, buf, timeout_);
  }

  WorkPtr recv(const Tensor& t, int src, int tag) override {
    const char* name = "recv";
    check_device(name, t, DeviceType::CPU, kBackend);
    check_peer(name, src, size_, true);
    EMBER_CHECK_VALUE(src != rank_, "[recv] a rank cannot receive from itself (rank ", rank_, ")");
    Tensor buf = staged(t);
    std::unique_ptr<gloo::transport::UnboundBuffer> ub;
    try {
      ub = ctx_->createUnboundBuffer(ptr_of(buf), buf.nbytes());
      if (src >= 0) {
        ub->recv(src, p2p_slot(tag));
      } else {
        std::vector<int> all;
        for (int r = 0; r < size_; ++r)
          if (r != rank_) all.push_back(r);
        ub->recv(all, p2p_slot(tag));
      }
    } catch (const gloo::Exception& e) {
      rethrow_gloo(name, timeout_, e);
    }
    return std::make_shared<P2PWork>(name, std::move(ub), false, t, buf, timeout_);
  }

 private:
  struct Task {
    std::shared_ptr<Work> work;
    Signature sig;
    std::function<void(Work&)> fn;
  };

  static uint64_t p2p_slot(int tag) { return gloo::Slot::build(0x20, static_cast<uint32_t>(tag)); }
  uint32_t next_tag() { return tag_++; }
  static int64_t sum_of(const std::vector<int64_t>& v) {
    int64_t s = 0;
    for (int64_t x : v) s += x;
    return s;
  }

  Signature sig(int64_t op, const Tensor& t, int root = -1, std::optional<ReduceOp> r = std::nullopt) const {
    Signature s;
    s.op = op;
    s.dtype = static_cast<int64_t>(t.dtype());
    s.numel = op == kAllToAll ? -1 : t.numel();
    s.root = root;
    s.reduce = r ? static_cast<int64_t>(*r) : -1;
    return s;
  }

  WorkPtr enqueue(const char* op, Signature s, std::function<void(Work&)> fn) {
    auto w = std::make_shared<Work>(op);
    {
      std::lock_guard<std::mutex> l(q_->mu);
      EMBER_CHECK(!q_->stop, "[", op, "] the process group has been destroyed");
      q_->tasks.push_back(Task{w, s, std::move(fn)});
    }
    q_->cv.notify_one();
    return w;
  }

  void run() {
    for (;;) {
      Task task;
      {
        std::unique_lock<std::mutex> l(q_->mu);
        q_->cv.wait(l, [&] { return q_->stop || !q_->tasks.empty(); });
        if (q_->tasks.empty()) return;  // stopping, and everything issued has run
        task = std::move(q_->tasks.front());
        q_->tasks.pop_front();
      }
      std::exception_ptr err;
      try {
        autograd::GradModeGuard g(false);
        if (check_) check_signature(task.work->op(), task.sig);
        task.fn(*task.work);
      } catch (const Error&) {
        err = std::current_exception();
      } catch (const std::exception& e) {
        try {
          rethrow_gloo(task.work->op(), timeout_, e);
        } catch (...) {
          err = std::current_exception();
        }
      }
      task.fn = nullptr;  // the operands go before the waiter sees the Work done
      task.work->finish(err);
    }
  }

  void check_signature(const std::string& op, const Signature& s) {
    if (size_ == 1) return;
    int64_t mine[5] = {s.op, s.dtype, s.numel, s.root, s.reduce};
    std::vector<int64_t> all(5 * size_);
    gloo::AllgatherOptions o(ctx_);
    o.setInput(mine, 5);
    o.setOutput(all.data(), all.size());
    o.setTag(next_tag());
    gloo::allgather(o);
    for (int r = 0; r < size_; ++r) {
      if (std::memcmp(&all[5 * r], mine, sizeof mine) != 0)
        fail<Error>("[", op, "] the ranks' calls do not match: rank ", rank_, " called ", describe(mine), " but rank ",
                    r, " called ", describe(&all[5 * r]));
    }
  }

  void allreduce_buffer(const Tensor& buf, ReduceOp op) {
    if (!buf.numel()) return;
    by_size(buf.element_size(), [&](auto u) {
      using U = decltype(u);
      gloo::AllreduceOptions o(ctx_);
      o.setOutput(ptr_of<U>(buf), buf.numel());
      o.setReduceFunction(reduce_fn(buf.dtype(), op));
      o.setTag(next_tag());
      gloo::allreduce(o);
    });
    if (op == ReduceOp::AVG) divide(buf, size_);
  }

  void gather_all(const Tensor& src, const Tensor& dst) {
    if (!src.numel()) return;
    gloo::AllgatherOptions o(ctx_);
    o.setInput(ptr_of(src), src.nbytes());
    o.setOutput(ptr_of(dst), dst.nbytes());
    o.setTag(next_tag());
    gloo::allgather(o);
  }

  WorkPtr reduce_scatter_flat(const char* name, const Tensor& out, Tensor flat, ReduceOp op) {
    flat = flat.is_contiguous() && flat.dim() == 1 ? flat : flat.contiguous().flatten();
    if (flat.numel() && flat.impl()->storage()->data() == out.impl()->storage()->data()) flat = flat.clone();
    return enqueue(name, sig(kReduceScatter, out, -1, op), [=, this](Work& w) {
      allreduce_buffer(flat, op);
      if (out.numel()) out.detach().copy_(flat.narrow(0, rank_ * out.numel(), out.numel()).view(out.sizes()));
      w.set_result({out});
    });
  }

  // all_to_all's exchange of element counts per peer; first checks that what each rank sends to each other is
  // what that one expects (counts disagreeing across ranks would otherwise corrupt or hang).
  void exchange(const char* name, const Tensor& src, const Tensor& dst, const std::vector<int64_t>& in_counts,
                const std::vector<int64_t>& out_counts) {
    if (size_ > 1) {
      std::vector<int64_t> all(size_ * size_);
      gloo::AllgatherOptions o(ctx_);
      o.setInput(const_cast<int64_t*>(in_counts.data()), size_);
      o.setOutput(all.data(), all.size());
      o.setTag(next_tag());
      gloo::allgather(o);
      for (int r = 0; r < size_; ++r)
        EMBER_CHECK_VALUE(all[r * size_ + rank_] == out_counts[r], "[", name, "] rank ", r, " sends ",
                          all[r * size_ + rank_], " elements to rank ", rank_, ", which expects ", out_counts[r]);
    }
    const size_t es = src.element_size();
    std::vector<int64_t> in_bytes, out_bytes;
    for (int64_t c : in_counts) in_bytes.push_back(c * static_cast<int64_t>(es));
    for (int64_t c : out_counts) out_bytes.push_back(c * static_cast<int64_t>(es));
    gloo::AlltoallvOptions o(ctx_);
    o.setInput(ptr_of(src), in_bytes);
    o.setOutput(ptr_of(dst), out_bytes);
    o.setTag(next_tag());
    gloo::alltoallv(o);
  }

  bool check_;
  std::shared_ptr<gloo::transport::Device> device_;
  std::shared_ptr<gloo::rendezvous::Context> ctx_;
  struct Queue {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Task> tasks;
    bool stop = false;
  };
  std::unique_ptr<Queue> q_ = std::make_unique<Queue>();
  uint32_t tag_ = 0;  // the worker's only
  pid_t owner_ = ::getpid();
  std::unique_ptr<std::thread> worker_;
};

}  // namespace

std::shared_ptr<ProcessGroup> make_process_group_gloo(std::shared_ptr<Store> store, int rank, int size,
                                                      const ProcessGroupOptions& options) {
  EMBER_CHECK_VALUE(store != nullptr, "[init_process_group] no store given");
  return std::make_shared<ProcessGroupGloo>(std::move(store), rank, size, options);
}

std::string local_address_for(const std::string& peer) {
  // The address this host would use to reach peer (a UDP "connect" sends nothing); loopback for local peers.
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  if (::getaddrinfo(peer.c_str(), "9", &hints, &res) != 0 || !res) return "127.0.0.1";
  std::string out = "127.0.0.1";
  int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s >= 0 && ::connect(s, res->ai_addr, res->ai_addrlen) == 0) {
    sockaddr_in me{};
    socklen_t len = sizeof me;
    char buf[INET_ADDRSTRLEN];
    if (::getsockname(s, reinterpret_cast<sockaddr*>(&me), &len) == 0 &&
        ::inet_ntop(AF_INET, &me.sin_addr, buf, sizeof buf))
      out = buf;
  }
  if (s >= 0) ::close(s);
  ::freeaddrinfo(res);
  return out;
}

}  // namespace ember::distributed
