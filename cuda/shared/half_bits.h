#pragma once
// float <-> float16 and bfloat16, on their bits, for the CUDA copy kernel (ember::Half and
// ember::BFloat16 convert through Eigen, on the host only). Rounding is to nearest even, as
// Eigen's; a NaN stays a NaN (quieted), infinities and signed zeros are kept, float16 subnormals
// are exact. tests/cuda check every float16 and bfloat16 value and many floats against Half and
// BFloat16.
#include <cstdint>
#include <cstring>

#include "ember/core/host_device.h"

namespace ember::cuda {

EMBER_HOST_DEVICE inline uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
EMBER_HOST_DEVICE inline float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/// The float16 nearest to f (ties to even).
EMBER_HOST_DEVICE inline uint16_t float_to_half_bits(float f) {
  const uint32_t u = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u)  // inf or NaN
    return static_cast<uint16_t>(sign | (a > 0x7f800000u ? 0x7e00u | ((a >> 13) & 0x3ffu) : 0x7c00u));
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (a < 0x38800000u) {  // below the smallest normal float16: a subnormal or zero
    // Adding 0.5 puts the float16 subnormal's bits at the bottom of the float's mantissa, rounded
    // to nearest even by the float addition itself.
    const float r = bits_float(a) + 0.5f;
    return static_cast<uint16_t>(sign | (float_bits(r) - 0x3f000000u));
  }
  const uint32_t odd = (a >> 13) & 1u;
  return static_cast<uint16_t>(sign | ((a + 0xc8000fffu + odd) >> 13));  // rebias 127 -> 15, round
}

/// The float16 with bits h, as a float (exact).
EMBER_HOST_DEVICE inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (mant << 13));  // inf, NaN
  if (exp == 0) {  // zero or subnormal: mant * 2^-24
    const float m = static_cast<float>(mant) * 0x1.0p-24f;
    return sign ? -m : m;
  }
  return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

/// The bfloat16 nearest to f (ties to even); NaN becomes the quiet NaN of f's sign.
EMBER_HOST_DEVICE inline uint16_t float_to_bfloat16_bits(float f) {
  const uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) & 0x8000u ? 0xffc0u : 0x7fc0u);
  const uint32_t odd = (u >> 16) & 1u;
  return static_cast<uint16_t>((u + 0x7fffu + odd) >> 16);
}

/// The bfloat16 with bits b, as a float (exact).
EMBER_HOST_DEVICE inline float bfloat16_bits_to_float(uint16_t b) {
  return bits_float(static_cast<uint32_t>(b) << 16);
}

}  // namespace ember::cuda
