#pragma once
// What a checkpoint manager keeps and what it restores, for the single-file manager
// (io/checkpoint_manager.h) and the distributed one alike: only checkpoints that verify count.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ember::io::detail {

/// Remembers which checkpoints verified, keyed by path and by a fingerprint of the files there
/// (inode, size, modification and change times): a file that is rewritten, damaged in place or
/// replaced is verified again. Shared by a manager and its background saves.
class VerifyCache {
 public:
  /// Whether the checkpoint at `path` verifies, calling `verify` (which throws when it does not)
  /// unless the files are unchanged since the last call; `reason` gets the error when it fails.
  bool verifies(const std::string& path, const std::function<void()>& verify, std::string* reason = nullptr);
  /// Records that `path` is known good as it is now (a checkpoint just written).
  void trust(const std::string& path);

 private:
  struct Known {
    std::string fingerprint;
    bool ok;
    std::string reason;
  };
  std::mutex mutex_;
  std::map<std::string, Known> known_;
};

/// A checkpoint of a run directory: its step and its path (a file, or a directory of files).
struct Checkpoint {
  int64_t step;
  std::string path;
};

/// The index of the newest of `checkpoints` (sorted oldest first) for which `load(i)` does not
/// throw, trying them newest first; each that throws is skipped with a warning naming it and the
/// reason ("<who>: skipping checkpoint ..."). nullopt when there are none; when there are some
/// but none loads, an ember::Error naming each and why ("<who>: '<dir>' holds N checkpoints but
/// none loads"), unless `allow_fresh_start`, which makes it a warning and nullopt.
std::optional<size_t> newest_that_loads(const std::vector<Checkpoint>& checkpoints,
                                        const std::function<void(size_t)>& load, bool allow_fresh_start,
                                        const std::string& who, const std::string& dir);

/// The indices (into checkpoints sorted oldest first, `n` of them) that pruning deletes so that
/// the newest `keep` checkpoints that verify remain: every checkpoint older than the keep-th
/// newest verifying one. `just_written` is never deleted and counts as verifying; checkpoints that
/// do not verify are not counted, and those newer than the keep-th verifying one are left alone.
/// `verifies(i)` is asked newest first, and only as far as needed.
std::vector<size_t> checkpoints_to_prune(size_t n, size_t keep, std::optional<size_t> just_written,
                                         const std::function<bool(size_t)>& verifies);

}  // namespace ember::io::detail
