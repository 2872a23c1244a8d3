#include "ember/distributed/tcp_store.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "ember/core/error.h"
#include "ember/distributed/error.h"

namespace ember::distributed {
namespace {

enum Op : uint8_t { kSet = 0, kGet = 1, kAdd = 2, kCheck = 3 };
constexpr uint32_t kMaxKey = 1u << 16;
constexpr uint64_t kMaxValue = 1ull << 30;

template <typename T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <typename T>
T take(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string errno_text() { return std::strerror(errno); }

// The addresses of host:port for a TCP socket (IPv4 or IPv6).
addrinfo* resolve(const std::string& host, int port, bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  if (passive) hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), std::to_string(port).c_str(),
                         &hints, &res);
  if (rc != 0)
    throw DistributedError(::ember::detail::str("TCPStore: cannot resolve '", host, "': ",
                                                ::gai_strerror(rc)));
  return res;
}

}  // namespace

// The server: one thread polling the listening socket, the clients and a wake-up pipe.
class TCPStore::Server {
 public:
  Server(const std::string& host, int port) {
    addrinfo* res = resolve(host, port, true);
    std::string last_error = "no address";
    for (addrinfo* a = res; a && listen_fd_ < 0; a = a->ai_next) {
      int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      int one = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
        listen_fd_ = fd;
      } else {
        last_error = errno_text();
        ::close(fd);
      }
    }
    ::freeaddrinfo(res);
    if (listen_fd_ < 0)
      throw DistributedError(::ember::detail::str("TCPStore: cannot serve on ", host, ":", port,
                                                  ": ", last_error));
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    EMBER_CHECK(::pipe2(wake_, O_CLOEXEC) == 0, "TCPStore: pipe failed: ", errno_text());
    thread_ = std::thread([this] { loop(); });
  }
  ~Server() {
    char c = 0;
    (void)!::write(wake_[1], &c, 1);
    thread_.join();
    for (auto& [fd, buf] : clients_) ::close(fd);
    ::close(listen_fd_);
    ::close(wake_[0]);
    ::close(wake_[1]);
  }
  int port() const { return port_; }

 private:
  void loop() {
    for (;;) {
      std::vector<pollfd> fds{{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
      for (auto& [fd, buf] : clients_) fds.push_back({fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[0].revents) return;
      if (fds[1].revents & POLLIN) {
        int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd >= 0) {
          int one = 1;
          ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          clients_[fd];
        }
      }
      for (size_t i = 2; i < fds.size(); ++i)
        if (fds[i].revents) serve(fds[i].fd);
    }
  }

  // Reads what `fd` sent and answers every complete request; drops the client on EOF or error.
  void serve(int fd) {
    std::string& buf = clients_[fd];
    char chunk[65536];
    for (;;) {
      ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n > 0) {
        buf.append(chunk, static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n < 0 && errno == EINTR) continue;
      drop(fd);
      return;
    }
    size_t used = 0;
    while (buf.size() - used >= 13) {
      const char* p = buf.data() + used;
      uint8_t op = static_cast<uint8_t>(p[0]);
      uint32_t klen = take<uint32_t>(p + 1);
      if (klen > kMaxKey) return drop(fd);
      if (buf.size() - used < 13 + klen) break;
      uint64_t vlen = take<uint64_t>(p + 5 + klen);
      if (vlen > kMaxValue) return drop(fd);
      if (buf.size() - used < 13 + klen + vlen) break;
      std::string key(p + 5, klen), value(p + 13 + klen, vlen);
      used += 13 + klen + vlen;
      std::string reply;
      switch (op) {
        case kSet: data_[key] = std::move(value); put<uint8_t>(reply, 1); break;
        case kGet: {
          auto it = data_.find(key);
          put<uint8_t>(reply, it != data_.end());
          put<uint64_t>(reply, it != data_.end() ? it->second.size() : 0);
          if (it != data_.end()) reply += it->second;
          break;
        }
        case kAdd: {
          // Kept as decimal text, as FileStore keeps it, so get() reads the same in both.
          if (value.size() != sizeof(int64_t)) return drop(fd);
          auto it = data_.find(key);
          int64_t current = it != data_.end() ? std::strtoll(it->second.c_str(), nullptr, 10) : 0;
          current += take<int64_t>(value.data());
          data_[key] = std::to_string(current);
          put<int64_t>(reply, current);
          break;
        }
        case kCheck: put<uint8_t>(reply, data_.count(key) != 0); break;
        default: return drop(fd);
      }
      if (!send_all(fd, reply)) return drop(fd);
    }
    buf.erase(0, used);
  }

  // Answers are small (a get may be larger): wait for the socket while it is full.
  static bool send_all(int fd, const std::string& data) {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
      if (n > 0) {
        done += static_cast<size_t>(n);
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        pollfd p{fd, POLLOUT, 0};
        if (::poll(&p, 1, 1000) <= 0) return false;  // a stopped client must not stall the store
      } else if (!(n < 0 && errno == EINTR)) {
        return false;
      }
    }
    return true;
  }

  void drop(int fd) {
    ::close(fd);
    clients_.erase(fd);
  }

  int listen_fd_ = -1;
  int port_ = 0;
  int wake_[2] = {-1, -1};
  std::map<int, std::string> clients_;      // fd -> bytes received, not yet a whole request
  std::map<std::string, std::string> data_;  // touched only by the server thread
  std::thread thread_;
};

