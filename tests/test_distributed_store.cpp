// ember/distributed: the stores (TCPStore server and clients, FileStore, PrefixStore, HashStore) and a two-rank
// ProcessGroupGloo run in two threads of this process (Gloo's TCP transport over loopback).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "ember/distributed/process_group.h"
#include "ember/ops.h"
#include "test_values.h"

using namespace ember;
using ember::distributed::Bytes;
using ember::distributed::FileStore;
using ember::distributed::HashStore;
using ember::distributed::make_process_group_gloo;
using ember::distributed::Millis;
using ember::distributed::PrefixStore;
using ember::distributed::ProcessGroupOptions;
using ember::distributed::Store;
using ember::distributed::TCPStore;
using RO = ember::distributed::ReduceOp;
using namespace std::chrono_literals;

namespace {

Bytes b(const std::string& s) { return Bytes(s.begin(), s.end()); }

// a and b are two handles on one store.
void check_store(Store& a, Store& c) {
  a.set("k", b("v"));
  EXPECT_EQ(c.get("k"), b("v"));
  EXPECT_EQ(a.add("n", 4), 4);
  EXPECT_EQ(c.add("n", 3), 7);
  EXPECT_EQ(a.get("n"), b("7"));
  EXPECT_EQ(a.compare_set("cs", {}, b("one")), b("one"));
  EXPECT_EQ(c.compare_set("cs", b("x"), b("two")), b("one"));
  EXPECT_EQ(c.compare_set("cs", b("one"), b("two")), b("two"));
  EXPECT_EQ(a.compare_set("absent", b("x"), b("y")), b("x"));
  EXPECT_TRUE(a.check({"k", "n"}));
  EXPECT_FALSE(a.check({"k", "missing"}));
  const int64_t n = a.num_keys();
  EXPECT_TRUE(c.delete_key("k"));
  EXPECT_FALSE(a.delete_key("k"));
  EXPECT_EQ(a.num_keys(), n - 1);
  EXPECT_THROW(c.wait({"missing"}, 100ms), Error);
  std::thread setter([&] {
    std::this_thread::sleep_for(50ms);
    a.set("late", b("x"));
  });
  c.wait({"late"}, 5000ms);
  setter.join();
  EXPECT_EQ(c.get("late"), b("x"));
  try {
    c.wait({"other"}, 50ms);
    FAIL() << "no timeout";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Wait timeout"), std::string::npos) << e.what();
  }
}

TEST(DistributedStore, Hash) {
  HashStore s;
  check_store(s, s);
}

TEST(DistributedStore, Tcp) {
  TCPStore master("127.0.0.1", 0, -1, true, 5000ms);
  ASSERT_GT(master.port(), 0);
  TCPStore client("127.0.0.1", master.port(), -1, false, 5000ms);
  check_store(master, client);
  client.set_timeout(50ms);
  EXPECT_THROW(client.get("never"), Error);
  // The connection is still in step after a timed-out wait (the server answered it).
  client.set("after", b("ok"));
  EXPECT_EQ(master.get("after"), b("ok"));
}

TEST(DistributedStore, File) {
  auto path = std::filesystem::temp_directory_path() / ("ember_filestore_" + std::to_string(::getpid()));
  {
    FileStore a(path.string(), 2), c(path.string(), 2);
    check_store(a, c);
  }
  EXPECT_FALSE(std::filesystem::exists(path));  // the last of the two removed it
}

TEST(DistributedStore, Prefix) {
  auto base = std::make_shared<HashStore>();
  PrefixStore p("pre", base), q("pre", base);
  check_store(p, q);
  p.set("x", b("1"));
  EXPECT_EQ(base->get("pre/x"), b("1"));
}

TEST(DistributedGloo, TwoRanksInThreads) {
  auto store = std::make_shared<HashStore>();
  std::vector<std::vector<double>> got(2);
  std::vector<std::string> errors(2);
  auto rank_main = [&](int rank) {
    try {
      ProcessGroupOptions o;
      o.timeout = 10000ms;
      auto pg = make_process_group_gloo(store, rank, 2, o);
      Tensor x = full(std::vector<int64_t>{3}, rank + 1.0, TensorOptions(ScalarType::Float32));
      pg->all_reduce(x, RO::SUM)->wait(Millis(-1));
      Tensor y = full(std::vector<int64_t>{2}, rank + 2.0, TensorOptions(ScalarType::Int64));
      pg->all_reduce(y, RO::PRODUCT)->wait(Millis(-1));
      auto v = ember::testing::values(x), w = ember::testing::values(y);
      v.insert(v.end(), w.begin(), w.end());
      // A mismatch (rank 0 float32, rank 1 float64) raises on both instead of hanging.
      Tensor z = zeros(std::vector<int64_t>{2}, TensorOptions(rank ? ScalarType::Float64 : ScalarType::Float32));
      try {
        pg->all_reduce(z, RO::SUM)->wait(Millis(-1));
        v.push_back(-1);
      } catch (const Error& e) {
        v.push_back(std::string(e.what()).find("do not match") != std::string::npos ? 1 : -2);
      }
      pg->barrier()->wait(Millis(-1));
      got[rank] = v;
    } catch (const std::exception& e) {
      errors[rank] = e.what();
    }
  };
  std::thread t0(rank_main, 0), t1(rank_main, 1);
  t0.join();
  t1.join();
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(errors[r], "");
    EXPECT_EQ(got[r], (std::vector<double>{3, 3, 3, 6, 6, 1}));
  }
}

TEST(DistributedGloo, ArgumentChecks) {
  auto store = std::make_shared<HashStore>();
  auto pg = make_process_group_gloo(store, 0, 1, ProcessGroupOptions{});
  Tensor x = zeros(std::vector<int64_t>{2}, TensorOptions(ScalarType::Float32));
  EXPECT_THROW(pg->broadcast(x, 1), ValueError);
  EXPECT_THROW(pg->all_reduce(x, RO::BAND), TypeError);
  EXPECT_THROW(pg->all_gather({x, x}, x), ValueError);
  Tensor h = full(std::vector<int64_t>{2}, 1.5, TensorOptions(ScalarType::Float16));
  pg->all_reduce(h, RO::AVG)->wait(Millis(-1));
  EXPECT_EQ(ember::testing::values(h), (std::vector<double>{1.5, 1.5}));
}

}  // namespace
