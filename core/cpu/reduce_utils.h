#pragma once
// Row primitives shared by the reduction kernels (reduce_kernel.cpp, argreduce_kernel.cpp).
#include <Eigen/Core>
#include <cstdint>
#include <type_traits>

namespace ember::cpu {

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
