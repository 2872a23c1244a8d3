// CPU kernels for sorting and running sums along rows (core/kernels/sort.h): std::sort or
// std::stable_sort of an index permutation per row, rows split over threads; running sums left to
// right per row in the row's own dtype (so a row's result does not depend on the thread count).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>

#include "ember/core/cpu/parallel.h"
#include "ember/core/kernels/sort.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

// Strict weak order with NaN above every number (NaNs equal among themselves).
template <typename T>
bool less_nan_last(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

void cpu_argsort(const Tensor& indices, const Tensor& in, bool descending) {
  const int64_t n = in.size(-1), rows = n == 0 ? 0 : in.numel() / n;
  visit_compute_dtype(in.dtype(), "argsort", [&]<typename T>(type_tag<T>) {
    const T* x = static_cast<const T*>(in.data_ptr());
    int64_t* out = static_cast<int64_t*>(indices.data_ptr());
    parallel_for(0, rows, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(n, 1)), [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        const T* row = x + r * n;
        int64_t* idx = out + r * n;
        std::iota(idx, idx + n, int64_t{0});
        auto order = [&](int64_t a, int64_t b) {
          return descending ? less_nan_last(row[b], row[a]) : less_nan_last(row[a], row[b]);
        };
        std::stable_sort(idx, idx + n, order);
      }
    });
  });
}

void cpu_cumsum(const Tensor& out, const Tensor& in) {
  const int64_t n = in.size(-1), rows = n == 0 ? 0 : in.numel() / n;
  visit_compute_dtype(in.dtype(), "cumsum", [&]<typename T>(type_tag<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      EMBER_CHECK_TYPE(false, "cumsum: bool tensors are summed as int64; convert first");
    } else {
      const T* x = static_cast<const T*>(in.data_ptr());
      T* o = static_cast<T*>(out.data_ptr());
      parallel_for(0, rows, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(n, 1)), [&](int64_t lo, int64_t hi) {
        for (int64_t r = lo; r < hi; ++r) {
          // float32 runs in double, as PyTorch's: [3.4e38, 3.4e38, -3.4e38] ends at 3.4e38, not inf.
          using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
          Acc acc = Acc(0);
          for (int64_t j = 0; j < n; ++j) {
            if constexpr (std::is_integral_v<T>)  // wraps like PyTorch's integers, not UB
              acc = static_cast<T>(static_cast<std::make_unsigned_t<T>>(acc) +
                                   static_cast<std::make_unsigned_t<T>>(x[r * n + j]));
            else
              acc += x[r * n + j];
            o[r * n + j] = static_cast<T>(acc);
          }
        }
      });
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(argsort_stub, DeviceType::CPU, (widened<&cpu_argsort>));
EMBER_REGISTER_KERNEL(cumsum_stub, DeviceType::CPU, (widened<&cpu_cumsum, 0>));

}  // namespace ember::cpu
