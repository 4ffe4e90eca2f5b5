// The C++ frontend's datasets (libtorch's torch::data in spirit): an Example is (data, target); a Dataset gives one
// or a batch of them. Batches come from get_batch, which a dataset held in whole tensors answers with one
// index_select per tensor instead of stacking many small examples.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember::data {

struct Example {
  Tensor data;
  Tensor target;
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  virtual Example get(int64_t index) const = 0;
  // The examples at `indices` stacked along a new first dimension (the default stacks get(i)).
  virtual Example get_batch(const std::vector<int64_t>& indices) const;
};

// The rows of two tensors with the same first dimension.
class TensorDataset : public Dataset {
 public:
  TensorDataset(Tensor data, Tensor targets);
  int64_t size() const override;
  Example get(int64_t index) const override;
  Example get_batch(const std::vector<int64_t>& indices) const override;
  const Tensor& data() const { return data_; }
  const Tensor& targets() const { return targets_; }

 protected:
  TensorDataset() = default;
  void set(Tensor data, Tensor targets);

 private:
  Tensor data_, targets_;
};

// MNIST or Fashion-MNIST (the same IDX files, gzipped or not) from `root`: images float32 [1, 28, 28], scaled to
// [0, 1] then normalized with (mean, std); targets int64.
class MNIST : public TensorDataset {
 public:
  enum class Split { Train, Test };
  explicit MNIST(const std::string& root, Split split = Split::Train, double mean = 0.0, double std = 1.0);
};

}  // namespace ember::data
