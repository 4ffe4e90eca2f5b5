// FileStore: an append-only log of (set | delete, key, value) records; every operation takes a flock on the file,
// replays the log into a map and, if it changes something, appends. Waiting polls (c10d's FileStore does the same).
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <thread>

#include "ember/distributed/detail/kv_map.h"
#include "ember/distributed/store.h"
#include "ember/error.h"

namespace ember::distributed {

namespace {

using Clock = std::chrono::steady_clock;
const char* kCleanupKey = "__ember_filestore_cleanup";
enum Record : uint8_t { kSet = 0, kDelete = 1 };

class LockedFile {
 public:
  LockedFile(const std::string& path, bool exclusive) {
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    EMBER_CHECK(fd_ >= 0, "[FileStore] cannot open '", path, "': ", std::strerror(errno));
    while (::flock(fd_, exclusive ? LOCK_EX : LOCK_SH) != 0) {
      if (errno != EINTR) {
        int e = errno;
        ::close(fd_);
        fail<Error>("[FileStore] cannot lock '", path, "': ", std::strerror(e));
      }
    }
  }
  ~LockedFile() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  std::string read_all() const {
    std::string data;
    char buf[65536];
    off_t off = 0;
    for (;;) {
      ssize_t n = ::pread(fd_, buf, sizeof buf, off);
      if (n < 0 && errno == EINTR) continue;
      EMBER_CHECK(n >= 0, "[FileStore] read failed: ", std::strerror(errno));
      if (n == 0) return data;
      data.append(buf, static_cast<size_t>(n));
      off += n;
    }
  }
  void append(const std::string& rec) const {
    off_t end = ::lseek(fd_, 0, SEEK_END);
    size_t off = 0;
    while (off < rec.size()) {
      ssize_t n = ::pwrite(fd_, rec.data() + off, rec.size() - off, end + static_cast<off_t>(off));
      if (n < 0 && errno == EINTR) continue;
      EMBER_CHECK(n > 0, "[FileStore] write failed: ", std::strerror(errno));
      off += static_cast<size_t>(n);
    }
  }

 private:
  int fd_ = -1;
};

void put_u32(std::string& s, uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); }
std::string record(Record type, const std::string& key, const Bytes& value) {
  std::string r(1, static_cast<char>(type));
  put_u32(r, static_cast<uint32_t>(key.size()));
  r += key;
  put_u32(r, static_cast<uint32_t>(value.size()));
  r.append(reinterpret_cast<const char*>(value.data()), value.size());
  return r;
}

store_detail::KeyValueMap replay(const std::string& data) {
  store_detail::KeyValueMap kv;
  size_t p = 0;
  auto u32 = [&](uint32_t& v) {
    if (data.size() < p + 4) return false;
    std::memcpy(&v, data.data() + p, 4);
    p += 4;
    return true;
  };
  while (p < data.size()) {
    auto type = static_cast<uint8_t>(data[p++]);
    uint32_t kl = 0, vl = 0;
    if (!u32(kl) || data.size() < p + kl) break;
    std::string key = data.substr(p, kl);
    p += kl;
    if (!u32(vl) || data.size() < p + vl) break;
    if (type == kSet)
      kv.map[key] = Bytes(data.begin() + p, data.begin() + p + vl);
    else
      kv.map.erase(key);
    p += vl;
  }
  return kv;
}

// Runs f(map) under the lock and appends what it returns (the records of its changes).
template <class F>
auto locked(const std::string& path, bool exclusive, F&& f) {
  LockedFile file(path, exclusive);
  auto kv = replay(file.read_all());
  std::string appended;
  auto r = f(kv, appended);
  if (!appended.empty()) file.append(appended);
  return r;
}

}  // namespace

FileStore::FileStore(std::string path, int world_size, Millis timeout)
    : Store(timeout), path_(std::move(path)), world_size_(world_size), owner_(::getpid()) {
  EMBER_CHECK_VALUE(!path_.empty(), "[FileStore] the file name is empty");
  LockedFile touch(path_, false);  // creates it, or raises naming the path
}

FileStore::~FileStore() {
  if (world_size_ <= 0 || ::getpid() != owner_) return;  // a forked child does not count as a user
  try {
    if (add(kCleanupKey, 1) >= world_size_) ::unlink(path_.c_str());
  } catch (const std::exception&) {  // the file may already be gone; a destructor does not raise
  }
}

void FileStore::set(const std::string& key, const Bytes& value) {
  locked(path_, true, [&](auto&, std::string& out) {
    out = record(kSet, key, value);
    return 0;
  });
}

Bytes FileStore::get(const std::string& key) {
  wait({key}, timeout_);
  return locked(path_, false, [&](auto& kv, std::string&) {
    auto it = kv.map.find(key);
    EMBER_CHECK(it != kv.map.end(), "[FileStore] get: key '", key, "' was deleted while waiting");
    return it->second;
  });
}

int64_t FileStore::add(const std::string& key, int64_t delta) {
  return locked(path_, true, [&](auto& kv, std::string& out) {
    int64_t v = kv.add(key, delta);
    out = record(kSet, key, kv.map[key]);
    return v;
  });
}

Bytes FileStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  return locked(path_, true, [&](auto& kv, std::string& out) {
    Bytes r = kv.compare_set(key, expected, desired);
    if (r == desired && kv.map.count(key)) out = record(kSet, key, desired);
    return r;
  });
}

bool FileStore::delete_key(const std::string& key) {
  return locked(path_, true, [&](auto& kv, std::string& out) {
    if (!kv.map.count(key)) return false;
    out = record(kDelete, key, {});
    return true;
  });
}

int64_t FileStore::num_keys() {
  return locked(path_, false, [&](auto& kv, std::string&) {
    return static_cast<int64_t>(kv.map.size() - kv.map.count(kCleanupKey));
  });
}

bool FileStore::check(const std::vector<std::string>& keys) {
  return locked(path_, false, [&](auto& kv, std::string&) { return kv.has_all(keys); });
}

void FileStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  timeout = resolve(timeout);
  auto deadline = Clock::now() + timeout;
  Millis pause{1};
  while (!check(keys)) {
    if (Clock::now() >= deadline) throw Error(store_detail::timeout_message("FileStore", keys, timeout));
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, Millis(20));
  }
}

}  // namespace ember::distributed
