#pragma once
// Elementwise math of one tensor. Floating functions (exp, log, sqrt, rsqrt, erf) of integer or
// bool tensors compute in float32, as in PyTorch; neg, abs, sign and clamp keep integer dtypes.
// Activations (tanh, sigmoid, relu, gelu, leaky_relu) are in ops/activation.h.
#include <optional>

#include "ember/core/kernels/unary.h"
#include "ember/core/tensor.h"

namespace ember {

/// -t; bool tensors are refused (use logical_not).
Tensor neg(const Tensor& t);
/// e^t.
Tensor exp(const Tensor& t);
/// Natural logarithm; log(0) = -inf, log(x < 0) = nan.
Tensor log(const Tensor& t);
Tensor sqrt(const Tensor& t);
/// 1 / sqrt(t).
Tensor rsqrt(const Tensor& t);
/// |t|, same dtype (bool refused, as on PyTorch's CPU).
Tensor abs(const Tensor& t);
/// -1, 0 or 1 in t's dtype (sign(nan) = 0, as in PyTorch); its gradient is zero.
Tensor sign(const Tensor& t);
/// The Gauss error function (GELU's building block).
Tensor erf(const Tensor& t);
/// Elementwise min(max(t, min), max); at least one bound must be given. A floating bound on an
/// integer tensor gives float32 (PyTorch's promotion); NaN in t stays NaN. The gradient passes
/// where min <= t <= max.
Tensor clamp(const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
/// t ** exponent. Integer tensors with an integer exponent stay integer (negative exponents are
/// refused there), a floating exponent gives float32.
Tensor pow(const Tensor& t, Scalar exponent);

namespace detail {
/// Runs unary_stub on t converted to `dtype` (no autograd).
Tensor unary_forward(UnaryOp op, const Tensor& t, DType dtype, const UnaryParams& p = {});
/// The dtype a floating function of t computes in: t's own when floating, else float32.
DType float_result_type(DType t);
}  // namespace detail

}  // namespace ember
