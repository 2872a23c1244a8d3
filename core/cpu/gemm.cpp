#include "ember/core/cpu/gemm.h"

// NB: GCC 12 flags Eigen's AVX-512 transposes in the GEMM packing routines as reading an
// uninitialised value (_mm256_undefined_pd, a false positive), hundreds of times.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
// Threads come from the split in gemm() below, never from Eigen itself.
#define EIGEN_DONT_PARALLELIZE

#include <dnnl.h>
#include <omp.h>

#include <Eigen/Core>
#include <algorithm>
#include <type_traits>

#include "ember/core/cpu/matmul_onednn.h"
#include "ember/core/cpu/onednn.h"
#include "ember/core/cpu/parallel.h"
#include "ember/core/cpu/scratch.h"
#include "ember/core/cpu/transpose.h"
#include "ember/core/error.h"

namespace ember::cpu {
namespace {

// Multiply-adds each thread must get before a product is split over threads (about a
// microsecond of work, the cost of waking a waiting pool thread). The product is split into
// independent row or column blocks, one Eigen GEMM each: no synchronisation but the final join,
// unlike Eigen's own threading, which spins on packed blocks shared between threads and stalls
// badly when another process holds one of the cores.
constexpr int64_t kThreadWork = int64_t{1} << 16;
// Split points fall on multiples of this many rows or columns (a multiple of the register tile).
constexpr int64_t kSplitUnit = 16;
// Multiply-adds below which a float product stays with Eigen: oneDNN's call costs 0.1-0.3 us more,
// which only such small products notice.
constexpr int64_t kSmallProduct = int64_t{1} << 16;

// A matrix as Eigen sees it: storage order and leading dimension.
struct Layout {
  bool row_major;
  int64_t ld;
};

Layout layout_of(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  // NB: a size-1 dim may carry any stride (PyTorch leaves them arbitrary), so it is ignored and
  // the leading dimension is made up from the other size.
  if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= std::max<int64_t>(cols, 1)))
    return {true, rows <= 1 ? std::max<int64_t>(cols, 1) : rs};
  EMBER_INTERNAL_ASSERT((rows <= 1 || rs == 1) && (cols <= 1 || cs >= std::max<int64_t>(rows, 1)),
                        "gemm: unsupported layout [", rows, ", ", cols, "] strides (", rs, ", ", cs, ")");
  return {false, cols <= 1 ? std::max<int64_t>(rows, 1) : cs};
}

template <typename T, int Order>
using ConstMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order>,
                            Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using OutMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>,
                          Eigen::Unaligned, Eigen::OuterStride<>>;

template <typename T, int AOrder, int BOrder>
void eigen_gemm(const MatrixRef<T>& a, int64_t lda, const MatrixRef<T>& b, int64_t ldb, T* c,
                int64_t ldc, bool accumulate) {
  ConstMap<T, AOrder> A(a.data, a.rows, a.cols, Eigen::OuterStride<>(lda));
  ConstMap<T, BOrder> B(b.data, b.rows, b.cols, Eigen::OuterStride<>(ldb));
  OutMap<T> C(c, a.rows, b.cols, Eigen::OuterStride<>(std::max<int64_t>(ldc, 1)));
  // NB: a fresh product is accumulated onto zeros, as BLAS does: Eigen's small-product path would
  // start each sum from its first term, and a sum of -0 terms stays -0 (PyTorch gives +0).
  if (!accumulate) C.setZero();
  C.noalias() += A * B;
}

// Integer products: unsigned arithmetic wraps on overflow (as PyTorch's integers do) instead of
// being undefined.
template <typename T>
void loop_gemm(const MatrixRef<T>& a, const MatrixRef<T>& b, T* c, int64_t ldc, bool accumulate) {
  using U = std::make_unsigned_t<T>;
  for (int64_t i = 0; i < a.rows; ++i) {
    T* row = c + i * ldc;
    if (!accumulate) std::fill(row, row + b.cols, T(0));
    for (int64_t p = 0; p < a.cols; ++p) {
      U av = static_cast<U>(a.data[i * a.row_stride + p * a.col_stride]);
      if (av == 0) continue;
      const T* brow = b.data + p * b.row_stride;
      for (int64_t j = 0; j < b.cols; ++j)
        row[j] = static_cast<T>(static_cast<U>(row[j]) + static_cast<U>(av * static_cast<U>(brow[j * b.col_stride])));
    }
  }
}

