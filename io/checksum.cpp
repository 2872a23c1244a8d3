#include "ember/io/checksum.h"

// Inlined from libxxhash's header so that XXH3 is compiled for this machine's vector units
// (-march=native): the packaged library is built for baseline x86-64 (SSE2) and hashes at about
// half the speed.
#define XXH_INLINE_ALL
// NB: GCC 12 flags the AVX-512 intrinsics' deliberately undefined registers; not our code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <xxhash.h>
#pragma GCC diagnostic pop

#include <charconv>
#include <new>
#include <stdexcept>

namespace ember::io::detail {

namespace {
constexpr std::string_view kPrefix = "xxh3:";
}

uint64_t checksum(const void* data, size_t nbytes) { return XXH3_64bits(data, nbytes); }

Hasher::Hasher() : state_(XXH3_createState()) {
  if (state_ == nullptr) throw std::bad_alloc();
  XXH3_64bits_reset(static_cast<XXH3_state_t*>(state_));
}
Hasher::~Hasher() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }
void Hasher::update(const void* data, size_t nbytes) {
  XXH3_64bits_update(static_cast<XXH3_state_t*>(state_), data, nbytes);
}
uint64_t Hasher::digest() const { return XXH3_64bits_digest(static_cast<const XXH3_state_t*>(state_)); }

std::string checksum_text(uint64_t sum) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(kPrefix);
  for (int shift = 60; shift >= 0; shift -= 4) out.push_back(kHex[(sum >> shift) & 0xf]);
  return out;
}

std::optional<uint64_t> parse_checksum(std::string_view text) {
  if (text.size() != kPrefix.size() + 16 || text.substr(0, kPrefix.size()) != kPrefix) return {};
  std::string_view hex = text.substr(kPrefix.size());
  // NB: lowercase only, as written: "A" and "a" parse alike, and a file whose checksum text
  // changed must not pass for the one written.
  for (char c : hex)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return {};
  uint64_t sum = 0;
  auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), sum, 16);
  if (ec != std::errc() || end != hex.data() + hex.size()) return {};
  return sum;
}

}  // namespace ember::io::detail

namespace ember::io::detail {

namespace {
// Where the 16 digits of the sealed field's checksum start in `text`, or npos when the field is
// absent or appears more than once.
size_t seal_digits(std::string_view text, std::string_view field) {
  size_t at = text.find(field);
  if (at == std::string_view::npos || text.find(field, at + 1) != std::string_view::npos) return std::string_view::npos;
  size_t digits = at + field.size() + kPrefix.size();
  if (digits + 16 > text.size() || text.substr(at + field.size(), kPrefix.size()) != kPrefix) return std::string_view::npos;
  return digits;
}
}  // namespace

void seal(std::string& text, std::string_view field) {
  size_t digits = seal_digits(text, field);
  if (digits == std::string::npos) throw std::logic_error("seal: the text does not hold its checksum field once");
  text.replace(digits, 16, 16, '0');
  std::string sum = checksum_text(checksum(text.data(), text.size()));
  text.replace(digits, 16, sum.substr(kPrefix.size()));
}

SealCheck check_seal(std::string_view text, std::string_view field) {
  size_t digits = seal_digits(text, field);
  if (digits == std::string_view::npos) return text.find(field) == std::string_view::npos ? SealCheck::Missing : SealCheck::Mismatch;
  std::optional<uint64_t> stored = parse_checksum(text.substr(digits - kPrefix.size(), kPrefix.size() + 16));
  if (!stored) return SealCheck::Mismatch;
  std::string copy(text);
  copy.replace(digits, 16, 16, '0');
  return checksum(copy.data(), copy.size()) == *stored ? SealCheck::Valid : SealCheck::Mismatch;
}

}  // namespace ember::io::detail
