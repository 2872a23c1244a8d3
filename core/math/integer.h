#pragma once
// Integer elementwise math whose edge cases every kernel must agree on (core/math/elementwise.h uses
// it for the CPU and CUDA kernels alike), defined once.
#include <cstdint>
#include <type_traits>

#include "ember/core/host_device.h"

namespace ember::integer {

/// a * b wrapping around as PyTorch's integer products do (and not undefined behaviour, as a signed
/// overflow is in C++): computed in uint64_t, whose product is taken modulo 2^64, then narrowed
/// (modulo 2^bits since C++20).
template <typename T>
EMBER_HOST_DEVICE inline T wrapping_mul(T a, T b) {
  static_assert(std::is_integral_v<T>);
  return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

/// Whether a shift by y moves every bit of a T out: y < 0 or y >= T's width (PyTorch's rule).
template <typename T>
EMBER_HOST_DEVICE inline bool shift_out_of_range(T y) {
  constexpr int64_t bits = sizeof(T) * 8;
  if constexpr (std::is_signed_v<T>)
    if (y < 0) return true;
  return static_cast<int64_t>(y) >= bits;
}

/// x << y on the unsigned bits (no signed overflow); 0 for a count out of range.
template <typename T>
EMBER_HOST_DEVICE inline T shift_left(T x, T y) {
  if (shift_out_of_range(y)) return 0;
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(x) << y);
}

/// x >> y, arithmetic for signed T; the sign fill (0 or -1) for a count out of range.
template <typename T>
EMBER_HOST_DEVICE inline T shift_right(T x, T y) {
  if (shift_out_of_range(y)) {
    if constexpr (std::is_signed_v<T>) return x < 0 ? T(-1) : T(0);
    else return T(0);
  }
  return static_cast<T>(x >> y);
}

}  // namespace ember::integer
