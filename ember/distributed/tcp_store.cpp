// TCPStore: a single-threaded poll() server on the master and a blocking client per instance.
// Note [TCPStore protocol]: a request is a command byte and a list of byte strings, a reply a list of byte strings,
// each list as a u32 count then (u32 length, bytes) items. WAIT carries its timeout: the server answers "1" when
// the keys are set or "0" at the deadline, so a client that gives up has no late reply left on its connection.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <list>
#include <mutex>
#include <thread>

#include "ember/distributed/detail/kv_map.h"
#include "ember/distributed/store.h"
#include "ember/error.h"

namespace ember::distributed {

namespace {

using Clock = std::chrono::steady_clock;
enum Cmd : uint8_t { SET = 1, GET, ADD, CAS, DEL, NUM, CHECK, WAIT };
const char* kWorkersKey = "__ember_store_workers";
const char* kReadyKey = "__ember_store_ready";

void put_u32(std::string& out, uint32_t v) {
  unsigned char b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
  out.append(reinterpret_cast<char*>(b), 4);
}
uint32_t get_u32(const char* p) {
  auto u = reinterpret_cast<const unsigned char*>(p);
  return uint32_t(u[0]) | uint32_t(u[1]) << 8 | uint32_t(u[2]) << 16 | uint32_t(u[3]) << 24;
}
void put_list(std::string& out, const std::vector<Bytes>& items) {
  put_u32(out, static_cast<uint32_t>(items.size()));
  for (const auto& it : items) {
    put_u32(out, static_cast<uint32_t>(it.size()));
    out.append(reinterpret_cast<const char*>(it.data()), it.size());
  }
}
// Parses a list at buf[pos...]; false when the buffer does not hold all of it yet.
bool parse_list(const std::string& buf, size_t& pos, std::vector<Bytes>& items) {
  size_t p = pos;
  if (buf.size() < p + 4) return false;
  uint32_t n = get_u32(buf.data() + p);
  p += 4;
  items.clear();
  for (uint32_t i = 0; i < n; ++i) {
    if (buf.size() < p + 4) return false;
    uint32_t len = get_u32(buf.data() + p);
    p += 4;
    if (buf.size() < p + len) return false;
    items.emplace_back(buf.begin() + p, buf.begin() + p + len);
    p += len;
  }
  pos = p;
  return true;
}
Bytes to_bytes(const std::string& s) { return Bytes(s.begin(), s.end()); }
std::string to_string(const Bytes& b) { return std::string(b.begin(), b.end()); }

bool send_all(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

// ---- the server

struct TCPStore::Server {
  struct Conn {
    int fd;
    std::string in;
  };
  struct Waiter {
    int fd;
    std::vector<std::string> keys;
    Clock::time_point deadline;
  };
  int listen_fd = -1;
  int wake[2] = {-1, -1};
  std::unique_ptr<std::thread> thread;
  store_detail::KeyValueMap kv;
  std::list<Conn> conns;
  std::list<Waiter> waiters;

  explicit Server(int port) {
    // Dual-stack IPv6 where the system has it, else IPv4; every interface, as c10d's server.
    listen_fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1, zero = 0;
    bool ok = false;
    int err = 0;
    if (listen_fd >= 0) {
      ::setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      ::setsockopt(listen_fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
      sockaddr_in6 a{};
      a.sin6_family = AF_INET6;
      a.sin6_addr = in6addr_any;
      a.sin6_port = htons(static_cast<uint16_t>(port));
      ok = ::bind(listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
      if (!ok) {
        err = errno;
        ::close(listen_fd);
        listen_fd = -1;
      }
    }
    if (!ok && err != EADDRINUSE) {
      listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      EMBER_CHECK(listen_fd >= 0, "[TCPStore] socket: ", std::strerror(errno));
      ::setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_ANY);
      a.sin_port = htons(static_cast<uint16_t>(port));
      ok = ::bind(listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
      err = errno;
    }
    if (!ok) {
      if (listen_fd >= 0) ::close(listen_fd);
      fail<Error>("[TCPStore] the server socket could not bind to port ", port, ": ", std::strerror(err),
                  err == EADDRINUSE ? " (address already in use)" : "");
    }
    EMBER_CHECK(::listen(listen_fd, 1024) == 0, "[TCPStore] listen: ", std::strerror(errno));
    EMBER_CHECK(::pipe2(wake, O_CLOEXEC) == 0, "[TCPStore] pipe: ", std::strerror(errno));
    thread = std::make_unique<std::thread>([this] { run(); });
  }

  pid_t owner = ::getpid();

  ~Server() {
    if (::getpid() != owner) {  // a forked child: the thread and the listening socket are the parent's
      (void)thread.release();
      return;
    }
    char c = 0;
    if (::write(wake[1], &c, 1) < 0) {
    }
    if (thread->joinable()) thread->join();
    for (auto& c2 : conns) ::close(c2.fd);
    ::close(listen_fd);
    ::close(wake[0]);
    ::close(wake[1]);
  }

  int bound_port() const {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    ::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&a), &len);
    if (a.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port);
    return ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
  }

  void reply(int fd, const std::vector<Bytes>& items) {
    std::string out;
    put_list(out, items);
    send_all(fd, out);  // a client that went away is noticed by poll()
  }

  void wake_waiters() {
    for (auto it = waiters.begin(); it != waiters.end();) {
      if (kv.has_all(it->keys)) {
        reply(it->fd, {to_bytes("1")});
        it = waiters.erase(it);
      } else {
        ++it;
      }
    }
  }

  void expire_waiters() {
    auto now = Clock::now();
    for (auto it = waiters.begin(); it != waiters.end();) {
      if (it->deadline <= now) {
        reply(it->fd, {to_bytes("0")});
        it = waiters.erase(it);
      } else {
        ++it;
      }
    }
  }

  // Handles one request; the arguments have been checked to be there.
  void handle(int fd, uint8_t cmd, std::vector<Bytes>& a) {
    auto need = [&](size_t n) { return a.size() >= n; };
    switch (cmd) {
      case SET:
        if (!need(2)) break;
        kv.map[to_string(a[0])] = a[1];
        reply(fd, {});
        wake_waiters();
        return;
      case GET: {
        if (!need(1)) break;
        auto it = kv.map.find(to_string(a[0]));
        if (it == kv.map.end())
          reply(fd, {to_bytes("0")});
        else
          reply(fd, {to_bytes("1"), it->second});
        return;
      }
      case ADD: {
        if (!need(2)) break;
        std::string key = to_string(a[0]);
        try {
          int64_t v = kv.add(key, store_detail::parse_int(a[1], key));
          reply(fd, {to_bytes("1"), store_detail::int_bytes(v)});
        } catch (const Error& e) {
          reply(fd, {to_bytes("0"), to_bytes(e.what())});
        }
        wake_waiters();
        return;
      }
      case CAS:
        if (!need(3)) break;
        reply(fd, {kv.compare_set(to_string(a[0]), a[1], a[2])});
        wake_waiters();
        return;
      case DEL:
        if (!need(1)) break;
        reply(fd, {to_bytes(kv.map.erase(to_string(a[0])) ? "1" : "0")});
        return;
      case NUM: {
        int64_t n = 0;  // the store's own bookkeeping keys are not counted
        for (const auto& [k, v] : kv.map) n += k.rfind("__ember_store_", 0) != 0;
        reply(fd, {store_detail::int_bytes(n)});
        return;
      }
      case CHECK: {
        std::vector<std::string> keys;
        for (auto& b : a) keys.push_back(to_string(b));
        reply(fd, {to_bytes(kv.has_all(keys) ? "1" : "0")});
        return;
      }
      case WAIT: {
        if (!need(1)) break;
        int64_t ms = store_detail::parse_int(a[0], "timeout");
        std::vector<std::string> keys;
        for (size_t i = 1; i < a.size(); ++i) keys.push_back(to_string(a[i]));
        if (kv.has_all(keys)) {
          reply(fd, {to_bytes("1")});
        } else {
          waiters.push_back(Waiter{fd, std::move(keys), Clock::now() + Millis(ms)});
        }
        return;
      }
      default: break;
    }
    reply(fd, {to_bytes("bad request")});
  }

  void drop(std::list<Conn>::iterator it) {
    waiters.remove_if([&](const Waiter& w) { return w.fd == it->fd; });
    ::close(it->fd);
    conns.erase(it);
  }

  void run() {
    std::vector<pollfd> fds;
    std::vector<Bytes> args;
    for (;;) {
      fds.clear();
      fds.push_back({wake[0], POLLIN, 0});
      fds.push_back({listen_fd, POLLIN, 0});
      for (auto& c : conns) fds.push_back({c.fd, POLLIN, 0});
      int timeout_ms = -1;
      if (!waiters.empty()) {
        auto next = std::min_element(waiters.begin(), waiters.end(),
                                     [](const Waiter& x, const Waiter& y) { return x.deadline < y.deadline; });
        auto left = std::chrono::duration_cast<Millis>(next->deadline - Clock::now()).count();
        timeout_ms = static_cast<int>(std::clamp<int64_t>(left + 1, 0, 1 << 30));
      }
      int n = ::poll(fds.data(), fds.size(), timeout_ms);
      if (n < 0 && errno != EINTR) return;
      expire_waiters();
      if (n <= 0) continue;
      if (fds[0].revents) return;  // the destructor asks us to stop
      if (fds[1].revents & POLLIN) {
        int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
          int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          conns.push_back(Conn{fd, {}});
        }
      }
      size_t i = 2;
      for (auto it = conns.begin(); it != conns.end() && i < fds.size(); ++i) {
        auto cur = it++;
        if (fds[i].fd != cur->fd || !fds[i].revents) continue;
        char buf[65536];
        ssize_t got = ::recv(cur->fd, buf, sizeof buf, 0);
        if (got <= 0) {
          if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
          drop(cur);
          continue;
        }
        cur->in.append(buf, static_cast<size_t>(got));
        size_t pos = 0;
        while (cur->in.size() > pos) {
          size_t p = pos + 1;
          if (!parse_list(cur->in, p, args)) break;
          handle(cur->fd, static_cast<uint8_t>(cur->in[pos]), args);
          pos = p;
        }
        cur->in.erase(0, pos);
      }
    }
  }
};

// ---- the client

struct TCPStore::Client {
  int fd = -1;
  std::mutex mu;
  std::string where;
  bool broken = false;

