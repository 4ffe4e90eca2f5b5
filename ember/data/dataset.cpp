#include "ember/data/dataset.h"

#include <filesystem>

#include "ember/ops.h"
#include "ember/vision/vision.h"

namespace ember::data {

Example Dataset::get_batch(const std::vector<int64_t>& indices) const {
  std::vector<Tensor> xs, ys;
  for (int64_t i : indices) {
    Example e = get(i);
    xs.push_back(e.data);
    ys.push_back(e.target);
  }
  return {stack(xs, 0), stack(ys, 0)};
}

TensorDataset::TensorDataset(Tensor data, Tensor targets) { set(std::move(data), std::move(targets)); }

void TensorDataset::set(Tensor data, Tensor targets) {
  EMBER_CHECK_VALUE(data.dim() > 0 && targets.dim() > 0 && data.size(0) == targets.size(0),
                    "TensorDataset: data and targets must have the same first dimension, got ", shape_str(data.sizes()),
                    " and ", shape_str(targets.sizes()));
  data_ = std::move(data);
  targets_ = std::move(targets);
}

int64_t TensorDataset::size() const { return data_.size(0); }

Example TensorDataset::get(int64_t index) const {
  EMBER_CHECK_INDEX(index >= 0 && index < size(), "TensorDataset: index ", index, " is out of range for ", size(),
                    " examples");
  return {data_.select(0, index), targets_.select(0, index)};
}

Example TensorDataset::get_batch(const std::vector<int64_t>& indices) const {
  for (int64_t i : indices)
    EMBER_CHECK_INDEX(i >= 0 && i < size(), "TensorDataset: index ", i, " is out of range for ", size(), " examples");
  Tensor idx = from_blob_copy(indices.data(), ScalarType::Int64, DimVector{int64_t(indices.size())},
                              TensorOptions(ScalarType::Int64));
  return {index_select(data_, 0, idx), index_select(targets_, 0, idx)};
}

namespace {

// root/<prefix>-images-idx3-ubyte(.gz): the first that exists, else an error naming what was looked for.
std::string find_file(const std::string& root, const std::string& stem) {
  for (const char* ext : {".gz", ""}) {
    const std::filesystem::path p = std::filesystem::path(root) / (stem + ext);
    if (std::filesystem::exists(p)) return p.string();
  }
  throw Error("MNIST: " + stem + "(.gz) not found in " + root +
              " (Fashion-MNIST: Debian's dataset-fashion-mnist installs it in /usr/share/datasets/fashion-mnist)");
}

}  // namespace

MNIST::MNIST(const std::string& root, Split split, double mean, double std) {
  const std::string prefix = split == Split::Train ? "train" : "t10k";
  Tensor images = vision::read_idx(find_file(root, prefix + "-images-idx3-ubyte"));
  Tensor labels = vision::read_idx(find_file(root, prefix + "-labels-idx1-ubyte"));
  EMBER_CHECK(images.dim() == 3 && images.dtype() == ScalarType::UInt8, "MNIST: expected uint8 images [N, H, W], got ",
              dtype_name(images.dtype()), " ", shape_str(images.sizes()));
  EMBER_CHECK(labels.dim() == 1 && labels.size(0) == images.size(0), "MNIST: ", images.size(0), " images but labels ",
              shape_str(labels.sizes()));
  Tensor x = images.to(ScalarType::Float32).unsqueeze(1);
  x = (x * (1.0 / (255.0 * std))) - mean / std;
  set(x, labels.to(ScalarType::Int64));
}

}  // namespace ember::data