// float products of any size beyond the smallest go to oneDNN's sgemm, which reaches 0.95-1.05x of
// MKL where Eigen gets 0.85-0.9x (bench/README.md, "GEMM"). It runs single-threaded inside each of
// gemm()'s blocks: Debian builds oneDNN on OpenMP, whose thread count for the calling thread is
// set to 1 for the call (and put back, so a user's own OpenMP code is unaffected), so it never
// starts an OpenMP thread.
void onednn_sgemm(const MatrixRef<float>& a, const MatrixRef<float>& b, float* c, int64_t ldc, bool accumulate) {
  Layout la = layout_of(a.rows, a.cols, a.row_stride, a.col_stride);
  Layout lb = layout_of(b.rows, b.cols, b.row_stride, b.col_stride);
  const int omp_threads = omp_get_max_threads();
  omp_set_num_threads(1);
  dnnl_status_t status = dnnl_sgemm(la.row_major ? 'N' : 'T', lb.row_major ? 'N' : 'T', a.rows, b.cols, a.cols,
                                    1.0f, a.data, la.ld, b.data, lb.ld, accumulate ? 1.0f : 0.0f, c,
                                    std::max<int64_t>(ldc, 1));
  omp_set_num_threads(omp_threads);
  EMBER_INTERNAL_ASSERT(status == dnnl_success, "gemm: oneDNN sgemm failed with status ", static_cast<int>(status),
                        " for [", a.rows, ", ", a.cols, "] @ [", b.rows, ", ", b.cols, "]");
}

// oneDNN 2.6's sgemm on AVX2 multiplies a column-major A by a row-major B (a weight gradient
// g^T @ x: the batch's rows are k) at 50-75 GFLOP/s where two row-major operands reach 90+; with
// k at least twice m and n, a row-major copy of the operand on the longer side of the result costs
// less than it saves (bench/README.md: [512, 1024] @ [1024, 128] 2.09 -> 1.75 ms, [128, 1024] @
// [1024, 512] 2.19 -> 1.80). Measured on AVX2 only: on AVX-512 oneDNN's kernels are others.
constexpr int64_t kReorientWork = int64_t{1} << 22;

bool reorient_pays(const MatrixRef<float>& a, const MatrixRef<float>& b, bool accumulate) {
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  if (m < 2 || n < 2 || k < 2 * std::max(m, n) || m * n * k < kReorientWork || onednn_avx512()) return false;
  const Layout la = layout_of(a.rows, a.cols, a.row_stride, a.col_stride);
  const Layout lb = layout_of(b.rows, b.cols, b.row_stride, b.col_stride);
  // NB: the swapped form writes a transposed result; accumulating onto c would need an add as well
  return !la.row_major && lb.row_major && (m >= n || !accumulate);
}

// oneDNN 2.6's sgemm on AVX-512 multiplies by a column-major B (x @ W^T; a convolution's weight
// gradient, gout @ col^T) at 11-45 GFLOP/s where m is small and k long, 4-11x the time of a
// row-major B: [16, 1024] @ [1024, 32] 67.6 us against 9.3 (1 thread, Zen 4). Its matmul primitive
// takes that layout at 14.6 us, and in 0-60% less time than sgemm's on the shapes measured with
// k >= n and k >= 256 ([1024, 512] @ [512, 128] 1.17 against 1.23 ms; [64, 4096] @ [4096, 64] 0.34
// against 0.88) but 16 columns over 64 rows or more; below (k 128-200, or k < n: the [700, 200] @
// [200, 10000] decoder) sgemm is as fast or faster.
constexpr int64_t kPrimitiveMinK = 256;

bool primitive_pays(const MatrixRef<float>& a, const MatrixRef<float>& b) {
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  if (n < 2 || k < n || k < kPrimitiveMinK || m * n * k < kSmallProduct || !onednn_avx512()) return false;
  if (n < 32 && m >= 64) return false;  // [96, 1024] @ [1024, 16]: the primitive 62 us, sgemm 52
  return !layout_of(b.rows, b.cols, b.row_stride, b.col_stride).row_major;
}

