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

}  // namespace ember
