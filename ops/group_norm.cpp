#include "ember/ops/group_norm.h"

#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/normalization.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

// A per-channel tensor: undefined, or [C] of the input's dtype and device.
void check_channel_param(const Tensor& t, const Tensor& input, const char* op, const char* name) {
  if (!t.defined()) return;
  const int64_t C = input.size(1);
  EMBER_CHECK_VALUE(t.dim() == 1 && t.size(0) == C, op, ": ", name, " has shape ", t.sizes(), "; expected [", C,
                    "] for input ", input.sizes());
  EMBER_CHECK_TYPE(t.dtype() == input.dtype(), op, ": ", name, " has dtype ", t.dtype(), "; expected ", input.dtype(),
                   " (the input's)");
  EMBER_CHECK_VALUE(t.device() == input.device(), op, ": ", name, " is on ", t.device(), ", input on ",
                    input.device());
}

void check_input(const Tensor& input, const char* op) {
  EMBER_CHECK_VALUE(input.defined(), op, ": input is an undefined tensor");
  check_floating_compute(input.dtype(), op);
  EMBER_CHECK_VALUE(input.dim() >= 2, op, ": expected an input of shape [N, C, *], got ", input.sizes());
}

// [C] as [1, C, 1, ...], to broadcast against the input.
Tensor per_channel(const Tensor& t, const Tensor& input) {
  DimVector shape(static_cast<size_t>(input.dim()), 1);
  shape[1] = t.size(0);
  return reshape(t, shape);
}

// A [C] tensor repeated for each of the n samples ([n * C]), or undefined.
Tensor repeat_if_defined(const Tensor& t, int64_t n) { return t.defined() ? repeat(t, {n}) : t; }

}  // namespace

Tensor impl_group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  if (autocast::applies("group_norm", input))
    return autocast::run("group_norm", {input, weight, bias}, [&](const autocast::Cast& cast) {
      return group_norm(cast(input), num_groups, cast(weight), cast(bias), eps);
    });
  if (detail::float32_params_of_16bit_input(input, {weight, bias}))
    return to(group_norm(to(input, kFloat32), num_groups, weight, bias, eps), input.dtype());
  check_input(input, "group_norm");
  const int64_t N = input.size(0), C = input.size(1);
  EMBER_CHECK_VALUE(num_groups > 0 && C % num_groups == 0, "group_norm: the ", C, " channels of input ",
                    input.sizes(), " are not divisible into num_groups=", num_groups, " groups");
  check_channel_param(weight, input, "group_norm", "weight");
  check_channel_param(bias, input, "group_norm", "bias");
  int64_t rest = C / num_groups;
  for (int64_t d = 2; d < input.dim(); ++d) rest *= input.size(d);
  // NB: each sample's group is a row of layer_norm: its statistics (a constant group's mean is exactly
  // its value) and, where a sum overflows, PyTorch's group_norm form of the gradient.
  Tensor y = reshape(layer_norm(reshape(input, {N * num_groups, rest}), {rest}, Tensor(), Tensor(), eps), input.sizes());
  if (weight.defined()) y = y * per_channel(weight, input);
  // NB: a missing bias adds +0, as layer_norm's: a -0 weight gives +0, as PyTorch's x * scale + (-mean * scale)
  y = bias.defined() ? y + per_channel(bias, input) : weight.defined() ? add(y, Scalar(0.0)) : y;
  return y;
}

Tensor impl_instance_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                          const Tensor& weight, const Tensor& bias, bool use_input_stats, double momentum, double eps) {
  const char* op = "instance_norm";
  check_input(input, op);
  for (auto [t, name] : {std::pair{&running_mean, "running_mean"}, std::pair{&running_var, "running_var"},
                         std::pair{&weight, "weight"}, std::pair{&bias, "bias"}})
    check_channel_param(*t, input, op, name);
  EMBER_CHECK_VALUE(running_mean.defined() == running_var.defined(),
                    "instance_norm: running_mean and running_var must both be given or both be undefined");
  EMBER_CHECK_VALUE(use_input_stats || running_mean.defined(),
                    "instance_norm: running_mean and running_var are required when use_input_stats is false");
  const int64_t N = input.size(0), C = input.size(1);
  if (use_input_stats) {
    int64_t spatial = 1;
    for (int64_t d = 2; d < input.dim(); ++d) spatial *= input.size(d);
    // NB: as PyTorch, only a single element is refused (its variance is 0); an empty input is not.
    EMBER_CHECK_VALUE(spatial != 1, "instance_norm: expected more than 1 spatial element when training, got input ",
                      input.sizes());
  }
  // NB: as PyTorch, an input with empty spatial dims leaves the running statistics as they are; with no
  // samples they are the mean of no sample's update, NaN. Weight and bias still take part, with zero gradients.
  if (input.numel() == 0) {
    if (N == 0 && running_mean.defined()) {
      NoGradGuard no_grad;
      running_mean.fill_(std::numeric_limits<double>::quiet_NaN());
      running_var.fill_(std::numeric_limits<double>::quiet_NaN());
    }
    Tensor out = input * 1;
    if (weight.defined()) out = out * per_channel(weight, input);
    if (bias.defined()) out = out + per_channel(bias, input);
    return out;
  }
  Tensor mean_n = repeat_if_defined(running_mean, N), var_n = repeat_if_defined(running_var, N);
  DimVector shape = input.sizes().vec();
  shape[0] = 1;
  shape[1] = N * C;
  Tensor y = detail::batch_norm_checked(reshape(input, shape), mean_n, var_n, repeat_if_defined(weight, N),
                                        repeat_if_defined(bias, N), use_input_stats, momentum, eps);
  if (running_mean.defined()) {  // each sample's update, averaged over the batch (as PyTorch)
    NoGradGuard no_grad;
    running_mean.copy_(mean(reshape(mean_n, {N, C}), {0}));
    running_var.copy_(mean(reshape(var_n, {N, C}), {0}));
  }
  return reshape(y, input.sizes());
}

}  // namespace ember
