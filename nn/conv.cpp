#include "ember/nn/conv.h"

#include <array>
#include <cmath>
#include <vector>

#include "ember/core/factory.h"
#include "ember/nn/conv_functional.h"
#include "ember/nn/init.h"
#include "ember/nn/option_field.h"
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
  const auto [before, after] = functional::same_padding_sides({kernel}, {dilation}).front();
  return {before, after};
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

// The output_padding that gives a transposed convolution the spatial output_size (which may also be
// the whole shape); the input is batched or not (spatial dims + 1 or + 2).
std::vector<int64_t> transposed_output_padding(const char* layer, const Tensor& input, IntArrayRef output_size,
                                               IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
                                               IntArrayRef dilation) {
  const int64_t spatial = static_cast<int64_t>(kernel.size());
  EMBER_CHECK_VALUE(input.dim() == spatial + 1 || input.dim() == spatial + 2, layer, ": expected a ", spatial + 1,
                    "-D or ", spatial + 2, "-D input, got ", input.sizes());
  const int64_t lead = input.dim() - spatial;  // the non-spatial dims
  std::vector<int64_t> size(output_size.begin(), output_size.end());
  if (static_cast<int64_t>(size.size()) == lead + spatial) size.erase(size.begin(), size.begin() + lead);
  EMBER_CHECK_VALUE(static_cast<int64_t>(size.size()) == spatial, layer, ": output_size must have ", spatial, " or ",
                    lead + spatial, " elements (got ", output_size, ")");
  return functional::output_padding_for(layer, IntArrayRef(input.sizes().data() + lead, spatial), size, kernel, stride,
                                        padding, dilation);
}

std::string size3_or_default(Size3 s, Size3 fallback) { return s == fallback ? "" : python_repr(s); }
std::string int1_or_default(int64_t s, int64_t fallback) { return s == fallback ? "" : detail::str("(", s, ",)"); }

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
  auto extra =
      transposed_output_padding("ConvTranspose2d", input, output_size, {o.kernel_size.h, o.kernel_size.w},
                                {o.stride.h, o.stride.w}, {o.padding.h, o.padding.w}, {o.dilation.h, o.dilation.w});
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

// ---- Conv3d

Conv3d::Conv3d(Conv3dOptions options) : Module("Conv3d"), options_(std::move(options)) {
  const Conv3dOptions& o = options_;
  check_channels("Conv3d", o.in_channels, o.out_channels, o.groups);
  check_padding_mode("Conv3d", o.padding_mode);
  EMBER_CHECK_VALUE(o.padding_rule != PaddingRule::Same || o.stride == Size3(1),
                    "Conv3d: padding='same' is not supported for strided convolutions");
  register_parameter(
      "weight", empty({o.out_channels, o.in_channels / o.groups, o.kernel_size.d, o.kernel_size.h, o.kernel_size.w}));
  if (o.bias) register_parameter("bias", empty({o.out_channels}));
  reset_parameters();
}

void Conv3d::reset_parameters() { reset_conv(*this); }

Tensor Conv3d::forward(const Tensor& input) {
  const Conv3dOptions& o = options_;
  if (o.padding_mode != "zeros") {
    std::array<int64_t, 2> sides[3];
    for (int i = 0; i < 3; ++i) sides[i] = dim_padding(o.padding_rule, o.padding[i], o.kernel_size[i], o.dilation[i]);
    Tensor padded =
        pad(input, {sides[2][0], sides[2][1], sides[1][0], sides[1][1], sides[0][0], sides[0][1]}, o.padding_mode);
    return functional::conv3d(padded, weight(), bias(), o.stride, Size3(0), o.dilation, o.groups);
  }
  if (o.padding_rule)
    return functional::conv3d(input, weight(), bias(), o.stride, *o.padding_rule, o.dilation, o.groups);
  return functional::conv3d(input, weight(), bias(), o.stride, o.padding, o.dilation, o.groups);
}