  Client(const std::string& host, int port, Millis timeout) : where(host + ":" + std::to_string(port)) {
    auto deadline = Clock::now() + timeout;
    std::string last = "no address";
    for (;;) {
      addrinfo hints{}, *res = nullptr;
      hints.ai_family = AF_UNSPEC;
      hints.ai_socktype = SOCK_STREAM;
      int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
      if (rc != 0) {
        last = gai_strerror(rc);
      } else {
        for (addrinfo* ai = res; ai && fd < 0; ai = ai->ai_next) {
          int s = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
          if (s < 0) continue;
          if (::connect(s, ai->ai_addr, ai->ai_addrlen) == 0) {
            fd = s;
          } else {
            last = std::strerror(errno);
            ::close(s);
          }
        }
        ::freeaddrinfo(res);
      }
      if (fd >= 0) break;
      if (Clock::now() >= deadline)
        fail<Error>("[TCPStore] could not connect to ", where, " within ", timeout.count(), " ms (", last, ")");
      std::this_thread::sleep_for(Millis(20));
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~Client() {
    if (fd >= 0) ::close(fd);
  }

  // One request and its reply. read_timeout bounds the wait for the reply (the server answers WAIT itself at its
  // deadline; this is the guard against a server that died).
  std::vector<Bytes> request(const char* op, Cmd cmd, const std::vector<Bytes>& args, Millis read_timeout) {
    std::lock_guard<std::mutex> l(mu);
    EMBER_CHECK(!broken, "[TCPStore] ", op, ": the connection to ", where, " was lost earlier");
    std::string out(1, static_cast<char>(cmd));
    put_list(out, args);
    if (!send_all(fd, out)) {
      broken = true;
      fail<Error>("[TCPStore] ", op, ": connection to ", where, " lost (", std::strerror(errno), ")");
    }
    std::string in;
    std::vector<Bytes> reply;
    auto deadline = Clock::now() + read_timeout;
    for (;;) {
      size_t pos = 0;
      if (parse_list(in, pos, reply)) return reply;
      auto left = std::chrono::duration_cast<Millis>(deadline - Clock::now()).count();
      pollfd p{fd, POLLIN, 0};
      int n = left <= 0 ? 0 : ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1 << 30)));
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) {
        broken = true;
        fail<Error>("[TCPStore] ", op, ": no reply from ", where, " within ", read_timeout.count(), " ms");
      }
      char buf[65536];
      ssize_t got = ::recv(fd, buf, sizeof buf, 0);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        broken = true;
        fail<Error>("[TCPStore] ", op, ": connection to ", where, " closed by the server");
      }
      in.append(buf, static_cast<size_t>(got));
    }
  }
};

