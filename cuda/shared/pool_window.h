#pragma once
// Window bounds of 2-D pooling along one axis, for an output position o (core/cpu/pool_kernel.cpp
// works out the same bounds for a whole row at once): a window reads input positions
// start + t * dilation for taps t in [begin, end); `padded` is its length counting padding, capped
// at in + pad (avg_pool's divisor with count_include_pad). Adaptive windows are
// [floor(o in / out), ceil((o + 1) in / out)). tests/cuda pool with these on the host and compare
// with the CPU kernels.
#include <cstdint>

#include "ember/core/host_device.h"

namespace ember::cuda {

/// I is the index type: int64_t on the host, int32_t in kernels (a 64-bit division is a subroutine
/// call on a GPU; the kernels check first that the sizes fit).
template <typename I>
struct PoolWindow {
  I start, begin, end, padded;
};

namespace detail {
// Smallest t >= 0 with offset + t * step >= bound.
template <typename I>
EMBER_HOST_DEVICE inline I first_at_least(I bound, I offset, I step) {
  const I need = bound - offset;
  return need <= 0 ? I(0) : (need + step - 1) / step;
}
template <typename I>
EMBER_HOST_DEVICE inline I min_of(I a, I b) { return a < b ? a : b; }
template <typename I>
EMBER_HOST_DEVICE inline I max_of(I a, I b) { return a > b ? a : b; }
}  // namespace detail

/// Window o of a pooling with kernel k over `in` positions.
template <typename I>
EMBER_HOST_DEVICE inline PoolWindow<I> pool_window(I o, I in, I k, I stride, I pad, I dilation) {
  using namespace detail;
  const I start = o * stride - pad;
  const I begin = min_of(k, first_at_least(I(0), start, dilation));
  const I end = max_of(begin, min_of(k, first_at_least(in, start, dilation)));
  return {start, begin, end, min_of(start + k, in + pad) - start};
}

/// Adaptive window o of `out` over `in` positions (taps are positions: start 0, dilation 1).
template <typename I>
EMBER_HOST_DEVICE inline PoolWindow<I> adaptive_window(I o, I in, I out) {
  const I begin = o * in / out, end = ((o + 1) * in + out - 1) / out;
  return {0, begin, end, end - begin};
}

/// The divisor of avg_pool's window (rows r, columns c): 0 for a window with no input in it (its
/// output is 0), the override when given (nonzero), else its padded or its valid size.
template <typename I>
EMBER_HOST_DEVICE inline I avg_pool_divisor(const PoolWindow<I>& r, const PoolWindow<I>& c, bool adaptive,
                                            bool count_include_pad, I divisor_override) {
  const I valid = (r.end - r.begin) * (c.end - c.begin);
  if (valid == 0) return 0;
  if (adaptive) return valid;
  if (divisor_override != 0) return divisor_override;
  return count_include_pad ? r.padded * c.padded : valid;
}

}  // namespace ember::cuda
