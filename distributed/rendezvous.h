#pragma once
// The ranks of a job meeting through their store before any backend connects (init_process_group
// runs it): each rank claims its rank and publishes its WORLD_SIZE, checks it against rank 0's,
// and waits until all have joined. Misconfigured jobs fail here, in words, instead of in Gloo
// ("sizeof(impl_) == bytes.size(). 136 vs 272") or after half an hour:
//
//   ValueError  init_process_group: the ranks disagree on WORLD_SIZE: rank 1 says WORLD_SIZE=4,
//               rank 0 says 2
//   ValueError  init_process_group: two processes claim rank 1 (pid 812 on node-a and pid 815 on
//               node-a); give each process its own RANK
//   StoreError  init_process_group: timed out after 300000 ms waiting for the ranks to join: 1 of
//               2 joined; missing: rank 1. ...
//
//   rendezvous(store, rank, world_size, Milliseconds(300000));
//
// A rank that finds a mismatch, or whose wait times out first, publishes it, so every rank
// waiting fails at once with the same message. Keys (under "rendezvous/"): claim/<r> (a counter), rank/<r> ("world_size=<n> pid=<p>
// host=<h>"), joined (a counter of ranks that agree with rank 0) and abort (the first mismatch).
// NB: the store must be new to the job (a TCPStore that rank 0 serves, a new FileStore directory):
// claims left by an earlier job read as a second process on the same rank.
#include "ember/distributed/store.h"

namespace ember::distributed {

/// The default timeout of a rendezvous: 5 minutes (torchrun's join timeout is 10, torch's
/// env:// takes the group's 30); a job whose ranks do not all start fails within it.
inline constexpr Milliseconds kDefaultRendezvousTimeout{300000};

/// Meets the other ranks through `store`; returns once all `world_size` ranks have joined and
/// agree. ValueError when two processes claim `rank` or a rank's WORLD_SIZE differs from rank 0's;
/// StoreError after `timeout` naming how many joined and which ranks are missing.
void rendezvous(Store& store, int rank, int world_size, Milliseconds timeout);

}  // namespace ember::distributed
