#pragma once
// The one place CPU code multiplies matrices: matmul and conv2d call gemm, which hands strided
// row- or column-major operands to oneDNN's sgemm (float) or Eigen's GEMM (double, and the smallest
// float products) without copying them, but for the long-k products with a transposed left operand
// where a row-major copy pays (gemm.cpp, AVX2 only). A large product is split into row or column blocks over
// Ember's threads (core/parallel.h), each block a single-threaded GEMM, so a given product at a given
// thread count gives the same bits every time; inside a task (callers that split a batch over
// threads) it runs on the calling thread.
#include <cstdint>

namespace ember::cpu {

/// A read-only matrix view: element (i, j) is data[i * row_stride + j * col_stride].
template <typename T>
struct MatrixRef {
  const T* data;
  int64_t rows, cols;
  int64_t row_stride, col_stride;
};

/// True when gemm takes (rows, cols, strides) as it is: row-major (unit column stride) or
/// column-major (unit row stride) with a leading dimension that keeps rows (columns) apart.
/// Strides of size-1 dims do not matter.
bool gemm_layout_ok(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride);

/// c = a @ b (or c += a @ b when `accumulate`), with a m x k, b k x n, both gemm_layout_ok, and
/// c m x n row-major with leading dimension ldc. T is float or double (vectorised and multithreaded)
/// or uint8_t, int32_t, int64_t (a plain loop: integer matmul is rare).
template <typename T>
void gemm(const MatrixRef<T>& a, const MatrixRef<T>& b, T* c, int64_t ldc, bool accumulate);

}  // namespace ember::cpu
