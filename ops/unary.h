#pragma once
// Elementwise math of one tensor: neg, exp, log, sqrt, rsqrt, abs, sign, erf, the trigonometric and
// hyperbolic functions and their inverses, log1p/expm1/log2/log10, reciprocal, square, the rounding ops
// (floor, ceil, round, trunc keep integer dtypes; frac), isnan/isinf/isfinite, clamp and
// pow(Tensor, Scalar) (declared from the op table, ember/ops/functions.h). Floating functions (exp,
// log, sqrt, rsqrt, erf) of integer or bool tensors compute in float32, as in PyTorch; neg, abs,
// sign and clamp keep integer dtypes. Activations (tanh, sigmoid, relu, gelu, leaky_relu) are in
// ops/activation.cpp.
#include "ember/core/kernels/unary.h"
#include "ember/ops/functions.h"

namespace ember {

namespace detail {
/// Runs unary_stub on t converted to `dtype` (no autograd).
Tensor unary_forward(UnaryOp op, const Tensor& t, DType dtype, const UnaryParams& p = {});
/// The dtype a floating function of t computes in: t's own when floating (or complex), else float32.
DType float_result_type(DType t);
}  // namespace detail

}  // namespace ember
