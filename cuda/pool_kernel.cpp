// CUDA kernels for 2-D max and average pooling, forward and backward (cuda/kernels/pool.cu). Inputs
// are contiguous [N, C, H, W].
#include "ember/core/kernels/pool.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
namespace {

PoolGeometry geometry(const Tensor& input, const Tensor& out, const Pool2dParams& p, bool dilated) {
  return {input.size(0) * input.size(1),
          input.size(2),
          input.size(3),
          out.size(2),
          out.size(3),
          p.kernel.h,
          p.kernel.w,
          p.stride.h,
          p.stride.w,
          p.padding.h,
          p.padding.w,
          dilated && !p.adaptive ? p.dilation.h : 1,  // adaptive windows' taps are positions
          dilated && !p.adaptive ? p.dilation.w : 1,
          p.adaptive,
          p.count_include_pad,
          p.divisor_override.value_or(0)};
}

void cuda_max_pool2d(const Tensor& out, const Tensor& indices, const Tensor& input, const Pool2dParams& p) {
  check_floating_compute(input.dtype(), "max_pool2d");
  On on(out);
  launch_max_pool2d(input.dtype(), geometry(input, out, p, true), input.data_ptr(), out.data_ptr(),
                    static_cast<int64_t*>(indices.data_ptr()), on.stream);
}

void cuda_max_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Tensor& indices) {
  check_floating_compute(grad_out.dtype(), "max_pool2d");
  On on(grad_input);
  launch_max_pool2d_backward(grad_out.dtype(), grad_input.size(0) * grad_input.size(1),
                             grad_input.size(2) * grad_input.size(3), grad_out.size(2) * grad_out.size(3),
                             grad_out.data_ptr(), static_cast<const int64_t*>(indices.data_ptr()),
                             grad_input.data_ptr(), on.stream);
}

void cuda_avg_pool2d(const Tensor& out, const Tensor& input, const Pool2dParams& p) {
  check_floating_compute(input.dtype(), "avg_pool2d");
  On on(out);
  launch_avg_pool2d(input.dtype(), geometry(input, out, p, false), input.data_ptr(), out.data_ptr(), on.stream);
}

void cuda_avg_pool2d_backward(const Tensor& grad_input, const Tensor& grad_out, const Pool2dParams& p) {
  check_floating_compute(grad_out.dtype(), "avg_pool2d");
  On on(grad_input);
  launch_avg_pool2d_backward(grad_out.dtype(), geometry(grad_input, grad_out, p, false), grad_out.data_ptr(),
                             grad_input.data_ptr(), on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(max_pool2d_stub, DeviceType::CUDA, (widened<&cuda_max_pool2d, 0>));
EMBER_REGISTER_KERNEL(max_pool2d_backward_stub, DeviceType::CUDA, (widened<&cuda_max_pool2d_backward, 0>));
EMBER_REGISTER_KERNEL(avg_pool2d_stub, DeviceType::CUDA, (widened<&cuda_avg_pool2d, 0>));
EMBER_REGISTER_KERNEL(avg_pool2d_backward_stub, DeviceType::CUDA, (widened<&cuda_avg_pool2d_backward, 0>));

}  // namespace ember::cuda
