#include "ember/io/pt_zip.h"

#include <unzip.h>
#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <memory>

#include "ember/core/error.h"

namespace ember::io::detail {

namespace {

// minizip reads through these callbacks from the bytes in memory: no second open of the file, and
// the fuzzer's inputs take the same path as files.
struct MemoryStream {
  const uint8_t* data;
  uint64_t size;
  uint64_t pos = 0;
};

voidpf mem_open(voidpf opaque, const void*, int) { return opaque; }
uLong mem_read(voidpf, voidpf stream, void* buf, uLong n) {
  auto* s = static_cast<MemoryStream*>(stream);
  uint64_t left = s->pos < s->size ? s->size - s->pos : 0;
  uLong count = static_cast<uLong>(n < left ? n : left);
  if (count > 0) std::memcpy(buf, s->data + s->pos, count);
  s->pos += count;
  return count;
}
uLong mem_write(voidpf, voidpf, const void*, uLong) { return 0; }
ZPOS64_T mem_tell(voidpf, voidpf stream) { return static_cast<MemoryStream*>(stream)->pos; }
long mem_seek(voidpf, voidpf stream, ZPOS64_T offset, int origin) {
  auto* s = static_cast<MemoryStream*>(stream);
  uint64_t base = 0;
  switch (origin) {
    case ZLIB_FILEFUNC_SEEK_SET: base = 0; break;
    case ZLIB_FILEFUNC_SEEK_CUR: base = s->pos; break;
    case ZLIB_FILEFUNC_SEEK_END: base = s->size; break;
    default: return -1;
  }
  // Offsets are unsigned here; minizip never seeks backwards relative to CUR or END.
  if (offset > s->size || base > s->size - offset) return -1;
  s->pos = base + offset;
  return 0;
}
int mem_close(voidpf, voidpf) { return 0; }
int mem_error(voidpf, voidpf) { return 0; }

struct UnzCloser {
  void operator()(void* f) const { unzClose(f); }
};

constexpr size_t kMaxNameBytes = 4096;

}  // namespace

ZipArchive::ZipArchive(const uint8_t* bytes, size_t size, std::string file)
    : bytes_(bytes), size_(size), file_(std::move(file)) {
  auto fail = [&](const auto&... args) {
    throw ValueError(::ember::detail::str("io: '", file_, "' is not a valid PyTorch zip archive: ", args...));
  };
  // NB: minizip finds a zip64 archive by its locator alone and would read a file cut inside its
  // last record; a complete archive ends with the end-of-central-directory record and its comment.
  bool has_end = false;
  for (size_t back = 22; back <= size && back <= 22 + 0xffff && !has_end; ++back) {
    const uint8_t* p = bytes + size - back;
    has_end = std::memcmp(p, "PK\x05\x06", 4) == 0 && 22 + static_cast<size_t>(p[20] | (p[21] << 8)) == back;
  }
  if (!has_end) fail("no end of central directory record at the end of the file (truncated?)");
  MemoryStream stream{bytes, size};
  zlib_filefunc64_def funcs{};
  funcs.zopen64_file = mem_open;
  funcs.zread_file = mem_read;
  funcs.zwrite_file = mem_write;
  funcs.ztell64_file = mem_tell;
  funcs.zseek64_file = mem_seek;
  funcs.zclose_file = mem_close;
  funcs.zerror_file = mem_error;
  funcs.opaque = &stream;
  std::unique_ptr<void, UnzCloser> zip(unzOpen2_64("memory", &funcs));
  if (!zip) fail("no readable end of central directory (truncated?)");
  unz_global_info64 global{};
  if (unzGetGlobalInfo64(zip.get(), &global) != UNZ_OK) fail("cannot read the central directory");
  // A central directory record takes at least 46 bytes: a count beyond that is a lie.
  if (global.number_entry > size / 46) fail("the central directory claims ", global.number_entry, " entries");
  int rc = unzGoToFirstFile(zip.get());
  for (uint64_t i = 0; i < global.number_entry; ++i) {
    if (rc != UNZ_OK) fail("entry ", i, " of ", global.number_entry, " cannot be read (code ", rc, ")");
    unz_file_info64 info{};
    char name[kMaxNameBytes + 1] = {};
    if (unzGetCurrentFileInfo64(zip.get(), &info, name, sizeof(name), nullptr, 0, nullptr, 0) != UNZ_OK)
      fail("entry ", i, " has an unreadable header");
    if (info.size_filename > kMaxNameBytes) fail("entry ", i, " has a name of ", info.size_filename, " bytes");
    ZipEntry e;
    e.name.assign(name, info.size_filename);
    if (e.name.find('\0') != std::string::npos) fail("entry ", i, " has a NUL byte in its name");
    if (info.flag & 1) fail("entry '", e.name, "' is encrypted");
    // NB: torch.save stores every entry (PyTorch's zip writer has no compression); an archive
    // re-zipped by another tool is refused rather than inflated, which would let a small file claim
    // any amount of memory.
    if (info.compression_method != 0)
      fail("entry '", e.name, "' is compressed (zip method ", info.compression_method,
           "); torch.save stores entries uncompressed: extract the archive and load the file torch.save wrote");
    e.size = info.uncompressed_size;
    e.crc32 = static_cast<uint32_t>(info.crc);
    if (info.compressed_size != e.size)
      fail("stored entry '", e.name, "' has ", info.compressed_size, " bytes but declares ", e.size);
    // Opening the entry reads and checks its local header; the data starts after it.
    if (unzOpenCurrentFile(zip.get()) != UNZ_OK) fail("entry '", e.name, "' has an invalid local header");
    e.offset = unzGetCurrentFileZStreamPos64(zip.get());
    unzCloseCurrentFile(zip.get());
    if (e.offset > size || e.size > size - e.offset)
      fail("entry '", e.name, "' (", e.size, " bytes at offset ", e.offset,
           ") runs past the end of the file (", size, " bytes): truncated?");
    if (!entries_.emplace(e.name, e).second) fail("entry '", e.name, "' appears twice");
    rc = unzGoToNextFile(zip.get());
  }
  if (rc != UNZ_END_OF_LIST_OF_FILE && global.number_entry > 0)
    fail("the central directory holds more entries than the ", global.number_entry, " it declares");
}

const ZipEntry* ZipArchive::find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

bool ZipArchive::check_crc(const ZipEntry& e) const {
  uLong crc = crc32_z(0L, Z_NULL, 0);
  crc = crc32_z(crc, data(e), e.size);
  return static_cast<uint32_t>(crc) == e.crc32;
}

}  // namespace ember::io::detail
