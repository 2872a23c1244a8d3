#pragma once
// The input with its header's checksum made right again (as a PNG fuzzer fixes CRCs): nearly every
// mutation of a header breaks the checksum, and the parsers behind it must still see them. Empty
// when the input has no header checksum to fix. Used by load_fuzzer and program_fuzzer.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "ember/io/checksum.h"
#include "ember/io/schema.h"

namespace ember::fuzz {

inline std::string resealed(const uint8_t* data, size_t size) {
  if (size < 8) return {};
  uint64_t len = 0;
  for (int i = 7; i >= 0; --i) len = len << 8 | data[i];
  if (len > size - 8) return {};
  std::string header(reinterpret_cast<const char*>(data), 8 + len);
  try {
    io::detail::seal(header, io::detail::kHeaderChecksumField);
  } catch (const std::logic_error&) {
    return {};
  }
  return header + std::string(reinterpret_cast<const char*>(data) + header.size(), size - header.size());
}

}  // namespace ember::fuzz
