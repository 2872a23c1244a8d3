#pragma once
// Row primitives shared by the reduction kernels (reduce_kernel.cpp, argreduce_kernel.cpp,
// normalization_kernel.cpp, softmax_kernel.cpp).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace ember::cpu {

/// Lanes of the fixed-order sums below: a multiple of every packet size (4 AVX-512 registers of
/// float), so no block ends in a partial packet.
inline constexpr int64_t kSumLanes = 64;

/// A read-only run of `len` values at p: a fixed-size map when len is a
/// std::integral_constant<int64_t, N> (what sum_blocks passes), else dynamic.
template <typename T, typename Len>
auto segment(const T* p, Len len) {
  if constexpr (std::is_integral_v<Len>)
    return Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>(p, len);
  else
    return Eigen::Map<const Eigen::Array<T, Len::value, 1>>(p);
}

/// Sum over i in [0, n) of the values f(i, len) gives for [i, i + len): kSumLanes partial sums
/// over whole blocks from the start of the run, the whole packets of the last partial block
/// added into the first lanes, a fixed tree over the lanes, then the last values one by one. The
/// order depends on n alone.
/// f(i, len) gets len as a std::integral_constant: segment(x + i, len), or an elementwise
/// expression of such segments.
/// NB: Eigen's own sum() of a mapped run starts its vector loop at the first aligned element and
/// adds the ones before it separately, so its rounding would depend on the data's address;
/// ember promises bits that depend on values, shapes and the thread count only. The lanes are a
/// plain (aligned) array, so Eigen neither peels the block adds nor the final sum.
template <typename T, typename F>
T sum_blocks(int64_t n, const F& f) {
  using Lanes = Eigen::Array<T, kSumLanes, 1>;
  constexpr int64_t kPacket = std::max<int64_t>(1, 64 / static_cast<int64_t>(sizeof(T)));  // divides kSumLanes
  Lanes acc;
  int64_t i = 0;
  if (n >= kSumLanes) {
    acc = f(0, std::integral_constant<int64_t, kSumLanes>{});
    for (i = kSumLanes; i + kSumLanes <= n; i += kSumLanes) acc += f(i, std::integral_constant<int64_t, kSumLanes>{});
  } else {
    acc.setZero();
  }
  // The last partial block: whole packets into the first lanes (fixed-size segments, so Eigen
  // neither peels nor runs its generic dynamic-size loop), then single values after the lanes'
  // sum (NB: scalar stores into the lanes would stall the vector loads of that sum).
  for (int64_t lane = 0; i + kPacket <= n; i += kPacket, lane += kPacket)
    acc.template segment<kPacket>(lane) += f(i, std::integral_constant<int64_t, kPacket>{});
  T s = acc.sum();
  for (; i < n; ++i) s += f(i, std::integral_constant<int64_t, 1>{})(0);
  return s;
}

/// Sum of x[0, n) in an order that depends on n alone (sum_blocks).
template <typename T>
T sum_run(const T* x, int64_t n) {
  return sum_blocks<T>(n, [x](int64_t i, auto len) { return segment(x + i, len); });
}

/// Sum of x[0, n) accumulated in double (sum_blocks' order): exact for up to 2^29 floats of one
/// value, so the mean of a constant run is that value and its deviations are exactly 0, as
/// PyTorch's Welford statistics give (a float sum would leave ~1e-7 relative noise, which
/// normalisation by a tiny variance amplifies).
template <typename T>
double sum_run_wide(const T* x, int64_t n) {
  return sum_blocks<double>(n, [x](int64_t i, auto len) { return segment(x + i, len).template cast<double>(); });
}

/// Max (IsMax) or min of x[0, n), n > 0; a NaN anywhere gives NaN. Eigen's own maxCoeff carries
/// one accumulator and waits on its latency; kWidth independent lanes run at load speed.
template <bool IsMax, typename T>
T extreme_run(const T* x, int64_t n) {
  constexpr int64_t kWidth = 64;
  using Block = Eigen::Array<T, kWidth, 1>;
  using Op = std::conditional_t<IsMax, Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>,
                                Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>>;
  auto tail = [&](int64_t i) {
    Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>> v(x + i, n - i);
    return IsMax ? v.template maxCoeff<Eigen::PropagateNaN>() : v.template minCoeff<Eigen::PropagateNaN>();
  };
  if (n < kWidth) return tail(0);
  Block acc = Eigen::Map<const Block>(x);
  int64_t i = kWidth;
  for (; i + kWidth <= n; i += kWidth) acc = acc.binaryExpr(Eigen::Map<const Block>(x + i), Op());
  T m = IsMax ? acc.template maxCoeff<Eigen::PropagateNaN>() : acc.template minCoeff<Eigen::PropagateNaN>();
  return i < n ? Op()(m, tail(i)) : m;
}

/// max |x[i]| over [0, n) (0 when n = 0); NaN where some x[i] is NaN, inf where one is infinite:
/// extreme_run's lanes over the absolute values, in one pass. For kernels that check an operand's
/// range before sums that reorder or leave out terms (conv_winograd.cpp, conv_kernel.cpp).
template <typename T>
T max_magnitude(const T* x, int64_t n) {
  constexpr int64_t kWidth = 64;
  using Block = Eigen::Array<T, kWidth, 1>;
  using Op = Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>;
  T m(0);
  int64_t i = 0;
  if (n >= kWidth) {
    Block acc = Eigen::Map<const Block>(x).abs();
    for (i = kWidth; i + kWidth <= n; i += kWidth) acc = acc.binaryExpr(Eigen::Map<const Block>(x + i).abs(), Op());
    m = acc.template maxCoeff<Eigen::PropagateNaN>();
  }
  for (; i < n; ++i) m = Op()(m, std::abs(x[i]));
  return m;
}

/// Index of the first element of x[0, n) equal to v, the max (IsMax) or min of x (the first NaN
/// when v is NaN).
template <bool IsMax, typename T>
int64_t first_extreme_index(const T* x, int64_t n, T v) {
  constexpr int64_t kWidth = 64;
  using Block = Eigen::Map<const Eigen::Array<T, kWidth, 1>>;
  bool nan = v != v;
  int64_t b = 0;
  // Skip whole blocks that cannot hold it, with vectorised reductions (Eigen's any() is a
  // short-circuit scalar loop). A block sum is NaN when the block holds a NaN (or both infinities:
  // then the scalar scan below just goes on).
  for (; b + kWidth <= n; b += kWidth) {
    Block blk(x + b);
    T s = nan ? blk.sum() : IsMax ? blk.maxCoeff() : blk.minCoeff();
    if (nan ? s != s : s == v) break;
  }
  for (int64_t r = b; r < n; ++r)
    if (nan ? x[r] != x[r] : x[r] == v) return r;
  return n - 1;
}

}  // namespace ember::cpu
