#pragma once
// Internal to core/cpu/optim_kernel.cpp: fixed-size groups of lanes for the optimizers' update
// kernels. A step runs as one Eigen pass over a parameter and all its state, a cache line of lanes
// at a time, instead of a chain of tensor ops with temporaries.
//
// NB: every element goes through the same fixed-size vector code, the last partial group of lanes
// included (through a padded copy). Eigen's dynamic-size loops peel a scalar head that depends on
// the buffer's address, and the compiler may contract scalar and vector code into FMAs
// differently, so the same step on a differently aligned copy of a parameter (a resumed run) would
// not be bitwise identical.
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ember/core/cpu/parallel.h"

namespace ember::cpu {

/// Lanes per group: one 64-byte cache line (16 floats, 8 doubles).
template <typename T>
inline constexpr int kLanes = static_cast<int>(64 / sizeof(T));

/// A group of lanes of a T* (writable) or const T* (read-only) array.
template <typename P>
using Lanes = Eigen::Map<std::conditional_t<
    std::is_const_v<P>,
    const Eigen::Array<std::remove_const_t<P>, kLanes<std::remove_const_t<P>>, 1>,
    Eigen::Array<P, kLanes<P>, 1>>>;

/// f(Lanes...) for every group of lanes of n-element arrays, across threads for large n. The last
/// partial group runs on a copy padded with ones and only its real lanes are written back.
template <typename T, typename F, typename... P>
void for_lanes(int64_t n, const F& f, P*... ptrs) {
  static_assert((std::is_same_v<std::remove_const_t<P>, T> && ...));
  constexpr int64_t N = kLanes<T>;
  parallel_for(0, n, kElementwiseGrain, [&](int64_t lo, int64_t hi) {
    [&]<size_t... I>(std::index_sequence<I...>) {
      const auto base = std::make_tuple(ptrs...);
      std::array<std::array<T, N>, sizeof...(P)> pad;
      for (int64_t i = lo; i < hi; i += N) {
        const int64_t len = std::min(N, hi - i);
        const bool full = len == N;
        if (!full) {
          for (auto& b : pad) b.fill(T(1));
          (std::copy_n(std::get<I>(base) + i, len, pad[I].data()), ...);
        }
        f(Lanes<P>(full ? std::get<I>(base) + i : pad[I].data())...);
        if (!full) {
          auto put = [&]<typename Q>(const T* src, Q* dst) {
            if constexpr (!std::is_const_v<Q>) std::copy_n(src, len, dst);
          };
          (put(pad[I].data(), std::get<I>(base) + i), ...);
        }
      }
    }
    (std::index_sequence_for<P...>{});
  });
}

/// m = lerp(m, x, w) as PyTorch's CPU kernel computes it (two forms, picked by |w| < 0.5).
template <typename M, typename X, typename T>
void lerp_into(M&& m, const X& x, T w) {
  if (std::abs(w) < T(0.5))
    m = m + (x - m) * w;
  else
    m = x - (x - m) * (T(1) - w);
}

}  // namespace ember::cpu
