// The C++ frontend's DataLoader: batches of a Dataset (ember/data/dataset.h), in order or shuffled, with worker
// threads preparing the next batches while the model trains on the current one.
//
//   data::MNIST train("/usr/share/datasets/fashion-mnist");
//   data::DataLoader loader(train, data::DataLoaderOptions().batch_size(128).shuffle(true).workers(1));
//   for (int epoch = 0; epoch < 5; ++epoch)
//     for (const data::Example& batch : loader) { ... batch.data, batch.target ... }
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ember/data/dataset.h"
#include "ember/arg.h"

namespace ember::data {

struct DataLoaderOptions {
  EMBER_OPTIM_ARG(int64_t, batch_size) = 1;
  EMBER_OPTIM_ARG(bool, shuffle) = false;
  EMBER_OPTIM_ARG(bool, drop_last) = false;
  // Threads that build batches ahead (0: each batch is built when the loop asks for it).
  EMBER_OPTIM_ARG(int64_t, workers) = 0;
  // Batches each worker may have ready ahead of the loop.
  EMBER_OPTIM_ARG(int64_t, prefetch_factor) = 2;
  // The shuffle order of epoch e is a permutation drawn from a generator seeded with seed + e, so a run (and a
  // resumed run) sees the same batches.
  EMBER_OPTIM_ARG(uint64_t, seed) = 0;
};

class DataLoader {
 public:
  DataLoader(const Dataset& dataset, DataLoaderOptions options = {});
  // Batches per epoch.
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
