// CPU kernel for max/min with indices along one dim (ops/reduce.h). The (contiguous) input is
// [O, R, I] with R the reduced dim. A long contiguous row (I == 1) is scanned twice, both times
// vectorised: once for the extreme value, then for its first position; rows of I > 1 values are
// compared elementwise, keeping the best value and index for every i.
// NB: GCC 12 flags Eigen's AVX-512 min/max/exp packets as reading uninitialised values (its
// _mm512_undefined_* placeholders): a false positive that would bury real warnings.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <Eigen/Core>
#include <cmath>
#include <memory>

#include "ember/core/copy.h"
#include "ember/core/cpu/loops.h"
#include "ember/core/cpu/reduce_utils.h"
#include "ember/core/kernels/reduce.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

// Whether v replaces best: strictly better, or the first NaN (NaN beats everything).
template <bool IsMax, typename T>
bool better(T v, T best) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(v)) return !std::isnan(best);
  return IsMax ? v > best : v < best;
}

template <bool IsMax, typename T>
void arg_row(const T* x, int64_t R, T* value, int64_t* index) {
  if (R >= 64) {  // the extreme value (vectorised), then its first position
    T best = extreme_run<IsMax, T>(x, R);
    if (value) *value = best;
    *index = first_extreme_index<IsMax>(x, R, best);
    return;
  }
  T best = x[0];
  int64_t bi = 0;
  for (int64_t r = 1; r < R && !is_nan(best); ++r)
    if (better<IsMax>(x[r], best)) {
      best = x[r];
      bi = r;
    }
  if (value) *value = best;
  *index = bi;
}

// Best value and index for every i in [i0, i1) of one [R, I] block. Branch-free, so the
// compiler vectorises the comparisons and selects.
template <bool IsMax, typename T>
void arg_cols(const T* x, int64_t R, int64_t I, int64_t i0, int64_t i1, T* value, int64_t* index) {
  for (int64_t i = i0; i < i1; ++i) {
    value[i] = x[i];
    index[i] = 0;
  }
  for (int64_t r = 1; r < R; ++r) {
    const T* row = x + r * I;
    for (int64_t i = i0; i < i1; ++i) {
      T v = row[i], best = value[i];
      bool take = IsMax ? v > best : v < best;
      if constexpr (std::is_floating_point_v<T>) take = take || (v != v && best == best);
      value[i] = take ? v : best;
      index[i] = take ? r : index[i];
    }
  }
}

template <bool IsMax, typename T>
void arg_reduce(const T* x, int64_t O, int64_t R, int64_t I, T* values, int64_t* indices) {
  // arg_cols needs somewhere to keep the running best values when the caller wants none.
  std::unique_ptr<T[]> scratch;
  T* vals = values;
  if (!vals && I > 1) {
    scratch.reset(new T[static_cast<size_t>(O * I)]);
    vals = scratch.get();
  }
  auto run = [&](int64_t o0, int64_t o1, int64_t i0, int64_t i1) {
    for (int64_t o = o0; o < o1; ++o) {
      const T* base = x + o * R * I;
      if (I == 1)
        arg_row<IsMax>(base, R, vals ? vals + o : nullptr, indices + o);
      else
        arg_cols<IsMax>(base, R, I, i0, i1, vals + o * I, indices + o * I);
    }
  };
  int64_t work = O * R * I;
  if (work < kElementwiseGrain || O > 1 || I == 1) {
    parallel_for(0, O, std::max<int64_t>(1, kElementwiseGrain / (R * I)),
                 [&](int64_t lo, int64_t hi) { run(lo, hi, 0, I); });
  } else {
    parallel_for(0, I, std::max<int64_t>(16, kElementwiseGrain / R),
                 [&](int64_t lo, int64_t hi) { run(0, 1, lo, hi); });
  }
}

void cpu_arg_reduce(ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in,
                    int64_t dim) {
  Tensor src = contiguous_data(in);
  int64_t O = 1, I = 1, R = in.dim() == 0 ? 1 : in.size(dim);
  for (int64_t d = 0; d < dim; ++d) O *= in.size(d);
  for (int64_t d = dim + 1; d < in.dim(); ++d) I *= in.size(d);
  if (O * I == 0) return;
  visit_compute_dtype(in.dtype(), "max", [&]<typename T>(type_tag<T>) {
    const T* x = static_cast<const T*>(src.data_ptr());
    T* v = values.defined() ? static_cast<T*>(values.data_ptr()) : nullptr;
    auto* idx = static_cast<int64_t*>(indices.data_ptr());
    if (op == ReduceOp::Max)
      arg_reduce<true, T>(x, O, R, I, v, idx);
    else
      arg_reduce<false, T>(x, O, R, I, v, idx);
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(arg_reduce_stub, DeviceType::CPU, (widened<&cpu_arg_reduce, 1>));

}  // namespace ember::cpu
