#pragma once
// Per-tensor checksums: XXH3-64 (libxxhash) of a tensor's bytes, written in the file as
// "xxh3:<16 lowercase hex digits>" so the text has a fixed width (the header is sized before
// the data is hashed).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ember::io::detail {

uint64_t checksum(const void* data, size_t nbytes);

/// checksum() of bytes that arrive in pieces: update() each piece in order, then digest().
class Hasher {
 public:
  Hasher();
  ~Hasher();
  Hasher(const Hasher&) = delete;
  Hasher& operator=(const Hasher&) = delete;
  void update(const void* data, size_t nbytes);
  uint64_t digest() const;

 private:
  void* state_;  // XXH3_state_t, kept out of this header
};
/// "xxh3:00ff..." (always 21 characters).
std::string checksum_text(uint64_t sum);
/// Parses checksum_text's form; nullopt for anything else.
std::optional<uint64_t> parse_checksum(std::string_view text);

}  // namespace ember::io::detail
