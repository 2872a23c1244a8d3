#pragma once
// How a row-major product out [m, n] (contiguous) = a [m, k] @ b [k, n] is asked of cuBLAS, which
// is column-major: out read column-major is out^T [n, m] with leading dim n, and
// out^T = b^T a^T, so cuBLAS multiplies b (first) by a (second). Each operand is used in place
// when one of its dims is unit-stride: a row-major matrix read column-major is its transpose
// (op N), a column-major one (a transposed view, say) is itself (op T). Only an operand with no
// unit-stride dim (a strided slice, an expanded dim) needs a copy. Batches go through
// cublas*gemmStridedBatched: the batch dims of each operand flatten to one stride when they can.
// Host code; tests/cuda run the plans through a reference column-major GEMM against the CPU.
#include <cstdint>

namespace ember::cuda {

/// A matrix operand: its rows and cols, and the element strides between them.
struct MatrixView {
  int64_t rows, cols, row_stride, col_stride;
};

/// One operand as cuBLAS takes it: transposed or not, and its leading dimension.
struct GemmOperand {
  bool usable;   // false: the operand needs a dense copy first
  bool transpose;
  int64_t ld;
};

/// How cuBLAS reads `v` as the column-major matrix v^T (rows v.cols, cols v.rows).
inline GemmOperand plan_operand(const MatrixView& v) {
  const auto at_least = [](int64_t ld, int64_t min) { return ld >= (min > 1 ? min : 1); };
  // Row-major (unit column stride, or one column): read as v^T directly, op N, ld = row stride.
  if (v.col_stride == 1 || v.cols == 1) {
    const int64_t ld = v.rows == 1 ? (v.cols > 1 ? v.cols : 1) : v.row_stride;
    if (at_least(ld, v.cols)) return {true, false, ld};
  }
  // Column-major (unit row stride, or one row): stored as v itself, op T, ld = column stride.
  if (v.row_stride == 1 || v.rows == 1) {
    const int64_t ld = v.cols == 1 ? (v.rows > 1 ? v.rows : 1) : v.col_stride;
    if (at_least(ld, v.rows)) return {true, true, ld};
  }
  return {false, false, 0};
}

/// The cuBLAS call for out [m, n] (row-major, contiguous) = a [m, k] @ b [k, n]:
/// gemm(first.transpose, second.transpose, n, m, k, b, first.ld, a, second.ld, out, n).
struct GemmPlan {
  GemmOperand first, second;  // b, a
  int64_t m, n, k;
};

inline GemmPlan plan_gemm(const MatrixView& a, const MatrixView& b) {
  return {plan_operand(b), plan_operand(a), a.rows, b.cols, a.cols};
}

/// Batch dims [0, nd) of sizes, as one stride per operand (in elements) for count = prod(sizes):
/// possible when each operand's strides over those dims are those of one flat index (0 for a
/// broadcast operand counts). Returns false when some operand's batch dims do not flatten.
inline bool flatten_batch(int nd, const int64_t* sizes, const int64_t* strides, int64_t& flat_stride) {
  int64_t expect = -1;  // stride the next-outer dim must have
  flat_stride = 0;
  bool seen = false;
  for (int d = nd - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    if (!seen) {
      flat_stride = strides[d];
      expect = strides[d] * sizes[d];
      seen = true;
      continue;
    }
    if (strides[d] != expect) return false;
    expect = strides[d] * sizes[d];
  }
  return true;
}

}  // namespace ember::cuda
