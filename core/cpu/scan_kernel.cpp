// CPU kernel for the running scans of core/kernels/scan.h: one pass left to right per row, rows
// split over threads; each row is computed in its own dtype and order, so a row's result does not
// depend on the thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ember/core/cpu/parallel.h"
#include "ember/core/kernels/scan.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

// a * b, wrapping for integers as PyTorch's do (signed overflow is undefined in C++).
template <typename T>
T times(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

// log(e^a + e^b) without overflow; two equal infinities give themselves (not inf - inf = NaN).
template <typename T>
T log_add_exp(T a, T b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  const T lo = std::min(a, b), hi = std::max(a, b);
  if (lo == hi && !std::isfinite(lo)) return hi;
  return hi + std::log1p(std::exp(lo - hi));
}

template <typename T, typename Row>
void for_rows(const Tensor& in, const Row& row) {
  const int64_t n = in.size(-1), rows = n == 0 ? 0 : in.numel() / n;
  parallel_for(0, rows, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(n, 1)), [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) row(r * n, n);
  });
}

void cpu_scan(ScanOp op, const Tensor& out, const Tensor& indices, const Tensor& in) {
  visit_compute_dtype(in.dtype(), detail::op_name(op), [&]<typename T>(type_tag<T>) {
    const T* x = static_cast<const T*>(in.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    switch (op) {
      case ScanOp::Cumprod:
        for_rows<T>(in, [&](int64_t base, int64_t n) {
          // float32 runs in double, as PyTorch's: [2, 3.4e38, 0] is [2, inf, 0], where a float
          // running product would be inf at 1 and inf * 0 = NaN from then on.
          using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
          Acc acc = Acc(1);
          for (int64_t j = 0; j < n; ++j) o[base + j] = static_cast<T>(acc = times<Acc>(acc, x[base + j]));
        });
        break;
      case ScanOp::Logcumsumexp:
        if constexpr (std::is_floating_point_v<T>) {
          for_rows<T>(in, [&](int64_t base, int64_t n) {
            // float32 runs in double, rounded once per element: a float running value drifted by an ulp a
            // step (the total of a log_softmax, 0 to 4e-8, came out exactly 0, and hypot's gradient 0 / 0).
            using Acc = std::conditional_t<std::is_same_v<T, float>, double, T>;
            Acc acc = -std::numeric_limits<Acc>::infinity();
            for (int64_t j = 0; j < n; ++j)
              o[base + j] = static_cast<T>(acc = log_add_exp<Acc>(acc, static_cast<Acc>(x[base + j])));
          });
        } else {
          EMBER_CHECK_TYPE(false, "logcumsumexp: expected a floating tensor, got ", in.dtype());
        }
        break;
      case ScanOp::Cummax:
      case ScanOp::Cummin: {
        const bool is_max = op == ScanOp::Cummax;
        int64_t* idx = static_cast<int64_t*>(indices.data_ptr());
        for_rows<T>(in, [&](int64_t base, int64_t n) {
          T best = x[base];
          int64_t at = 0;
          for (int64_t j = 0; j < n; ++j) {
            const T v = x[base + j];
            // NB: >= (<=): a tie moves the index on, as PyTorch's kernel does.
            if (is_nan(v) || (!is_nan(best) && (is_max ? v >= best : v <= best))) {
              best = v;
              at = j;
            }
            o[base + j] = best;
            idx[base + j] = at;
          }
        });
        break;
      }
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(scan_stub, DeviceType::CPU, (widened<&cpu_scan, 1>));

}  // namespace ember::cpu
