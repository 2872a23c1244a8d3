// CPU kernel for value reductions (ops/reduce.h). The input is seen as [A, O, R, I] (A and R
// reduced, O and I kept): a dense input is used in place when its dims group that way (sum
// over dim 0 of [B, N], a bias gradient, is [1, 1, B, N]; a per-channel sum of [N, C, H, W] is
// [N, C, HW, 1]); any other layout has its reduced dims moved last, copied only when that view is
// not already dense. A run of R contiguous values (I == 1) is summed in lanes fixed from its start
// (sum_run: the bits never depend on the address) or max/min-reduced with Eigen; I > 1
// combines rows of I values with Eigen array ops. Both are vectorised. Work is split over O, over
// I, or, when both are small (a full reduction), over R into partial results combined at the end.
// NB: GCC 12 flags Eigen's AVX-512 min/max/exp packets as reading uninitialised values (its
// _mm512_undefined_* placeholders): a false positive that would bury real warnings.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <Eigen/Core>
#include <algorithm>
#include <vector>

#include "ember/core/copy.h"
#include "ember/core/cpu/loops.h"
#include "ember/core/cpu/reduce_utils.h"
#include "ember/core/kernels/reduce.h"
#include "ember/core/strided.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

// Floating sums add blocks of this many values in double, so the rounding error grows with the
// block and not with the whole length.
constexpr int64_t kSumBlock = 4096;

