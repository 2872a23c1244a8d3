#include "ember/core/generator.h"

#include <cmath>
#include <numbers>

#include "ember/core/philox.h"

namespace ember {

void Generator::manual_seed(uint64_t seed) { set_state({seed, 0}); }

void Generator::set_state(State state) {
  state_ = state;
  cached_block_ = ~0ULL;
}

uint32_t Generator::next_u32() {
  uint64_t block = state_.counter >> 2;
  if (block != cached_block_) {
    const PhiloxBlock b = philox4x32(block, state_.seed);
    block_ = {b.w[0], b.w[1], b.w[2], b.w[3]};
    cached_block_ = block;
  }
  return block_[state_.counter++ & 3];
}

uint64_t Generator::next_u64() {
  uint64_t hi = next_u32();
  return (hi << 32) | next_u32();
}

float Generator::uniform_float() { return uniform_float_of(next_u32()); }

double Generator::uniform_double() {
  const uint32_t hi = next_u32();
  return uniform_double_of(hi, next_u32());
}

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
