#pragma once
// A Store over TCP, as torchrun's: the process with is_server (rank 0) serves it on
// host:port from a thread of its own, and every rank (rank 0 included) is a client. Gloo has no
// such store; this one is small: each request is one message, answered at once, and waits are
// the client polling (store.h).
//
//   TCPStore store("127.0.0.1", 29500, rank == 0, Milliseconds(30000));
//   TCPStore server("127.0.0.1", 0, true);   // port 0: any free port, read back with port()
//
// Wire format (little-endian): a request is op (u8: 0 set, 1 get, 2 add, 3 check), key length
// (u32), key, value length (u64), value; set answers u8 1, get u8 found + u64 length + bytes,
// add the new i64, check u8. Keys up to 64 KiB, values up to 1 GiB.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "ember/distributed/store.h"

namespace ember::distributed {

class TCPStore : public Store {
 public:
  /// Connects to host:port (retrying until `timeout` while the server starts); with is_server,
  /// serves it first (port 0: a free port). DistributedError when it cannot bind, StoreError when
  /// it cannot connect; later, StoreError naming the key when the server does not answer a request
  /// within the timeout (a stopped server) or goes away.
  TCPStore(const std::string& host, int port, bool is_server,
           Milliseconds timeout = Milliseconds(300000));
  ~TCPStore() override;

  void set(const std::string& key, const std::string& value) override;
  int64_t add(const std::string& key, int64_t amount) override;
  bool check(const std::vector<std::string>& keys) override;
  /// The port served or connected to (the one chosen when 0 was asked for).
  int port() const { return port_; }
  const std::string& host() const { return host_; }

 protected:
  bool try_get(const std::string& key, std::string& value) override;

 private:
  class Server;
  /// Sends one request and reads its answer into `reply` (bytes expected: fixed or u64-prefixed).
  std::string request(uint8_t op, const std::string& key, const std::string& value);

  std::string host_;
  int port_;
  std::unique_ptr<Server> server_;
  int fd_ = -1;
  std::mutex mutex_;  // one request at a time on the connection
};

}  // namespace ember::distributed
