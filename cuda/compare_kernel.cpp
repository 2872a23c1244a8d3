// CUDA kernels for comparisons and where (the math: core/math/elementwise.h).
#include "ember/core/kernels/compare.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
using namespace elementwise;  // the per-element math (core/math/elementwise.h)
namespace {

void cuda_compare(CompareOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  check_compute_dtype(a.dtype(), "compare");
  EMBER_CHECK_AS(NotImplementedError, compare_defined(op), detail::op_name(op), ": no CUDA kernel");
  On on(out);
  launch_compare(elementwise_args<3>({&out, &a, &b}, detail::op_name(op)), a.dtype(), op, on.stream);
}

void cuda_where(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  On on(out);
  launch_where(elementwise_args<4>({&out, &cond, &a, &b}, "where"), static_cast<int>(out.itemsize()), on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(compare_stub, DeviceType::CUDA, (widened<&cuda_compare, 1>));
EMBER_REGISTER_KERNEL(where_stub, DeviceType::CUDA, (widened<&cuda_where, 0>));

}  // namespace ember::cuda
