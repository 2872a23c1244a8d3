#pragma once
// The zip container of torch.save (PyTorch 1.6+), read from bytes in memory (a mapped file) with
// minizip. torch.save stores every entry uncompressed and aligned, so an entry's bytes are used
// where they lie in the file. A compressed entry is refused, not inflated: torch never writes
// one, and inflating would let a small file claim gigabytes of memory.
#include <cstdint>
#include <map>
#include <string>

namespace ember::io::detail {

/// One entry of the archive, its data range already checked against the file.
struct ZipEntry {
  std::string name;
  uint64_t offset = 0;  // file offset of the data
  uint64_t size = 0;
  uint32_t crc32 = 0;
};

class ZipArchive {
 public:
  /// Reads the central directory of the `size` bytes at `bytes` (which must outlive the
  /// archive); every failure a ValueError "io: '<file>' is not a valid PyTorch zip archive: ...".
  ZipArchive(const uint8_t* bytes, size_t size, std::string file);

  const std::map<std::string, ZipEntry>& entries() const { return entries_; }
  /// The entry called `name`, or null.
  const ZipEntry* find(const std::string& name) const;
  /// The entry's bytes, where they lie in the file.
  const uint8_t* data(const ZipEntry& entry) const { return bytes_ + entry.offset; }
  /// True when the entry's bytes match the CRC-32 the archive records for it.
  bool check_crc(const ZipEntry& entry) const;
  const std::string& file() const { return file_; }

 private:
  const uint8_t* bytes_;
  size_t size_;
  std::string file_;
  std::map<std::string, ZipEntry> entries_;
};

}  // namespace ember::io::detail
