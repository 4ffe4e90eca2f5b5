// Note [Named segments]
// A file_system segment is /dev/shm/ember_<pid>_<counter> (the counter starts at a random value, so a name is
// never reused when a pid is). Its last 64 bytes hold two counts. The first counts holders: the per-process
// mappings that own a reference, plus the messages in flight. Creating a segment counts the creator; sending a
// handle counts the message; the receiver's mapping takes over the message's count; dropping a mapping uncounts
// it, and whoever drops the count to zero unlinks the name. Unlink after map: a receiver that finds itself the
// only holder, with no other message in flight, unlinks the name as soon as it has mapped the segment and keeps
// the descriptor instead (to send it on as a descriptor), so that from then on nothing can leak. The second
// count is the messages in flight alone: a child process that sent names waits at exit (up to a bound) until
// they were received (wait_for_sent_names), because the tracker unlinks a dead process's names. A forked child
// inherits its parent's mappings without counting (its exit by os._exit runs no destructor, so a counted child
// would keep the name alive for ever). Processes that die holding counts (kill -9) are covered by the tracker
// (ember/multiprocessing/_tracker.py): every process reports the names it creates ("R name") and the names it
// unlinks ("U name") over its own Unix socket, and the tracker unlinks the names of a process whose socket
// closed. A normal exit unlinks the names this process created. A mapping never depends on the name.
#include "ember/data/shared_memory.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <thread>
#include <unordered_map>
#include <vector>

#include "ember/error.h"
#include "ember/sizes.h"

