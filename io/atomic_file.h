#pragma once
// Writes a file so that a crash at any moment leaves either the old file or the complete new one:
// the bytes go to a temporary file in the same directory, are flushed to disk, and the temporary
// is renamed over the target (then the directory entry is flushed too). A non-durable write skips
// the flushes and swaps the names instead (see commit()). Destroying an
// uncommitted AtomicFile removes the temporary; the target is never touched.
#include <cstddef>
#include <cstdint>
#include <string>

namespace ember::io::detail {

class AtomicFile {
 public:
  /// Creates the temporary next to `path`; `durable` adds the fsyncs (off only for benchmarks
  /// and scratch files).
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
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const char* what) const;
  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  bool durable_;
};

}  // namespace ember::io::detail
