// The special functions (erfinv, lgamma, digamma, polygamma, the Bessel functions i0, i0e, i1, i1e;
// cuda/shared/elementwise_math.h's is_special) apart from the other unary ops: their loops and series in
// double would set the register count of the kernel that every unary op shares.
#include "ember/cuda/kernels/elementwise.cuh"

namespace ember::cuda {
namespace {

template <typename T>
struct SpecialFn {
  UnaryOp op;
  UnaryArgs a;
  __device__ void operator()(char* const (&p)[2]) const { store<T>(p[0], special_op<T>(op, load<T>(p[1]), a)); }
};

}  // namespace

void launch_special(const ElementwiseArgs<2>& args, DType dtype, UnaryOp op, const UnaryArgs& a,
                    cudaStream_t stream) {
  if (dtype == DType::Float32)
    run_elementwise(args, SpecialFn<float>{op, a}, stream, "special function");
  else
    run_elementwise(args, SpecialFn<double>{op, a}, stream, "special function");
}

}  // namespace ember::cuda
