// ProcessGroupNCCL: CUDA collectives through NCCL.
// Note [NCCL streams]: each op runs on the group's communication stream, which first waits (an event) for the
// work queued so far on the caller's current stream; the op's Work records an end event there, and Work.wait makes
// the current stream wait for it (the host waits only when asked for a timeout, and in barrier). Tensors used on
// the communication stream are recorded with the caching allocator so their blocks are not reused early.
// libnccl is loaded with dlopen on first use, so that libember loads on machines without it (and this file needs
// only nccl.h to compile). The communicator is made on a group's first CUDA op, on that tensor's device: rank 0
// puts an ncclUniqueId in the store and the others read it (waiting up to the store's timeout).
#include <dlfcn.h>
#include <nccl.h>

#include <array>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>

#include "ember/backend/cuda/check.h"
#include "ember/backend/cuda/nccl_glue.h"
#include "ember/cuda.h"
#include "ember/distributed/process_group.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::distributed {

namespace {

using namespace pg_detail;
constexpr const char* kBackend = "nccl";

// The entry points we use, resolved from libnccl.so.2.
struct NcclApi {
  decltype(&::ncclGetVersion) get_version = nullptr;
  decltype(&::ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&::ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&::ncclCommDestroy) comm_destroy = nullptr;
  decltype(&::ncclCommAbort) comm_abort = nullptr;
  decltype(&::ncclCommGetAsyncError) comm_get_async_error = nullptr;
  decltype(&::ncclGetErrorString) get_error_string = nullptr;
  decltype(&::ncclGetLastError) get_last_error = nullptr;
  decltype(&::ncclAllReduce) all_reduce = nullptr;
  decltype(&::ncclBroadcast) broadcast = nullptr;
  decltype(&::ncclReduce) reduce = nullptr;
  decltype(&::ncclAllGather) all_gather = nullptr;
  decltype(&::ncclReduceScatter) reduce_scatter = nullptr;
  decltype(&::ncclSend) send = nullptr;
  decltype(&::ncclRecv) recv = nullptr;
  decltype(&::ncclGroupStart) group_start = nullptr;
  decltype(&::ncclGroupEnd) group_end = nullptr;
};

const NcclApi& nccl() {
  static NcclApi api;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    void* h = nullptr;
    for (const char* name : {"libnccl.so.2", "libnccl.so"})
      if ((h = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!h) {
      const char* e = dlerror();
      error = std::string("could not load libnccl.so.2: ") + (e ? e : "not found");
      return;
    }
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
      if (!fn && error.empty()) error = std::string("libnccl lacks ") + name;
    };
    sym(api.get_version, "ncclGetVersion");
    sym(api.get_unique_id, "ncclGetUniqueId");
    sym(api.comm_init_rank, "ncclCommInitRank");
    sym(api.comm_destroy, "ncclCommDestroy");
    sym(api.comm_abort, "ncclCommAbort");
    sym(api.comm_get_async_error, "ncclCommGetAsyncError");
    sym(api.get_error_string, "ncclGetErrorString");
    sym(api.get_last_error, "ncclGetLastError");
    sym(api.all_reduce, "ncclAllReduce");
    sym(api.broadcast, "ncclBroadcast");
    sym(api.reduce, "ncclReduce");
    sym(api.all_gather, "ncclAllGather");
    sym(api.reduce_scatter, "ncclReduceScatter");
    sym(api.send, "ncclSend");
    sym(api.recv, "ncclRecv");
    sym(api.group_start, "ncclGroupStart");
    sym(api.group_end, "ncclGroupEnd");
  });
  EMBER_CHECK(error.empty(), "[nccl] ", error);
  return api;
}

void check(ncclResult_t r, const std::string& op, const char* what, ncclComm_t comm = nullptr) {
  if (r == ncclSuccess) [[likely]]
    return;
  const NcclApi& api = nccl();
  const char* detail = api.get_last_error ? api.get_last_error(comm) : nullptr;
  fail<Error>("[", op, "] NCCL error in ", what, ": ", api.get_error_string(r),
              detail && *detail ? std::string(" (") + detail + ")" : std::string());
}
#define NCCL_CHECK(op, expr, comm) check((expr), (op), #expr, (comm))