std::string Conv3d::extra_repr() const {
  const Conv3dOptions& o = options_;
  return detail::str(o.in_channels, ", ", o.out_channels, ", kernel_size=", python_repr(o.kernel_size),
                     ", stride=", python_repr(o.stride)) +
         conv_repr_tail(o.padding_rule ? padding_rule_name(*o.padding_rule) : size3_or_default(o.padding, 0),
                        size3_or_default(o.dilation, 1), "", o.groups, o.bias, o.padding_mode);
}

// ---- ConvTranspose1d

ConvTranspose1d::ConvTranspose1d(ConvTranspose1dOptions options) : Module("ConvTranspose1d"), options_(options) {
  const ConvTranspose1dOptions& o = options_;
  check_channels("ConvTranspose1d", o.in_channels, o.out_channels, o.groups);
  register_parameter("weight", empty({o.in_channels, o.out_channels / o.groups, o.kernel_size}));
  if (o.bias) register_parameter("bias", empty({o.out_channels}));
  reset_parameters();
}

void ConvTranspose1d::reset_parameters() { reset_conv(*this); }

Tensor ConvTranspose1d::forward(const Tensor& input) {
  const ConvTranspose1dOptions& o = options_;
  return functional::conv_transpose1d(input, weight(), bias(), o.stride, o.padding, o.output_padding, o.groups,
                                      o.dilation);
}

Tensor ConvTranspose1d::forward(const Tensor& input, IntArrayRef output_size) {
  const ConvTranspose1dOptions& o = options_;
  auto extra =
      transposed_output_padding("ConvTranspose1d", input, output_size, o.kernel_size, o.stride, o.padding, o.dilation);
  return functional::conv_transpose1d(input, weight(), bias(), o.stride, o.padding, extra[0], o.groups, o.dilation);
}

std::string ConvTranspose1d::extra_repr() const {
  const ConvTranspose1dOptions& o = options_;
  return detail::str(o.in_channels, ", ", o.out_channels, ", kernel_size=(", o.kernel_size, ",), stride=(", o.stride,
                     ",)") +
         conv_repr_tail(int1_or_default(o.padding, 0), int1_or_default(o.dilation, 1),
                        int1_or_default(o.output_padding, 0), o.groups, o.bias, "zeros");
}

// ---- ConvTranspose3d

ConvTranspose3d::ConvTranspose3d(ConvTranspose3dOptions options) : Module("ConvTranspose3d"), options_(options) {
  const ConvTranspose3dOptions& o = options_;
  check_channels("ConvTranspose3d", o.in_channels, o.out_channels, o.groups);
  register_parameter(
      "weight", empty({o.in_channels, o.out_channels / o.groups, o.kernel_size.d, o.kernel_size.h, o.kernel_size.w}));
  if (o.bias) register_parameter("bias", empty({o.out_channels}));
  reset_parameters();
}

void ConvTranspose3d::reset_parameters() { reset_conv(*this); }

Tensor ConvTranspose3d::forward(const Tensor& input) {
  const ConvTranspose3dOptions& o = options_;
  return functional::conv_transpose3d(input, weight(), bias(), o.stride, o.padding, o.output_padding, o.groups,
                                      o.dilation);
}

Tensor ConvTranspose3d::forward(const Tensor& input, IntArrayRef output_size) {
  const ConvTranspose3dOptions& o = options_;
  auto sizes = [](Size3 s) { return std::vector<int64_t>{s.d, s.h, s.w}; };
  auto extra = transposed_output_padding("ConvTranspose3d", input, output_size, sizes(o.kernel_size), sizes(o.stride),
                                         sizes(o.padding), sizes(o.dilation));
  return functional::conv_transpose3d(input, weight(), bias(), o.stride, o.padding, Size3(extra[0], extra[1], extra[2]),
                                      o.groups, o.dilation);
}

std::string ConvTranspose3d::extra_repr() const {
  const ConvTranspose3dOptions& o = options_;
  return detail::str(o.in_channels, ", ", o.out_channels, ", kernel_size=", python_repr(o.kernel_size),
                     ", stride=", python_repr(o.stride)) +
         conv_repr_tail(size3_or_default(o.padding, 0), size3_or_default(o.dilation, 1),
                        size3_or_default(o.output_padding, 0), o.groups, o.bias, "zeros");
}

}  // namespace ember::nn
