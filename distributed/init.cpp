#include "ember/distributed/init.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

#include "ember/core/backend.h"
#include "ember/core/error.h"
#include "ember/distributed/error.h"
#include "ember/distributed/file_store.h"
#include "ember/distributed/process_group_gloo.h"
#include "ember/distributed/tcp_store.h"

namespace ember::distributed {
namespace {

std::mutex g_mutex;
std::mutex g_factories_mutex;
std::map<std::string, ProcessGroupFactory> g_factories;  // the backends libraries registered
std::shared_ptr<ProcessGroup> g_default;
std::shared_ptr<Store> g_store;

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return -1;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  EMBER_CHECK_VALUE(*end == '\0' && x >= 0 && x <= 1 << 30, "init_process_group: environment "
                    "variable ", name, " must be a non-negative integer, got '", v, "'");
  return static_cast<int>(x);
}

// "host:port" -> host and port (the host may be [v6]).
std::pair<std::string, int> host_port(const std::string& s, const std::string& what) {
  size_t colon = s.rfind(':');
  EMBER_CHECK_VALUE(colon != std::string::npos && colon + 1 < s.size(), "init_process_group: ",
                    what, " must be host:port, got '", s, "'");
  std::string host = s.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, std::stoi(s.substr(colon + 1))};
}

// The IPv4 address of network interface `name` (GLOO_SOCKET_IFNAME), or "" when it has none.
std::string interface_address(const std::string& name) {
  ifaddrs* all = nullptr;
  if (::getifaddrs(&all) != 0) return "";
  std::string found;
  for (ifaddrs* i = all; i && found.empty(); i = i->ifa_next)
    if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && name == i->ifa_name) {
      char text[INET_ADDRSTRLEN] = {0};
      ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof text);
      found = text;
    }
  ::freeifaddrs(all);
  return found;
}

// This host's address on the route to `master` (a UDP socket connected there sends nothing), or "".
std::string route_address(const std::string& master) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  if (::getaddrinfo(master.c_str(), "9", &hints, &res) != 0 || res == nullptr) return "";
  std::string found;
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in local{};
  socklen_t len = sizeof local;
  if (fd >= 0 && ::connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0) {
    char text[INET_ADDRSTRLEN] = {0};
    ::inet_ntop(AF_INET, &local.sin_addr, text, sizeof text);
    found = text;
  }
  if (fd >= 0) ::close(fd);
  ::freeaddrinfo(res);
  return found;
}

// Where this rank's Gloo accepts its peers: EMBER_GLOO_HOSTNAME (set by ember-run --local-addr),
// else GLOO_SOCKET_IFNAME's address, else the master's loopback for a local job, else this host's
// address on the route to the master, else its name.
std::string listen_host(const std::string& master) {
  const char* h = std::getenv("EMBER_GLOO_HOSTNAME");
  if (h && *h) return h;
  if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname) {
    std::string address = interface_address(ifname);
    EMBER_CHECK_VALUE(!address.empty(), "init_process_group: GLOO_SOCKET_IFNAME names '", ifname,
                      "', which is not a network interface with an IPv4 address here");
    return address;
  }
  if (master.empty() || master == "localhost" || master.rfind("127.", 0) == 0 || master == "::1") return "127.0.0.1";
  if (std::string routed = route_address(master); !routed.empty()) return routed;
  char name[256] = {0};
  ::gethostname(name, sizeof name - 1);
  return name;
}

Milliseconds rendezvous_timeout(const InitOptions& o) {
  return o.rendezvous_timeout.value_or(o.timeout.value_or(kDefaultRendezvousTimeout));
}

}  // namespace

EnvConfig env_config() {
  EnvConfig c;
  c.rank = env_int("RANK");
  c.world_size = env_int("WORLD_SIZE");
  c.local_rank = env_int("LOCAL_RANK");
  c.master_port = env_int("MASTER_PORT");
  if (const char* a = std::getenv("MASTER_ADDR")) c.master_addr = a;
  return c;
}

std::shared_ptr<Store> make_store(const InitOptions& options, int rank, int world_size) {
  const std::string& m = options.init_method;
  const Milliseconds timeout = rendezvous_timeout(options);
  if (m.rfind("file://", 0) == 0) return std::make_shared<FileStore>(m.substr(7), timeout);
  std::string host;
  int port = -1;
  if (m.rfind("tcp://", 0) == 0) {
    std::tie(host, port) = host_port(m.substr(6), "init_method");
  } else {
    EMBER_CHECK_VALUE(m == "env://", "init_process_group: init_method must be env://, "
                      "file://PATH or tcp://HOST:PORT, got '", m, "'");
    EnvConfig env = env_config();
    EMBER_CHECK_VALUE(!env.master_addr.empty(), "init_process_group: env:// needs MASTER_ADDR "
                      "(and MASTER_PORT) in the environment; run under ember-run");
    EMBER_CHECK_VALUE(env.master_port > 0, "init_process_group: env:// needs MASTER_PORT in the "
                      "environment");
    host = env.master_addr;
    port = env.master_port;
  }
  try {
    return std::make_shared<TCPStore>(host, port, rank == 0, timeout);
  } catch (const StoreError& e) {
    throw StoreError(::ember::detail::str(
        "init_process_group: rank ", rank, " of ", world_size, " could not reach the store that rank 0 serves at ",
        host, ":", port, " within ", timeout.count(), " ms: is rank 0 running, with the same MASTER_ADDR and "
        "MASTER_PORT? (", e.what(), ")"));
  } catch (const DistributedError& e) {
    if (rank != 0) throw;
    throw DistributedError(::ember::detail::str(
        "init_process_group: rank 0 cannot serve the store at ", host, ":", port, " (", e.what(),
        "): is the port taken, or a second process given RANK=0?"));
  }
}