namespace {
// Requests that the server answers at once still get a generous bound (the server could be busy).
constexpr Millis kReplyTimeout{120000};
}  // namespace

TCPStore::TCPStore(std::string host, int port, int world_size, bool is_master, Millis timeout, bool wait_for_workers)
    : Store(timeout), host_(std::move(host)), port_(port) {
  EMBER_CHECK_VALUE(port >= 0 && port < 65536, "[TCPStore] invalid port ", port);
  if (is_master) {
    server_ = std::make_unique<Server>(port);
    port_ = server_->bound_port();
  }
  client_ = std::make_unique<Client>(is_master ? std::string("127.0.0.1") : host_, port_, timeout);
  if (world_size > 0) {
    if (add(kWorkersKey, 1) == world_size) set(kReadyKey, {});
    if (is_master && wait_for_workers) {
      try {
        wait({kReadyKey}, timeout);
      } catch (const Error&) {
        fail<Error>("[TCPStore] timed out after ", timeout.count(), " ms waiting for ", world_size,
                    " workers to join (", add(kWorkersKey, 0), " did)");
      }
    }
  }
}

TCPStore::~TCPStore() {
  client_.reset();
  server_.reset();
}

void TCPStore::set(const std::string& key, const Bytes& value) {
  client_->request("set", SET, {to_bytes(key), value}, kReplyTimeout);
}

