#pragma once
// io::CheckpointManager for distributed checkpoints (checkpoint.h): a directory of
// "step-<12 digits>/" checkpoints that the ranks of a job save together.
//
//   DistributedCheckpointManager manager("runs/a", /*keep_last=*/3, group);
//   if (auto e = manager.latest()) { CheckpointReader r(e->path); ...; start = e->step + 1; }
//   manager.save(state, step);          // every rank calls it
//   manager.save_async(state, step);    // the same, written in the background
//
// Only committed checkpoints that verify count (a directory with its index.json, every file
// loading with every checksum verified): latest() skips, with a warning naming it and the reason,
// one that does not, and tells "none yet" from "none verifies"; after each save rank 0 removes the
// checkpoints older than the newest keep_last that verify (never the one just written). Rank 0
// also removes what killed saves leave ("*.tmp", "*.old") when the manager is made.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/distributed/checkpoint.h"
#include "ember/io/async_saver.h"
#include "ember/io/retention.h"

namespace ember::distributed {

class DistributedCheckpointManager {
 public:
  struct Entry {
    int64_t step;
    std::string path;
  };
  /// Manages `dir` (created if absent) for `group` (default: the default group).
  DistributedCheckpointManager(std::string dir, int64_t keep_last,
                               std::shared_ptr<ProcessGroup> group = nullptr);
  /// Saves the checkpoint of `step` with every rank (save_checkpoint), then prunes; its path.
  std::string save(const CheckpointState& state, int64_t step);
  /// save() in the background: returns once this rank's state is copied (io::AsyncSaver), and
  /// training may change it from then on. Every rank calls it, in the same order. The write's
  /// collectives run on a group of their own, as two threads' collectives on one group would
  /// interleave: the one set_async_group() gave, else one made with new_group() at the first
  /// call. The next save, save_async or wait() waits for it and throws its error.
  std::string save_async(const CheckpointState& state, int64_t step);
  /// Blocks until this rank's part of the background save is committed; rethrows its error.
  void wait();
  /// The group the background writes use: the same ranks as the manager's, and used by nothing
  /// else.
  void set_async_group(std::shared_ptr<ProcessGroup> group);
  /// Committed checkpoints, oldest first (not verified).
  std::vector<Entry> checkpoints() const;
  /// The newest committed checkpoint whose files verify (damaged newer ones are skipped with a
  /// warning). nullopt when there is no committed checkpoint; when there are some but none
  /// verifies, an ember::Error naming each and why, unless `allow_fresh_start`.
  std::optional<Entry> latest(bool allow_fresh_start = false) const;
  std::string path_for(int64_t step) const;
  const std::string& dir() const { return dir_; }
  int64_t keep_last() const { return keep_last_; }

 private:
  std::string dir_;
  int64_t keep_last_;
  std::shared_ptr<ProcessGroup> group_;
  std::shared_ptr<ProcessGroup> async_group_;
  std::shared_ptr<io::AsyncSaver> saver_ = std::make_shared<io::AsyncSaver>();
  std::shared_ptr<io::detail::VerifyCache> verified_ = std::make_shared<io::detail::VerifyCache>();
};

}  // namespace ember::distributed
