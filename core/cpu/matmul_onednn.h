#pragma once
// bfloat16 products on oneDNN's matmul primitive, where the CPU multiplies bfloat16 natively
// (AVX512_BF16, AMX): operands read in bfloat16, products accumulated in float32 and rounded once,
// at up to twice the float32 rate. Elsewhere (this project's AVX2 machines) the primitive is not
// used and the product is widened to float32 instead (core/kernels/widen.h): the same rounding,
// never a different result but for the order of the float32 sums.
#include <cstdint>

#include "ember/core/cpu/gemm.h"
#include "ember/core/dtype.h"

namespace ember::cpu {

/// Whether onednn_matmul takes `dtype` on this machine: bfloat16 with native instructions, and
/// float32 (gemm() hands it the column-major right operands oneDNN's sgemm is slow on).
bool onednn_matmul_native(DType dtype);

/// c (m x n, row-major, leading dimension ldc, of `dtype`) = a @ b, or c += a @ b when `accumulate`,
/// plus `bias` (n contiguous elements of `dtype`, added to every row) where given; a and b
/// gemm_layout_ok and of `dtype`; split over Ember's threads as gemm() is. False, touching nothing,
/// where onednn_matmul_native(dtype) is false or oneDNN has no kernel for the shape.
bool onednn_matmul(DType dtype, const MatrixRef<void>& a, const MatrixRef<void>& b, void* c, int64_t ldc,
                   bool accumulate = false, const void* bias = nullptr);

}  // namespace ember::cpu
