// The C++ frontend's datasets and DataLoader (ember/data/dataset.h, dataloader.h): batch contents and order,
// shuffling (a permutation per epoch, reproducible from the seed), drop_last, a replica's share (DistributedSampler's
// rule, epoch_indices), worker threads giving the same batches as none, errors from a dataset reaching the loop, and
// MNIST read from small IDX files written here.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <vector>

#include "ember/data/dataloader.h"
#include "ember/generator.h"
#include "ember/ops.h"

using namespace ember;

namespace {

std::vector<int64_t> ints(const Tensor& t) {
  Tensor c = t.to(ScalarType::Int64).contiguous();
  const int64_t* p = static_cast<const int64_t*>(c.data_ptr());
  return {p, p + c.numel()};
}

data::TensorDataset squares(int64_t n) {
  Tensor i = arange(n);
  return data::TensorDataset(i.view(DimVector{n, 1}) * 10, i * i);
}

std::vector<std::vector<int64_t>> epoch_targets(data::DataLoader& loader) {
  std::vector<std::vector<int64_t>> out;
  for (const data::Example& b : loader) out.push_back(ints(b.target));
  return out;
}

// A dataset whose example 7 cannot be read.
struct Faulty : data::Dataset {
  int64_t size() const override { return 20; }
  data::Example get(int64_t i) const override {
    if (i == 7) throw ValueError("example 7 is corrupt");
    return {full(DimVector{2}, Scalar(double(i))), full(DimVector{}, Scalar(i))};
  }
};

}  // namespace

TEST(DataLoader, BatchesInOrderWithTheLastOnePartial) {
  auto ds = squares(10);
  data::DataLoader loader(ds, data::DataLoaderOptions().batch_size(4));
  EXPECT_EQ(loader.size(), 3);
  std::vector<std::vector<int64_t>> want = {{0, 1, 4, 9}, {16, 25, 36, 49}, {64, 81}};
  EXPECT_EQ(epoch_targets(loader), want);
  data::Example first = *loader.begin();
  EXPECT_EQ(first.data.sizes()[0], 4);
  EXPECT_EQ(ints(first.data), (std::vector<int64_t>{0, 10, 20, 30}));
  data::DataLoader dropping(ds, data::DataLoaderOptions().batch_size(4).drop_last(true));
  EXPECT_EQ(dropping.size(), 2);
  EXPECT_EQ(epoch_targets(dropping).size(), 2u);
}

TEST(DataLoader, ShuffleIsAPermutationPerEpochReproducibleFromTheSeed) {
  auto ds = squares(50);
  auto opts = data::DataLoaderOptions().batch_size(8).shuffle(true).seed(3);
  data::DataLoader a(ds, opts), b(ds, opts);
  auto e0 = epoch_targets(a), e1 = epoch_targets(a);
  EXPECT_EQ(e0, epoch_targets(b));
  EXPECT_EQ(e1, epoch_targets(b));
  EXPECT_NE(e0, e1);
  std::multiset<int64_t> seen;
  for (auto& batch : e0) seen.insert(batch.begin(), batch.end());
  std::multiset<int64_t> all;
  for (int64_t i = 0; i < 50; ++i) all.insert(i * i);
  EXPECT_EQ(seen, all);
  data::DataLoader resumed(ds, opts);
  resumed.set_epoch(1);
  EXPECT_EQ(epoch_targets(resumed), e1);
}

// epoch_indices is torch.utils.data.DistributedSampler's rule (the Python DistributedSampler calls it): padding with
// the order's own first indices, or cutting with drop_last, then a stride of num_replicas from rank.
TEST(DataLoader, EpochIndicesAreDistributedSamplers) {
  using V = std::vector<int64_t>;
  EXPECT_EQ(ints(data::epoch_indices(10, std::nullopt, 3, 0)), (V{0, 3, 6, 9}));
  EXPECT_EQ(ints(data::epoch_indices(10, std::nullopt, 3, 1)), (V{1, 4, 7, 0}));
  EXPECT_EQ(ints(data::epoch_indices(10, std::nullopt, 3, 2)), (V{2, 5, 8, 1}));
  EXPECT_EQ(ints(data::epoch_indices(10, std::nullopt, 3, 2, true)), (V{2, 5, 8}));
  for (int64_t r = 0; r < 5; ++r)  // more padding than data: the order repeats
    EXPECT_EQ(ints(data::epoch_indices(2, std::nullopt, 5, r)), (V{r % 2}));
  EXPECT_EQ(ints(data::epoch_indices(2, std::nullopt, 5, 1, true)), V{});  // ceil((2 - 5) / 5) = 0
  EXPECT_EQ(ints(data::epoch_indices(0, std::nullopt, 2, 1)), V{});
  // Shuffled: the permutation randperm draws with the seed, then the same padding and stride.
  Generator gen(kCPU);
  gen.manual_seed(7);
  const V perm = ints(randperm(9, &gen));
  EXPECT_EQ(ints(data::epoch_indices(9, 7)), perm);
  EXPECT_EQ(ints(data::epoch_indices(9, 7, 2, 1)), (V{perm[1], perm[3], perm[5], perm[7], perm[0]}));
  EXPECT_THROW(data::epoch_indices(9, 7, 2, 2), ValueError);
  EXPECT_THROW(data::epoch_indices(9, 7, 0, 0), ValueError);
}

