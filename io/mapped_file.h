#pragma once
// A whole file mapped into memory, privately: tensors loaded from it borrow its pages (no copy),
// and an in-place edit of such a tensor copies the page it touches instead of writing the file.
// A later save that replaces the file (by rename) leaves this mapping valid.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace ember::io::detail {

class MappedFile {
 public:
  /// Maps `path`; an ember::Error naming the file when it cannot be opened or mapped.
  /// `populate` faults every page in up front (for a caller that reads it all).
  static std::shared_ptr<MappedFile> open(const std::string& path, bool populate = false);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  MappedFile(std::string path, uint8_t* data, size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  std::string path_;
  uint8_t* data_;
  size_t size_;
};

}  // namespace ember::io::detail
