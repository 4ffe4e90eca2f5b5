#include "ember/serialize/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

#include "ember/error.h"

namespace ember::serialize {

namespace {

std::string errno_text() { return std::strerror(errno); }

// pread/write may move fewer bytes than asked (signals, pipes, 2 GiB caps): loop until done.
void pread_all(int fd, uint64_t offset, void* dst, size_t n, const std::string& name) {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    EMBER_CHECK(r >= 0, "cannot read '", name, "': ", errno_text());
    EMBER_CHECK(r > 0, "cannot read '", name, "': the file ended early (was it truncated while reading?)");
    p += r, offset += r, n -= r;
  }
}

uint64_t file_size(int fd, const std::string& path) {
  struct stat st {};
  EMBER_CHECK(::fstat(fd, &st) == 0, "cannot stat '", path, "': ", errno_text());
  EMBER_CHECK(S_ISREG(st.st_mode), "'", path, "' is not a regular file");
  return static_cast<uint64_t>(st.st_size);
}

int open_read(const std::string& path) {
  int fd;
  do fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  EMBER_CHECK(fd >= 0, "cannot open '", path, "' for reading: ", errno_text());
  return fd;
}

class FileSource final : public Source {
 public:
  FileSource(const std::string& path) : Source(path), fd_(open_read(path)) {
    try {
      size_ = file_size(fd_, path);
    } catch (...) {
      ::close(fd_);
      throw;
    }
  }
  ~FileSource() override { ::close(fd_); }
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, void* dst, size_t n) const override { pread_all(fd_, offset, dst, n, name()); }

 private:
  int fd_;
  uint64_t size_ = 0;
};

struct Mapping {
  void* base = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (base) ::munmap(base, size);
  }
};

class MappedSource final : public Source {
 public:
  MappedSource(const std::string& path) : Source(path), map_(std::make_shared<Mapping>()) {
    const int fd = open_read(path);
    try {
      const uint64_t n = file_size(fd, path);
      if (n > 0) {  // mmap refuses length 0; an empty file fails the loader's size checks instead
        void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
        EMBER_CHECK(p != MAP_FAILED, "cannot mmap '", path, "': ", errno_text());
        map_->base = p, map_->size = n;
      }
    } catch (...) {
      ::close(fd);
      throw;
    }
    ::close(fd);  // the mapping keeps the file
  }
  uint64_t size() const override { return map_->size; }
  void read(uint64_t offset, void* dst, size_t n) const override {
    if (n) std::memcpy(dst, static_cast<const char*>(map_->base) + offset, n);
  }
  Storage view(uint64_t offset, size_t n) const override {
    // Every storage holds the mapping; the last one to go unmaps it.
    void* p = map_->base ? static_cast<char*>(map_->base) + offset : nullptr;
    return make_intrusive<StorageImpl>(p, n, kCPU, [m = map_] {});
  }

 private:
  std::shared_ptr<Mapping> map_;
};

class BufferSource final : public Source {
 public:
  BufferSource(const void* data, size_t n, std::string name)
      : Source(std::move(name)), data_(static_cast<const char*>(data)), size_(n) {}
  uint64_t size() const override { return size_; }
  void read(uint64_t offset, void* dst, size_t n) const override {
    if (n) std::memcpy(dst, data_ + offset, n);
  }

 private:
  const char* data_;
  size_t size_;
};

// Note [Stale temporary files]: a save's temporary file is named ".NAME.tmp-HOST-PID-START-RANDOM": the host
// name (at most 32 characters of [A-Za-z0-9.]), the writer's process id and its start time (in clock ticks
// since boot, from /proc; 0 where unknown). A save removes the temporary files of its target whose writer is
// gone: same host, and no process with that id, or one that started at another time (the id was reused). A
// file of another host is never removed (its writer may be alive on a shared file system), nor one of this
// process (another thread may be saving). Names without a host (".NAME.tmp-PID-RANDOM", written before this
// rule) are removed when their process id is free and they were last modified over an hour ago.
std::string host_tag() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  std::string out;
  for (const char* p = buf; *p && out.size() < 32; ++p)
    out += std::isalnum(static_cast<unsigned char>(*p)) || *p == '.' ? *p : '_';
  return out.empty() ? "unknown" : out;
}

uint64_t start_time(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return 0;
  const size_t close = line.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos) return 0;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  for (int k = 3; k <= 22 && rest >> field; ++k)  // field 22: starttime
    if (k == 22) return std::strtoull(field.c_str(), nullptr, 10);
  return 0;
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 20 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Splits "A-B-C" from the right into at most n fields (the first keeps any '-').
std::vector<std::string> split_right(const std::string& s, size_t n) {
  std::vector<std::string> out;
  size_t end = s.size();
  while (out.size() + 1 < n) {
    const size_t dash = s.rfind('-', end == 0 ? 0 : end - 1);
    if (dash == std::string::npos || end == 0) break;
    out.insert(out.begin(), s.substr(dash + 1, end - dash - 1));
    end = dash;
  }
  out.insert(out.begin(), s.substr(0, end));
  return out;
}

bool process_gone(pid_t pid, uint64_t started) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  const uint64_t now = started ? start_time(pid) : 0;
  return started && now && now != started;  // the id belongs to a newer process
}

