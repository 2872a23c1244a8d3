#pragma once
// The kernel contract of elementwise ops of one tensor (ops/unary.h, ops/activation.h): the
// parameters of the op codes (the codes are the `kernel`s of the op table, ops/ops.toml) and the
// kernels of the forward and of the fused activation gradients. Ops call these stubs; each backend
// (core/cpu/, cuda/) registers its kernels into them and handles every code.
#include "ember/core/dispatch.h"
#include "ember/core/kernels/op_codes.h"  // UnaryOp, BinaryOp, CompareOp: from the op table
#include "ember/core/tensor.h"

namespace ember {

/// Extra arguments of parametrised unary ops: LeakyRelu slope (a), Clamp and Hardtanh bounds
/// (a = min, b = max, each used only when has_a / has_b), PowScalar exponent (a).
struct UnaryParams {
  double a = 0;
  double b = 0;
  bool has_a = false, has_b = false;
};
/// Kernel: out = op(in); same shape, same dtype.
using UnaryFn = void (*)(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p);
EMBER_DECLARE_STUB(unary_stub, UnaryFn);

/// Kernel: grad_in = grad * op'(saved), where `saved` is the op's output for Tanh, Sigmoid and
/// Relu and its input for Gelu, GeluTanh, LeakyRelu (slope in p.a) and Hardtanh (bounds in p.a,
/// p.b); all of one shape and dtype.
using ActivationBackwardFn = void (*)(UnaryOp op, const Tensor& grad_in, const Tensor& grad,
                                      const Tensor& saved, const UnaryParams& p);
EMBER_DECLARE_STUB(activation_backward_stub, ActivationBackwardFn);

}  // namespace ember
