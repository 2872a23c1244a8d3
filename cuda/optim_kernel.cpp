// CUDA kernels of the optimizers' update steps (cuda/kernels/pointwise.cu): one pass over the
// contiguous parameter and its state, the CPU kernels' formulas operation by operation.
#include "ember/core/kernels/optim.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
namespace {

void* mut(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

void cuda_sgd_step(const Tensor& param, const Tensor& grad, const Tensor& buf, const SgdStep& a) {
  check_floating_compute(param.dtype(), "SGD");
  On on(param);
  launch_sgd_step(param.dtype(), param.data_ptr(), grad.data_ptr(), mut(buf), param.numel(),
                  SgdArgs{a.lr, a.weight_decay, a.momentum, a.dampening, a.nesterov, a.maximize, a.first}, on.stream);
}

void cuda_adam_step(const Tensor& param, const Tensor& grad, const Tensor& m, const Tensor& v, const Tensor& vmax,
                    const AdamStep& a) {
  check_floating_compute(param.dtype(), "Adam");
  On on(param);
  launch_adam_step(param.dtype(), param.data_ptr(), grad.data_ptr(), m.data_ptr(), v.data_ptr(),
                   a.amsgrad ? mut(vmax) : nullptr, param.numel(),
                   AdamArgs{a.beta1, a.beta2, a.eps, a.weight_decay, a.amsgrad, a.maximize, a.decoupled, a.step_size,
                            a.bc2_sqrt, a.decay},
                   on.stream);
}

void cuda_rmsprop_step(const Tensor& param, const Tensor& grad, const Tensor& sq, const Tensor& ga, const Tensor& buf,
                       const RmspropStep& a) {
  check_floating_compute(param.dtype(), "RMSprop");
  On on(param);
  launch_rmsprop_step(param.dtype(), param.data_ptr(), grad.data_ptr(), sq.data_ptr(), a.centered ? mut(ga) : nullptr,
                      a.momentum > 0 ? mut(buf) : nullptr, param.numel(),
                      RmspropArgs{a.lr, a.alpha, a.eps, a.weight_decay, a.momentum, a.centered, a.maximize}, on.stream);
}

void cuda_adagrad_step(const Tensor& param, const Tensor& grad, const Tensor& sum, const AdagradStep& a) {
  check_floating_compute(param.dtype(), "Adagrad");
  On on(param);
  launch_adagrad_step(param.dtype(), param.data_ptr(), grad.data_ptr(), sum.data_ptr(), param.numel(),
                      AdagradArgs{a.clr, a.weight_decay, a.eps, a.maximize}, on.stream);
}

void cuda_unscale(const Tensor& grad, const Tensor& found_inf, float inv_scale) {
  check_floating_compute(grad.dtype(), "GradScaler.unscale_");
  On on(grad);
  launch_unscale(grad.dtype(), grad.data_ptr(), static_cast<float*>(found_inf.data_ptr()), grad.numel(), inv_scale,
                 on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(unscale_stub, DeviceType::CUDA, (widened<&cuda_unscale, 0, 1>));
EMBER_REGISTER_KERNEL(sgd_step_stub, DeviceType::CUDA, (widened<&cuda_sgd_step, 0, 2>));
EMBER_REGISTER_KERNEL(adam_step_stub, DeviceType::CUDA, (widened<&cuda_adam_step, 0, 2, 3, 4>));
EMBER_REGISTER_KERNEL(rmsprop_step_stub, DeviceType::CUDA, (widened<&cuda_rmsprop_step, 0, 2, 3, 4>));
EMBER_REGISTER_KERNEL(adagrad_step_stub, DeviceType::CUDA, (widened<&cuda_adagrad_step, 0, 2>));

}  // namespace ember::cuda