namespace ember::data {
namespace {

constexpr size_t kTrailer = 64;     // named segments: the holders' and in-flight counts, a cache line after the data
constexpr size_t kSentRing = 1024;  // names whose delivery a process waits for at exit (the latest ones)

std::string errno_str(int e) { return std::strerror(e); }

// ---- the tracker connection (one per process; a forked child makes its own)

std::mutex g_tracker_mu;
int g_tracker_fd = -1;
pid_t g_tracker_pid = 0;     // the process that made g_tracker_fd (or failed to connect)
std::string g_tracker_addr;  // the address it connected (or failed to connect) to

void tracker_send(char op, const std::string& name) {
  const char* addr = std::getenv("EMBER_SHM_TRACKER");
  if (!addr || !*addr) return;
  std::lock_guard<std::mutex> l(g_tracker_mu);
  const pid_t me = getpid();
  if (g_tracker_pid != me || g_tracker_addr != addr) {
    if (g_tracker_fd >= 0) close(g_tracker_fd);
    g_tracker_fd = -1;
    g_tracker_pid = me;
    g_tracker_addr = addr;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    const size_t n = std::min(std::strlen(addr), sizeof(sa.sun_path) - 2);
    std::memcpy(sa.sun_path + 1, addr, n);  // an abstract name: sun_path[0] = '\0'
    if (fd >= 0 &&
        connect(fd, reinterpret_cast<sockaddr*>(&sa), socklen_t(offsetof(sockaddr_un, sun_path) + 1 + n)) == 0)
      g_tracker_fd = fd;
    else if (fd >= 0)
      close(fd);
  }
  if (g_tracker_fd < 0) return;
  const std::string line = std::string(1, op) + " " + name + "\n";
  size_t off = 0;
  while (off < line.size()) {
    const ssize_t w = send(g_tracker_fd, line.data() + off, line.size() - off, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      close(g_tracker_fd);
      g_tracker_fd = -1;
      return;
    }
    off += size_t(w);
  }
}

// ---- segments

struct Segment {
  void* base = nullptr;
  size_t map_len = 0;
  size_t capacity = 0;  // bytes usable for data
  int fd = -1;          // memfd segments keep their descriptor (to send it again); named ones close it
  std::string name;     // named segments
  std::atomic<int64_t>* holders = nullptr;    // trailer word 0
  std::atomic<int64_t>* in_flight = nullptr;  // trailer word 1
  dev_t dev = 0;
  ino_t ino = 0;
  pid_t pid = 0;  // the process whose mapping this is (a forked child's inherited copies hold no count)
  ~Segment();
};

struct Registry {
  std::mutex mu;
  std::unordered_map<void*, std::weak_ptr<Segment>> by_addr;
  std::map<std::pair<dev_t, ino_t>, std::weak_ptr<Segment>> by_id;
  std::map<std::string, pid_t> created;  // named segments this process made and has not unlinked
  std::vector<std::string> sent;         // names this process sent (a ring of the latest kSentRing)
  size_t sent_next = 0;
  pid_t sent_pid = 0;
  SharingStrategy strategy = SharingStrategy::FileDescriptor;
  bool atexit_registered = false;
};

// Leaked on purpose: storages released during static destruction still use it.
Registry& reg() {
  static Registry* r = new Registry;
  return *r;
}

void unlink_own_names_at_exit() {
  Registry& r = reg();
  std::lock_guard<std::mutex> l(r.mu);
  for (const auto& [name, pid] : r.created)
    if (pid == getpid()) shm_unlink(name.c_str());
  r.created.clear();
}

void fork_prepare() {
  reg().mu.lock();
  g_tracker_mu.lock();
}
void fork_parent() {
  g_tracker_mu.unlock();
  reg().mu.unlock();
}
void fork_child() {
  if (g_tracker_fd >= 0) close(g_tracker_fd);  // the parent's connection: its closing must tell of the parent's death
  g_tracker_fd = -1;
  g_tracker_pid = 0;
  g_tracker_addr.clear();
  g_tracker_mu.unlock();
  reg().mu.unlock();
}
[[maybe_unused]] const bool g_atfork_registered = (pthread_atfork(fork_prepare, fork_parent, fork_child), true);

Segment::~Segment() {
  Registry& r = reg();
  bool unlink_name = false;
  {
    std::lock_guard<std::mutex> l(r.mu);
    // Erase only entries that point to no live segment (an attach may already have mapped the inode anew).
    auto a = r.by_addr.find(base);
    if (a != r.by_addr.end() && a->second.expired()) r.by_addr.erase(a);
    auto i = r.by_id.find({dev, ino});
    if (i != r.by_id.end() && i->second.expired()) r.by_id.erase(i);
    if (holders && pid == getpid() && holders->fetch_sub(1, std::memory_order_acq_rel) == 1) {
      unlink_name = true;
      r.created.erase(name);
    }
  }
  if (unlink_name) {
    shm_unlink(name.c_str());
    tracker_send('U', name);
  }
  if (base) munmap(base, map_len);
  if (fd >= 0) close(fd);
}

std::pair<dev_t, ino_t> file_id(int fd) {
  struct stat st;
  EMBER_CHECK(fstat(fd, &st) == 0, "[shared memory] fstat failed: ", errno_str(errno));
  return {st.st_dev, st.st_ino};
}

void* map_fd(int fd, size_t len) {
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) fail<OutOfMemoryError>("[shared memory] mmap of ", len, " bytes failed: ", errno_str(errno));
  return p;
}

// Registers a new mapping; the caller holds r.mu.
void register_locked(Registry& r, const std::shared_ptr<Segment>& s) {
  r.by_addr[s->base] = s;
  r.by_id[{s->dev, s->ino}] = s;
}

std::shared_ptr<Segment> lookup_addr_locked(Registry& r, const void* p) {
  auto it = r.by_addr.find(const_cast<void*>(p));
  return it == r.by_addr.end() ? nullptr : it->second.lock();
}

std::string next_name() {
  static std::atomic<uint64_t> counter{[] {
    std::random_device rd;
    return (uint64_t(rd()) << 16) ^ uint64_t(rd());
  }()};
  return "/ember_" + std::to_string(getpid()) + "_" + std::to_string(counter.fetch_add(1));
}

std::shared_ptr<Segment> create_segment(size_t nbytes) {
  Registry& r = reg();
  SharingStrategy strategy;
  {
    std::lock_guard<std::mutex> l(r.mu);
    strategy = r.strategy;
  }
  auto s = std::make_shared<Segment>();
  s->pid = getpid();
  if (strategy == SharingStrategy::FileDescriptor) {
    int fd = memfd_create("ember_shm", MFD_CLOEXEC);
    EMBER_CHECK(fd >= 0, "[share_memory_] memfd_create failed: ", errno_str(errno));
    s->fd = fd;                                              // from here on, s's destructor closes it
    s->map_len = s->capacity = std::max<size_t>(nbytes, 1);  // mmap refuses 0 bytes
    EMBER_CHECK(ftruncate(fd, off_t(s->map_len)) == 0, "[share_memory_] could not size a shared-memory segment of ",
                s->map_len, " bytes: ", errno_str(errno));
    std::tie(s->dev, s->ino) = file_id(fd);
    s->base = map_fd(fd, s->map_len);
  } else {
    const std::string name = next_name();
    int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    EMBER_CHECK(fd >= 0, "[share_memory_] shm_open(", name, ") failed: ", errno_str(errno));
    const size_t cap = (nbytes + kTrailer - 1) / kTrailer * kTrailer;
    const size_t len = cap + kTrailer;
    // Reserving the pages now turns a full /dev/shm into an error here instead of a SIGBUS on first write.
    int err = ftruncate(fd, off_t(len)) == 0 ? posix_fallocate(fd, 0, off_t(len)) : errno;
    void* p = err == 0 ? mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (err == 0 && p == MAP_FAILED) err = errno;
    struct stat st;
    if (err == 0 && fstat(fd, &st) != 0) err = errno;
    close(fd);
    if (err != 0) {
      if (p != MAP_FAILED) munmap(p, len);
      shm_unlink(name.c_str());
      fail<Error>("[share_memory_] could not create the shared-memory segment ", name, " of ", len,
                  " bytes: ", errno_str(err),
                  err == ENOSPC ? " (/dev/shm is full; the file_descriptor sharing strategy does not use it)" : "");
    }
    s->name = name;
    s->base = p;
    s->map_len = len;
    s->capacity = cap;
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    s->holders = new (static_cast<char*>(p) + cap) std::atomic<int64_t>(1);
    s->in_flight = new (static_cast<char*>(p) + cap + 8) std::atomic<int64_t>(0);
    {
      std::lock_guard<std::mutex> l(r.mu);
      r.created[name] = s->pid;
      if (!r.atexit_registered) r.atexit_registered = std::atexit(unlink_own_names_at_exit) == 0;
    }
    tracker_send('R', name);
  }
  std::lock_guard<std::mutex> l(r.mu);
  register_locked(r, s);
  return s;
}

Storage storage_on(const std::shared_ptr<Segment>& s, size_t nbytes) {
  EMBER_CHECK_VALUE(nbytes <= s->capacity, "[shared memory] a storage of ", nbytes,
                    " bytes does not fit its segment of ", s->capacity, " bytes");
  return make_intrusive<StorageImpl>(s->base, nbytes, kCPU, [s] {});
}

}  // namespace