// oneDNN 2.6's sgemm on AVX-512 multiplies a column-major A by a row-major B (a weight gradient
// g^T @ x, the batch's rows being k) at 85-99 GFLOP/s where c is tall and narrow; the transposed
// product c^T = b^T a^T runs at 110-115 there. Taken a block of c's rows at a time into a buffer
// that stays in L2 and transposed into c, it saves 5-11% (1 thread, Zen 4): a word-level language
// model's decoder, [10000, 700] @ [700, 200], 28.3 -> 25.2 ms; [33278, 700] @ [700, 200] 94.2 ->
// 84.5; [800, 512] @ [512, 200] 1.53 -> 1.44. Not where c is wider than a quarter of its height
// ([3072, 1024] @ [1024, 768]: 2% slower), k is short ([4096, 256] @ [256, 256]: 1%), or A's
// columns lie a multiple of 4 KiB apart, where the blocks' loads share cache sets ([8192, 512] @
// [512, 128]: 4-7% slower).
constexpr int64_t kTransposedRows = 512;  // c's rows per block: a [200, 512] buffer is 400 KiB

bool transposed_product_pays(const MatrixRef<float>& a, const MatrixRef<float>& b, bool accumulate) {
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  if (accumulate || n < 16 || n > 256 || m < 4 * n || k < 512 || !onednn_avx512()) return false;
  // NB: a block a thread, at least: [512, 1024] @ [1024, 128] (a GPT's MLP) as one block ran on one
  // of two threads, and the step took 20% longer
  if (m < kTransposedRows * available_threads()) return false;
  const Layout la = layout_of(a.rows, a.cols, a.row_stride, a.col_stride);
  const Layout lb = layout_of(b.rows, b.cols, b.row_stride, b.col_stride);
  return !la.row_major && lb.row_major && la.ld % 1024 != 0;
}

// A [rows, cols] view of a transposed operand (unit row stride), copied row-major into a scratch
// tensor, the rows split over threads.
Tensor row_major_copy(const MatrixRef<float>& t) {
  Tensor copy = scratch<float>(t.rows * t.cols);
  float* out = static_cast<float*>(copy.data_ptr());
  parallel_for(0, t.rows, std::max<int64_t>(kTransposeTile, kElementwiseGrain / t.cols), [&](int64_t lo, int64_t hi) {
    transpose_rows(t.data, t.col_stride, out, t.cols, lo, hi, t.cols);
  });
  return copy;
}

template <typename T>
void block_gemm(const MatrixRef<T>& a, const MatrixRef<T>& b, T* c, int64_t ldc, bool accumulate) {
  if constexpr (std::is_same_v<T, float>) {
    if (a.rows * a.cols * b.cols >= kSmallProduct) return onednn_sgemm(a, b, c, ldc, accumulate);
  }
  Layout la = layout_of(a.rows, a.cols, a.row_stride, a.col_stride);
  Layout lb = layout_of(b.rows, b.cols, b.row_stride, b.col_stride);
  constexpr int R = Eigen::RowMajor, C = Eigen::ColMajor;
  if (la.row_major && lb.row_major)
    eigen_gemm<T, R, R>(a, la.ld, b, lb.ld, c, ldc, accumulate);
  else if (la.row_major)
    eigen_gemm<T, R, C>(a, la.ld, b, lb.ld, c, ldc, accumulate);
  else if (lb.row_major)
    eigen_gemm<T, C, R>(a, la.ld, b, lb.ld, c, ldc, accumulate);
  else
    eigen_gemm<T, C, C>(a, la.ld, b, lb.ld, c, ldc, accumulate);
}

// c = a @ b where transposed_product_pays: c's rows [i0, i0 + len) transposed are b^T @ (a's rows)^T,
// one single-threaded product per block, the blocks split over threads.
void transposed_product(const MatrixRef<float>& a, const MatrixRef<float>& b, float* c, int64_t ldc) {
  const int64_t m = a.rows, k = a.cols, n = b.cols, blocks = (m + kTransposedRows - 1) / kTransposedRows;
  const MatrixRef<float> bt{b.data, n, k, b.col_stride, b.row_stride};
  parallel_for(0, blocks, 1, [&](int64_t lo, int64_t hi) {
    const Tensor buffer = scratch<float>(n * kTransposedRows);
    float* buf = static_cast<float*>(buffer.data_ptr());
    for (int64_t blk = lo; blk < hi; ++blk) {
      const int64_t i0 = blk * kTransposedRows, len = std::min(kTransposedRows, m - i0);
      block_gemm<float>(bt, {a.data + i0 * a.row_stride, k, len, a.col_stride, a.row_stride}, buf, len, false);
      transpose_rows(buf, len, c + i0 * ldc, ldc, 0, len, n);
    }
  });
}

}  // namespace

