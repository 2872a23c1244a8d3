// The special functions (erfinv, lgamma, digamma, polygamma, the Bessel functions i0, i0e, i1, i1e, and
// of two arguments the incomplete gamma functions; core/math/elementwise.h's is_special) apart
// from the other elementwise ops: their loops and series in double would set the register count of
// the kernels that every unary (binary) op shares.
#include "ember/cuda/kernels/elementwise.cuh"

namespace ember::cuda {
using namespace elementwise;  // the per-element math (core/math/elementwise.h)
namespace {

template <typename T>
struct SpecialFn {
  UnaryOp op;
  UnaryArgs a;
  __device__ void operator()(char* const (&p)[2]) const { store<T>(p[0], special_op<T>(op, load<T>(p[1]), a)); }
};

template <typename T>
struct BinarySpecialFn {
  BinaryOp op;
  __device__ void operator()(char* const (&p)[3]) const {
    store<T>(p[0], special_op<T>(op, load<T>(p[1]), load<T>(p[2])));
  }
};

}  // namespace

void launch_binary_special(const ElementwiseArgs<3>& args, DType dtype, BinaryOp op, cudaStream_t stream) {
  if (dtype == DType::Float32)
    run_elementwise(args, BinarySpecialFn<float>{op}, stream, "special function");
  else
    run_elementwise(args, BinarySpecialFn<double>{op}, stream, "special function");
}

void launch_special(const ElementwiseArgs<2>& args, DType dtype, UnaryOp op, const UnaryArgs& a,
                    cudaStream_t stream) {
  if (dtype == DType::Float32)
    run_elementwise(args, SpecialFn<float>{op, a}, stream, "special function");
  else
    run_elementwise(args, SpecialFn<double>{op, a}, stream, "special function");
}

}  // namespace ember::cuda
