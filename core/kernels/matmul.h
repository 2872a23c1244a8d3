#pragma once
// The kernel contract of batched matrix products (ops/matmul.h). Ops call these stubs; each backend
// (core/cpu/, cuda/) registers its kernels into them.
#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

/// Kernel: out [B..., m, n] (contiguous) = a [B..., m, k] @ b [B..., k, n], the batch dims already
/// broadcast (stride 0 where expanded); all three of one dtype. With `accumulate` (floating dtypes
/// only) out += a @ b: out holds an addend on entry (addmm's bias, written first) and the sum is
/// taken in the product's accumulator, rounded once, as BLAS's beta = 1.
using MatmulFn = void (*)(const Tensor& out, const Tensor& a, const Tensor& b, bool accumulate);
EMBER_DECLARE_STUB(matmul_stub, MatmulFn);

/// Kernel: out [m, n] (contiguous) = a [m, k] @ b [k, n] + bias [n] (contiguous, added to every row),
/// all of one floating dtype (a linear layer's forward), with the bias added in the product's
/// epilogue and the sum rounded once. False, touching nothing, where the backend has no such path
/// for the operands: the caller then writes the bias into out and runs matmul_stub's accumulate.
using MatmulBiasFn = bool (*)(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias);
EMBER_DECLARE_STUB(matmul_bias_stub, MatmulBiasFn);

}  // namespace ember
