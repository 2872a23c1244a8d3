#include "ember/ops/conv.h"

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

namespace {

int64_t conv_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t dilation) {
  return (in + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
}

DimVector output_shape(IntArrayRef in, IntArrayRef w, const Conv2dParams& p) {
  return {in[0], w[0], conv_out_size(in[2], w[2], p.stride.h, p.padding.h, p.dilation.h),
          conv_out_size(in[3], w[3], p.stride.w, p.padding.w, p.dilation.w)};
}

void check_conv(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dParams& p) {
  EMBER_CHECK_VALUE(input.defined() && weight.defined(), "conv2d: input and weight must be defined tensors");
  EMBER_CHECK_VALUE(input.dim() == 3 || input.dim() == 4,
                    "conv2d: expected a 3-D [C, H, W] or 4-D [N, C, H, W] input, got ", input.sizes());
  EMBER_CHECK_VALUE(weight.dim() == 4, "conv2d: expected a 4-D weight [out_channels, in_channels / groups, kH, kW], got ",
                    weight.sizes());
  bool same = input.dtype() == weight.dtype() && (!bias.defined() || bias.dtype() == input.dtype());
  EMBER_CHECK_TYPE(same, "conv2d: input, weight and bias must have the same dtype, got input ", describe(input),
                   ", weight ", describe(weight), ", bias ", bias.defined() ? describe(bias) : std::string("none"));
  check_compute_dtype(input.dtype(), "conv2d");
  EMBER_CHECK_TYPE(input.is_floating_point(), "conv2d: input and weight must be float32 or float64, got ",
                   describe(input), " and ", describe(weight));
  EMBER_CHECK_VALUE(input.device() == weight.device() && (!bias.defined() || bias.device() == input.device()),
                    "conv2d: input, weight and bias must be on the same device");
  EMBER_CHECK_VALUE(p.groups > 0, "conv2d: groups must be positive, got ", p.groups);
  EMBER_CHECK_VALUE(p.stride.h > 0 && p.stride.w > 0, "conv2d: stride must be positive, got ", p.stride);
  EMBER_CHECK_VALUE(p.dilation.h > 0 && p.dilation.w > 0, "conv2d: dilation must be positive, got ", p.dilation);
  EMBER_CHECK_VALUE(p.padding.h >= 0 && p.padding.w >= 0, "conv2d: padding must be non-negative, got ", p.padding);
  const int64_t channels = input.size(-3), out_channels = weight.size(0);
  EMBER_CHECK_VALUE(channels % p.groups == 0, "conv2d: input ", input.sizes(), " has ", channels,
                    " channels, which are not divisible by groups=", p.groups);
  EMBER_CHECK_VALUE(out_channels % p.groups == 0, "conv2d: weight ", weight.sizes(), " has ", out_channels,
                    " output channels, which are not divisible by groups=", p.groups);
  EMBER_CHECK_VALUE(weight.size(1) * p.groups == channels, "conv2d: weight ", weight.sizes(), " with groups=",
                    p.groups, " expects input with ", weight.size(1) * p.groups, " channels, but input ",
                    input.sizes(), " has ", channels);
  EMBER_CHECK_VALUE(weight.size(2) > 0 && weight.size(3) > 0, "conv2d: weight ", weight.sizes(), " has an empty kernel");
  Size2 kernel(p.dilation.h * (weight.size(2) - 1) + 1, p.dilation.w * (weight.size(3) - 1) + 1);
  Size2 padded(input.size(-2) + 2 * p.padding.h, input.size(-1) + 2 * p.padding.w);
  EMBER_CHECK_VALUE(kernel.h <= padded.h && kernel.w <= padded.w, "conv2d: kernel ", kernel,
                    " (dilated) is larger than the padded input ", padded, " (input ", input.sizes(),
                    ", weight ", weight.sizes(), ", padding ", p.padding, ")");
  EMBER_CHECK_VALUE(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_channels),
                    "conv2d: expected a bias of shape [", out_channels, "], got ", bias.sizes());
}

Tensor conv2d_4d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dParams& p);

// d conv(x, w, b)/dx = conv_transpose(grad, w) ; d/dw = correlation of x with grad over the batch ;
// d/db = grad summed over N, H, W
struct Conv2dBackward : autograd::Node {
  SavedTensor input, weight;
  DimVector input_shape, weight_shape;
  Conv2dParams p;
  const char* name() const override { return "Conv2dBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor gi, gw, gb;
    if (needs_input_grad(0)) gi = detail::conv2d_input_backward(g[0], weight.unpack(this), input_shape, p);
    if (needs_input_grad(1)) gw = detail::conv2d_weight_backward(g[0], input.unpack(this), weight_shape, p);
    if (needs_input_grad(2)) gb = sum(g[0], {0, 2, 3});
    return {gi, gw, gb};
  }
  void release_saved() override {
    input.reset();
    weight.reset();
  }
};