TCPStore::TCPStore(const std::string& host, int port, bool is_server, Milliseconds timeout)
    : Store(timeout), host_(host), port_(port) {
  EMBER_CHECK_VALUE(port >= 0 && port < 65536, "TCPStore: port must be in [0, 65535], got ", port);
  if (is_server) {
    server_ = std::make_unique<Server>(host, port);
    port_ = server_->port();
  } else {
    EMBER_CHECK_VALUE(port > 0, "TCPStore: a client needs the server's port, got 0");
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string last_error;
  while (fd_ < 0) {
    addrinfo* res = resolve(host_, port_, false);
    for (addrinfo* a = res; a && fd_ < 0; a = a->ai_next) {
      int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
        fd_ = fd;
      } else {
        last_error = errno_text();
        ::close(fd);
      }
    }
    ::freeaddrinfo(res);
    if (fd_ >= 0) break;
    if (std::chrono::steady_clock::now() >= deadline)
      throw StoreError(::ember::detail::str("TCPStore: cannot connect to ", host_, ":", port_,
                                            " within ", timeout.count(), " ms: ", last_error));
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
}

std::string TCPStore::request(uint8_t op, const std::string& key, const std::string& value) {
  EMBER_CHECK_VALUE(key.size() <= kMaxKey && value.size() <= kMaxValue,
                    "TCPStore: key or value too long (", key.size(), " and ", value.size(), " bytes)");
  std::string msg;
  put<uint8_t>(msg, op);
  put<uint32_t>(msg, static_cast<uint32_t>(key.size()));
  msg += key;
  put<uint64_t>(msg, value.size());
  msg += value;
  std::lock_guard<std::mutex> lock(mutex_);
  static const char* const names[] = {"set", "get", "add", "check"};
  auto fail = [&](const std::string& why) {
    throw StoreError(::ember::detail::str("TCPStore: lost the store at ", host_, ":", port_, " during ",
                                          names[op], " of '", key, "' (", why, ")"));
  };
  for (size_t done = 0; done < msg.size();) {
    ssize_t n = ::send(fd_, msg.data() + done, msg.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(errno_text());
    done += static_cast<size_t>(n);
  }
  // An answer that does not come within the timeout means the server is hung (a stopped rank 0).
  auto read_exact = [&](size_t n) {
    std::string out(n, '\0');
    size_t done = 0;
    while (done < n) {
      pollfd p{fd_, POLLIN, 0};
      int ready = ::poll(&p, 1, static_cast<int>(timeout().count()));
      if (ready == 0)
        throw StoreError(::ember::detail::str(
            "TCPStore: no answer from the store at ", host_, ":", port_, " to ", names[op], " of '", key,
            "' within ", timeout().count(), " ms: the process serving it (rank 0 under "
            "init_process_group) is stopped or hung"));
      if (ready < 0) {
        if (errno == EINTR) continue;
        fail(errno_text());
      }
      ssize_t got = ::read(fd_, out.data() + done, n - done);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) fail(got == 0 ? "connection closed" : errno_text());
      done += static_cast<size_t>(got);
    }
    return out;
  };
  switch (op) {
    case kSet:
    case kCheck: return read_exact(1);
    case kAdd: return read_exact(8);
    default: {
      std::string head = read_exact(9);
      std::string body = read_exact(take<uint64_t>(head.data() + 1));
      return head.substr(0, 1) + body;
    }
  }
}

void TCPStore::set(const std::string& key, const std::string& value) { request(kSet, key, value); }

int64_t TCPStore::add(const std::string& key, int64_t amount) {
  std::string v;
  put<int64_t>(v, amount);
  return take<int64_t>(request(kAdd, key, v).data());
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  for (const std::string& k : keys)
    if (request(kCheck, k, "")[0] == 0) return false;
  return true;
}

bool TCPStore::try_get(const std::string& key, std::string& value) {
  std::string r = request(kGet, key, "");
  if (r[0] == 0) return false;
  value = r.substr(1);
  return true;
}

}  // namespace ember::distributed
