#pragma once
// What a rank knows of its peers, so that an operation that fails can say which peer it lost:
// each rank's process (pid, and which machine and pid namespace it runs in) and the addresses its
// connection to each peer may be printed with, exchanged once through the store when a group
// connects. A backend's error names the address it lost ("Connection closed by peer
// [127.0.0.1]:41234"): the rank that address belongs to is named. A peer on this machine is also
// looked up in /proc, which tells a stopped process (SIGSTOP: its sockets stay open, so only a
// timeout shows it) from one that exited.
//
// NB: a Gloo pair prints its peer as the peer's end of their socket, or (when the peer connected
// before this side's connect() ran, which then overwrites it) as the address the peer listened
// on; each rank publishes both, and either names it.
//
//   auto peers = detail::Peers::exchange(store, rank, size, ends);
//   peers->explain("allreduce", e.what());
//   // "allreduce: rank 1 (pid 4242) has exited; lost the connection to rank 1 ([127.0.0.1]:41234)
//   //  (Gloo: ... Connection closed by peer [127.0.0.1]:41234)"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/distributed/store.h"

namespace ember::distributed::detail {

class Peers {
 public:
  struct Peer {
    std::vector<std::string> endpoints;  // how this rank's errors may print its connection to it
    int64_t pid = -1;
    std::string machine;  // boot id and pid namespace ("" when unknown): /proc applies when equal
    uint64_t start = 0;   // its start time in /proc (a reused pid has another)
  };

  /// Publishes this rank's process and `ends` (ends[r]: how the backend may print this rank's end
  /// of its connection to rank r, "[ip]:port") in `store` under "peers/<rank>", and reads every
  /// other rank's (waiting the store's timeout).
  static std::shared_ptr<const Peers> exchange(Store& store, int rank, int size,
                                               const std::vector<std::vector<std::string>>& ends);
  /// A table without the exchange (tests): `peers` by rank.
  Peers(int rank, std::vector<Peer> peers) : rank_(rank), peers_(std::move(peers)) {}

  /// "<what>: <the peers that exited, stopped or whose connection failed> (<backend>: <message>)";
  /// for a timeout in a group of two that finds nothing, the other rank is named as the one that
  /// did not answer.
  std::string explain(const std::string& what, const std::string& message,
                      const std::string& backend = "Gloo") const;
  /// Only the peers' part ("rank 1 (pid 4242) is stopped ..."), "" when nothing is known.
  std::string suspects(const std::string& message, bool timed_out) const;

  /// This process as the table records it.
  static Peer self();

 private:
  int rank_;
  std::vector<Peer> peers_;
};

}  // namespace ember::distributed::detail
