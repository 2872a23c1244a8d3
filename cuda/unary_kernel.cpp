// CUDA kernels for elementwise unary ops and the fused activation gradients (the math:
// core/math/elementwise.h; the kernel: cuda/kernels/elementwise.cu).
#include "ember/core/kernels/unary.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
using namespace elementwise;  // the per-element math (core/math/elementwise.h)
namespace {

void cuda_unary(UnaryOp op, const Tensor& out, const Tensor& in, const UnaryParams& p) {
  check_compute_dtype(out.dtype(), "unary");
  const DType t = out.dtype();
  if (t == kBool)  // only sign and bitwise_not are defined for bool; the ops refuse the rest first
    EMBER_CHECK_TYPE(op == UnaryOp::Sign || op == UnaryOp::BitwiseNot, detail::op_name(op),
                     ": not supported for bool tensors");
  EMBER_CHECK_AS(NotImplementedError, unary_defined(op, is_floating(t), t == kBool), detail::op_name(op),
                 ": no CUDA kernel for ", t);
  On on(out);
  launch_unary(elementwise_args<2>({&out, &in}, detail::op_name(op)), t, op, UnaryArgs{p.a, p.b, p.has_a, p.has_b},
               on.stream);
}

void cuda_activation_backward(UnaryOp op, const Tensor& grad_in, const Tensor& grad, const Tensor& saved,
                              const UnaryParams& p) {
  check_floating_compute(grad_in.dtype(), "activation backward");
  EMBER_CHECK_AS(NotImplementedError, activation_backward_defined(op), detail::op_name(op),
                 ": no fused gradient kernel on CUDA");
  On on(grad_in);
  launch_activation_backward(elementwise_args<3>({&grad_in, &grad, &saved}, detail::op_name(op)), grad_in.dtype(), op,
                             p.a, p.b, on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(unary_stub, DeviceType::CUDA, (widened<&cuda_unary, 1>));
EMBER_REGISTER_KERNEL(activation_backward_stub, DeviceType::CUDA, (widened<&cuda_activation_backward, 1>));

}  // namespace ember::cuda