// nccl_glue.h's numbers are NCCL's.
constexpr bool same(int a, int b) { return a == b; }
static_assert(same(ncclInt8, cuda::nccl_glue::Int8) && same(ncclUint8, cuda::nccl_glue::Uint8) &&
              same(ncclInt32, cuda::nccl_glue::Int32) && same(ncclInt64, cuda::nccl_glue::Int64) &&
              same(ncclFloat16, cuda::nccl_glue::Float16) && same(ncclFloat32, cuda::nccl_glue::Float32) &&
              same(ncclFloat64, cuda::nccl_glue::Float64) && same(ncclBfloat16, cuda::nccl_glue::Bfloat16));
static_assert(same(ncclSum, cuda::nccl_glue::Sum) && same(ncclProd, cuda::nccl_glue::Prod) &&
              same(ncclMax, cuda::nccl_glue::Max) && same(ncclMin, cuda::nccl_glue::Min) &&
              same(ncclAvg, cuda::nccl_glue::Avg));

ncclDataType_t nccl_type(const char* op, ScalarType t) {
  return static_cast<ncclDataType_t>(cuda::nccl_glue::reduction_type(op, t));
}
ncclRedOp_t nccl_op(const char* op, ReduceOp r, ScalarType t) {
  return static_cast<ncclRedOp_t>(cuda::nccl_glue::reduction_op(op, r, t));
}

cudaStream_t raw(cuda::Stream s) { return static_cast<cudaStream_t>(s.handle); }

class NcclWork : public Work {
 public:
  NcclWork(const char* op, int device, Millis timeout) : Work(op), device_(device), timeout_(timeout) {}
  cuda::Event& end() { return end_; }
  void set_abort(std::function<void()> abort) { abort_ = std::move(abort); }

  bool is_completed() override { return end_.query(); }
  bool wait_for(Millis) override { return true; }

  // The caller's current stream waits for the op; with a timeout (>= 0) the host waits too, and past it the
  // communicator is aborted (NCCL cannot cancel one op) and an error naming the op raised.
  bool wait(Millis timeout) override {
    end_.wait(cuda::current_stream(device_));
    if (timeout.count() >= 0) host_wait(timeout);
    return true;
  }

