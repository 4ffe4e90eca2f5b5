// Work and the argument checks shared by the process-group backends.
#include "ember/distributed/process_group.h"

#include "ember/error.h"
#include "ember/ops.h"

namespace ember::distributed {

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::AVG: return "AVG";
    case ReduceOp::PRODUCT: return "PRODUCT";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::MAX: return "MAX";
    case ReduceOp::BAND: return "BAND";
    case ReduceOp::BOR: return "BOR";
    case ReduceOp::BXOR: return "BXOR";
  }
  return "?";
}

// ---- Work

bool Work::is_completed() {
  std::lock_guard<std::mutex> l(mu_);
  return done_;
}

bool Work::is_success() {
  std::lock_guard<std::mutex> l(mu_);
  return done_ && !error_;
}

std::exception_ptr Work::exception() {
  std::lock_guard<std::mutex> l(mu_);
  return error_;
}

bool Work::wait(Millis timeout) {
  std::unique_lock<std::mutex> l(mu_);
  if (timeout.count() < 0) {
    cv_.wait(l, [&] { return done_; });
  } else if (!cv_.wait_for(l, timeout, [&] { return done_; })) {
    fail<Error>("[", op_, "] Work.wait timed out after ", timeout.count(), " ms (the operation is still pending)");
  }
  if (error_) std::rethrow_exception(error_);
  return true;
}

bool Work::wait_for(Millis timeout) {
  std::unique_lock<std::mutex> l(mu_);
  return cv_.wait_for(l, timeout, [&] { return done_; });
}

std::vector<Tensor> Work::result() {
  std::lock_guard<std::mutex> l(mu_);
  return result_;
}

int Work::source_rank() {
  std::lock_guard<std::mutex> l(mu_);
  return source_rank_;
}

void Work::finish(std::exception_ptr error) {
  {
    std::lock_guard<std::mutex> l(mu_);
    done_ = true;
    error_ = error;
  }
  cv_.notify_all();
}

void Work::set_result(std::vector<Tensor> r) {
  std::lock_guard<std::mutex> l(mu_);
  result_ = std::move(r);
}

void Work::set_source_rank(int r) {
  std::lock_guard<std::mutex> l(mu_);
  source_rank_ = r;
}

ProcessGroup::ProcessGroup(int rank, int size, Millis timeout) : rank_(rank), size_(size), timeout_(timeout) {
  EMBER_CHECK_VALUE(size >= 1, "[ProcessGroup] invalid world size ", size);
  EMBER_CHECK_VALUE(rank >= 0 && rank < size, "[ProcessGroup] invalid rank ", rank, " for world size ", size);
}

// ---- checks

