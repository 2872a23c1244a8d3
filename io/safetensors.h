#pragma once
// The safetensors container every Ember checkpoint is (FORMAT.md §1): an 8-byte little-endian
// header length, a JSON header {key: {"dtype", "shape", "data_offsets"}, "__metadata__": {...}}
// padded with spaces to a multiple of 8, then the tensor bytes with no holes and no overlaps.
// This layer knows bytes and JSON only; tensors and Ember's schema live above it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ember/core/dtype.h"
#include "ember/core/shape.h"

namespace ember::io::detail {

/// Headers larger than this are refused before anything is allocated for them (as safetensors
/// itself does).
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;
inline constexpr size_t kMaxDims = 64;

/// One tensor's entry in the header; offsets count from the first data byte.
struct TensorRecord {
  std::string key;
  DType dtype;
  DimVector shape;
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t nbytes() const { return end - begin; }
};

struct Header {
  std::vector<TensorRecord> tensors;  // in data order
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;  // file offset of the first data byte
  std::unordered_map<std::string, size_t> index;  // key -> position in tensors
  /// The record for `key`, or null.
  const TensorRecord* find(std::string_view key) const;
};

/// "F32", "BF16", "BOOL", ...: safetensors' dtype names.
std::string_view safetensors_dtype(DType t);

/// Parses and checks the header of a `size`-byte file whose first `available` bytes are at
/// `bytes` (at least the 8 + N of the header, or all there are): lengths, JSON, dtypes, shapes
/// against byte counts (with overflow checks), offsets in range and tiling the data exactly.
/// Every failure is a ValueError "io: '<file>' is not a valid safetensors file: <reason>".
Header parse_header(const uint8_t* bytes, size_t available, uint64_t size, const std::string& file);

/// Refuses (ValueError naming `file` and `what`) bool data holding a byte other than 0 or 1:
/// reading such a byte as a C++ bool is undefined behaviour.
void check_bool_bytes(const uint8_t* bytes, size_t n, const std::string& file, const std::string& what);

/// The 8-byte length and the padded JSON header for `tensors` (in data order) and `metadata`.
std::string format_header(const std::vector<TensorRecord>& tensors,
                          const std::map<std::string, std::string>& metadata);

}  // namespace ember::io::detail
