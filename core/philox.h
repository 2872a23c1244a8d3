#pragma once
// Philox 4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC 2011), the
// counter-based generator under ember::Generator, for the host and for CUDA kernels alike: 32-bit
// draw number d of a stream with key `seed` is word d % 4 of the block philox(d / 4, seed). A kernel
// that gives element i draw counter + i therefore draws exactly what the CPU does (dropout's masks
// are the same on both devices).
#include <cstdint>

#include "ember/core/host_device.h"

namespace ember {

struct PhiloxBlock {
  uint32_t w[4];
};

/// Philox 4x32's round multipliers and key increments (core/philox_run.cpp runs the same rounds in
/// vector lanes).
inline constexpr uint32_t kPhiloxM0 = 0xD2511F53, kPhiloxM1 = 0xCD9E8D57, kPhiloxW0 = 0x9E3779B9,
                          kPhiloxW1 = 0xBB67AE85;

/// The four 32-bit words of block `counter` of the stream keyed by `key`.
EMBER_HOST_DEVICE inline PhiloxBlock philox4x32(uint64_t counter, uint64_t key) {
  constexpr uint32_t kM0 = kPhiloxM0, kM1 = kPhiloxM1, kW0 = kPhiloxW0, kW1 = kPhiloxW1;
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(kM0) * c0;
    const uint64_t p1 = static_cast<uint64_t>(kM1) * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0;
    const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c0 = n0;
    c1 = static_cast<uint32_t>(p1);
    c2 = n2;
    c3 = static_cast<uint32_t>(p0);
    k0 += kW0;
    k1 += kW1;
  }
  return {{c0, c1, c2, c3}};
}

/// 32-bit draw number `draw` of the stream keyed by `seed` (Generator::next_u32 at that counter).
EMBER_HOST_DEVICE inline uint32_t philox_u32(uint64_t seed, uint64_t draw) {
  return philox4x32(draw >> 2, seed).w[draw & 3];
}

/// Uniform in [0, 1) with the top 24 bits of one word: every uniform float Ember draws.
EMBER_HOST_DEVICE inline float uniform_float_of(uint32_t word) { return static_cast<float>(word >> 8) * 0x1.0p-24f; }

/// Uniform in [0, 1) with the top 53 bits of two words, `hi` the first drawn: every uniform double.
EMBER_HOST_DEVICE inline double uniform_double_of(uint32_t hi, uint32_t lo) {
  return static_cast<double>(((static_cast<uint64_t>(hi) << 32) | lo) >> 11) * 0x1.0p-53;
}

/// Uniform in [0, 1) with 24 random bits from one draw (Generator::uniform_float).
EMBER_HOST_DEVICE inline float philox_uniform_float(uint64_t seed, uint64_t draw) {
  return uniform_float_of(philox_u32(seed, draw));
}

/// Uniform in [0, 1) with 53 random bits from draws `draw` (high word) and `draw` + 1
/// (Generator::uniform_double, two next_u32 calls).
EMBER_HOST_DEVICE inline double philox_uniform_double(uint64_t seed, uint64_t draw) {
  return uniform_double_of(philox_u32(seed, draw), philox_u32(seed, draw + 1));
}

}  // namespace ember
