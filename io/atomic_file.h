#pragma once
// Writes a file so that a crash at any moment leaves either the old file or the complete new one:
// the bytes go to a temporary file in the same directory, are flushed to disk, and the temporary
// is renamed over the target (then the directory entry is flushed too). A non-durable write skips
// the flushes and swaps the names instead (see commit()). Destroying an uncommitted AtomicFile
// removes the temporary; the target is never touched.
//
// The target must be a regular file or absent: a directory, device, FIFO or socket there is
// refused. A symlink is followed: its target file is replaced and the link stays. Temporaries
// that killed writers left beside the target (".<name>.tmp.<pid>.<n>" of a process that no longer
// exists) are removed. Every failure is an ember::OSError naming the file and the errno.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <sys/types.h>

namespace ember::io::detail {

class AtomicFile {
 public:
  /// Creates the temporary next to `path` (or next to the file a symlink at `path` names);
  /// `durable` adds the fsyncs (off only for benchmarks and scratch files).
  explicit AtomicFile(std::string path, bool durable = true);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends `n` bytes.
  void write(const void* data, size_t n);
  /// Overwrites `n` bytes at `offset` (already written).
  void write_at(const void* data, size_t n, uint64_t offset);
  /// Flushes, renames over the target and flushes the directory.
  void commit();
  /// The path asked for.
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const char* what, int err) const;
  std::string path_;    // as given (named in errors)
  std::string target_;  // the file replaced: path_, or the file its symlink names
  std::string temp_path_;
  int fd_ = -1;
  bool durable_;
};

/// For a temporary's name ".<name>.tmp.<pid>.<n>": the target's name and the writer's pid;
/// nullopt for any other name.
std::optional<std::pair<std::string_view, pid_t>> temporary_writer(std::string_view file);

/// Removes, from `dir`, the temporaries whose target name `ours` accepts and whose writing process
/// no longer exists; a live writer's temporary is left alone.
void remove_stale_temporaries(const std::string& dir, const std::function<bool(std::string_view)>& ours);

}  // namespace ember::io::detail