TEST(DataLoader, ReplicasReadTheirShareInTheSamplersOrder) {
  auto ds = squares(11);
  auto opts = data::DataLoaderOptions().batch_size(4).shuffle(true).seed(5).num_replicas(3);
  std::multiset<int64_t> seen;
  for (int64_t r = 0; r < 3; ++r) {
    data::DataLoader loader(ds, data::DataLoaderOptions(opts).rank(r));
    loader.set_epoch(2);
    EXPECT_EQ(loader.size(), 1);  // ceil(11 / 3) = 4 indices: one batch
    auto batches = epoch_targets(loader);
    ASSERT_EQ(batches.size(), 1u);
    std::vector<int64_t> want;
    for (int64_t i : ints(data::epoch_indices(11, 5 + 2, 3, r))) want.push_back(i * i);
    EXPECT_EQ(batches[0], want);
    seen.insert(batches[0].begin(), batches[0].end());
  }
  EXPECT_EQ(seen.size(), 12u);  // 11 examples, one read twice (the padding)
  EXPECT_THROW(data::DataLoader(ds, data::DataLoaderOptions().num_replicas(2).rank(2)), ValueError);
}

TEST(DataLoader, WorkersGiveTheSameBatchesAndStopWhenTheLoopBreaks) {
  auto ds = squares(101);
  auto opts = data::DataLoaderOptions().batch_size(7).shuffle(true);
  data::DataLoader plain(ds, opts), threaded(ds, data::DataLoaderOptions(opts).workers(3).prefetch_factor(1));
  EXPECT_EQ(epoch_targets(plain), epoch_targets(threaded));
  for (const data::Example& b : threaded) {  // leaving early joins the workers (no hang, no crash)
    EXPECT_EQ(b.target.numel(), 7);
    break;
  }
  EXPECT_EQ(threaded.epoch(), 2);
  plain.set_epoch(5);
  threaded.set_epoch(5);
  EXPECT_EQ(epoch_targets(plain), epoch_targets(threaded));
}

TEST(DataLoader, ADatasetErrorReachesTheLoop) {
  Faulty ds;
  for (int64_t workers : {0, 2}) {
    data::DataLoader loader(ds, data::DataLoaderOptions().batch_size(5).workers(workers));
    int batches = 0;
    try {
      for (const data::Example& b : loader) {
        EXPECT_EQ(ints(b.target)[0], 5 * batches);
        ++batches;
      }
      FAIL() << "expected the dataset's error";
    } catch (const ValueError& e) {
      EXPECT_STREQ(e.what(), "example 7 is corrupt");
    }
    EXPECT_EQ(batches, 1) << workers;
  }
  EXPECT_THROW(data::DataLoader(ds, data::DataLoaderOptions().batch_size(0)), ValueError);
  EXPECT_THROW(data::TensorDataset(zeros(DimVector{3, 2}), zeros(DimVector{4})), ValueError);
}

TEST(DataLoader, MNISTReadsIdxFiles) {
  const auto dir = std::filesystem::temp_directory_path() / ("ember_mnist_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, std::vector<uint8_t> header, const std::vector<uint8_t>& body) {
    std::ofstream f(dir / name, std::ios::binary);
    header.insert(header.end(), body.begin(), body.end());
    f.write(reinterpret_cast<const char*>(header.data()), std::streamsize(header.size()));
  };
  std::vector<uint8_t> pixels(3 * 28 * 28);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = uint8_t(i % 256);
  write("t10k-images-idx3-ubyte", {0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 28, 0, 0, 0, 28}, pixels);
  write("t10k-labels-idx1-ubyte", {0, 0, 8, 1, 0, 0, 0, 3}, {7, 2, 9});
  data::MNIST test(dir.string(), data::MNIST::Split::Test, 0.5, 0.25);
  EXPECT_EQ(test.size(), 3);
  EXPECT_EQ(ints(test.targets()), (std::vector<int64_t>{7, 2, 9}));
  data::Example e = test.get(1);
  EXPECT_EQ(e.data.sizes()[0], 1);
  const double px = pixels[28 * 28 + 5] / 255.0;
  EXPECT_NEAR(e.data.view(DimVector{-1}).select(0, 5).item<double>(), (px - 0.5) / 0.25, 1e-5);
  EXPECT_THROW(data::MNIST(dir.string(), data::MNIST::Split::Train), Error);  // no train files here
  std::filesystem::remove_all(dir);
}