// gi(g, w) is bilinear with <ggi, gi> = <conv(ggi, w), g>:
// d/dg = conv(ggi, w) ; d/dw = conv2d_weight_backward(g, ggi)
struct Conv2dInputBackwardBackward : autograd::Node {
  SavedTensor grad_out, weight;
  DimVector weight_shape;
  Conv2dParams p;
  const char* name() const override { return "Conv2dInputBackwardBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor dg, dw;
    if (needs_input_grad(0)) dg = conv2d_4d(g[0], weight.unpack(this), Tensor(), p);
    if (needs_input_grad(1)) dw = detail::conv2d_weight_backward(grad_out.unpack(this), g[0], weight_shape, p);
    return {dg, dw};
  }
  void release_saved() override {
    grad_out.reset();
    weight.reset();
  }
};

// gw(g, x) is bilinear with <ggw, gw> = <g, conv(x, ggw)>:
// d/dg = conv(x, ggw) ; d/dx = conv2d_input_backward(g, ggw)
struct Conv2dWeightBackwardBackward : autograd::Node {
  SavedTensor grad_out, input;
  DimVector input_shape;
  Conv2dParams p;
  const char* name() const override { return "Conv2dWeightBackwardBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor dg, dx;
    if (needs_input_grad(0)) dg = conv2d_4d(input.unpack(this), g[0], Tensor(), p);
    if (needs_input_grad(1)) dx = detail::conv2d_input_backward(grad_out.unpack(this), g[0], input_shape, p);
    return {dg, dx};
  }
  void release_saved() override {
    grad_out.reset();
    input.reset();
  }
};

// The recorded convolution of a checked 4-D input.
Tensor conv2d_4d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dParams& p) {
  Tensor out = empty(output_shape(input.sizes(), weight.sizes(), p), input.options());
  if (out.numel() > 0)
    conv2d_stub(input.device().type, out, contiguous_data(input), contiguous_data(weight),
                bias.defined() ? contiguous_data(bias) : Tensor(), p);
  if (autograd::any_requires_grad(input, weight, bias)) {
    auto node = autograd::make_node<Conv2dBackward>(input, weight, bias);
    node->input_shape = input.sizes().vec();
    node->weight_shape = weight.sizes().vec();
    node->p = p;
    if (node->needs_input_grad(0)) node->weight = SavedTensor(weight);
    if (node->needs_input_grad(1)) node->input = SavedTensor(input);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace

namespace detail {

Tensor conv2d_input_backward(const Tensor& grad_out, const Tensor& weight, IntArrayRef input_shape,
                             const Conv2dParams& p) {
  EMBER_INTERNAL_ASSERT(grad_out.sizes() == IntArrayRef(output_shape(input_shape, weight.sizes(), p)),
                        "conv2d_input_backward: grad ", grad_out.sizes());
  Tensor gi = empty(input_shape, grad_out.options());
  if (gi.numel() > 0) {
    if (grad_out.numel() == 0)
      fill_data(gi, 0);
    else
      conv2d_input_grad_stub(grad_out.device().type, gi, contiguous_data(grad_out), contiguous_data(weight), p);
  }
  if (autograd::any_requires_grad(grad_out, weight)) {
    auto node = autograd::make_node<Conv2dInputBackwardBackward>(grad_out, weight);
    node->weight_shape = weight.sizes().vec();
    node->p = p;
    if (node->needs_input_grad(0)) node->weight = SavedTensor(weight);
    if (node->needs_input_grad(1)) node->grad_out = SavedTensor(grad_out);
    autograd::set_history(gi, node);
  }
  return gi;
}

Tensor conv2d_weight_backward(const Tensor& grad_out, const Tensor& input, IntArrayRef weight_shape,
                              const Conv2dParams& p) {
  EMBER_INTERNAL_ASSERT(grad_out.sizes() == IntArrayRef(output_shape(input.sizes(), weight_shape, p)),
                        "conv2d_weight_backward: grad ", grad_out.sizes());
  Tensor gw = empty(weight_shape, grad_out.options());
  if (gw.numel() > 0) {
    if (grad_out.numel() == 0)
      fill_data(gw, 0);
    else
      conv2d_weight_grad_stub(grad_out.device().type, gw, contiguous_data(grad_out), contiguous_data(input), p);
  }
  if (autograd::any_requires_grad(grad_out, input)) {
    auto node = autograd::make_node<Conv2dWeightBackwardBackward>(grad_out, input);
    node->input_shape = input.sizes().vec();
    node->p = p;
    if (node->needs_input_grad(0)) node->input = SavedTensor(input);
    if (node->needs_input_grad(1)) node->grad_out = SavedTensor(grad_out);
    autograd::set_history(gw, node);
  }
  return gw;
}

}  // namespace detail

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2 stride, Size2 padding,
              Size2 dilation, int64_t groups) {
  Conv2dParams p{stride, padding, dilation, groups};
  check_conv(input, weight, bias, p);
  if (input.dim() == 3) return squeeze(conv2d_4d(unsqueeze(input, 0), weight, bias, p), 0);
  return conv2d_4d(input, weight, bias, p);
}

}  // namespace ember