// a * b, wrapping for integers as PyTorch's do (signed overflow is undefined in C++).
template <typename T>
T times(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

// NB: sums run in an order fixed by n (sum_run), never by x's address.
template <ReduceOp Op, typename T>
T reduce_run(const T* x, int64_t n) {
  if constexpr (Op == ReduceOp::Sum) {
    if constexpr (std::is_floating_point_v<T>) {
      if (n > kSumBlock) {
        double acc = 0;
        for (int64_t i = 0; i < n; i += kSumBlock)
          acc += static_cast<double>(sum_run(x + i, std::min(kSumBlock, n - i)));
        return static_cast<T>(acc);
      }
    }
    return sum_run(x, n);
  } else if constexpr (Op == ReduceOp::Prod) {
    T acc = T(1);
    for (int64_t i = 0; i < n; ++i) acc = times(acc, x[i]);
    return acc;
  } else {
    return extreme_run<Op == ReduceOp::Max, T>(x, n);
  }
}

// o = o op x elementwise (NaN wins for max/min).
template <ReduceOp Op, typename T, typename A, typename B>
void combine(A&& o, const B& x) {
  if constexpr (Op == ReduceOp::Sum)
    o += x;
  else if constexpr (Op == ReduceOp::Prod && std::is_integral_v<T>)
    o = o.binaryExpr(x, [](T a, T b) { return times(a, b); });
  else if constexpr (Op == ReduceOp::Prod)
    o *= x;
  else if constexpr (Op == ReduceOp::Max)
    o = o.binaryExpr(x, Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>());
  else
    o = o.binaryExpr(x, Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>());
}

template <ReduceOp Op, typename T>
T combine_scalar(T a, T b) {
  if constexpr (Op == ReduceOp::Sum) {
    return a + b;
  } else if constexpr (Op == ReduceOp::Prod) {
    return times(a, b);
  } else {
    if constexpr (std::is_floating_point_v<T>) {
      if (a != a) return a;  // NaN wins
      if (b != b) return b;
    }
    return (Op == ReduceOp::Max) == (a > b) ? a : b;
  }
}

// out[i] (op)= op over r in [0, R) of x[r * ld + i], i in [0, n); `init`: overwrite out.
template <ReduceOp Op, typename T>
void reduce_cols(T* out, const T* x, int64_t R, int64_t n, int64_t ld, bool init) {
  VecMap<T> o(out, n);
  if constexpr (Op == ReduceOp::Sum && std::is_same_v<T, float>) {
    // Column sums add one value per row: a float accumulator drifts by R half-ulps (0.03 for
    // 10,000 rows of 0.1), so they accumulate in double, four rows at a time: the accumulators of a
    // wide row (80 KB for a 10,000-word decoder's bias gradient) live in L2, and passing through
    // them once per row took 1.7x PyTorch's time.
    Eigen::Array<double, Eigen::Dynamic, 1> acc = ConstVecMap<T>(x, n).template cast<double>();
    auto row = [&](int64_t r) { return ConstVecMap<T>(x + r * ld, n).template cast<double>(); };
    int64_t r = 1;
    for (; r + 4 <= R; r += 4) acc += (row(r) + row(r + 1)) + (row(r + 2) + row(r + 3));
    for (; r < R; ++r) acc += row(r);
    if (init)
      o = acc.template cast<float>();
    else
      o = (o.template cast<double>() + acc).template cast<float>();
    return;
  }
  if (init)
    o = ConstVecMap<T>(x, n);
  else
    combine<Op, T>(o, ConstVecMap<T>(x, n));
  for (int64_t r = 1; r < R; ++r) combine<Op, T>(o, ConstVecMap<T>(x + r * ld, n));
}

// The input as [A, O, R, I]: A and R reduced, O and I kept; out is [O, I].
struct Layout {
  int64_t A = 1, O = 1, R = 1, I = 1;
};

// out[o * I + i] = op over a and r in [r0, r1) of x[((a * O + o) * R + r) * I + i], for o in
// [o0, o1) and i in [i0, i1).
template <ReduceOp Op, typename T>
void reduce_range(T* out, const T* x, const Layout& l, int64_t o0, int64_t o1, int64_t r0,
                  int64_t r1, int64_t i0, int64_t i1) {
  for (int64_t o = o0; o < o1; ++o)
    for (int64_t a = 0; a < l.A; ++a) {
      const T* base = x + (a * l.O + o) * l.R * l.I;
      if (l.I == 1) {
        T v = reduce_run<Op, T>(base + r0, r1 - r0);
        out[o] = a == 0 ? v : combine_scalar<Op, T>(out[o], v);
      } else {
        reduce_cols<Op, T>(out + o * l.I + i0, base + r0 * l.I + i0, r1 - r0, i1 - i0, l.I, a == 0);
      }
    }
}

template <ReduceOp Op, typename T>
void reduce_4d(T* out, const T* x, const Layout& l) {
  int64_t per_o = l.A * l.R * l.I;
  int64_t work = l.O * per_o;
  int threads = available_threads();
  if (work < kElementwiseGrain || threads == 1) {
    reduce_range<Op, T>(out, x, l, 0, l.O, 0, l.R, 0, l.I);
  } else if (l.O >= threads) {
    parallel_for(0, l.O, std::max<int64_t>(1, kElementwiseGrain / per_o), [&](int64_t lo, int64_t hi) {
      reduce_range<Op, T>(out, x, l, lo, hi, 0, l.R, 0, l.I);
    });
  } else if (l.I >= 64 * threads) {
    parallel_for(0, l.I, std::max<int64_t>(16, kElementwiseGrain / (work / l.I)), [&](int64_t lo, int64_t hi) {
      reduce_range<Op, T>(out, x, l, 0, l.O, 0, l.R, lo, hi);
    });
  } else {
    // Few outputs over a long R: each chunk of R reduces into its own partial result.
    int64_t chunks = std::min<int64_t>(threads, l.R);
    int64_t outs = l.O * l.I;
    std::vector<T> partial(static_cast<size_t>(chunks * outs));
    parallel_for(0, chunks, 1, [&](int64_t lo, int64_t hi) {
      for (int64_t c = lo; c < hi; ++c)
        reduce_range<Op, T>(partial.data() + c * outs, x, l, 0, l.O, l.R * c / chunks,
                            l.R * (c + 1) / chunks, 0, l.I);
    });
    VecMap<T> o(out, outs);
    o = ConstVecMap<T>(partial.data(), outs);
    for (int64_t c = 1; c < chunks; ++c) combine<Op, T>(o, ConstVecMap<T>(partial.data() + c * outs, outs));
  }
}

// The [A, O, R, I] view of a dense `in`, read in memory order (outermost dim first, so a
// transposed input counts too), when its dims (size-1 dims aside) group as
// reduced? kept? reduced? kept? with A the leading reduced group only when a later one exists:
// [B, N] over dim 0 is [1, 1, B, N], [N, C, H, W] over (0, 2, 3) is [N, C, HW, 1]. The kept dims
// must keep their order, which is out's.
bool in_place_layout(const Tensor& in, const std::vector<bool>& reduced, Layout& l) {
  DimVector order;  // non-size-1 dims, outermost in memory first
  for (int64_t d = 0; d < in.dim(); ++d)
    if (in.size(d) != 1) order.push_back(d);
  if (!in.is_contiguous()) {
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return in.stride(a) > in.stride(b); });
    DimVector sizes, strides;
    int64_t last_kept = -1;
    for (int64_t d : order) {
      sizes.push_back(in.size(d));
      strides.push_back(in.stride(d));
      if (reduced[static_cast<size_t>(d)]) continue;
      if (d < last_kept) return false;
      last_kept = d;
    }
    if (!is_contiguous_layout(sizes, strides)) return false;
  }
  struct Group {
    bool reduced;
    int64_t size;
  };
  SmallVector<Group, 6> groups;  // runs of reduced / kept dims
  for (int64_t d : order) {
    bool r = reduced[static_cast<size_t>(d)];
    if (!groups.empty() && groups.back().reduced == r)
      groups.back().size *= in.size(d);
    else
      groups.push_back({r, in.size(d)});
  }
  l = Layout();
  size_t k = 0;
  if (groups.size() >= 3 && groups[0].reduced) l.A = groups[k++].size;
  if (k < groups.size() && !groups[k].reduced) l.O = groups[k++].size;
  if (k < groups.size() && groups[k].reduced) l.R = groups[k++].size;
  if (k < groups.size() && !groups[k].reduced) l.I = groups[k++].size;
  return k == groups.size();
}