Bytes TCPStore::get(const std::string& key) {
  wait({key}, timeout_);
  auto r = client_->request("get", GET, {to_bytes(key)}, kReplyTimeout);
  EMBER_CHECK(r.size() == 2 && to_string(r[0]) == "1", "[TCPStore] get: key '", key, "' was deleted while waiting");
  return r[1];
}

int64_t TCPStore::add(const std::string& key, int64_t delta) {
  auto r = client_->request("add", ADD, {to_bytes(key), store_detail::int_bytes(delta)}, kReplyTimeout);
  EMBER_CHECK(r.size() == 2, "[TCPStore] add: bad reply");
  if (to_string(r[0]) != "1") throw Error(to_string(r[1]));
  return store_detail::parse_int(r[1], key);
}

Bytes TCPStore::compare_set(const std::string& key, const Bytes& expected, const Bytes& desired) {
  auto r = client_->request("compare_set", CAS, {to_bytes(key), expected, desired}, kReplyTimeout);
  EMBER_CHECK(r.size() == 1, "[TCPStore] compare_set: bad reply");
  return r[0];
}

bool TCPStore::delete_key(const std::string& key) {
  auto r = client_->request("delete_key", DEL, {to_bytes(key)}, kReplyTimeout);
  return r.size() == 1 && to_string(r[0]) == "1";
}

int64_t TCPStore::num_keys() {
  auto r = client_->request("num_keys", NUM, {}, kReplyTimeout);
  EMBER_CHECK(r.size() == 1, "[TCPStore] num_keys: bad reply");
  return store_detail::parse_int(r[0], "num_keys");
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  std::vector<Bytes> args;
  for (const auto& k : keys) args.push_back(to_bytes(k));
  auto r = client_->request("check", CHECK, args, kReplyTimeout);
  return r.size() == 1 && to_string(r[0]) == "1";
}

void TCPStore::wait(const std::vector<std::string>& keys, Millis timeout) {
  timeout = resolve(timeout);
  std::vector<Bytes> args{store_detail::int_bytes(timeout.count())};
  for (const auto& k : keys) args.push_back(to_bytes(k));
  auto r = client_->request("wait", WAIT, args, timeout + kReplyTimeout);
  if (r.size() != 1 || to_string(r[0]) != "1") throw Error(store_detail::timeout_message("TCPStore", keys, timeout));
}

}  // namespace ember::distributed
