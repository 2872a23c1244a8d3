#pragma once
// The running scans of core/kernels/scan.h (cumprod, logcumsumexp, cummax, cummin) along one row,
// left to right: the CUDA kernel runs one row per thread through scan_row, and tests/cuda check it
// against the CPU kernel (core/cpu/scan_kernel.cpp), whose steps it repeats operation by operation.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ember/core/host_device.h"
#include "ember/core/kernels/op_codes.h"

namespace ember::cuda {

namespace scan {

template <typename T>
EMBER_HOST_DEVICE inline bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  return false;
}

/// a * b, wrapping for integers (signed overflow is undefined in C++); bool (as uint8 0/1) too.
template <typename T>
EMBER_HOST_DEVICE inline T times(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

/// log(e^a + e^b) without overflow; two equal infinities give themselves (not inf - inf = NaN).
template <typename T>
EMBER_HOST_DEVICE inline T log_add_exp(T a, T b) {
  if (a != a || b != b) return std::numeric_limits<T>::quiet_NaN();
  const T lo = a < b ? a : b, hi = a < b ? b : a;
  if (lo == hi && std::isinf(lo)) return hi;
  return hi + std::log1p(std::exp(lo - hi));
}

}  // namespace scan

/// Scans the row x[0, n) into o[0, n) (and, for Cummax and Cummin, idx[0, n)); the caller has
/// refused Logcumsumexp for integer T. WithLog false leaves Logcumsumexp out (a no-op), for a
/// kernel that has it apart.
template <typename T, bool WithLog = std::is_floating_point_v<T>>
EMBER_HOST_DEVICE inline void scan_row(ScanOp op, const T* x, T* o, int64_t* idx, int64_t n) {
  switch (op) {
    case ScanOp::Cumprod: {
      // float runs in double, as the CPU kernel's and PyTorch's: [2, 3.4e38, 0] is [2, inf, 0].
      using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
      Acc acc = Acc(1);
      for (int64_t j = 0; j < n; ++j) o[j] = static_cast<T>(acc = scan::times<Acc>(acc, x[j]));
      break;
    }
    case ScanOp::Logcumsumexp:
      if constexpr (WithLog && std::is_floating_point_v<T>) {
        // float runs in double, rounded once per element, as the CPU kernel's
        using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
        Acc acc = -std::numeric_limits<Acc>::infinity();
        for (int64_t j = 0; j < n; ++j) o[j] = static_cast<T>(acc = scan::log_add_exp<Acc>(acc, static_cast<Acc>(x[j])));
      }
      break;
    case ScanOp::Cummax:
    case ScanOp::Cummin: {
      if (n == 0) break;
      const bool is_max = op == ScanOp::Cummax;
      T best = x[0];
      int64_t at = 0;
      for (int64_t j = 0; j < n; ++j) {
        const T v = x[j];
        // NB: >= (<=): a tie moves the index on, as PyTorch's kernel does; a NaN is the extreme.
        if (scan::is_nan(v) || (!scan::is_nan(best) && (is_max ? v >= best : v <= best))) {
          best = v;
          at = j;
        }
        o[j] = best;
        idx[j] = at;
      }
      break;
    }
  }
}

}  // namespace ember::cuda
