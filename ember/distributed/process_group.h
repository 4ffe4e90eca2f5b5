// Process groups (c10d's ProcessGroup): the collectives of torch.distributed over a fixed set of processes.
// ProcessGroupGloo (CPU tensors, Gloo's TCP transport) runs every op on one worker thread per group, in the order
// the ops were issued; ProcessGroupNCCL (CUDA tensors) enqueues them on a communication stream
// (ember/backend/cuda/process_group_nccl.cpp; a build without CUDA raises "built without CUDA").
// Every op returns a Work; synchronous callers wait on it at once. Ranks here are ranks within the group.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ember/distributed/store.h"
#include "ember/tensor.h"

namespace ember::distributed {

// PyTorch's numbering (torch.distributed.ReduceOp).
enum class ReduceOp : int { SUM = 0, AVG = 1, PRODUCT = 2, MIN = 3, MAX = 4, BAND = 5, BOR = 6, BXOR = 7 };
const char* reduce_op_name(ReduceOp op);

// The handle of one queued op (c10d's Work). Thread-safe.
class Work {
 public:
  explicit Work(std::string op) : op_(std::move(op)) {}
  virtual ~Work() = default;
  Work(const Work&) = delete;
  Work& operator=(const Work&) = delete;

  const std::string& op() const { return op_; }
  virtual bool is_completed();
  bool is_success();
  std::exception_ptr exception();
  // Waits until the op is done (timeout < 0: without limit) and raises its error, if it failed. A wait that runs
  // out raises a RuntimeError naming the op; the op itself goes on. Returns true.
  virtual bool wait(Millis timeout);
  // Waits up to timeout for the op to finish, without raising; true when it has. Works finished by wait itself
  // (send/recv, NCCL) are never done here before their wait: true means "call wait now".
  virtual bool wait_for(Millis timeout);
  // The tensors the op wrote (its outputs), and for recv from any source the rank that sent.
  std::vector<Tensor> result();
  int source_rank();

  // For the backends.
  void finish(std::exception_ptr error = nullptr);
  void set_result(std::vector<Tensor> r);
  void set_source_rank(int r);

 protected:
  std::string op_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::exception_ptr error_;
  std::vector<Tensor> result_;
  int source_rank_ = -1;
};

struct ProcessGroupOptions {
  Millis timeout = Millis(1800000);  // PyTorch's default_pg_timeout: 30 minutes
  std::string hostname;              // Gloo: the address to listen on (empty: chosen from the master's address)
  std::string iface;                 // Gloo: the network interface (GLOO_SOCKET_IFNAME) instead of hostname
  bool check_signatures = true;      // Gloo: compare op, dtype and size across ranks before each collective
};

class ProcessGroup {
 public:
  ProcessGroup(int rank, int size, Millis timeout);
  virtual ~ProcessGroup() = default;
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  Millis timeout() const { return timeout_; }
  virtual std::string backend_name() const = 0;

  using WorkPtr = std::shared_ptr<Work>;
  virtual WorkPtr all_reduce(const Tensor& t, ReduceOp op) = 0;
  virtual WorkPtr broadcast(const Tensor& t, int root) = 0;
  virtual WorkPtr reduce(const Tensor& t, int root, ReduceOp op) = 0;
  virtual WorkPtr all_gather(const std::vector<Tensor>& outs, const Tensor& in) = 0;
  virtual WorkPtr all_gather_into_tensor(const Tensor& out, const Tensor& in) = 0;
  virtual WorkPtr reduce_scatter(const Tensor& out, const std::vector<Tensor>& ins, ReduceOp op) = 0;
  virtual WorkPtr reduce_scatter_tensor(const Tensor& out, const Tensor& in, ReduceOp op) = 0;
  // outs: on the root, one tensor per rank; elsewhere ignored (may be empty).
  virtual WorkPtr gather(const std::vector<Tensor>& outs, const Tensor& in, int root) = 0;
  // ins: on the root, one tensor per rank; elsewhere ignored.
  virtual WorkPtr scatter(const Tensor& out, const std::vector<Tensor>& ins, int root) = 0;
  virtual WorkPtr all_to_all(const std::vector<Tensor>& outs, const std::vector<Tensor>& ins) = 0;
  // Splits along dim 0 (empty: equal parts).
  virtual WorkPtr all_to_all_single(const Tensor& out, const Tensor& in, const std::vector<int64_t>& out_splits,
                                    const std::vector<int64_t>& in_splits) = 0;
  virtual WorkPtr barrier() = 0;
  virtual WorkPtr send(const Tensor& t, int dst, int tag) = 0;
  virtual WorkPtr recv(const Tensor& t, int src, int tag) = 0;  // src -1: from any rank (Gloo only)

 protected:
  int rank_, size_;
  Millis timeout_;
};

// Makes a Gloo group: rendezvous through store (keys under it, so one store can serve many groups).
std::shared_ptr<ProcessGroup> make_process_group_gloo(std::shared_ptr<Store> store, int rank, int size,
                                                      const ProcessGroupOptions& options);
// Makes an NCCL group (ember/backend/cuda/process_group_nccl.cpp); raises in a build without CUDA.
std::shared_ptr<ProcessGroup> make_process_group_nccl(std::shared_ptr<Store> store, int rank, int size,
                                                      const ProcessGroupOptions& options);
bool nccl_is_built();
// The address this host uses to reach peer (Gloo listens there when no interface is named); 127.0.0.1 for local.
std::string local_address_for(const std::string& peer);
// NCCL's version as major*10000 + minor*100 + patch, loading the library (raises where it cannot be loaded).
int nccl_version();

// The argument checks both backends share (raise ValueError/TypeError/RuntimeError naming the op).
namespace pg_detail {
void check_root(const char* op, int root, int size);
void check_peer(const char* op, int peer, int size, bool allow_any);
void check_device(const char* op, const Tensor& t, DeviceType type, const char* backend);
void check_same_dtype(const char* op, const Tensor& a, const Tensor& b);
void check_list(const char* op, const std::vector<Tensor>& ts, int size, const Tensor& like, bool same_numel);
void check_reduce_op(const char* op, ReduceOp r, ScalarType t, const char* backend);
std::vector<int64_t> resolve_splits(const char* op, const std::vector<int64_t>& splits, const Tensor& t, int size,
                                    const char* which);
// all_to_all_single's checks; the element counts sent to (in) and received from (out) each rank.
struct Counts {
  std::vector<int64_t> in, out;
};
Counts all_to_all_single_counts(const char* op, const Tensor& out, const Tensor& in,
                                const std::vector<int64_t>& out_splits, const std::vector<int64_t>& in_splits, int size,
                                DeviceType type, const char* backend);
// all_to_all's checks; the element counts, and the inputs flattened into one tensor.
Counts all_to_all_counts(const char* op, const std::vector<Tensor>& outs, const std::vector<Tensor>& ins, int size,
                         DeviceType type, const char* backend, Tensor* flat_in);
// The checks of the single-tensor forms: big (all_gather_into_tensor's output, reduce_scatter_tensor's input) holds
// size times small's elements; both on the backend's device with one dtype. big_name: "output" or "input".
void check_whole_and_part(const char* op, const Tensor& big, const Tensor& small, int size, DeviceType type,
                          const char* backend, const char* big_name);
// Copies consecutive pieces of the 1-d flat into outs (each as many elements as it has).
void copy_chunks(const Tensor& flat, const std::vector<Tensor>& outs);
}  // namespace pg_detail

}  // namespace ember::distributed
