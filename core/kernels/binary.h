#pragma once
// The kernel contract of elementwise arithmetic of two tensors (ops/binary.h). Ops call these
// stubs; each backend (core/cpu/, cuda/) registers its kernels into them.
#include "ember/core/dispatch.h"
#include "ember/core/kernels/op_codes.h"  // UnaryOp, BinaryOp, CompareOp: from the op table
#include "ember/core/tensor.h"

namespace ember {

/// Kernel: out = op(a, b); a, b already broadcast to out's shape and converted to out's dtype.
using BinaryFn = void (*)(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
EMBER_DECLARE_STUB(binary_stub, BinaryFn);

/// Kernel: out = a + alpha * b for floating dtypes (add and sub with alpha), rounded once where the
/// build has fused multiply-adds (twice, product then sum, where it has not), as PyTorch's CPU
/// kernel rounds it; a, b as binary_stub's.
using AddScaledFn = void (*)(const Tensor& out, const Tensor& a, const Tensor& b, double alpha);
EMBER_DECLARE_STUB(add_scaled_stub, AddScaledFn);
/// Whether the CPU kernel of add_scaled_stub rounds once: the library built with fused multiply-adds.
bool cpu_add_scaled_rounds_once();

}  // namespace ember
