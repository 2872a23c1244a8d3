#pragma once
// Elementwise math and activations of one tensor. Floating ops on integer tensors compute in
// float32, as in PyTorch.
#include <optional>

#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

enum class UnaryOp : uint8_t {
  Neg, Exp, Log, Sqrt, Rsqrt, Abs, Sign, Tanh, Sigmoid, Relu, Gelu, GeluTanh, LeakyRelu, Clamp,
  PowScalar,
};
/// Extra arguments of parametrised unary ops (LeakyRelu slope, Clamp bounds, PowScalar exponent).
struct UnaryParams {
  double a = 0;
  double b = 0;
  bool has_a = false, has_b = false;
};
/// Kernel: out = op(in); same shape, same dtype.
using UnaryFn = void (*)(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p);
EMBER_DECLARE_STUB(unary_stub, UnaryFn);

Tensor neg(const Tensor& t);

namespace detail {
/// Runs unary_stub on t converted to `dtype` (no autograd).
Tensor unary_forward(UnaryOp op, const Tensor& t, DType dtype, const UnaryParams& p = {});
}  // namespace detail

}  // namespace ember
