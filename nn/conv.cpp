#include "ember/nn/conv.h"

#include <array>
#include <cmath>
#include <vector>

#include "ember/core/factory.h"
#include "ember/nn/init.h"
#include "ember/ops/pad.h"

namespace ember::nn {
namespace {

void check_channels(const char* layer, int64_t in, int64_t out, int64_t groups) {
  EMBER_CHECK_VALUE(in > 0 && out > 0 && groups > 0, layer, ": in_channels (", in, "), out_channels (", out,
                    ") and groups (", groups, ") must be positive");
  EMBER_CHECK_VALUE(in % groups == 0 && out % groups == 0, layer, ": in_channels (", in, ") and out_channels (", out,
                    ") must be divisible by groups (", groups, ")");
}

void check_padding_mode(const char* layer, const std::string& mode) {
  EMBER_CHECK_VALUE(mode == "zeros" || mode == "reflect" || mode == "replicate" || mode == "circular", layer,
                    ": padding_mode must be 'zeros', 'reflect', 'replicate' or 'circular', got '", mode, "'");
}

void check_rule(const char* layer, const std::optional<PaddingRule>& rule, Size2 stride) {
  EMBER_CHECK_VALUE(rule != PaddingRule::Same || (stride.h == 1 && stride.w == 1), layer,
                    ": padding='same' is not supported for strided convolutions");
}

// PyTorch's uniform initialisation of a convolution's weight and bias.
void reset_conv(Module& m) {
  Tensor weight = m.parameter("weight");
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (m.has_parameter("bias")) {
    auto [fan_in, fan_out] = init::fan_in_and_fan_out(weight);
    double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(m.parameter("bias"), -bound, bound);
  }
}

// The (before, after) amounts of one dim, as PyTorch's _reversed_padding_repeated_twice: "same"
// puts the odd one after.
std::array<int64_t, 2> dim_padding(const std::optional<PaddingRule>& rule, int64_t padding, int64_t kernel,
                                   int64_t dilation) {
  if (!rule) return {padding, padding};
  if (*rule == PaddingRule::Valid) return {0, 0};
  const int64_t total = dilation * (kernel - 1);
  return {total / 2, total - total / 2};
}

std::string size2_repr(Size2 s) { return detail::str("(", s.h, ", ", s.w, ")"); }

// The parts of repr() the convolutions share, after "in, out, kernel_size=..., stride=...", in
// PyTorch's order; empty strings are defaults, left out.
std::string conv_repr_tail(const std::string& padding, const std::string& dilation, const std::string& output_padding,
                           int64_t groups, bool bias, const std::string& padding_mode) {
  std::string s;
  if (!padding.empty()) s += ", padding=" + padding;
  if (!dilation.empty()) s += ", dilation=" + dilation;
  if (!output_padding.empty()) s += ", output_padding=" + output_padding;
  if (groups != 1) s += detail::str(", groups=", groups);
  if (!bias) s += ", bias=False";
  if (padding_mode != "zeros") s += ", padding_mode=" + padding_mode;
  return s;
}

// A Size2 in repr(), or "" for the default.
std::string size2_or_default(Size2 s, Size2 fallback) { return s == fallback ? "" : size2_repr(s); }

}  // namespace

// ---- Conv2d

Conv2d::Conv2d(Conv2dOptions options) : Module("Conv2d"), options_(std::move(options)) {
  const Conv2dOptions& o = options_;
  check_channels("Conv2d", o.in_channels, o.out_channels, o.groups);
  check_padding_mode("Conv2d", o.padding_mode);
  check_rule("Conv2d", o.padding_rule, o.stride);
  register_parameter("weight", empty({o.out_channels, o.in_channels / o.groups, o.kernel_size.h, o.kernel_size.w}));
  if (o.bias) register_parameter("bias", empty({o.out_channels}));
  reset_parameters();
}

void Conv2d::reset_parameters() { reset_conv(*this); }

Tensor Conv2d::forward(const Tensor& input) {
  const Conv2dOptions& o = options_;
  if (o.padding_mode != "zeros") {
    auto h = dim_padding(o.padding_rule, o.padding.h, o.kernel_size.h, o.dilation.h);
    auto w = dim_padding(o.padding_rule, o.padding.w, o.kernel_size.w, o.dilation.w);
    return conv2d(pad(input, {w[0], w[1], h[0], h[1]}, o.padding_mode), weight(), bias(), o.stride, Size2(0),
                  o.dilation, o.groups);
  }
  if (o.padding_rule) return conv2d(input, weight(), bias(), o.stride, *o.padding_rule, o.dilation, o.groups);
  return conv2d(input, weight(), bias(), o.stride, o.padding, o.dilation, o.groups);
}

std::string Conv2d::extra_repr() const {
  const Conv2dOptions& o = options_;
  return detail::str(o.in_channels, ", ", o.out_channels, ", kernel_size=", size2_repr(o.kernel_size),
                     ", stride=", size2_repr(o.stride)) +
         conv_repr_tail(o.padding_rule ? padding_rule_name(*o.padding_rule) : size2_or_default(o.padding, 0),
                        size2_or_default(o.dilation, 1), "", o.groups, o.bias, o.padding_mode);
}

// ---- Conv1d

Conv1d::Conv1d(Conv1dOptions options) : Module("Conv1d"), options_(std::move(options)) {
  const Conv1dOptions& o = options_;
  check_channels("Conv1d", o.in_channels, o.out_channels, o.groups);
  check_padding_mode("Conv1d", o.padding_mode);
  check_rule("Conv1d", o.padding_rule, Size2(1, o.stride));
  register_parameter("weight", empty({o.out_channels, o.in_channels / o.groups, o.kernel_size}));
  if (o.bias) register_parameter("bias", empty({o.out_channels}));
  reset_parameters();
}

void Conv1d::reset_parameters() { reset_conv(*this); }

Tensor Conv1d::forward(const Tensor& input) {
  const Conv1dOptions& o = options_;
  if (o.padding_mode != "zeros") {
    auto w = dim_padding(o.padding_rule, o.padding, o.kernel_size, o.dilation);
    return conv1d(pad(input, {w[0], w[1]}, o.padding_mode), weight(), bias(), o.stride, 0, o.dilation, o.groups);
  }
  if (o.padding_rule) return conv1d(input, weight(), bias(), o.stride, *o.padding_rule, o.dilation, o.groups);
  return conv1d(input, weight(), bias(), o.stride, o.padding, o.dilation, o.groups);
}

std::string Conv1d::extra_repr() const {
  const Conv1dOptions& o = options_;
  return detail::str(o.in_channels, ", ", o.out_channels, ", kernel_size=(", o.kernel_size, ",), stride=(",
                     o.stride, ",)") +
         conv_repr_tail(o.padding_rule       ? padding_rule_name(*o.padding_rule)
                        : o.padding == 0 ? ""
                                         : detail::str("(", o.padding, ",)"),
                        o.dilation == 1 ? "" : detail::str("(", o.dilation, ",)"), "", o.groups, o.bias,
                        o.padding_mode);
}

// ---- ConvTranspose2d

ConvTranspose2d::ConvTranspose2d(ConvTranspose2dOptions options) : Module("ConvTranspose2d"), options_(options) {
  const ConvTranspose2dOptions& o = options_;
  check_channels("ConvTranspose2d", o.in_channels, o.out_channels, o.groups);
  register_parameter("weight", empty({o.in_channels, o.out_channels / o.groups, o.kernel_size.h, o.kernel_size.w}));
  if (o.bias) register_parameter("bias", empty({o.out_channels}));
  reset_parameters();
}

void ConvTranspose2d::reset_parameters() { reset_conv(*this); }

Tensor ConvTranspose2d::forward(const Tensor& input) {
  const ConvTranspose2dOptions& o = options_;
  return conv_transpose2d(input, weight(), bias(), o.stride, o.padding, o.output_padding, o.groups, o.dilation);
}

Tensor ConvTranspose2d::forward(const Tensor& input, IntArrayRef output_size) {
  const ConvTranspose2dOptions& o = options_;
  EMBER_CHECK_VALUE(input.dim() == 3 || input.dim() == 4,
                    "ConvTranspose2d: expected a 3-D [C, H, W] or 4-D [N, C, H, W] input, got ", input.sizes());
  const int64_t lead = input.dim() - 2;  // the non-spatial dims
  std::vector<int64_t> size(output_size.begin(), output_size.end());
  if (static_cast<int64_t>(size.size()) == lead + 2) size.erase(size.begin(), size.begin() + lead);
  EMBER_CHECK_VALUE(size.size() == 2, "ConvTranspose2d: output_size must have 2 or ", lead + 2,
                    " elements (got ", output_size, ")");
  const int64_t stride[2] = {o.stride.h, o.stride.w}, padding[2] = {o.padding.h, o.padding.w};
  const int64_t dilation[2] = {o.dilation.h, o.dilation.w}, kernel[2] = {o.kernel_size.h, o.kernel_size.w};
  int64_t extra[2], lo[2], hi[2];
  for (int d = 0; d < 2; ++d) {
    lo[d] = (input.size(lead + d) - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel[d] - 1) + 1;
    hi[d] = lo[d] + stride[d] - 1;
    extra[d] = size[static_cast<size_t>(d)] - lo[d];
  }
  EMBER_CHECK_VALUE(extra[0] >= 0 && extra[1] >= 0 && size[0] <= hi[0] && size[1] <= hi[1],
                    "ConvTranspose2d: requested an output size of ", output_size, ", but valid sizes range from [",
                    lo[0], ", ", lo[1], "] to [", hi[0], ", ", hi[1], "] (for an input of ", input.sizes(), ")");
  return conv_transpose2d(input, weight(), bias(), o.stride, o.padding, Size2(extra[0], extra[1]), o.groups,
                          o.dilation);
}

std::string ConvTranspose2d::extra_repr() const {
  const ConvTranspose2dOptions& o = options_;
  return detail::str(o.in_channels, ", ", o.out_channels, ", kernel_size=", size2_repr(o.kernel_size),
                     ", stride=", size2_repr(o.stride)) +
         conv_repr_tail(size2_or_default(o.padding, 0), size2_or_default(o.dilation, 1),
                        size2_or_default(o.output_padding, 0), o.groups, o.bias, "zeros");
}

}  // namespace ember::nn
