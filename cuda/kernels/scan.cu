// The running scans beyond cumsum (cumprod, logcumsumexp, cummax, cummin) along rows of [rows, n]:
// one row per thread, left to right through the shared scan_row (cuda/shared/scan_row.h), so each
// row is the CPU kernel's sequence of operations. Simple rather than fast: a row's scan is serial.
#include "ember/cuda/kernels/device_utils.cuh"
#include "ember/cuda/shared/scan_row.h"

namespace ember::cuda {
namespace {

// NB: logcumsumexp has a kernel of its own: sharing one with the other ops, the float64 kernel
// spilled around log1p's call. The other ops stay a runtime switch.
template <typename T, bool Log>
__global__ void __launch_bounds__(kThreads) scan_kernel(ScanOp op, const T* in, T* out, int64_t* indices,
                                                         int64_t rows, int64_t n) {
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; r < rows;
       r += static_cast<int64_t>(blockDim.x) * gridDim.x)
    scan_row<T, Log>(Log ? ScanOp::Logcumsumexp : op, in + r * n, out + r * n, indices ? indices + r * n : nullptr, n);
}

}  // namespace

void launch_scan(ScanOp op, DType dtype, const void* in, void* out, int64_t* indices, int64_t rows, int64_t n,
                 cudaStream_t stream) {
  if (rows * n == 0) return;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      if (op == ScanOp::Logcumsumexp) {
        scan_kernel<T, true><<<blocks_for(rows), kThreads, 0, stream>>>(op, static_cast<const T*>(in),
                                                                        static_cast<T*>(out), indices, rows, n);
        return check_launch("logcumsumexp");
      }
    }
    // Logcumsumexp of an integer dtype is refused by the registration (cuda/scan_kernel.cpp).
    scan_kernel<T, false><<<blocks_for(rows), kThreads, 0, stream>>>(op, static_cast<const T*>(in),
                                                                     static_cast<T*>(out), indices, rows, n);
    check_launch(detail::op_name(op));
  };
  switch (dtype) {
    case DType::Bool:
    case DType::UInt8: return run(uint8_t{});
    case DType::Int32: return run(int32_t{});
    case DType::Int64: return run(int64_t{});
    case DType::Float32: return run(float{});
    default: return run(double{});
  }
}

}  // namespace ember::cuda
