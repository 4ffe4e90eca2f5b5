// Key-value stores through which the processes of a job find each other (c10d's Store): TCPStore (a small server
// on the master, one client per process), FileStore (an append-only file on a shared file system) and PrefixStore
// (a namespace inside another store). Every blocking call ends at the store's timeout with an Error naming it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ember::distributed {

using Bytes = std::vector<uint8_t>;
using Millis = std::chrono::milliseconds;

class Store {
 public:
  static constexpr Millis kDefaultTimeout{300000};  // PyTorch's 300 s
  static constexpr Millis kUseStoreTimeout{-1};

  explicit Store(Millis timeout = kDefaultTimeout) : timeout_(timeout) {}
  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  virtual void set(const std::string& key, const Bytes& value) = 0;
  // The value of key, waiting (up to the timeout) until some process sets it.
  virtual Bytes get(const std::string& key) = 0;
  // Adds delta to the integer stored (as decimal text) under key, 0 when absent; returns the new value.
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
  // Sets desired if the current value is expected (or the key is absent and expected is empty); returns the value
  // the key holds afterwards (expected itself when the key is absent and expected is not empty, as c10d).
  virtual Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) = 0;
  virtual bool delete_key(const std::string& key) = 0;
  virtual int64_t num_keys() = 0;
  virtual bool check(const std::vector<std::string>& keys) = 0;  // all keys are set now
  // Waits until all keys are set; timeout kUseStoreTimeout means the store's own.
  virtual void wait(const std::vector<std::string>& keys, Millis timeout) = 0;
  void wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

  Millis timeout() const { return timeout_; }
  virtual void set_timeout(Millis t) { timeout_ = t; }

 protected:
  Millis resolve(Millis t) const { return t.count() < 0 ? timeout_ : t; }
  Millis timeout_;
};

// The declarations every store below overrides.
#define EMBER_STORE_OVERRIDES                                                                      \
  void set(const std::string& key, const Bytes& value) override;                                   \
  Bytes get(const std::string& key) override;                                                      \
  int64_t add(const std::string& key, int64_t delta) override;                                     \
  Bytes compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) override; \
  bool delete_key(const std::string& key) override;                                                \
  int64_t num_keys() override;                                                                     \
  bool check(const std::vector<std::string>& keys) override;                                       \
  void wait(const std::vector<std::string>& keys, Millis timeout) override;                        \
  using Store::wait;

// c10d's TCPStore: the master (is_master) runs the server in a thread of its process; every instance, the master's
// included, talks to it over its own connection. port 0 on the master picks a free port (port() tells which).
// With world_size > 0 and wait_for_workers, the master's constructor returns once world_size instances joined.
class TCPStore : public Store {
 public:
  TCPStore(std::string host, int port, int world_size, bool is_master, Millis timeout, bool wait_for_workers = true);
  ~TCPStore() override;
  EMBER_STORE_OVERRIDES
  const std::string& host() const { return host_; }
  int port() const { return port_; }

 private:
  struct Server;
  struct Client;
  std::string host_;
  int port_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Client> client_;
};

// c10d's FileStore: every operation appends to (or replays) one file under an exclusive/shared flock. The last of
// world_size instances to be destroyed removes the file (world_size <= 0: never).
class FileStore : public Store {
 public:
  FileStore(std::string path, int world_size, Millis timeout = kDefaultTimeout);
  ~FileStore() override;
  EMBER_STORE_OVERRIDES
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int world_size_;
  int owner_;  // the process that made it (getpid)
};

// Keys of `store` under "prefix/" (c10d's PrefixStore); the timeout is the underlying store's.
class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);
  EMBER_STORE_OVERRIDES
  void set_timeout(Millis t) override;
  const std::shared_ptr<Store>& underlying() const { return store_; }
  const std::string& prefix() const { return prefix_; }

 private:
  std::string key(const std::string& k) const { return prefix_ + "/" + k; }
  std::vector<std::string> keys(const std::vector<std::string>& ks) const;
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

// A store in this process's memory (c10d's HashStore), for world_size 1 and tests.
class HashStore : public Store {
 public:
  HashStore();
  ~HashStore() override;
  EMBER_STORE_OVERRIDES

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Shared by the stores: a map's compare_set and add on decimal text.
namespace store_detail {
int64_t parse_int(const Bytes& v, const std::string& key);
Bytes int_bytes(int64_t v);
std::string timeout_message(const char* store, const std::vector<std::string>& keys, Millis timeout);
}  // namespace store_detail

}  // namespace ember::distributed