void set_sharing_strategy(SharingStrategy s) {
  std::lock_guard<std::mutex> l(reg().mu);
  reg().strategy = s;
}

SharingStrategy sharing_strategy() {
  std::lock_guard<std::mutex> l(reg().mu);
  return reg().strategy;
}

bool is_shared(const Storage& s) {
  if (s->device().is_cuda()) return true;
  Registry& r = reg();
  std::lock_guard<std::mutex> l(r.mu);
  auto seg = lookup_addr_locked(r, s->data());
  return seg && s->nbytes() <= seg->capacity;
}

void share_storage_(const Storage& s) {
  if (is_shared(s)) return;
  auto seg = create_segment(s->nbytes());
  if (s->nbytes()) std::memcpy(seg->base, s->data(), s->nbytes());
  s->set_external_data(seg->base, [seg] {});
}

const Tensor& share_memory_(const Tensor& t) {
  share_storage_(t.impl()->storage());
  return t;
}

Tensor empty_shared(IntArrayRef size, ScalarType dtype) {
  for (int64_t s : size) EMBER_CHECK_VALUE(s >= 0, "[empty_shared] negative dimension ", s, " in ", shape_str(size));
  const auto nbytes = static_cast<size_t>(storage_nbytes(size, element_size(dtype), "empty_shared"));
  DimVector strides(size.size());
  int64_t n = 1;  // cannot overflow when the size's bytes fit in int64, except past a 0-size dim
  for (int64_t d = int64_t(size.size()) - 1; d >= 0; --d) {
    strides[d] = n;
    if (__builtin_mul_overflow(n, std::max<int64_t>(size[d], 1), &n)) n = 1;
  }
  return Tensor(make_intrusive<TensorImpl>(storage_on(create_segment(nbytes), nbytes), dtype, size, strides, 0));
}

