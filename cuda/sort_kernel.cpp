// CUDA kernels for argsort (a stable merge sort) and cumsum along the rows of [rows, n]
// (cuda/kernels/sort.cu).
#include "ember/core/kernels/sort.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
namespace {

void cuda_argsort(const Tensor& indices, const Tensor& in, bool descending) {
  check_compute_dtype(in.dtype(), "argsort");
  const int64_t n = in.size(-1), rows = n == 0 ? 0 : in.numel() / n;
  On on(indices);
  TensorScratch scratch(indices.device());
  launch_argsort(in.dtype(), in.data_ptr(), static_cast<int64_t*>(indices.data_ptr()), rows, n, descending, scratch,
                 on.stream);
}

void cuda_cumsum(const Tensor& out, const Tensor& in) {
  check_compute_dtype(in.dtype(), "cumsum");
  EMBER_CHECK_TYPE(in.dtype() != kBool, "cumsum: bool tensors are summed as int64; convert first");
  const int64_t n = in.size(-1), rows = n == 0 ? 0 : in.numel() / n;
  On on(out);
  launch_cumsum(in.dtype(), in.data_ptr(), out.data_ptr(), rows, n, on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(argsort_stub, DeviceType::CUDA, (widened<&cuda_argsort>));
EMBER_REGISTER_KERNEL(cumsum_stub, DeviceType::CUDA, (widened<&cuda_cumsum, 0>));

}  // namespace ember::cuda