bool gemm_layout_ok(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if (rows == 0 || cols == 0) return true;
  bool row_major = (cols <= 1 || cs == 1) && (rows <= 1 || rs >= std::max<int64_t>(cols, 1));
  bool col_major = (rows <= 1 || rs == 1) && (cols <= 1 || cs >= std::max<int64_t>(rows, 1));
  return row_major || col_major;
}

template <typename T>
void gemm(const MatrixRef<T>& a, const MatrixRef<T>& b, T* c, int64_t ldc, bool accumulate) {
  EMBER_INTERNAL_ASSERT(a.cols == b.rows, "gemm: [", a.rows, ", ", a.cols, "] @ [", b.rows, ", ", b.cols, "]");
  const int64_t m = a.rows, k = a.cols, n = b.cols;
  if (m == 0 || n == 0) return;
  if (k == 0) {  // an empty sum: zeros (and empty operands may carry any strides)
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, T(0));
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (reorient_pays(a, b, accumulate)) {
      if (m >= n) {  // A row-major, then the usual product
        const Tensor a_rows = row_major_copy(a);
        return gemm<float>({static_cast<const float*>(a_rows.data_ptr()), m, k, k, 1}, b, c, ldc, accumulate);
      }
      // c^T = b^T a^T with b^T copied row-major (a^T is a row-major view), then transposed into c
      const Tensor bt_rows = row_major_copy({b.data, n, k, b.col_stride, b.row_stride});
      Tensor ct = scratch<float>(n * m);
      float* ctp = static_cast<float*>(ct.data_ptr());
      gemm<float>({static_cast<const float*>(bt_rows.data_ptr()), n, k, k, 1},
                  {a.data, k, m, a.col_stride, a.row_stride}, ctp, m, false);
      parallel_for(0, m, std::max<int64_t>(kTransposeTile, kElementwiseGrain / n),
                   [&](int64_t lo, int64_t hi) { transpose_rows(ctp, m, c, ldc, lo, hi, n); });
      return;
    }
  }
  if constexpr (std::is_same_v<T, float>) {
    if (transposed_product_pays(a, b, accumulate)) return transposed_product(a, b, c, ldc);
  }
  if constexpr (std::is_same_v<T, float>) {
    if (primitive_pays(a, b) && onednn_matmul(DType::Float32, {a.data, m, k, a.row_stride, a.col_stride},
                                              {b.data, k, n, b.row_stride, b.col_stride}, c, ldc, accumulate))
      return;
  }
  if constexpr (!std::is_floating_point_v<T>) {
    loop_gemm(a, b, c, ldc, accumulate);
  } else {
    // Split the larger of m and n, so the operand every part packs again is the smaller one.
    const bool split_rows = m >= n;
    const int64_t dim = split_rows ? m : n, units = (dim + kSplitUnit - 1) / kSplitUnit;
    const int64_t unit_work = kSplitUnit * (split_rows ? n : m) * k;
    const int64_t units_per_thread = std::max<int64_t>(1, (kThreadWork + unit_work - 1) / unit_work);
    parallel_for(0, units, 2 * units_per_thread,  // NB: a split leaves every thread enough work
                 [&](int64_t lo, int64_t hi) {
                   const int64_t begin = lo * kSplitUnit, len = std::min(hi * kSplitUnit, dim) - begin;
                   if (split_rows)
                     block_gemm<T>({a.data + begin * a.row_stride, len, k, a.row_stride, a.col_stride}, b,
                                       c + begin * ldc, ldc, accumulate);
                   else
                     block_gemm<T>(a, {b.data + begin * b.col_stride, k, len, b.row_stride, b.col_stride},
                                       c + begin, ldc, accumulate);
                 });
  }
}

template void gemm<float>(const MatrixRef<float>&, const MatrixRef<float>&, float*, int64_t, bool);
template void gemm<double>(const MatrixRef<double>&, const MatrixRef<double>&, double*, int64_t, bool);
template void gemm<uint8_t>(const MatrixRef<uint8_t>&, const MatrixRef<uint8_t>&, uint8_t*, int64_t, bool);
template void gemm<int32_t>(const MatrixRef<int32_t>&, const MatrixRef<int32_t>&, int32_t*, int64_t, bool);
template void gemm<int64_t>(const MatrixRef<int64_t>&, const MatrixRef<int64_t>&, int64_t*, int64_t, bool);

}  // namespace ember::cpu
