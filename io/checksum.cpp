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
  uint64_t sum = 0;
  auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), sum, 16);
  if (ec != std::errc() || end != hex.data() + hex.size()) return {};
  return sum;
}

}  // namespace ember::io::detail
