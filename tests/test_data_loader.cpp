// The C++ frontend's datasets and DataLoader (ember/data/dataset.h, dataloader.h): batch contents and order,
// shuffling (a permutation per epoch, reproducible from the seed), drop_last, worker threads giving the same batches
// as none, errors from a dataset reaching the loop, and MNIST read from small IDX files written here.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "ember/data/dataloader.h"
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
