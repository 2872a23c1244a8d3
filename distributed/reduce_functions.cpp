#include "ember/distributed/reduce_functions.h"

#include <algorithm>
#include <complex>

#include "ember/core/error.h"

namespace ember::distributed::detail {
namespace {

// Combines two values of T (not the 16-bit floats, which combine in float).
template <typename T>
T combine(ReduceOp op, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return (op == ReduceOp::Min || op == ReduceOp::Product) ? (a && b) : (a || b);
  } else if constexpr (is_complex_v<T>) {
    return op == ReduceOp::Product ? a * b : a + b;  // min/max are refused before this runs
  } else {
    switch (op) {
      case ReduceOp::Product: return static_cast<T>(a * b);
      case ReduceOp::Min: return std::min(a, b);
      case ReduceOp::Max: return std::max(a, b);
      default: return static_cast<T>(a + b);
    }
  }
}

// NB: min/max of floats propagate NaN as PyTorch does (std::min would drop it depending on order).
template <typename T>
T combine_nan(ReduceOp op, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if ((op == ReduceOp::Min || op == ReduceOp::Max) && (a != a || b != b)) return a != a ? a : b;
  }
  return combine(op, a, b);
}

}  // namespace

ReduceFunction reduce_function(DType dtype, ReduceOp op) {
  return visit_dtype(dtype, [op](auto tag) -> ReduceFunction {
    using T = typename decltype(tag)::type;
    return [op](void* out, const void* a, const void* b, size_t n) {
      T* o = static_cast<T*>(out);
      const T* x = static_cast<const T*>(a);
      const T* y = static_cast<const T*>(b);
      if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
        for (size_t i = 0; i < n; ++i) {
          float fx = static_cast<float>(x[i]), fy = static_cast<float>(y[i]);
          o[i] = T(combine_nan<float>(op, fx, fy));
        }
      } else {
        for (size_t i = 0; i < n; ++i) o[i] = combine_nan<T>(op, x[i], y[i]);
      }
    };
  });
}

void divide_by(void* data, DType dtype, size_t n, int divisor) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      T* p = static_cast<T*>(data);
      for (size_t i = 0; i < n; ++i) p[i] = T(static_cast<float>(p[i]) / static_cast<float>(divisor));
    } else if constexpr (std::is_floating_point_v<T> || is_complex_v<T>) {
      T* p = static_cast<T*>(data);
      for (size_t i = 0; i < n; ++i) p[i] = p[i] / static_cast<T>(divisor);
    } else {
      EMBER_INTERNAL_ASSERT(false, "divide_by: ", dtype, " is not floating");
    }
  });
}

}  // namespace ember::distributed::detail
