#include "ember/data/idx.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"

namespace ember::data {

namespace {

constexpr int kMaxDims = 8;
// NB: no idx file of interest comes near this (Fashion-MNIST's largest is 47 MB); the cap turns a
// corrupt header into an error instead of an attempt to allocate exabytes.
constexpr uint64_t kMaxPayloadBytes = uint64_t{1} << 34;

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

/// Reads up to n bytes; returns how many were read (fewer only at the end of the data).
size_t read_some(gzFile file, const std::string& path, void* out, size_t n) {
  size_t done = 0;
  auto* dst = static_cast<unsigned char*>(out);
  while (done < n) {
    // NB: gzread takes an unsigned count; read in chunks well under its limit.
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - done, size_t{1} << 24));
    const int got = gzread(file, dst + done, chunk);
    if (got < 0) {
      int code = 0;
      const char* msg = gzerror(file, &code);
      EMBER_CHECK(false, "read_idx: cannot read '", path, "': ", msg ? msg : "zlib error");
    }
    if (got == 0) break;
    done += static_cast<size_t>(got);
  }
  return done;
}

uint32_t big_endian_u32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

}  // namespace

Tensor read_idx(const std::string& path) {
  errno = 0;
  GzFile file(gzopen(path.c_str(), "rb"));
  if (file == nullptr) {
    const int err = errno;
    EMBER_CHECK_AS(FileNotFoundError, err != ENOENT, "read_idx: cannot open '", path, "': ", std::strerror(err));
    EMBER_CHECK(false, "read_idx: cannot open '", path, "': ", err ? std::strerror(err) : "out of memory");
  }

  unsigned char magic[4];
  const size_t got_magic = read_some(file.get(), path, magic, 4);
  EMBER_CHECK_VALUE(got_magic == 4, "read_idx: '", path, "' is truncated: ", got_magic,
                    " bytes, shorter than the 4-byte idx header");
  EMBER_CHECK_VALUE(magic[0] == 0 && magic[1] == 0, "read_idx: '", path,
                    "' is not an idx file: bad magic number (its first two bytes must be 0)");
  DType dtype = kUInt8;
  switch (magic[2]) {
    case 0x08: dtype = kUInt8; break;
    case 0x0C: dtype = kInt32; break;
    case 0x0D: dtype = kFloat32; break;
    case 0x0E: dtype = kFloat64; break;
    default:
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", magic[2]);
      throw ValueError(detail::str("read_idx: '", path, "': unsupported element type ", code,
                                   " (supported: 0x08 uint8, 0x0c int32, 0x0d float32, 0x0e float64)"));
  }
  const int ndim = magic[3];
  EMBER_CHECK_VALUE(ndim >= 1 && ndim <= kMaxDims, "read_idx: '", path, "': ", ndim,
                    " dimensions; an idx file has 1 to ", kMaxDims);

  unsigned char dim_bytes[4 * kMaxDims];
  const size_t want_dims = 4 * static_cast<size_t>(ndim);
  const size_t got_dims = read_some(file.get(), path, dim_bytes, want_dims);
  EMBER_CHECK_VALUE(got_dims == want_dims, "read_idx: '", path, "' is truncated in its header: ",
                    ndim, " dimensions need ", want_dims, " bytes of sizes, found ", got_dims);
  std::vector<int64_t> shape(ndim);
  const uint64_t elem = itemsize(dtype);
  uint64_t payload = elem;
  for (int d = 0; d < ndim; ++d) {
    shape[d] = big_endian_u32(dim_bytes + 4 * d);
    // Checked before multiplying: the product stays below 2^34 * 2^32, no overflow.
    payload *= static_cast<uint64_t>(shape[d]);
    EMBER_CHECK_VALUE(payload <= kMaxPayloadBytes, "read_idx: '", path, "': dimensions ",
                      shape_str(IntArrayRef(shape.data(), d + 1)), "... exceed the ", kMaxPayloadBytes,
                      "-byte limit");
  }

  // NB: read before allocating the tensor, in growing chunks, so that a header promising far more
  // than the file holds fails on the short read instead of allocating the promise up front.
  std::vector<unsigned char> bytes;
  size_t have = 0;
  while (have < payload) {
    const size_t want = std::min<uint64_t>(payload - have, std::max<uint64_t>(have, 1 << 20));
    bytes.resize(have + want);
    const size_t got = read_some(file.get(), path, bytes.data() + have, want);
    have += got;
    if (got < want) break;
  }
  EMBER_CHECK_VALUE(have == payload, "read_idx: '", path, "' is truncated: dimensions ",
                    shape_str(shape), " need ", payload, " bytes of data, found ", have);
  unsigned char extra;
  EMBER_CHECK_VALUE(read_some(file.get(), path, &extra, 1) == 0, "read_idx: '", path,
                    "' has bytes after the ", payload, " bytes that dimensions ", shape_str(shape),
                    " need");

  Tensor out = empty(shape, dtype);
  auto* dst = static_cast<unsigned char*>(out.data_ptr());
  if (elem == 1) {
    std::memcpy(dst, bytes.data(), payload);
  } else {
    // NB: big-endian on disk, little-endian in memory (Ember's hosts: x86-64, AArch64).
    for (size_t i = 0; i < payload; i += elem)
      std::reverse_copy(bytes.data() + i, bytes.data() + i + elem, dst + i);
  }
  return out;
}

}  // namespace ember::data
