#include "ember/data/dataloader.h"

#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "ember/generator.h"
#include "ember/ops.h"

namespace ember::data {

// One epoch's plan (the indices of every batch) and, with workers, the threads building batches ahead. Batch k is
// built by whichever worker takes it, at most `depth` batches ahead of the loop; the loop takes them in order. A
// worker's exception is stored and rethrown when the loop reaches that batch. Destroying the epoch (the loop ended,
// or broke early) stops and joins the workers.
struct DataLoader::Epoch {
  const Dataset& dataset;
  std::vector<std::vector<int64_t>> plan;
  int64_t depth = 0;
  std::mutex mu;
  std::condition_variable cv;
  std::map<int64_t, std::pair<Example, std::exception_ptr>> ready;
  int64_t next_to_make = 0, next_to_take = 0;
  bool stop = false;
  std::vector<std::thread> workers;

  Epoch(const Dataset& d, std::vector<std::vector<int64_t>> p, int64_t nworkers, int64_t prefetch)
      : dataset(d), plan(std::move(p)), depth(std::max<int64_t>(1, nworkers * prefetch)) {
    for (int64_t w = 0; w < nworkers; ++w) workers.emplace_back([this] { work(); });
  }
  ~Epoch() {
    {
      std::lock_guard<std::mutex> l(mu);
      stop = true;
    }
    cv.notify_all();
    for (std::thread& t : workers) t.join();
  }

  void work() {
    for (;;) {
      int64_t k;
      {
        std::unique_lock<std::mutex> l(mu);
        cv.wait(l, [&] { return stop || next_to_make >= int64_t(plan.size()) || next_to_make < next_to_take + depth; });
        if (stop || next_to_make >= int64_t(plan.size())) return;
        k = next_to_make++;
      }
      std::pair<Example, std::exception_ptr> result;
      try {
        result.first = dataset.get_batch(plan[k]);
      } catch (...) {
        result.second = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> l(mu);
        ready.emplace(k, std::move(result));
      }
      cv.notify_all();
    }
  }

  Example take(int64_t k) {
    if (workers.empty()) return dataset.get_batch(plan[k]);
    std::unique_lock<std::mutex> l(mu);
    next_to_take = k;
    cv.notify_all();
    cv.wait(l, [&] { return ready.count(k) > 0; });
    auto node = ready.extract(k);
    next_to_take = k + 1;
    l.unlock();
    cv.notify_all();
    if (node.mapped().second) std::rethrow_exception(node.mapped().second);
    return std::move(node.mapped().first);
  }
};

namespace {

// DistributedSampler's num_samples.
int64_t share_size(int64_t n, int64_t replicas, bool drop_last) {
  if (drop_last && n % replicas != 0) {
    const int64_t x = n - replicas;  // ceil(x / replicas), x >= -replicas
    return x >= 0 ? (x + replicas - 1) / replicas : -(-x / replicas);
  }
  return (n + replicas - 1) / replicas;
}

}  // namespace

Tensor epoch_indices(int64_t n, std::optional<uint64_t> shuffle_seed, int64_t num_replicas, int64_t rank,
                     bool drop_last) {
  EMBER_CHECK_VALUE(n >= 0, "epoch_indices: the dataset size must be non-negative, got ", n);
  EMBER_CHECK_VALUE(num_replicas >= 1, "epoch_indices: num_replicas must be positive, got ", num_replicas);
  EMBER_CHECK_VALUE(rank >= 0 && rank < num_replicas, "Invalid rank ", rank, ", rank should be in the interval [0, ",
                    num_replicas - 1, "]");
  Tensor order;
  if (shuffle_seed) {
    Generator gen(kCPU);
    gen.manual_seed(*shuffle_seed);
    order = contiguous(randperm(n, &gen));
  }
  const int64_t count = n == 0 ? 0 : share_size(n, num_replicas, drop_last);
  Tensor out = empty(DimVector{count}, ScalarType::Int64);
  const int64_t* p = order.defined() ? order.data<int64_t>() : nullptr;
  int64_t* o = out.data<int64_t>();
  // The padded (or cut) order is order[i % n] for i < count * num_replicas; this replica takes i = rank + j * R.
  for (int64_t j = 0; j < count; ++j) {
    const int64_t i = (rank + j * num_replicas) % n;
    o[j] = p ? p[i] : i;
  }
  return out;
}

DataLoader::DataLoader(const Dataset& dataset, DataLoaderOptions options) : dataset_(dataset), options_(options) {
  EMBER_CHECK_VALUE(options.batch_size() > 0,
                    "DataLoader: batch_size should be a positive integer value, but got "
                    "batch_size=",
                    options.batch_size());
  EMBER_CHECK_VALUE(options.workers() >= 0, "DataLoader: workers option should be non-negative, got ",
                    options.workers());
  EMBER_CHECK_VALUE(options.prefetch_factor() > 0, "DataLoader: prefetch_factor should be positive, got ",
                    options.prefetch_factor());
  EMBER_CHECK_VALUE(options.num_replicas() >= 1, "DataLoader: num_replicas should be positive, got ",
                    options.num_replicas());
  EMBER_CHECK_VALUE(options.rank() >= 0 && options.rank() < options.num_replicas(), "DataLoader: Invalid rank ",
                    options.rank(), ", rank should be in the interval [0, ", options.num_replicas() - 1, "]");
  end_index_ = size();
}

int64_t DataLoader::size() const {
  const int64_t n = share_size(dataset_.size(), options_.num_replicas(), false), b = options_.batch_size();
  return options_.drop_last() ? n / b : (n + b - 1) / b;
}

DataLoader::Iterator DataLoader::begin() {
  std::optional<uint64_t> shuffle_seed;
  if (options_.shuffle()) shuffle_seed = options_.seed() + uint64_t(epoch_);
  const Tensor indices = epoch_indices(dataset_.size(), shuffle_seed, options_.num_replicas(), options_.rank(), false);
  const int64_t n = indices.numel();
  const int64_t* idx = indices.data<int64_t>();
  const std::vector<int64_t> order(idx, idx + n);
  std::vector<std::vector<int64_t>> plan;
  for (int64_t b = 0; b < size(); ++b) {
    const int64_t lo = b * options_.batch_size(), hi = std::min(n, lo + options_.batch_size());
    plan.emplace_back(order.begin() + lo, order.begin() + hi);
  }
  ++epoch_;
  auto epoch = std::make_shared<Epoch>(dataset_, std::move(plan), options_.workers(), options_.prefetch_factor());
  return Iterator(std::move(epoch), 0);
}

DataLoader::Iterator DataLoader::end() const {
  Iterator it;
  it.index_ = end_index_;
  return it;
}

DataLoader::Iterator::Iterator(std::shared_ptr<Epoch> epoch, int64_t index) : epoch_(std::move(epoch)), index_(index) {
  load();
}

void DataLoader::Iterator::load() {
  if (index_ < int64_t(epoch_->plan.size())) {
    current_ = epoch_->take(index_);
  } else {
    current_ = {};
    epoch_.reset();  // the epoch is over: stop the workers now
  }
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  ++index_;
  load();
  return *this;
}

}  // namespace ember::data
