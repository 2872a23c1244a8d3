// sin, cos and tan, apart from the other unary ops and each in a kernel of its own: CUDA's accurate
// argument reduction for large arguments keeps its table in registers only when a kernel calls one
// of them, in float; in double it always uses 40 bytes of local memory. This is the one .cu file
// compiled without ptxas's local-memory report (cmake/EmberCuda.cmake), so that report elsewhere
// still points at a kernel of Ember's.
#include "ember/cuda/kernels/elementwise.cuh"

namespace ember::cuda {
namespace {

template <typename T, UnaryOp Op>
struct TrigFn {
  __device__ void operator()(char* const (&p)[2]) const {
    const T x = load<T>(p[1]);
    if constexpr (Op == UnaryOp::Sin)
      store<T>(p[0], std::sin(x));
    else if constexpr (Op == UnaryOp::Cos)
      store<T>(p[0], std::cos(x));
    else
      store<T>(p[0], std::tan(x));
  }
};

template <typename T>
void run_trig(const ElementwiseArgs<2>& args, UnaryOp op, cudaStream_t stream) {
  if (op == UnaryOp::Sin) return run_elementwise(args, TrigFn<T, UnaryOp::Sin>{}, stream, "sin");
  if (op == UnaryOp::Cos) return run_elementwise(args, TrigFn<T, UnaryOp::Cos>{}, stream, "cos");
  run_elementwise(args, TrigFn<T, UnaryOp::Tan>{}, stream, "tan");
}

}  // namespace

void launch_trig(const ElementwiseArgs<2>& args, DType dtype, UnaryOp op, cudaStream_t stream) {
  if (dtype == DType::Float32)
    run_trig<float>(args, op, stream);
  else
    run_trig<double>(args, op, stream);
}

}  // namespace ember::cuda