  void host_wait(Millis timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!end_.query()) {
      if (std::chrono::steady_clock::now() >= deadline) {
        if (abort_) abort_();
        fail<Error>("[", op_, "] timed out after ", timeout.count(),
                    " ms waiting for the other ranks; the NCCL communicator was aborted");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

 private:
  int device_;
  Millis timeout_;
  cuda::Event end_;
  std::function<void()> abort_;
};

class ProcessGroupNCCL : public ProcessGroup {
 public:
  ProcessGroupNCCL(std::shared_ptr<Store> store, int rank, int size, const ProcessGroupOptions& o)
      : ProcessGroup(rank, size, o.timeout), store_(std::move(store)) {}

  ~ProcessGroupNCCL() override {
    std::lock_guard<std::mutex> l(comm_->mu);
    if (comm_->comm && cuda::is_initialized()) {
      // An op still pending (a peer gone) would make ncclCommDestroy wait forever: abort the communicator then.
      bool idle = false;
      try {
        idle = cuda::stream_query(stream_);
      } catch (const std::exception&) {
      }
      if (idle)
        nccl().comm_destroy(comm_->comm);
      else
        nccl().comm_abort(comm_->comm);
      comm_->comm = nullptr;
    }
  }

  std::string backend_name() const override { return kBackend; }

  WorkPtr all_reduce(const Tensor& t, ReduceOp op) override {
    const char* name = "all_reduce";
    check_device(name, t, DeviceType::CUDA, kBackend);
    check_reduce_op(name, op, t.dtype(), kBackend);
    auto dt = nccl_type(name, t.dtype());
    auto rop = nccl_op(name, op, t.dtype());
    Tensor buf = staged(t);
    return run(
        name, t, {buf},
        [&](ncclComm_t c, cudaStream_t s) {
          NCCL_CHECK(name, nccl().all_reduce(buf.data_ptr(), buf.data_ptr(), buf.numel(), dt, rop, c, s), c);
        },
        [&] { unstage(t, buf); }, {t}, !buf.is_same(t));
  }

  WorkPtr broadcast(const Tensor& t, int root) override {
    const char* name = "broadcast";
    check_device(name, t, DeviceType::CUDA, kBackend);
    check_root(name, root, size_);
    Tensor buf = staged(t);
    return run(
        name, t, {buf},
        [&](ncclComm_t c, cudaStream_t s) {
          NCCL_CHECK(name, nccl().broadcast(buf.data_ptr(), buf.data_ptr(), buf.nbytes(), ncclUint8, root, c, s), c);
        },
        [&] { unstage(t, buf); }, {t}, !buf.is_same(t));
  }

  WorkPtr reduce(const Tensor& t, int root, ReduceOp op) override {
    const char* name = "reduce";
    check_device(name, t, DeviceType::CUDA, kBackend);
    check_root(name, root, size_);
    check_reduce_op(name, op, t.dtype(), kBackend);
    auto dt = nccl_type(name, t.dtype());
    auto rop = nccl_op(name, op, t.dtype());
    Tensor buf = staged(t);
    return run(
        name, t, {buf},
        [&](ncclComm_t c, cudaStream_t s) {
          NCCL_CHECK(name, nccl().reduce(buf.data_ptr(), buf.data_ptr(), buf.numel(), dt, rop, root, c, s), c);
        },
        [&] {
          if (rank_ == root) unstage(t, buf);
        },
        {t}, rank_ == root && !buf.is_same(t));
  }

  WorkPtr all_gather(const std::vector<Tensor>& outs, const Tensor& in) override {
    const char* name = "all_gather";
    check_device(name, in, DeviceType::CUDA, kBackend);
    check_list(name, outs, size_, in, true);
    Tensor src = staged(in);
    Tensor flat = empty(std::array<int64_t, 1>{src.numel() * size_}, TensorOptions(src.dtype()).device(src.device()));
    return run(
        name, in, {src, flat},
        [&](ncclComm_t c, cudaStream_t s) {
          NCCL_CHECK(name, nccl().all_gather(src.data_ptr(), flat.data_ptr(), src.nbytes(), ncclUint8, c, s), c);
        },
        [&] { copy_chunks(flat, outs); }, outs, true);
  }

  WorkPtr all_gather_into_tensor(const Tensor& out, const Tensor& in) override {
    const char* name = "all_gather_into_tensor";
    check_whole_and_part(name, out, in, size_, DeviceType::CUDA, kBackend, "output");
    Tensor src = staged(in), dst = staged(out);
    return run(
        name, in, {src, dst},
        [&](ncclComm_t c, cudaStream_t s) {
          NCCL_CHECK(name, nccl().all_gather(src.data_ptr(), dst.data_ptr(), src.nbytes(), ncclUint8, c, s), c);
        },
        [&] { unstage(out, dst); }, {out}, !dst.is_same(out));
  }

  WorkPtr reduce_scatter(const Tensor& out, const std::vector<Tensor>& ins, ReduceOp op) override {
    const char* name = "reduce_scatter";
    check_device(name, out, DeviceType::CUDA, kBackend);
    check_list(name, ins, size_, out, true);
    std::vector<Tensor> flat;
    for (const auto& t : ins) flat.push_back(t.flatten());
    return scatter_reduced(name, out, cat(flat), op);
  }

  WorkPtr reduce_scatter_tensor(const Tensor& out, const Tensor& in, ReduceOp op) override {
    const char* name = "reduce_scatter_tensor";
    check_whole_and_part(name, in, out, size_, DeviceType::CUDA, kBackend, "input");
    return scatter_reduced(name, out, staged(in), op);
  }

  WorkPtr gather(const std::vector<Tensor>& outs, const Tensor& in, int root) override {
    const char* name = "gather";
    check_device(name, in, DeviceType::CUDA, kBackend);
    check_root(name, root, size_);
    if (rank_ == root) check_list(name, outs, size_, in, true);
    Tensor src = staged(in);
    Tensor flat = empty(std::array<int64_t, 1>{rank_ == root ? src.numel() * size_ : 0},
                        TensorOptions(src.dtype()).device(src.device()));
    const size_t n = src.nbytes();
    return run(
        name, in, {src, flat},
        [&](ncclComm_t c, cudaStream_t s) {
          group_calls(name, c, [&] {
            if (rank_ == root) {
              for (int r = 0; r < size_; ++r)
                NCCL_CHECK(name, nccl().recv(static_cast<char*>(flat.data_ptr()) + r * n, n, ncclUint8, r, c, s), c);
            }
            NCCL_CHECK(name, nccl().send(src.data_ptr(), n, ncclUint8, root, c, s), c);
          });
        },
        [&] {
          if (rank_ == root) copy_chunks(flat, outs);
        },
        rank_ == root ? outs : std::vector<Tensor>{}, rank_ == root);
  }

  WorkPtr scatter(const Tensor& out, const std::vector<Tensor>& ins, int root) override {
    const char* name = "scatter";
    check_device(name, out, DeviceType::CUDA, kBackend);
    check_root(name, root, size_);
    Tensor src;
    if (rank_ == root) {
      check_list(name, ins, size_, out, true);
      std::vector<Tensor> flat;
      for (const auto& t : ins) flat.push_back(t.flatten());
      src = cat(flat);
    }
    Tensor dst = staged(out);
    const size_t n = dst.nbytes();
    std::vector<Tensor> used{dst};
    if (src.defined()) used.push_back(src);
    return run(
        name, out, used,
        [&](ncclComm_t c, cudaStream_t s) {
          group_calls(name, c, [&] {
            if (rank_ == root) {
              for (int r = 0; r < size_; ++r)
                NCCL_CHECK(name, nccl().send(static_cast<char*>(src.data_ptr()) + r * n, n, ncclUint8, r, c, s), c);
            }
            NCCL_CHECK(name, nccl().recv(dst.data_ptr(), n, ncclUint8, root, c, s), c);
          });
        },
        [&] { unstage(out, dst); }, {out}, !dst.is_same(out));
  }

  WorkPtr all_to_all(const std::vector<Tensor>& outs, const std::vector<Tensor>& ins) override {
    const char* name = "all_to_all";
    Tensor src;
    Counts n = all_to_all_counts(name, outs, ins, size_, DeviceType::CUDA, kBackend, &src);
    int64_t total = 0;
    for (int64_t v : n.out) total += v;
    Tensor dst = empty(std::array<int64_t, 1>{total}, TensorOptions(src.dtype()).device(src.device()));
    return run(
        name, ins[0], {src, dst}, [&](ncclComm_t c, cudaStream_t s) { exchange(name, c, s, src, dst, n.in, n.out); },
        [&] { copy_chunks(dst, outs); }, outs, true);
  }

  WorkPtr all_to_all_single(const Tensor& out, const Tensor& in, const std::vector<int64_t>& out_splits,
                            const std::vector<int64_t>& in_splits) override {
    const char* name = "all_to_all_single";
    Counts n = all_to_all_single_counts(name, out, in, out_splits, in_splits, size_, DeviceType::CUDA, kBackend);
    Tensor src = staged(in), dst = staged(out);
    return run(
        name, in, {src, dst}, [&](ncclComm_t c, cudaStream_t s) { exchange(name, c, s, src, dst, n.in, n.out); },
        [&] { unstage(out, dst); }, {out}, !dst.is_same(out));
  }

  // A one-element all_reduce on the group's device, and the host waits for it (c10d's barrier blocks too).
  WorkPtr barrier() override {
    int dev = device_ >= 0 ? device_ : cuda::current_device();
    Tensor t = zeros(std::array<int64_t, 1>{1},
                     TensorOptions(ScalarType::Float32).device(Device(DeviceType::CUDA, dev)));
    auto w = std::static_pointer_cast<NcclWork>(all_reduce(t, ReduceOp::SUM));
    w->host_wait(timeout_);
    return w;
  }

  WorkPtr send(const Tensor& t, int dst, int tag) override {
    const char* name = "send";
    check_device(name, t, DeviceType::CUDA, kBackend);
    check_peer(name, dst, size_, false);
    EMBER_CHECK_VALUE(dst != rank_, "[send] a rank cannot send to itself (rank ", rank_, ")");
    Tensor buf = staged(t);
    return run(
        name, t, {buf},
        [&](ncclComm_t c, cudaStream_t s) {
          NCCL_CHECK(name, nccl().send(buf.data_ptr(), buf.nbytes(), ncclUint8, dst, c, s), c);
        },
        [] {}, {}, false);
  }

  WorkPtr recv(const Tensor& t, int src, int tag) override {
    const char* name = "recv";
    check_device(name, t, DeviceType::CUDA, kBackend);
    EMBER_CHECK_VALUE(src != -1, "[recv] the nccl backend needs the source rank (src=None is Gloo only)");
    check_peer(name, src, size_, false);
    EMBER_CHECK_VALUE(src != rank_, "[recv] a rank cannot receive from itself (rank ", rank_, ")");
    Tensor buf = staged(t);
    auto w = run(
        name, t, {buf},
        [&](ncclComm_t c, cudaStream_t s) {
          NCCL_CHECK(name, nccl().recv(buf.data_ptr(), buf.nbytes(), ncclUint8, src, c, s), c);
        },
        [&] { unstage(t, buf); }, {t}, !buf.is_same(t));
    w->set_source_rank(src);
    return w;
  }

 private:
  static Tensor staged(const Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }
  static void unstage(const Tensor& t, const Tensor& buf) {
    if (!buf.is_same(t)) t.detach().copy_(buf.view(t.sizes()));
  }

  // The communicator, made on first use on device (Note [NCCL streams]).
  void ensure_comm(const char* op, int device) {
    EMBER_CHECK(!comm_->aborted, "[", op,
                "] the NCCL communicator was aborted after an earlier timeout; "
                "destroy the process group and make a new one");
    if (comm_->comm) {
      EMBER_CHECK(device == device_, "[", op, "] this NCCL group's communicator is on cuda:", device_,
                  ", but the tensor is on cuda:", device, " (use one device per process and group)");
      return;
    }
    const NcclApi& api = nccl();
    ncclUniqueId id;
    const std::string key = "nccl_unique_id";
    if (rank_ == 0) {
      NCCL_CHECK(op, api.get_unique_id(&id), nullptr);
      auto p = reinterpret_cast<const uint8_t*>(&id);
      store_->set(key, Bytes(p, p + sizeof id));
    } else {
      Bytes b = store_->get(key);
      EMBER_CHECK(b.size() == sizeof id, "[", op, "] bad ncclUniqueId in the store (", b.size(), " bytes)");
      std::memcpy(&id, b.data(), sizeof id);
    }
    cuda::DeviceGuard g(device);
    ncclComm_t comm = nullptr;
    NCCL_CHECK(op, api.comm_init_rank(&comm, size_, id, rank_), nullptr);
    comm_->comm = comm;
    device_ = device;
    stream_ = cuda::new_stream(device);
  }

  // Runs launch on the communication stream (Note [NCCL streams]). copy_back: after() copies results into the
  // caller's tensors, on the current stream, which then has to wait for the op at once.
  template <class Launch, class After>
  WorkPtr run(const char* op, const Tensor& like, const std::vector<Tensor>& used, Launch&& launch, After&& after,
              std::vector<Tensor> result, bool copy_back) {
    const int device = like.device().has_index() ? like.device().index : cuda::current_device();
    std::lock_guard<std::mutex> l(comm_->mu);
    ensure_comm(op, device);
    cuda::DeviceGuard g(device);
    cuda::Stream current = cuda::current_stream(device);
    cuda::stream_wait_stream(stream_, current);
    launch(comm_->comm, raw(stream_));
    check_async(op);
    for (const auto& t : used) {
      if (!t.defined() || !t.numel()) continue;
      try {
        cuda::record_stream(t.impl()->storage()->data(), stream_);
      } catch (const Error&) {  // memory ember's allocator did not make (DLPack): its owner keeps it alive
      }
    }
    auto w = std::make_shared<NcclWork>(op, device, timeout_);
    w->end().record(stream_);
    w->set_abort([state = comm_] { state->abort(); });
    if (copy_back) {
      w->end().wait(current);
      after();
    }
    w->set_result(std::move(result));
    return w;
  }

  template <class F>
  void group_calls(const char* op, ncclComm_t c, F&& f) {
    NCCL_CHECK(op, nccl().group_start(), c);
    try {
      f();
    } catch (...) {
      nccl().group_end();
      throw;
    }
    NCCL_CHECK(op, nccl().group_end(), c);
  }

  void exchange(const char* op, ncclComm_t c, cudaStream_t s, const Tensor& src, const Tensor& dst,
                const std::vector<int64_t>& in_n, const std::vector<int64_t>& out_n) {
    const size_t es = src.element_size();
    group_calls(op, c, [&] {
      size_t in_off = 0, out_off = 0;
      for (int r = 0; r < size_; ++r) {
        NCCL_CHECK(op, nccl().send(static_cast<char*>(src.data_ptr()) + in_off, in_n[r] * es, ncclUint8, r, c, s), c);
        NCCL_CHECK(op, nccl().recv(static_cast<char*>(dst.data_ptr()) + out_off, out_n[r] * es, ncclUint8, r, c, s), c);
        in_off += in_n[r] * es;
        out_off += out_n[r] * es;
      }
    });
  }

  WorkPtr scatter_reduced(const char* name, const Tensor& out, const Tensor& flat, ReduceOp op) {
    check_reduce_op(name, op, out.dtype(), kBackend);
    auto dt = nccl_type(name, out.dtype());
    auto rop = nccl_op(name, op, out.dtype());
    Tensor dst = staged(out);
    return run(
        name, out, {flat, dst},
        [&](ncclComm_t c, cudaStream_t s) {
          NCCL_CHECK(name, nccl().reduce_scatter(flat.data_ptr(), dst.data_ptr(), dst.numel(), dt, rop, c, s), c);
        },
        [&] { unstage(out, dst); }, {out}, !dst.is_same(out));
  }

  void check_async(const char* op) {
    ncclResult_t async = ncclSuccess;
    NCCL_CHECK(op, nccl().comm_get_async_error(comm_->comm, &async), comm_->comm);
    NCCL_CHECK(op, async, comm_->comm);
  }

  // The communicator, shared with the Works (a timed-out wait aborts it, possibly after the group is gone).
  struct Comm {
    std::mutex mu;
    ncclComm_t comm = nullptr;
    bool aborted = false;
    void abort() {
      std::lock_guard<std::mutex> l(mu);
      if (comm) nccl().comm_abort(comm);
      comm = nullptr;
      aborted = true;
    }
  };

  std::shared_ptr<Store> store_;
  std::shared_ptr<Comm> comm_ = std::make_shared<Comm>();
  int device_ = -1;
  cuda::Stream stream_;
};

}  // namespace

bool nccl_is_built() { return true; }

int nccl_version() {
  int v = 0;
  NCCL_CHECK("nccl_version", nccl().get_version(&v), nullptr);
  // NCCL >= 2.9 encodes major*10000 + minor*100 + patch, as we report it.
  return v;
}

std::shared_ptr<ProcessGroup> make_process_group_nccl(std::shared_ptr<Store> store, int rank, int size,
                                                      const ProcessGroupOptions& options) {
  EMBER_CHECK_VALUE(store != nullptr, "[init_process_group] no store given");
  // Only counts devices: the CUDA context is made on the first CUDA op, on that op's device (a CPU-only job with
  // backend=None must not put a context on GPU 0 in every process).
  EMBER_CHECK(cuda::device_count() > 0,
              "[init_process_group] the nccl backend needs a CUDA device, but none is "
              "available (ember.cuda.is_available() is False)");
  return std::make_shared<ProcessGroupNCCL>(std::move(store), rank, size, options);
}

}  // namespace ember::distributed
