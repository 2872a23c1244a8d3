// CUDA kernels for complex math (core/kernels/complex.h); the math is in cuda/kernels/complex.cu.
#include "ember/core/kernels/complex.h"
#include "ember/cuda/tensor_args.h"

namespace ember::cuda {
namespace {

void cuda_complex_binary(ComplexBinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  EMBER_INTERNAL_ASSERT(out.dtype() == kComplex64 || out.dtype() == kComplex128, "complex kernel with a ", out.dtype(),
                        " result");
  On on(out);
  launch_complex_binary(elementwise_args<3>({&out, &a, &b}, "complex"), out.dtype(), op, on.stream);
}

void cuda_complex_unary(ComplexUnaryOp op, const Tensor& out, const Tensor& in) {
  EMBER_INTERNAL_ASSERT(in.dtype() == kComplex64 || in.dtype() == kComplex128, "complex kernel with a ", in.dtype(),
                        " input");
  On on(out);
  launch_complex_unary(elementwise_args<2>({&out, &in}, "complex"), in.dtype(), op, on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(complex_binary_stub, DeviceType::CUDA, &cuda_complex_binary);
EMBER_REGISTER_KERNEL(complex_unary_stub, DeviceType::CUDA, &cuda_complex_unary);

}  // namespace ember::cuda