namespace pg_detail {

void check_root(const char* op, int root, int size) {
  EMBER_CHECK_VALUE(root >= 0 && root < size, "[", op, "] invalid root rank ", root, " (group of size ", size, ")");
}

void check_peer(const char* op, int peer, int size, bool allow_any) {
  EMBER_CHECK_VALUE((allow_any && peer == -1) || (peer >= 0 && peer < size), "[", op, "] invalid peer rank ", peer,
                    " (group of size ", size, ")");
}

void check_device(const char* op, const Tensor& t, DeviceType type, const char* backend) {
  EMBER_CHECK_VALUE(t.defined(), "[", op, "] a tensor argument is None");
  if (t.device().type == type) return;
  fail<Error>(
      "[", op, "] the ", backend, " backend takes ", type == DeviceType::CPU ? "CPU" : "CUDA",
      " tensors, got a tensor on ", t.device().is_cuda() ? "cuda" : "cpu",
      type == DeviceType::CPU ? " (use the nccl backend for CUDA tensors)" : " (use the gloo backend for CPU tensors)");
}

void check_same_dtype(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK_TYPE(a.dtype() == b.dtype(), "[", op, "] tensors must have the same dtype, got ", dtype_name(a.dtype()),
                   " and ", dtype_name(b.dtype()));
}

void check_list(const char* op, const std::vector<Tensor>& ts, int size, const Tensor& like, bool same_numel) {
  EMBER_CHECK_VALUE(static_cast<int>(ts.size()) == size, "[", op, "] expected a list of ", size,
                    " tensors (one per rank), got ", ts.size());
  for (const auto& t : ts) {
    EMBER_CHECK_VALUE(t.defined(), "[", op, "] a tensor in the list is None");
    check_same_dtype(op, t, like);
    EMBER_CHECK(t.device() == like.device(), "[", op, "] all tensors must be on one device");
    EMBER_CHECK_VALUE(!same_numel || t.numel() == like.numel(), "[", op, "] every tensor in the list must have ",
                      like.numel(), " elements (as the input), got one with ", t.numel());
  }
}

void check_reduce_op(const char* op, ReduceOp r, ScalarType t, const char* backend) {
  bool bitwise = r == ReduceOp::BAND || r == ReduceOp::BOR || r == ReduceOp::BXOR;
  EMBER_CHECK_TYPE(!bitwise || !is_floating(t), "[", op, "] ReduceOp.", reduce_op_name(r),
                   " is only defined for integer and bool tensors, got ", dtype_name(t));
  EMBER_CHECK_TYPE(r != ReduceOp::AVG || is_floating(t), "[", op, "] ReduceOp.AVG takes floating-point tensors, got ",
                   dtype_name(t), " (", backend, ")");
}

std::vector<int64_t> resolve_splits(const char* op, const std::vector<int64_t>& splits, const Tensor& t, int size,
                                    const char* which) {
  EMBER_CHECK_VALUE(t.dim() >= 1 || (splits.empty() && size == 1), "[", op, "] the ", which,
                    " tensor needs at least one dimension");
  int64_t n = t.dim() ? t.size(0) : 1;
  if (splits.empty()) {
    EMBER_CHECK_VALUE(n % size == 0, "[", op, "] the ", which, " tensor's first dimension (", n,
                      ") does not divide evenly among ", size, " ranks");
    return std::vector<int64_t>(size, n / size);
  }
  EMBER_CHECK_VALUE(static_cast<int>(splits.size()) == size, "[", op, "] ", which, "_split_sizes has ", splits.size(),
                    " entries for a group of ", size);
  int64_t total = 0;
  for (int64_t s : splits) {
    EMBER_CHECK_VALUE(s >= 0, "[", op, "] negative split size ", s);
    total += s;
  }
  EMBER_CHECK_VALUE(total == n, "[", op, "] ", which, "_split_sizes sum to ", total, " but the ", which,
                    " tensor's first dimension is ", n);
  return splits;
}

Counts all_to_all_single_counts(const char* op, const Tensor& out, const Tensor& in,
                                const std::vector<int64_t>& out_splits, const std::vector<int64_t>& in_splits, int size,
                                DeviceType type, const char* backend) {
  check_device(op, in, type, backend);
  check_device(op, out, type, backend);
  check_same_dtype(op, out, in);
  Counts c{resolve_splits(op, in_splits, in, size, "input"), resolve_splits(op, out_splits, out, size, "output")};
  const int64_t in_row = in.dim() && in.size(0) ? in.numel() / in.size(0) : 0;
  const int64_t out_row = out.dim() && out.size(0) ? out.numel() / out.size(0) : 0;
  for (auto& v : c.in) v *= in_row;
  for (auto& v : c.out) v *= out_row;
  return c;
}

Counts all_to_all_counts(const char* op, const std::vector<Tensor>& outs, const std::vector<Tensor>& ins, int size,
                         DeviceType type, const char* backend, Tensor* flat_in) {
  EMBER_CHECK_VALUE(static_cast<int>(ins.size()) == size && static_cast<int>(outs.size()) == size, "[", op,
                    "] expected lists of ", size, " tensors, got ", outs.size(), " outputs and ", ins.size(),
                    " inputs");
  check_device(op, ins[0], type, backend);
  check_list(op, ins, size, ins[0], false);
  check_list(op, outs, size, ins[0], false);
  Counts c;
  std::vector<Tensor> flat;
  for (int r = 0; r < size; ++r) {
    c.in.push_back(ins[r].numel());
    c.out.push_back(outs[r].numel());
    flat.push_back(ins[r].flatten());
  }
  *flat_in = cat(flat);
  return c;
}

void check_whole_and_part(const char* op, const Tensor& big, const Tensor& small, int size, DeviceType type,
                          const char* backend, const char* big_name) {
  check_device(op, big, type, backend);
  check_device(op, small, type, backend);
  check_same_dtype(op, big, small);
  EMBER_CHECK_VALUE(big.numel() == small.numel() * size, "[", op, "] the ", big_name, " must have world_size (", size,
                    ") times the ", std::string_view(big_name) == "output" ? "input" : "output", "'s ", small.numel(),
                    " elements, got ", big.numel());
}

void copy_chunks(const Tensor& flat, const std::vector<Tensor>& outs) {
  int64_t off = 0;
  for (const auto& o : outs) {
    o.detach().copy_(flat.narrow(0, off, o.numel()).view(o.sizes()));
    off += o.numel();
  }
}

}  // namespace pg_detail

}  // namespace ember::distributed
