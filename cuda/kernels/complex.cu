// CUDA kernels for complex math (core/kernels/complex.h) on thrust::complex, through the one
// elementwise kernel (elementwise.cuh): products, quotients, exp, log, sqrt, 1/z, |z| and arg z of
// complex64 and complex128, as the CPU's std::complex computes them; and the FFTs' scaling.
#include <thrust/complex.h>

#include "ember/cuda/kernels/elementwise.cuh"

namespace ember::cuda {
namespace {

template <typename R>
struct ComplexBinaryFn {
  ComplexBinaryOp op;
  __device__ void operator()(char* const (&p)[3]) const {
    using C = thrust::complex<R>;
    switch (op) {
      case ComplexBinaryOp::Mul: store<C>(p[0], load<C>(p[1]) * load<C>(p[2])); break;
      case ComplexBinaryOp::Div: store<C>(p[0], load<C>(p[1]) / load<C>(p[2])); break;
      case ComplexBinaryOp::Make: store<C>(p[0], C(load<R>(p[1]), load<R>(p[2]))); break;
      case ComplexBinaryOp::Polar: {
        const R r = load<R>(p[1]), theta = load<R>(p[2]);
        store<C>(p[0], C(r * cos(theta), r * sin(theta)));
        break;
      }
    }
  }
};

template <typename R>
struct ComplexUnaryFn {
  ComplexUnaryOp op;
  __device__ void operator()(char* const (&p)[2]) const {
    using C = thrust::complex<R>;
    const C z = load<C>(p[1]);
    switch (op) {
      case ComplexUnaryOp::Exp: store<C>(p[0], thrust::exp(z)); break;
      case ComplexUnaryOp::Log: store<C>(p[0], thrust::log(z)); break;
      case ComplexUnaryOp::Sqrt: store<C>(p[0], thrust::sqrt(z)); break;
      case ComplexUnaryOp::Reciprocal: store<C>(p[0], C(1) / z); break;
      case ComplexUnaryOp::Abs: store<R>(p[0], hypot(z.real(), z.imag())); break;  // no overflow for large parts
      case ComplexUnaryOp::Angle: store<R>(p[0], atan2(z.imag(), z.real())); break;
    }
  }
};

template <typename R>
__global__ void __launch_bounds__(kThreads) scale_kernel(R* data, int64_t count, R scale) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step)
    data[i] *= scale;
}

}  // namespace

void launch_complex_binary(const ElementwiseArgs<3>& args, DType complex, ComplexBinaryOp op, cudaStream_t stream) {
  if (complex == DType::Complex128)
    run_elementwise(args, ComplexBinaryFn<double>{op}, stream, "complex");
  else
    run_elementwise(args, ComplexBinaryFn<float>{op}, stream, "complex");
}

void launch_complex_unary(const ElementwiseArgs<2>& args, DType complex, ComplexUnaryOp op, cudaStream_t stream) {
  if (complex == DType::Complex128)
    run_elementwise(args, ComplexUnaryFn<double>{op}, stream, "complex");
  else
    run_elementwise(args, ComplexUnaryFn<float>{op}, stream, "complex");
}

void launch_scale(void* data, int64_t count, DType real, double scale, cudaStream_t stream) {
  if (count == 0) return;
  if (real == DType::Float64)
    scale_kernel<double><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<double*>(data), count, scale);
  else
    scale_kernel<float>
        <<<blocks_for(count), kThreads, 0, stream>>>(static_cast<float*>(data), count, static_cast<float>(scale));
  check_launch("fft scale");
}

}  // namespace ember::cuda