void remove_stale_temps(const std::string& dir, const std::string& base) {
  DIR* d = ::opendir(dir.empty() ? "." : dir.c_str());
  if (!d) return;
  const std::string prefix = "." + base + ".tmp-", host = host_tag();
  const pid_t self = ::getpid();
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const auto f = split_right(name.substr(prefix.size()), 4);
    bool stale = false;
    if (f.size() == 4 && f[0] == host && all_digits(f[1]) && all_digits(f[2]) && all_digits(f[3])) {
      const auto pid = static_cast<pid_t>(std::strtoll(f[1].c_str(), nullptr, 10));
      stale = pid != self && process_gone(pid, std::strtoull(f[2].c_str(), nullptr, 10));
    } else if (f.size() == 2 && all_digits(f[0]) && all_digits(f[1])) {  // a name from before the host was in it
      const auto pid = static_cast<pid_t>(std::strtoll(f[0].c_str(), nullptr, 10));
      struct stat st {};
      stale = pid != self && ::lstat((dir + name).c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
              st.st_mtime < std::time(nullptr) - 3600 && ::kill(pid, 0) != 0 && errno == ESRCH;
    }
    if (stale) (void)::unlink((dir + name).c_str());
  }
  ::closedir(d);
}

}  // namespace

Storage Source::storage(uint64_t offset, size_t n, size_t align) const {
  if (offset % align == 0)
    if (Storage v = view(offset, n)) return v;
  Storage s = make_intrusive<StorageImpl>(n, kCPU);
  read(offset, s->data(), n);
  return s;
}

std::unique_ptr<Source> open_file(const std::string& path) { return std::make_unique<FileSource>(path); }
std::unique_ptr<Source> map_file(const std::string& path) { return std::make_unique<MappedSource>(path); }
std::unique_ptr<Source> buffer_source(const void* data, size_t n, std::string name) {
  return std::make_unique<BufferSource>(data, n, std::move(name));
}

void Sink::zeros(size_t n) {
  static const char kZeros[64] = {};
  while (n > 0) {
    const size_t k = std::min(n, sizeof kZeros);
    write(kZeros, k);
    n -= k;
  }
}

void StringSink::write(const void* data, size_t n) {
  out_.append(static_cast<const char*>(data), n);
  position_ += n;
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  // Saving through a symlink replaces the file it points to (as writing in place would), not the link.
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    if (char* real = ::realpath(path_.c_str(), nullptr)) {
      path_ = real;
      std::free(real);
    }
  }
  const bool existed = ::stat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  const size_t slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path_.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  EMBER_CHECK(!base.empty(), "cannot save to '", path_, "': the path names a directory");
  remove_stale_temps(dir, base);
  const std::string stem = dir + "." + base + ".tmp-" + host_tag() + "-" + std::to_string(::getpid()) + "-" +
                           std::to_string(start_time(::getpid())) + "-";
  std::random_device rd;
  for (int attempt = 0; fd_ < 0; ++attempt) {
    temp_ = stem + std::to_string(rd() & 0xffffff);
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && (errno == EEXIST || errno == EINTR) && attempt < 100) continue;
    EMBER_CHECK(fd_ >= 0, "cannot save to '", path_,
                "': cannot create a temporary file in its directory: ", errno_text());
  }
  if (existed) (void)::fchmod(fd_, st.st_mode & 07777);  // the replacement keeps the old file's permissions
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temp_.c_str());
  }
}

void AtomicFile::write(const void* data, size_t n) {
  auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t r = ::write(fd_, p, std::min<size_t>(n, size_t{1} << 30));
    if (r < 0 && errno == EINTR) continue;
    EMBER_CHECK(r > 0, "cannot write '", path_, "': ", errno_text());
    p += r, n -= r, position_ += r;
  }
#ifdef __linux__
  // Note [Writeback while saving]: commit() must fsync, and an fsync of 100 MB at the end waited 33-50 ms on the
  // development machine's disk after a 24 ms write. Starting each 8 MiB's writeback as soon as it is written overlaps
  // the disk with the rest of the save: the write took 28 ms and the fsync 8. (A hint: errors surface in fsync.)
  constexpr uint64_t kWritebackChunk = uint64_t{8} << 20;
  if (position_ - written_back_ >= kWritebackChunk) {
    (void)::sync_file_range(fd_, static_cast<off_t>(written_back_), static_cast<off_t>(position_ - written_back_),
                            SYNC_FILE_RANGE_WRITE);
    written_back_ = position_;
  }
#endif
}

void AtomicFile::commit() {
  EMBER_CHECK(::fsync(fd_) == 0, "cannot save to '", path_, "': fsync failed: ", errno_text());
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const std::string why = errno_text();
    ::unlink(temp_.c_str());
    fail<Error>("cannot save to '", path_, "': close failed: ", why);
  }
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    const std::string why = errno_text();
    ::unlink(temp_.c_str());
    fail<Error>("cannot save to '", path_, "': rename failed: ", why);
  }
  // The rename is durable only once the directory entry is on disk.
  const size_t slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path_.substr(0, slash);
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace ember::serialize
