#pragma once
// Starting a job's process group as torchrun configures it: RANK, WORLD_SIZE, LOCAL_RANK,
// MASTER_ADDR and MASTER_PORT from the environment (init_method "env://", the default), or a
// file store ("file:///shared/dir"), or "tcp://host:port".
//
//   distributed::init_process_group();                 // under ember-run: everything from env
//   auto& pg = distributed::default_group();
//   pg.allreduce(t)->wait();
//   distributed::destroy_process_group();
//
// Timeouts. The rendezvous (every rank joining, checked for a WORLD_SIZE that differs or a RANK
// claimed twice: rendezvous.h) waits 5 minutes by default, then fails naming the missing ranks; a
// rank that cannot reach rank 0's store fails within the same time. The group's operations wait
// 30 minutes for a peer by default (torch's for gloo), then fail naming the operation and, where
// this rank can tell, the peer that died or stopped. A timeout given in InitOptions (Python:
// init_process_group(timeout=timedelta(...))) sets both, as torch's does.
#include <memory>
#include <optional>
#include <string>

#include "ember/distributed/process_group.h"
#include "ember/distributed/rendezvous.h"
#include "ember/distributed/store.h"

namespace ember::distributed {

/// How long an operation of a group waits for a peer by default: 30 minutes, torch's for gloo.
inline constexpr Milliseconds kDefaultTimeout{1800000};

struct InitOptions {
  /// "gloo" (CPU); "nccl" needs a build with EMBER_CUDA.
  std::string backend = "gloo";
  /// "env://", "file:///path" or "tcp://host:port".
  std::string init_method = "env://";
  /// -1: from RANK / WORLD_SIZE.
  int rank = -1;
  int world_size = -1;
  /// Of every operation of the group, and of the rendezvous unless rendezvous_timeout is set;
  /// unset: kDefaultTimeout (30 minutes) for the operations, kDefaultRendezvousTimeout (5
  /// minutes) for the rendezvous.
  std::optional<Milliseconds> timeout;
  /// Of the rendezvous alone (joining, and reaching rank 0's store).
  std::optional<Milliseconds> rendezvous_timeout;
};

/// What the environment says (torchrun's variables); fields absent from it are -1 or empty.
struct EnvConfig {
  int rank = -1;
  int world_size = -1;
  int local_rank = -1;
  std::string master_addr;
  int master_port = -1;
};
/// Reads RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT; ValueError naming the variable
/// when one is not an integer.
EnvConfig env_config();

/// The store `options` describe (TCP served by rank 0, or a file store), with the rendezvous
/// timeout; StoreError naming rank 0 when a TCP store is not reached within it.
std::shared_ptr<Store> make_store(const InitOptions& options, int rank, int world_size);
/// Makes a group of a backend that a library registers when it loads: the CUDA backend's library
/// registers "nccl" (core/backend.h says when it is opened).
using ProcessGroupFactory = std::shared_ptr<ProcessGroup> (*)(std::shared_ptr<Store> store, int rank, int world_size,
                                                              Milliseconds timeout);
void register_process_group_backend(const std::string& name, ProcessGroupFactory factory);
/// A group of the named backend over `store` (its keys under `prefix`).
std::shared_ptr<ProcessGroup> new_process_group(const std::string& backend,
                                                std::shared_ptr<Store> store, const std::string& prefix,
                                                int rank, int world_size, Milliseconds timeout);

/// A new group of every rank of the default group, over its store (torch.distributed.new_group):
/// its collectives never meet the default group's, so another thread may run them (a background
/// checkpoint write). Every rank must call it, in the same order; `backend` "" takes the default
/// group's.
std::shared_ptr<ProcessGroup> new_group(const std::string& backend = "");
/// Starts the default group: the rendezvous, then the backend's connections. ValueError when one
/// is already running, a setting is missing, or the ranks disagree (WORLD_SIZE, a RANK claimed
/// twice); StoreError when not every rank joins within the rendezvous timeout.
void init_process_group(const InitOptions& options = {});
/// Whether init_process_group ran (and destroy_process_group did not).
bool is_initialized();
/// The default group; an error when there is none.
ProcessGroup& default_group();
std::shared_ptr<ProcessGroup> default_group_ptr();
/// Stops the default group (waits for its pending operations to finish or fail).
void destroy_process_group();
/// The default group's rank and size, or 0 and 1 without one (a single process).
int get_rank();
int get_world_size();

}  // namespace ember::distributed
