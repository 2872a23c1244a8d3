// CUDA kernels for batch and layer normalization (cuda/kernels/reduce.cu for the statistics and
// gradient sums, pointwise.cu for the per-channel affine pass). All tensors contiguous.
#include "ember/core/kernels/normalization.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
namespace {

const void* ptr(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }
void* mut(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

void cuda_batch_norm_stats(const Tensor& mean, const Tensor& var, const Tensor& x, int64_t N, int64_t C, int64_t S) {
  check_floating_compute(x.dtype(), "batch_norm");
  On on(mean);
  TensorScratch scratch(mean.device());
  launch_batch_norm_stats(x.dtype(), x.data_ptr(), mean.data_ptr(), var.data_ptr(), N, C, S, scratch, on.stream);
}

void cuda_batch_norm_grad_sums(const Tensor& sum_g, const Tensor& sum_gx, const Tensor& g, const Tensor& x,
                               const Tensor& mean, int64_t N, int64_t C, int64_t S, bool /*batch_mean*/) {
  check_floating_compute(x.dtype(), "batch_norm");
  On on(sum_g);
  TensorScratch scratch(sum_g.device());
  launch_batch_norm_grad_sums(x.dtype(), g.data_ptr(), x.data_ptr(), mean.data_ptr(), sum_g.data_ptr(),
                              sum_gx.data_ptr(), N, C, S, scratch, on.stream);
}

void cuda_channel_affine(const Tensor& out, const Tensor& a, const Tensor& ka, const Tensor& b, const Tensor& b0,
                         const Tensor& kb, const Tensor& k, int64_t N, int64_t C, int64_t S) {
  check_floating_compute(out.dtype(), "batch_norm");
  On on(out);
  launch_channel_affine(out.dtype(), out.data_ptr(), ptr(a), ptr(ka), ptr(b), ptr(b0), ptr(kb),
                        k.data_ptr(), N, C, S, on.stream);
}

void cuda_layer_norm(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& x, const Tensor& weight,
                     const Tensor& bias, double eps) {
  check_floating_compute(x.dtype(), "layer_norm");
  const int64_t R = mean.numel();
  if (R == 0) return;
  On on(out);
  launch_layer_norm(x.dtype(), x.data_ptr(), ptr(weight), ptr(bias), out.data_ptr(), mean.data_ptr(), rstd.data_ptr(),
                    R, x.numel() / R, eps, on.stream);
}

void cuda_layer_norm_backward(const Tensor& grad_in, const Tensor& grad_weight, const Tensor& grad_bias,
                              const Tensor& g, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                              const Tensor& weight, double /*eps*/) {
  check_floating_compute(x.dtype(), "layer_norm");
  const int64_t R = mean.numel();
  // NB: with no rows, the parameter gradients are zeros of their own size.
  const int64_t D = R > 0 ? x.numel() / R
                          : (grad_weight.defined() ? grad_weight.numel() : grad_bias.defined() ? grad_bias.numel() : 0);
  On on(x);
  TensorScratch scratch(x.device());
  launch_layer_norm_backward(x.dtype(), g.data_ptr(), x.data_ptr(), mean.data_ptr(), rstd.data_ptr(), ptr(weight),
                             mut(grad_in), mut(grad_weight), mut(grad_bias), R, D, scratch, on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(batch_norm_stats_stub, DeviceType::CUDA, (widened<&cuda_batch_norm_stats, 0, 1>));
EMBER_REGISTER_KERNEL(batch_norm_grad_sums_stub, DeviceType::CUDA, (widened<&cuda_batch_norm_grad_sums, 0, 1>));
EMBER_REGISTER_KERNEL(channel_affine_stub, DeviceType::CUDA, (widened<&cuda_channel_affine, 0>));
EMBER_REGISTER_KERNEL(layer_norm_stub, DeviceType::CUDA, (widened<&cuda_layer_norm, 0, 1, 2>));
EMBER_REGISTER_KERNEL(layer_norm_backward_stub, DeviceType::CUDA, (widened<&cuda_layer_norm_backward, 0, 1, 2>));

}  // namespace ember::cuda
