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

DataLoader::DataLoader(const Dataset& dataset, DataLoaderOptions options) : dataset_(dataset), options_(options) {
  EMBER_CHECK_VALUE(options.batch_size() > 0, "DataLoader: batch_size should be a positive integer value, but got "
                    "batch_size=", options.batch_size());
  EMBER_CHECK_VALUE(options.workers() >= 0, "DataLoader: workers option should be non-negative, got ",
                    options.workers());
  EMBER_CHECK_VALUE(options.prefetch_factor() > 0, "DataLoader: prefetch_factor should be positive, got ",
                    options.prefetch_factor());
  end_index_ = size();
}

int64_t DataLoader::size() const {
  const int64_t n = dataset_.size(), b = options_.batch_size();
  return options_.drop_last() ? n / b : (n + b - 1) / b;
}

DataLoader::Iterator DataLoader::begin() {
  const int64_t n = dataset_.size();
  std::vector<int64_t> order(n);
  if (options_.shuffle()) {
    Generator gen(kCPU);
    gen.manual_seed(options_.seed() + uint64_t(epoch_));
    Tensor perm = randperm(n, &gen);
    const int64_t* p = static_cast<const int64_t*>(perm.data_ptr());
    order.assign(p, p + n);
  } else {
    for (int64_t i = 0; i < n; ++i) order[i] = i;
  }
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
