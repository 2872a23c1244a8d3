#include "ember/nn/normalization.h"

#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/nn/init.h"
#include "ember/ops/normalization.h"

namespace ember::nn {

BatchNorm::BatchNorm(const char* type_name, BatchNormOptions options, int64_t dims_lo, int64_t dims_hi)
    : Module(type_name), options_(options), dims_lo_(dims_lo), dims_hi_(dims_hi) {
  EMBER_CHECK_VALUE(options.num_features > 0, type_name, ": num_features must be positive, got ",
                    options.num_features);
  if (options.affine) {
    register_parameter("weight", ones({options.num_features}));
    register_parameter("bias", zeros({options.num_features}));
  }
  if (options.track_running_stats) register_running_stats_buffers(*this, options.num_features);
}

void register_running_stats_buffers(Module& m, int64_t features) {
  m.register_buffer("running_mean", zeros({features}));
  m.register_buffer("running_var", ones({features}));
  m.register_buffer("num_batches_tracked", zeros({}, kInt64));
}

void reset_running_stats_buffers(Module& m) {
  NoGradGuard no_grad;
  Tensor(m.buffer("running_mean")).zero_();
  Tensor(m.buffer("running_var")).fill_(1);
  Tensor(m.buffer("num_batches_tracked")).zero_();
}

void BatchNorm::reset_running_stats() {
  if (options_.track_running_stats) reset_running_stats_buffers(*this);
}

void BatchNorm::reset_parameters() {
  reset_running_stats();
  if (options_.affine) {
    init::ones_(parameter("weight"));
    init::zeros_(parameter("bias"));
  }
}

Tensor BatchNorm::forward(const Tensor& input) {
  EMBER_CHECK_VALUE(input.dim() >= dims_lo_ && input.dim() <= dims_hi_, type_name(), ": expected ",
                    dims_lo_ == dims_hi_ ? detail::str(dims_lo_, "D") : detail::str(dims_lo_, "D or ", dims_hi_, "D"),
                    " input (got ", input.dim(), "D input): shape ", input.sizes());
  EMBER_CHECK_VALUE(input.size(1) == options_.num_features, type_name(), ": expected ",
                    options_.num_features, " channels in dim 1, got shape ", input.sizes());
  // As PyTorch: batch statistics while training or when none are tracked; the running ones are
  // updated (training) or used (eval) when tracked.
  bool use_batch_stats = is_training() || !options_.track_running_stats;
  Tensor running_mean, running_var;
  double momentum = options_.momentum.value_or(0.0);
  if (options_.track_running_stats) {
    running_mean = buffer("running_mean");
    running_var = buffer("running_var");
    if (is_training()) {
      NoGradGuard no_grad;
      Tensor tracked = buffer("num_batches_tracked");
      tracked.add_(1);
      if (!options_.momentum) momentum = 1.0 / tracked.item<double>();
    }
  }
  Tensor weight = options_.affine ? parameter("weight") : Tensor();
  Tensor bias = options_.affine ? parameter("bias") : Tensor();
  return batch_norm(input, running_mean, running_var, weight, bias, use_batch_stats, momentum, options_.eps);
}

std::string BatchNorm::extra_repr() const {
  return detail::str(options_.num_features, ", eps=", options_.eps,
                     ", momentum=", options_.momentum ? detail::str(*options_.momentum) : std::string("None"),
                     ", affine=", options_.affine ? "True" : "False",
                     ", track_running_stats=", options_.track_running_stats ? "True" : "False");
}

LayerNorm::LayerNorm(LayerNormOptions options) : Module("LayerNorm"), options_(std::move(options)) {
  EMBER_CHECK_VALUE(!options_.normalized_shape.empty(), "LayerNorm: normalized_shape can't be empty");
  if (options_.elementwise_affine) {
    register_parameter("weight", ones(options_.normalized_shape));
    if (options_.bias) register_parameter("bias", zeros(options_.normalized_shape));
  }
}

Tensor LayerNorm::forward(const Tensor& input) {
  Tensor weight = has_parameter("weight") ? parameter("weight") : Tensor();
  Tensor bias = has_parameter("bias") ? parameter("bias") : Tensor();
  return layer_norm(input, options_.normalized_shape, weight, bias, options_.eps);
}

std::string LayerNorm::extra_repr() const {
  return detail::str(IntArrayRef(options_.normalized_shape), ", eps=", options_.eps,
                     ", elementwise_affine=", options_.elementwise_affine ? "True" : "False");
}

}  // namespace ember::nn