SegmentHandle share_handle(const Storage& s) {
  EMBER_CHECK(s->device().is_cpu(), "[share_handle] only CPU storages are shared through shared memory");
  share_storage_(s);
  Registry& r = reg();
  std::lock_guard<std::mutex> l(r.mu);
  auto seg = lookup_addr_locked(r, s->data());
  EMBER_CHECK(seg, "[share_handle] the storage's segment is gone");
  SegmentHandle h;
  h.nbytes = s->nbytes();
  if (seg->holders) {
    seg->holders->fetch_add(1, std::memory_order_acq_rel);  // the message's count (Note [Named segments])
    seg->in_flight->fetch_add(1, std::memory_order_acq_rel);
    h.named = true;
    h.name = seg->name;
    if (r.sent_pid != getpid()) {  // a forked child starts its own list
      r.sent.clear();
      r.sent_next = 0;
      r.sent_pid = getpid();
    }
    if (r.sent.size() < kSentRing)
      r.sent.push_back(seg->name);
    else
      r.sent[r.sent_next++ % kSentRing] = seg->name;
  } else {
    h.fd = seg->fd;
  }
  return h;
}

Storage attach_fd(int fd, size_t nbytes) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    fail<Error>("[shared memory] received an invalid file descriptor: ", errno_str(e));
  }
  Registry& r = reg();
  std::unique_lock<std::mutex> l(r.mu);
  auto it = r.by_id.find({st.st_dev, st.st_ino});
  if (it != r.by_id.end())
    if (auto seg = it->second.lock()) {
      close(fd);  // this process maps the segment already: share that mapping
      l.unlock();
      return storage_on(seg, nbytes);
    }
  if (size_t(st.st_size) < std::max<size_t>(nbytes, 1)) {
    close(fd);
    fail<ValueError>("[shared memory] the received segment has ", st.st_size, " bytes, fewer than the ", nbytes,
                     " of its storage");
  }
  auto s = std::make_shared<Segment>();
  s->fd = fd;
  s->pid = getpid();
  s->dev = st.st_dev;
  s->ino = st.st_ino;
  s->map_len = s->capacity = size_t(st.st_size);
  s->base = map_fd(fd, s->map_len);
  register_locked(r, s);
  l.unlock();
  return storage_on(s, nbytes);
}

