// The C++ frontend's DataLoader: batches of a Dataset (ember/data/dataset.h), in order or shuffled, optionally one
// replica's share of them, with worker threads preparing the next batches while the model trains on the current one.
// Its order is epoch_indices, the function behind the Python DistributedSampler too.
//
//   data::MNIST train("/usr/share/datasets/fashion-mnist");
//   data::DataLoader loader(train, data::DataLoaderOptions().batch_size(128).shuffle(true).workers(1));
//   for (int epoch = 0; epoch < 5; ++epoch)
//     for (const data::Example& batch : loader) { ... batch.data, batch.target ... }
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ember/arg.h"
#include "ember/data/dataset.h"

namespace ember::data {

// The indices one replica reads in an epoch, torch.utils.data.DistributedSampler's rule: 0 .. n - 1, or (with
// shuffle_seed) the permutation randperm draws from a CPU generator seeded with it; without drop_last padded with
// its own first indices (repeated as needed) to a multiple of num_replicas, with drop_last cut down to one; then
// every num_replicas-th index from rank. int64 [num_samples]: ceil(n / num_replicas), or with drop_last (and n not
// a multiple) ceil((n - num_replicas) / num_replicas). The Python DistributedSampler calls it with seed + epoch.
Tensor epoch_indices(int64_t n, std::optional<uint64_t> shuffle_seed, int64_t num_replicas = 1, int64_t rank = 0,
                     bool drop_last = false);

struct DataLoaderOptions {
  EMBER_ARG(int64_t, batch_size) = 1;
  EMBER_ARG(bool, shuffle) = false;
  EMBER_ARG(bool, drop_last) = false;
  // Threads that build batches ahead (0: each batch is built when the loop asks for it).
  EMBER_ARG(int64_t, workers) = 0;
  // Batches each worker may have ready ahead of the loop.
  EMBER_ARG(int64_t, prefetch_factor) = 2;
  // The shuffle order of epoch e is a permutation drawn from a generator seeded with seed + e, so a run (and a
  // resumed run) sees the same batches.
  EMBER_ARG(uint64_t, seed) = 0;
  // Distributed training: this process reads the share `rank` of `num_replicas` (DistributedSampler's, padded to
  // equal shares), the same indices as a Python DistributedSampler with this seed and epoch.
  EMBER_ARG(int64_t, num_replicas) = 1;
  EMBER_ARG(int64_t, rank) = 0;
};

class DataLoader {
 public:
  DataLoader(const Dataset& dataset, DataLoaderOptions options = {});
  // Batches per epoch (of this replica's share).
  int64_t size() const;
  // The epoch that the next begin() starts (begin() advances it); set it to resume a run.
  int64_t epoch() const { return epoch_; }
  void set_epoch(int64_t e) { epoch_ = e; }

  struct Epoch;
  class Iterator {
   public:
    using value_type = Example;
    using difference_type = std::ptrdiff_t;
    Iterator() = default;
    const Example& operator*() const { return current_; }
    const Example* operator->() const { return &current_; }
    Iterator& operator++();
    bool operator==(const Iterator& o) const { return index_ == o.index_; }
    bool operator!=(const Iterator& o) const { return index_ != o.index_; }

   private:
    friend class DataLoader;
    Iterator(std::shared_ptr<Epoch> epoch, int64_t index);
    void load();
    std::shared_ptr<Epoch> epoch_;
    int64_t index_ = -1;
    Example current_;
  };
  // Starts an epoch: a new order, and the workers (if any) start building its batches.
  Iterator begin();
  Iterator end() const;

 private:
  const Dataset& dataset_;
  DataLoaderOptions options_;
  int64_t epoch_ = 0;
  int64_t end_index_ = 0;
};

}  // namespace ember::data
