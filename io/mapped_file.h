#pragma once
// A whole file mapped into memory, privately, for io::load's opt-in mmap mode: tensors loaded from
// it borrow its pages (no copy, read on first touch), and an in-place edit of such a tensor copies
// the page it touches instead of writing the file. A later save that replaces the file (by rename)
// leaves this mapping valid.
//
// A plain mapping sees what happens to its file: truncating it would make the next touch of a page
// past the new end a SIGBUS, and rewriting it in place would change values already loaded. So the
// mapping holds a read lease on the file (fcntl F_SETLEASE): when another process (or thread)
// opens the file for writing or truncates it, the kernel holds that call back and signals this
// process, whose handler copies the mapped bytes into anonymous memory at the same address and
// releases the lease; then the other call goes on, and the tensors keep their values. open()
// returns null when no lease can be had (a file of another user, a network file system): the
// caller then reads the file instead of mapping it.
//
// NB: an in-place edit of a mapped tensor made on another thread while that copy runs may be lost.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ember::io::detail {

class MappedFile {
 public:
  /// Maps the `size` bytes of the open file `fd` (named `path` in errors) under a read lease;
  /// nullptr when the lease cannot be taken; an ember::OSError naming the file when it cannot be
  /// mapped. `populate` reads every page ahead (for a caller that reads it all).
  static std::shared_ptr<MappedFile> open(const std::string& path, int fd, size_t size, bool populate = false);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }
  /// Whether the lease was broken and the bytes now live in memory of this process's own.
  bool detached() const;

 private:
  MappedFile(std::string path, uint8_t* data, size_t size, int slot)
      : path_(std::move(path)), data_(data), size_(size), slot_(slot) {}
  std::string path_;
  uint8_t* data_;
  size_t size_;
  int slot_;  // in the table the lease-break handler reads; -1 for an empty file
};

}  // namespace ember::io::detail
