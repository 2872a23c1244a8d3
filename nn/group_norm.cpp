#include "ember/nn/group_norm.h"

#include "ember/core/factory.h"
#include "ember/nn/init.h"
#include "ember/nn/normalization.h"
#include "ember/ops/group_norm.h"
#include "ember/ops/view.h"

namespace ember::nn {
namespace {

// weight (ones) and, with `bias`, bias (zeros) of `channels` elements, when affine.
void register_affine(Module& m, bool affine, bool bias, int64_t channels) {
  if (!affine) return;
  m.register_parameter("weight", ones({channels}));
  if (bias) m.register_parameter("bias", zeros({channels}));
}

void reset_affine(Module& m) {
  if (m.has_parameter("weight")) init::ones_(m.parameter("weight"));
  if (m.has_parameter("bias")) init::zeros_(m.parameter("bias"));
}

Tensor optional_parameter(const Module& m, const char* name) {
  return m.has_parameter(name) ? m.parameter(name) : Tensor();
}

}  // namespace

GroupNorm::GroupNorm(GroupNormOptions options) : Module("GroupNorm"), options_(options) {
  EMBER_CHECK_VALUE(options.num_groups > 0 && options.num_channels > 0,
                    "GroupNorm: num_groups and num_channels must be positive, got ", options.num_groups, " and ",
                    options.num_channels);
  EMBER_CHECK_VALUE(options.num_channels % options.num_groups == 0, "GroupNorm: num_channels (",
                    options.num_channels, ") must be divisible by num_groups (", options.num_groups, ")");
  register_affine(*this, options.affine, options.bias, options.num_channels);
}

void GroupNorm::reset_parameters() { reset_affine(*this); }

Tensor GroupNorm::forward(const Tensor& input) {
  return group_norm(input, options_.num_groups, optional_parameter(*this, "weight"), optional_parameter(*this, "bias"),
                    options_.eps);
}

std::string GroupNorm::extra_repr() const {
  return detail::str(options_.num_groups, ", ", options_.num_channels, ", eps=", options_.eps,
                     ", affine=", options_.affine ? "True" : "False",
                     ", bias=", options_.affine && options_.bias ? "True" : "False");
}

InstanceNorm::InstanceNorm(const char* type_name, InstanceNormOptions options, int64_t spatial_dims)
    : Module(type_name), options_(options), spatial_dims_(spatial_dims) {
  EMBER_CHECK_VALUE(options.num_features > 0, type_name, ": num_features must be positive, got ",
                    options.num_features);
  register_affine(*this, options.affine, options.bias, options.num_features);
  if (options.track_running_stats) register_running_stats_buffers(*this, options.num_features);
}

void InstanceNorm::reset_running_stats() {
  if (options_.track_running_stats) reset_running_stats_buffers(*this);
}

void InstanceNorm::reset_parameters() {
  reset_running_stats();
  reset_affine(*this);
}

Tensor InstanceNorm::forward(const Tensor& input) {
  const int64_t unbatched = spatial_dims_ + 1;
  EMBER_CHECK_VALUE(input.dim() == unbatched || input.dim() == unbatched + 1, type_name(), ": expected a ", unbatched,
                    "-D (unbatched) or ", unbatched + 1, "-D input, got shape ", input.sizes());
  const int64_t channel_dim = input.dim() - unbatched;
  // NB: PyTorch only warns about a channel count that differs from num_features when nothing
  // per-channel is held; the per-channel statistics then refuse it in instance_norm.
  EMBER_CHECK_VALUE(!options_.affine || input.size(channel_dim) == options_.num_features, type_name(),
                    ": expected ", options_.num_features, " channels in dim ", channel_dim, ", got shape ",
                    input.sizes());
  Tensor x = input.dim() == unbatched ? unsqueeze(input, 0) : input;
  Tensor running_mean, running_var;
  if (options_.track_running_stats) {
    running_mean = buffer("running_mean");
    running_var = buffer("running_var");
  }
  Tensor y = instance_norm(x, running_mean, running_var, optional_parameter(*this, "weight"),
                           optional_parameter(*this, "bias"),
                           is_training() || !options_.track_running_stats, options_.momentum, options_.eps);
  return input.dim() == unbatched ? squeeze(y, 0) : y;
}

std::string InstanceNorm::extra_repr() const {
  return detail::str(options_.num_features, ", eps=", options_.eps, ", momentum=", options_.momentum,
                     ", affine=", options_.affine ? "True" : "False",
                     ", bias=", options_.affine && options_.bias ? "True" : "False",
                     ", track_running_stats=", options_.track_running_stats ? "True" : "False");
}

}  // namespace ember::nn
