#pragma once
// The zip container of torch.save (PyTorch 1.6+), read from bytes in memory (a mapped file) with
// minizip. torch.save stores every entry uncompressed and aligned, so an entry's bytes are used
// where they lie in the file; a deflated entry (an archive re-zipped by another tool) is
// inflated into memory, bounded by what deflate can expand to.
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace ember::io::detail {

/// One entry of the archive, its data range already checked against the file.
struct ZipEntry {
  std::string name;
  uint64_t offset = 0;             // file offset of the (stored or compressed) data
  uint64_t compressed_size = 0;
  uint64_t size = 0;               // uncompressed
  uint32_t crc32 = 0;
  bool stored = true;              // method 0; otherwise deflate (method 8)
};

class ZipArchive {
 public:
  /// Reads the central directory of the `size` bytes at `bytes` (which must outlive the
  /// archive); every failure a ValueError "io: '<file>' is not a valid PyTorch zip archive: ...".
  ZipArchive(const uint8_t* bytes, size_t size, std::string file);

  const std::map<std::string, ZipEntry>& entries() const { return entries_; }
  /// The entry called `name`, or null.
  const ZipEntry* find(const std::string& name) const;
  /// The entry's uncompressed bytes: a pointer into the file for a stored entry (`owned` left
  /// empty), or a buffer inflated into `owned`.
  const uint8_t* read(const ZipEntry& entry, std::shared_ptr<uint8_t[]>& owned) const;
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