void cpu_reduce(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims) {
  visit_compute_dtype(in.dtype(), "reduce", [&]<typename T>(type_tag<T>) {
    if constexpr (std::is_same_v<T, bool>) {
      EMBER_CHECK_TYPE(false, "reduce: bool tensors are reduced as int64 or uint8");
    } else {
      int64_t nd = in.dim();
      std::vector<bool> reduced(static_cast<size_t>(nd), false);
      for (int64_t d : dims) reduced[static_cast<size_t>(d)] = true;
      Layout l;
      Tensor src = in;
      if (!in_place_layout(in, reduced, l)) {
        // Kept dims first, reduced last: [1, O, R, 1], copied unless that view is dense.
        DimVector sizes, strides;
        l = Layout();
        for (int pass = 0; pass < 2; ++pass)
          for (int64_t d = 0; d < nd; ++d)
            if (reduced[static_cast<size_t>(d)] == (pass == 1)) {
              sizes.push_back(in.size(d));
              strides.push_back(in.stride(d));
              (pass == 1 ? l.R : l.O) *= in.size(d);
            }
        src = contiguous_data(as_strided_data(in, sizes, strides, in.storage_offset()));
      }
      T* o = static_cast<T*>(out.data_ptr());
      const T* x = static_cast<const T*>(src.data_ptr());
      switch (op) {
        case ReduceOp::Sum: reduce_4d<ReduceOp::Sum, T>(o, x, l); break;
        case ReduceOp::Max: reduce_4d<ReduceOp::Max, T>(o, x, l); break;
        case ReduceOp::Min: reduce_4d<ReduceOp::Min, T>(o, x, l); break;
        case ReduceOp::Prod: reduce_4d<ReduceOp::Prod, T>(o, x, l); break;
      }
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(reduce_stub, DeviceType::CPU, (widened<&cpu_reduce, 1>));

}  // namespace ember::cpu