Storage attach_name(const std::string& name, size_t nbytes) {
  int fd = shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int e = errno;
    fail<Error>("[shared memory] cannot open the shared-memory segment ", name, ": ", errno_str(e),
                e == ENOENT ? " (the process that created it exited, or this message was received before)" : "");
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || size_t(st.st_size) < kTrailer + nbytes) {
    close(fd);
    fail<ValueError>("[shared memory] the segment ", name, " is too small for a storage of ", nbytes, " bytes");
  }
  Registry& r = reg();
  std::unique_lock<std::mutex> l(r.mu);
  auto it = r.by_id.find({st.st_dev, st.st_ino});
  if (it != r.by_id.end())
    if (auto seg = it->second.lock()) {
      close(fd);
      seg->holders->fetch_sub(1, std::memory_order_acq_rel);  // mapped here already: the message's count goes
      seg->in_flight->fetch_sub(1, std::memory_order_acq_rel);
      l.unlock();
      return storage_on(seg, nbytes);
    }
  void* p = mmap(nullptr, size_t(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int e = errno;
  if (p == MAP_FAILED) {
    close(fd);
    fail<OutOfMemoryError>("[shared memory] mmap of ", name, " failed: ", errno_str(e));
  }
  auto s = std::make_shared<Segment>();
  s->name = name;
  s->pid = getpid();
  s->dev = st.st_dev;
  s->ino = st.st_ino;
  s->base = p;
  s->map_len = size_t(st.st_size);
  s->capacity = s->map_len - kTrailer;
  s->holders = reinterpret_cast<std::atomic<int64_t>*>(static_cast<char*>(p) + s->capacity);  // takes over the count
  s->in_flight = reinterpret_cast<std::atomic<int64_t>*>(static_cast<char*>(p) + s->capacity + 8);
  const int64_t others_in_flight = s->in_flight->fetch_sub(1, std::memory_order_acq_rel) - 1;  // delivered
  // Unlink after map (Note [Named segments]): when this mapping is the only holder and no other message carries
  // the name, nobody needs the name any more. Unlinking it now means a crash later leaves nothing in /dev/shm; the
  // descriptor is kept instead, so the storage can still be sent on (as a descriptor).
  const bool unlink_now = others_in_flight == 0 && s->holders->load(std::memory_order_acquire) == 1;
  if (unlink_now) {
    s->fd = fd;
    s->holders = s->in_flight = nullptr;
  } else {
    close(fd);
  }
  register_locked(r, s);
  l.unlock();
  if (unlink_now) {
    shm_unlink(name.c_str());
    tracker_send('U', name);
  }
  return storage_on(s, nbytes);
}

Tensor tensor_from_storage(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  EMBER_CHECK_VALUE(sizes.size() == strides.size(), "[shared memory] ", sizes.size(), " sizes but ", strides.size(),
                    " strides");
  EMBER_CHECK_VALUE(offset >= 0, "[shared memory] negative storage offset ", offset);
  for (size_t d = 0; d < sizes.size(); ++d)
    EMBER_CHECK_VALUE(sizes[d] >= 0 && strides[d] >= 0, "[shared memory] invalid geometry: sizes ", shape_str(sizes),
                      ", strides ", shape_str(strides));
  const int64_t need = storage_nbytes(sizes, strides, offset, element_size(dtype), "[shared memory]");
  EMBER_CHECK_VALUE(need <= int64_t(storage->nbytes()), "[shared memory] a tensor of sizes ", shape_str(sizes),
                    ", strides ", shape_str(strides), " and offset ", offset, " does not fit a storage of ",
                    storage->nbytes(), " bytes");
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, strides, offset));
}

namespace {

// Whether a message carrying `name` is still in flight: false once delivered, or when the name is gone.
bool still_in_flight(const std::string& name) {
  int fd = shm_open(name.c_str(), O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return false;
  struct stat st;
  bool pending = false;
  if (fstat(fd, &st) == 0 && size_t(st.st_size) >= kTrailer) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t at = size_t(st.st_size) - kTrailer + 8;
    const size_t base = at / page * page;
    void* p = mmap(nullptr, at + 8 - base, PROT_READ, MAP_SHARED, fd, off_t(base));
    if (p != MAP_FAILED) {
      pending = reinterpret_cast<std::atomic<int64_t>*>(static_cast<char*>(p) + (at - base))
                    ->load(std::memory_order_acquire) > 0;
      munmap(p, at + 8 - base);
    }
  }
  close(fd);
  return pending;
}

}  // namespace

bool wait_for_sent_names(double timeout_s) {
  std::vector<std::string> names;
  {
    Registry& r = reg();
    std::lock_guard<std::mutex> l(r.mu);
    if (r.sent_pid == getpid()) names = r.sent;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!names.empty()) {
    std::erase_if(names, [](const std::string& n) { return !still_in_flight(n); });
    if (names.empty()) break;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

void connect_tracker() { tracker_send('H', "-"); }

size_t live_segments() {
  Registry& r = reg();
  std::lock_guard<std::mutex> l(r.mu);
  size_t n = 0;
  for (const auto& [addr, w] : r.by_addr) n += !w.expired();
  return n;
}

}  // namespace ember::data
