#pragma once
// A directory of numbered checkpoints: save one per step, keep the last K, and on resume take the
// newest one that loads, skipping (with a warning) any newer one that is damaged (FORMAT.md §4).
//
//   io::CheckpointManager manager("runs/exp1", /*keep_last=*/3);
//   if (auto ckpt = manager.restore()) { ts.load(ckpt->state); start = ckpt->step; }
//   ...
//   manager.save(ts.to_value(), step);   // runs/exp1/ckpt-000000001200.ember
//   manager.save_async(ts.to_value(), step);  // the same, written in the background
//
// Files are named "ckpt-<step, 12 digits at least>.ember" so that they sort by step; other files
// in the directory are left alone. Each save is atomic (io::save writes a hidden temporary
// ".<name>.tmp.<pid>.<n>", flushes it and renames it), so a crash at any moment leaves every
// earlier checkpoint whole; the temporary a killed save leaves behind is removed by the next
// manager built on the directory or by the next save.
//
// Only checkpoints that verify count: pruning keeps the newest keep_last that load with every
// checksum verified (the one just written among them, never deleted), and restore() tells "no
// checkpoint yet" (nullopt) from "checkpoints exist but none loads" (an error, unless the caller
// opts into a fresh start).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/io/async_saver.h"
#include "ember/io/retention.h"
#include "ember/io/value.h"

namespace ember::io {

class CheckpointManager {
 public:
  /// A checkpoint file and the step it holds.
  struct Entry {
    int64_t step;
    std::string path;
  };
  /// A checkpoint read back: its step, its file and its value (tensors map the file).
  struct Restored {
    int64_t step;
    std::string path;
    Value state;
  };

  /// Manages `dir` (created if absent), keeping the newest `keep_last` (>= 1) checkpoints;
  /// removes temporaries left by killed saves.
  CheckpointManager(std::string dir, int64_t keep_last);

  /// Writes `state` as the checkpoint of `step` (>= 0; an existing one is replaced atomically),
  /// then deletes all but the newest keep_last checkpoints; returns the new file's path.
  std::string save(const Value& state, int64_t step);
  /// save() in the background (io::AsyncSaver): returns once `state` is copied, and training
  /// may change it from then on. Saves run in call order; the next save, save_async or wait()
  /// waits for this one and throws its error. Returns the file's path.
  std::string save_async(const Value& state, int64_t step);
  /// Blocks until the background save in flight is written; rethrows its error.
  void wait();
  /// The newest checkpoint that loads with every checksum verified; damaged newer ones are
  /// skipped with an ember::warn naming the file and the reason. nullopt when the directory
  /// holds no checkpoint; when it holds some but none loads, an ember::Error naming each file
  /// and why, unless `allow_fresh_start` (then a warning and nullopt).
  std::optional<Entry> latest(bool allow_fresh_start = false) const;
  /// latest(), read: its step and value (tensors own their memory).
  std::optional<Restored> restore(bool allow_fresh_start = false) const;

  /// Every checkpoint file present, oldest step first (not verified).
  std::vector<Entry> checkpoints() const;
  /// The file that holds (or would hold) `step`'s checkpoint.
  std::string path_for(int64_t step) const;
  /// The managed directory.
  const std::string& dir() const { return dir_; }
  /// How many checkpoints save() keeps.
  int64_t keep_last() const { return keep_last_; }

 private:
  /// Deletes all but the newest keep_last checkpoints that verify; never `just_written`.
  void prune(const std::string& just_written) const;

  std::string dir_;
  int64_t keep_last_;
  std::shared_ptr<detail::VerifyCache> verified_ = std::make_shared<detail::VerifyCache>();
  // NB: shared, so that managers stay copyable; copies then order their saves together.
  std::shared_ptr<AsyncSaver> saver_ = std::make_shared<AsyncSaver>();
};

/// The newest checkpoint of a run directory that loads, read, without creating or changing
/// anything there (a CheckpointManager's restore() for a reader: an evaluation job, a tool).
/// nullopt when `dir` does not exist or holds no checkpoint; the same error as restore() when
/// it holds checkpoints but none loads, unless `allow_fresh_start`.
std::optional<CheckpointManager::Restored> load_latest(const std::string& dir, bool allow_fresh_start = false);

}  // namespace ember::io
