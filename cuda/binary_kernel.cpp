// CUDA kernel for elementwise binary arithmetic (the math: core/math/elementwise.h).
// Integer division, remainder and fmod by zero are errors, as on the CPU: the kernel reports a zero
// divisor in the device's error slot, and the host waits for it (those ops only).
#include "ember/core/kernels/binary.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
using namespace elementwise;  // the per-element math (core/math/elementwise.h)
namespace {

std::string division_by_zero(int64_t, int64_t, const void* op) {
  return detail::str(detail::op_name(*static_cast<const BinaryOp*>(op)), ": integer division by zero");
}

void cuda_binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  check_compute_dtype(out.dtype(), "binary");
  const DType t = out.dtype();
  if (t == kBool) EMBER_CHECK_TYPE(binary_defined(op, false, true), detail::op_name(op), ": not defined for bool tensors");
  if (op == BinaryOp::Atan2)
    EMBER_CHECK_TYPE(is_floating(t), "atan2: integer inputs compute in float32; got ", t);
  EMBER_CHECK_AS(NotImplementedError, binary_defined(op, is_floating(t), t == kBool), detail::op_name(op),
                 ": no CUDA kernel for ", t);
  On on(out);
  launch_binary(elementwise_args<3>({&out, &a, &b}, detail::op_name(op)), t, op, error_slot(on.index), on.stream);
  if (binary_divides(op) && !is_floating(t)) check_error_slot(on.index, &division_by_zero, &op);
}

void cuda_add_scaled(const Tensor& out, const Tensor& a, const Tensor& b, double alpha) {
  EMBER_INTERNAL_ASSERT(out.dtype() == kFloat32 || out.dtype() == kFloat64, "add: a scaled sum of ", out.dtype());
  On on(out);
  launch_add_scaled(elementwise_args<3>({&out, &a, &b}, "add"), out.dtype(), alpha, on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(binary_stub, DeviceType::CUDA, (widened<&cuda_binary, 1>));
EMBER_REGISTER_KERNEL(add_scaled_stub, DeviceType::CUDA, (widened<&cuda_add_scaled, 0>));

}  // namespace ember::cuda
