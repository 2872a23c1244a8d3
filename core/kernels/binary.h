#pragma once
// The kernel contract of elementwise arithmetic of two tensors (ops/binary.h). Ops call these
// stubs; each backend (core/cpu/, cuda/) registers its kernels into them.
#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

enum class BinaryOp : uint8_t { Add, Sub, Mul, Div, Pow, Maximum, Minimum };
/// Kernel: out = op(a, b); a, b already broadcast to out's shape and converted to out's dtype.
using BinaryFn = void (*)(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
EMBER_DECLARE_STUB(binary_stub, BinaryFn);

}  // namespace ember
