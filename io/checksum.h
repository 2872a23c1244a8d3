#pragma once
// Checksums: XXH3-64 (libxxhash) of a tensor's bytes, and of a header or index (seal()), written in the file as
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
/// Parses checksum_text's form (lowercase digits only); nullopt for anything else.
std::optional<uint64_t> parse_checksum(std::string_view text);

/// A text that carries its own checksum: `field` (say `"ember.checksum":"`) appears in it once,
/// followed by checksum_text() of the whole text as it reads with that checksum's 16 digits
/// replaced by zeros. So every byte of the text is covered, the checksum's own digits included.
/// seal() fills in the digits of a text written with checksum_text(0) there.
void seal(std::string& text, std::string_view field);
enum class SealCheck { Valid, Missing, Mismatch };
/// Valid; Missing when `field` is absent; Mismatch when the digits are not the text's checksum
/// (or the field is malformed or repeated).
SealCheck check_seal(std::string_view text, std::string_view field);

}  // namespace ember::io::detail