void register_process_group_backend(const std::string& name, ProcessGroupFactory factory) {
  std::lock_guard<std::mutex> lock(g_factories_mutex);
  g_factories[name] = factory;
}

std::shared_ptr<ProcessGroup> new_process_group(const std::string& backend,
                                                std::shared_ptr<Store> store, const std::string& prefix,
                                                int rank, int world_size, Milliseconds timeout) {
  auto prefixed = std::make_shared<PrefixStore>(prefix, std::move(store));
  if (backend == "gloo") {
    ProcessGroupGlooOptions o;
    o.timeout = timeout;
    std::string master;
    if (auto* tcp = dynamic_cast<TCPStore*>(prefixed->underlying().get())) master = tcp->host();
    o.hostname = listen_host(master);
    return std::make_shared<ProcessGroupGloo>(std::move(prefixed), rank, world_size, o);
  }
  if (backend == "nccl") {
    // Registered by the CUDA backend's library, opened here if it is not yet.
    const bool cuda = backend_built(DeviceType::CUDA);
    ProcessGroupFactory factory = nullptr;
    {
      std::lock_guard<std::mutex> lock(g_factories_mutex);
      if (auto it = g_factories.find(backend); it != g_factories.end()) factory = it->second;
    }
    if (factory != nullptr) return factory(std::move(prefixed), rank, world_size, timeout);
    EMBER_CHECK(!cuda, "init_process_group: the CUDA backend registered no nccl process group");
    std::string why;  // no backend built, or its library would not open: check_device says which
    try {
      check_device(Device::cuda(0), "nccl");
    } catch (const Error& e) {
      why = e.what();
    }
    throw NotImplementedError("init_process_group: the nccl backend needs Ember's CUDA backend (" + why +
                              "); use gloo for CPU tensors");
  }
  throw ValueError("init_process_group: unknown backend '" + backend + "' (gloo or nccl)");
}

void init_process_group(const InitOptions& options) {
  std::lock_guard<std::mutex> lock(g_mutex);
  EMBER_CHECK_VALUE(!g_default, "init_process_group: the default process group is already "
                    "initialized; call destroy_process_group first");
  EnvConfig env = env_config();
  int rank = options.rank >= 0 ? options.rank : env.rank;
  int size = options.world_size >= 0 ? options.world_size : env.world_size;
  EMBER_CHECK_VALUE(rank >= 0, "init_process_group: no rank given and RANK is not set");
  EMBER_CHECK_VALUE(size >= 1, "init_process_group: no world_size given and WORLD_SIZE is not set");
  EMBER_CHECK_VALUE(rank < size, "init_process_group: rank ", rank, " is not below world_size ", size);
  const Milliseconds timeout = options.timeout.value_or(kDefaultTimeout);
  EMBER_CHECK_VALUE(timeout.count() > 0 && rendezvous_timeout(options).count() > 0,
                    "init_process_group: timeouts must be positive, got ", timeout.count(), " ms and ",
                    rendezvous_timeout(options).count(), " ms");
  std::shared_ptr<Store> store = make_store(options, rank, size);
  rendezvous(*store, rank, size, rendezvous_timeout(options));
  // NB: the group's connections are made under the rendezvous timeout (the store's now); later
  // users of the store (new_group, a checkpoint's coordination) wait as long as an operation.
  g_default = new_process_group(options.backend, store, "default_pg", rank, size, timeout);
  store->set_timeout(timeout);
  g_store = std::move(store);
}

std::shared_ptr<ProcessGroup> new_group(const std::string& backend) {
  static int64_t made = 0;  // NB: never reset: a reused file store refuses keys it has seen
  std::shared_ptr<ProcessGroup> world;
  std::shared_ptr<Store> store;
  std::string prefix;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    EMBER_CHECK_VALUE(g_default != nullptr, "new_group: Default process group has not been "
                      "initialized, please make sure to call init_process_group");
    world = g_default;
    store = g_store;
    prefix = "group_" + std::to_string(++made);
  }
  return new_process_group(backend.empty() ? world->backend() : backend, std::move(store), prefix,
                           world->rank(), world->size(), world->timeout());
}

bool is_initialized() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_default != nullptr;
}

std::shared_ptr<ProcessGroup> default_group_ptr() {
  std::lock_guard<std::mutex> lock(g_mutex);
  // NB: a ValueError with PyTorch's words, which scripts and tests match on.
  EMBER_CHECK_VALUE(g_default != nullptr, "distributed: Default process group has not been initialized, "
                    "please make sure to call init_process_group");
  return g_default;
}

ProcessGroup& default_group() { return *default_group_ptr(); }

void destroy_process_group() {
  std::shared_ptr<ProcessGroup> pg;
  std::shared_ptr<Store> store;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    pg = std::move(g_default);
    store = std::move(g_store);
  }
  // NB: rank 0 serves the TCP store; it leaves last, so peers still reading it are not cut off.
  if (pg && pg->size() > 1) {
    try {
      pg->barrier()->wait();
    } catch (const std::exception&) {
      // a broken group: nothing left to wait for
    }
  }
}

int get_rank() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_default ? g_default->rank() : 0;
}

int get_world_size() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_default ? g_default->size() : 1;
}

}  // namespace ember::distributed
