#include "ember/core/generator.h"

#include <cmath>
#include <numbers>

namespace ember {
namespace {

// Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011).
std::array<uint32_t, 4> philox(uint64_t counter, uint64_t key) {
  constexpr uint32_t kM0 = 0xD2511F53, kM1 = 0xCD9E8D57, kW0 = 0x9E3779B9, kW1 = 0xBB67AE85;
  uint32_t c[4] = {static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0, 0};
  uint32_t k[2] = {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)};
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = static_cast<uint64_t>(kM0) * c[0];
    uint64_t p1 = static_cast<uint64_t>(kM1) * c[2];
    uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0];
    uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1];
    c[0] = n0;
    c[1] = static_cast<uint32_t>(p1);
    c[2] = n2;
    c[3] = static_cast<uint32_t>(p0);
    k[0] += kW0;
    k[1] += kW1;
  }
  return {c[0], c[1], c[2], c[3]};
}

}  // namespace

void Generator::manual_seed(uint64_t seed) { set_state({seed, 0}); }

void Generator::set_state(State state) {
  state_ = state;
  cached_block_ = ~0ULL;
}

uint32_t Generator::next_u32() {
  uint64_t block = state_.counter >> 2;
  if (block != cached_block_) {
    block_ = philox(block, state_.seed);
    cached_block_ = block;
  }
  return block_[state_.counter++ & 3];
}

uint64_t Generator::next_u64() {
  uint64_t hi = next_u32();
  return (hi << 32) | next_u32();
}

float Generator::uniform_float() { return static_cast<float>(next_u32() >> 8) * 0x1.0p-24f; }

double Generator::uniform_double() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double Generator::normal() {
  double u1 = 1.0 - uniform_double();  // (0, 1]: log stays finite
  double u2 = uniform_double();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

uint64_t Generator::below(uint64_t n) {
  // Lemire's multiply-shift with rejection.
  while (true) {
    uint64_t x = next_u64();
    __uint128_t m = static_cast<__uint128_t>(x) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low >= n || low >= (-n) % n) return static_cast<uint64_t>(m >> 64);
  }
}

Generator& default_generator() {
  static Generator generator;
  return generator;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace ember
