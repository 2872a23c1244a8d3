#pragma once
// The kernel contract of the complex arithmetic that is not arithmetic on (real, imaginary) pairs
// (ops/complex.cpp): sums, differences, negation, conjugation and comparisons of complex tensors are
// computed on their view_as_real views by the real kernels; these need complex math.
#include "ember/core/dispatch.h"
#include "ember/core/kernels/complex_ops.h"
#include "ember/core/tensor.h"

namespace ember {

/// Kernel: out = op(a, b); a and b already broadcast to out's shape, of out's dtype (Mul, Div) or
/// of its real dtype (Make, Polar).
using ComplexBinaryFn = void (*)(ComplexBinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);
EMBER_DECLARE_STUB(complex_binary_stub, ComplexBinaryFn);

/// Kernel: out = op(in), of in's shape; out of in's dtype, or of its real dtype for Abs and Angle.
using ComplexUnaryFn = void (*)(ComplexUnaryOp op, const Tensor& out, const Tensor& in);
EMBER_DECLARE_STUB(complex_unary_stub, ComplexUnaryFn);

}  // namespace ember
