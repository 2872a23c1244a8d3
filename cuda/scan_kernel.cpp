// CUDA kernel for the running scans of core/kernels/scan.h (cumprod, logcumsumexp, cummax, cummin)
// along the rows of the contiguous [rows, n] input (cuda/kernels/scan.cu).
#include "ember/core/kernels/scan.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
namespace {

void cuda_scan(ScanOp op, const Tensor& out, const Tensor& indices, const Tensor& in) {
  check_compute_dtype(in.dtype(), detail::op_name(op));
  EMBER_CHECK_TYPE(op != ScanOp::Logcumsumexp || is_floating(in.dtype()),
                   "logcumsumexp: expected a floating tensor, got ", in.dtype());
  const int64_t n = in.size(-1), rows = n == 0 ? 0 : in.numel() / n;
  On on(out);
  launch_scan(op, in.dtype(), in.data_ptr(), out.data_ptr(),
              indices.defined() ? static_cast<int64_t*>(indices.data_ptr()) : nullptr, rows, n, on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(scan_stub, DeviceType::CUDA, (widened<&cuda_scan, 1>));

}  // namespace ember::cuda
