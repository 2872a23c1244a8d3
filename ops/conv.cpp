#include "ember/ops/conv.h"

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

namespace {

int64_t conv_out_size(int64_t in, int64_t k, int64_t stride, int64_t pad, int64_t extra, int64_t dilation) {
  return (in + 2 * pad + extra - dilation * (k - 1) - 1) / stride + 1;
}

DimVector output_shape(IntArrayRef in, IntArrayRef w, const Conv2dParams& p) {
  return {in[0], w[0], conv_out_size(in[2], w[2], p.stride.h, p.padding.h, p.extra_padding.h, p.dilation.h),
          conv_out_size(in[3], w[3], p.stride.w, p.padding.w, p.extra_padding.w, p.dilation.w)};
}

// How an op names itself in errors: the 1-D ops see their tensors with the unit height dim
// removed and their geometry as widths.
struct ConvOp {
  const char* name;
  int64_t spatial;  // 1 or 2
  std::string geometry(Size2 s) const { return spatial == 1 ? detail::str("[", s.w, "]") : detail::str(s); }
  std::string shape(IntArrayRef sizes) const {
    if (spatial == 2) return detail::str(sizes);
    DimVector v = sizes.vec();
    v.erase(v.end() - 2);  // the unit height dim the 1-D op added
    return detail::str(IntArrayRef(v));
  }
};

// Input and weight ranks, dtypes, devices and the geometry's signs, shared by every convolution.
void check_operands(const ConvOp& op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                    const Conv2dParams& p) {
  const char* name = op.name;
  EMBER_CHECK_VALUE(input.defined() && weight.defined(), name, ": input and weight must be defined tensors");
  const int64_t s = op.spatial;
  EMBER_CHECK_VALUE(input.dim() == s + 1 || input.dim() == s + 2, name, ": expected a ",
                    s == 1 ? "2-D [C, L] or 3-D [N, C, L]" : "3-D [C, H, W] or 4-D [N, C, H, W]", " input, got ",
                    input.sizes());
  EMBER_CHECK_VALUE(weight.dim() == s + 2, name, ": expected a ", s + 2, "-D weight [",
                    std::string_view(name).find("transpose") != std::string_view::npos
                        ? "in_channels, out_channels / groups"
                        : "out_channels, in_channels / groups",
                    s == 1 ? ", k" : ", kH, kW", "], got ", weight.sizes());
  bool same = input.dtype() == weight.dtype() && (!bias.defined() || bias.dtype() == input.dtype());
  EMBER_CHECK_TYPE(same, name, ": input, weight and bias must have the same dtype, got input ", describe(input),
                   ", weight ", describe(weight), ", bias ", bias.defined() ? describe(bias) : std::string("none"));
  check_compute_dtype(input.dtype(), name);
  EMBER_CHECK_TYPE(input.is_floating_point(), name, ": input and weight must be float32 or float64, got ",
                   describe(input), " and ", describe(weight));
  EMBER_CHECK_VALUE(input.device() == weight.device() && (!bias.defined() || bias.device() == input.device()),
                    name, ": input, weight and bias must be on the same device");
  EMBER_CHECK_VALUE(p.groups > 0, name, ": groups must be positive, got ", p.groups);
  EMBER_CHECK_VALUE(p.stride.h > 0 && p.stride.w > 0, name, ": stride must be positive, got ", op.geometry(p.stride));
  EMBER_CHECK_VALUE(p.dilation.h > 0 && p.dilation.w > 0, name, ": dilation must be positive, got ",
                    op.geometry(p.dilation));
  EMBER_CHECK_VALUE(p.padding.h >= 0 && p.padding.w >= 0, name, ": padding must be non-negative, got ",
                    op.geometry(p.padding));
}

// A convolution's input, given 4-D (the 1-D ops' with their unit height dim).
void check_conv(const ConvOp& op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                const Conv2dParams& p) {
  const char* name = op.name;
  const int64_t channels = input.size(-3), out_channels = weight.size(0);
  EMBER_CHECK_VALUE(channels % p.groups == 0, name, ": input ", op.shape(input.sizes()), " has ", channels,
                    " channels, which are not divisible by groups=", p.groups);
  EMBER_CHECK_VALUE(out_channels % p.groups == 0, name, ": weight ", op.shape(weight.sizes()), " has ", out_channels,
                    " output channels, which are not divisible by groups=", p.groups);
  EMBER_CHECK_VALUE(weight.size(1) * p.groups == channels, name, ": weight ", op.shape(weight.sizes()),
                    " with groups=", p.groups, " expects input with ", weight.size(1) * p.groups,
                    " channels, but input ", op.shape(input.sizes()), " has ", channels);
  EMBER_CHECK_VALUE(weight.size(2) > 0 && weight.size(3) > 0, name, ": weight ", op.shape(weight.sizes()),
                    " has an empty kernel");
  Size2 kernel(p.dilation.h * (weight.size(2) - 1) + 1, p.dilation.w * (weight.size(3) - 1) + 1);
  Size2 padded(input.size(-2) + 2 * p.padding.h + p.extra_padding.h,
               input.size(-1) + 2 * p.padding.w + p.extra_padding.w);
  EMBER_CHECK_VALUE(kernel.h <= padded.h && kernel.w <= padded.w, name, ": kernel ", op.geometry(kernel),
                    " (dilated) is larger than the padded input ", op.geometry(padded), " (input ",
                    op.shape(input.sizes()), ", weight ", op.shape(weight.sizes()), ", padding ",
                    op.geometry(p.padding), ")");
  EMBER_CHECK_VALUE(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_channels), name,
                    ": expected a bias of shape [", out_channels, "], got ", bias.sizes());
}

// Runs a checked convolution of a 3-D or 4-D input as a batch.
Tensor conv_batched(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dParams& p) {
  if (input.dim() == 3) return squeeze(detail::conv2d_4d(unsqueeze(input, 0), weight, bias, p), 0);
  return detail::conv2d_4d(input, weight, bias, p);
}

// conv2d after the checks the 2-D and the 1-D ops share.
Tensor conv_checked(const ConvOp& op, const Tensor& input, const Tensor& weight, const Tensor& bias,
                    const Conv2dParams& p) {
  check_operands(op, input, weight, bias, p);
  if (op.spatial == 1) {  // [N, C, L] as [N, C, 1, L]
    Tensor x = unsqueeze(input, -2), w = unsqueeze(weight, -2);
    check_conv(op, x, w, bias, p);
    return squeeze(conv_batched(x, w, bias, p), -2);
  }
  check_conv(op, input, weight, bias, p);
  return conv_batched(input, weight, bias, p);
}

// The explicit geometry a padding rule stands for.
Conv2dParams with_rule(const ConvOp& op, const Tensor& weight, Size2 stride, PaddingRule rule, Size2 dilation,
                       int64_t groups) {
  Conv2dParams p{stride, 0, dilation, groups};
  if (rule == PaddingRule::Valid || !weight.defined() || weight.dim() != op.spatial + 2) return p;
  EMBER_CHECK_VALUE(stride.h == 1 && stride.w == 1, op.name,
                    ": padding='same' is not supported for strided convolutions, got stride ", op.geometry(stride));
  Size2 kernel = op.spatial == 1 ? Size2(1, weight.size(-1)) : Size2(weight.size(-2), weight.size(-1));
  Conv2dParams same = same_padding(kernel, dilation);
  p.padding = same.padding;
  p.extra_padding = same.extra_padding;
  return p;
}

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
    if (needs_input_grad(0)) dg = detail::conv2d_4d(g[0], weight.unpack(this), Tensor(), p);
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
    if (needs_input_grad(0)) dg = detail::conv2d_4d(input.unpack(this), g[0], Tensor(), p);
    if (needs_input_grad(1)) dx = detail::conv2d_input_backward(grad_out.unpack(this), g[0], input_shape, p);
    return {dg, dx};
  }
  void release_saved() override {
    grad_out.reset();
    input.reset();
  }
};

}  // namespace

namespace detail {

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

PaddingRule padding_rule(std::string_view name, const char* op) {
  if (name == "valid") return PaddingRule::Valid;
  if (name == "same") return PaddingRule::Same;
  throw ValueError(detail::str(op, ": invalid padding string '", name, "', expected 'valid' or 'same'"));
}

const char* padding_rule_name(PaddingRule rule) { return rule == PaddingRule::Same ? "same" : "valid"; }

Conv2dParams same_padding(Size2 kernel, Size2 dilation) {
  Conv2dParams p;
  const Size2 total(dilation.h * (kernel.h - 1), dilation.w * (kernel.w - 1));
  p.padding = Size2(total.h / 2, total.w / 2);
  p.extra_padding = Size2(total.h - 2 * p.padding.h, total.w - 2 * p.padding.w);
  return p;
}

Tensor impl_conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2 stride, Size2 padding,
                   Size2 dilation, int64_t groups) {
  if (autocast::applies("conv2d", input))
    return autocast::run("conv2d", {input, weight, bias}, [&](const autocast::Cast& cast) {
      return conv2d(cast(input), cast(weight), cast(bias), stride, padding, dilation, groups);
    });
  return conv_checked({"conv2d", 2}, input, weight, bias, Conv2dParams{stride, padding, dilation, groups});
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2 stride, PaddingRule padding,
              Size2 dilation, int64_t groups) {
  if (autocast::applies("conv2d", input))
    return autocast::run("conv2d", {input, weight, bias}, [&](const autocast::Cast& cast) {
      return conv2d(cast(input), cast(weight), cast(bias), stride, padding, dilation, groups);
    });
  const ConvOp op{"conv2d", 2};
  return conv_checked(op, input, weight, bias, with_rule(op, weight, stride, padding, dilation, groups));
}

Tensor impl_conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t stride, int64_t padding,
                   int64_t dilation, int64_t groups) {
  if (autocast::applies("conv1d", input))
    return autocast::run("conv1d", {input, weight, bias}, [&](const autocast::Cast& cast) {
      return conv1d(cast(input), cast(weight), cast(bias), stride, padding, dilation, groups);
    });
  return conv_checked({"conv1d", 1}, input, weight, bias,
                      Conv2dParams{Size2(1, stride), Size2(0, padding), Size2(1, dilation), groups});
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t stride, PaddingRule padding,
              int64_t dilation, int64_t groups) {
  if (autocast::applies("conv1d", input))
    return autocast::run("conv1d", {input, weight, bias}, [&](const autocast::Cast& cast) {
      return conv1d(cast(input), cast(weight), cast(bias), stride, padding, dilation, groups);
    });
  const ConvOp op{"conv1d", 1};
  return conv_checked(op, input, weight, bias,
                      with_rule(op, weight, Size2(1, stride), padding, Size2(1, dilation), groups));
}

// The transposed convolution is conv2d's input gradient, whose own gradients are already recorded
// (Conv2dInputBackwardBackward): a negative extra_padding of output_padding makes the convolution
// from the output's size give back the input's.
Tensor impl_conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size2 stride, Size2 padding,
                             Size2 output_padding, int64_t groups, Size2 dilation) {
  if (autocast::applies("conv_transpose2d", input))
    return autocast::run("conv_transpose2d", {input, weight, bias}, [&](const autocast::Cast& cast) {
      return conv_transpose2d(cast(input), cast(weight), cast(bias), stride, padding, output_padding, groups, dilation);
    });
  const ConvOp op{"conv_transpose2d", 2};
  const char* name = op.name;
  Conv2dParams p{stride, padding, dilation, groups};
  check_operands(op, input, weight, bias, p);
  const int64_t in_channels = input.size(-3);
  EMBER_CHECK_VALUE(in_channels % groups == 0, name, ": input ", input.sizes(), " has ", in_channels,
                    " channels, which are not divisible by groups=", groups);
  EMBER_CHECK_VALUE(weight.size(0) == in_channels, name, ": weight ", weight.sizes(), " expects input with ",
                    weight.size(0), " channels (its dim 0), but input ", input.sizes(), " has ", in_channels);
  EMBER_CHECK_VALUE(weight.size(2) > 0 && weight.size(3) > 0, name, ": weight ", weight.sizes(), " has an empty kernel");
  const int64_t out_channels = weight.size(1) * groups;
  EMBER_CHECK_VALUE(!bias.defined() || (bias.dim() == 1 && bias.size(0) == out_channels), name,
                    ": expected a bias of shape [", out_channels, "], got ", bias.sizes());
  const bool op_ok = output_padding.h >= 0 && output_padding.w >= 0 &&
                     (output_padding.h < stride.h || output_padding.h < dilation.h) &&
                     (output_padding.w < stride.w || output_padding.w < dilation.w);
  EMBER_CHECK_VALUE(op_ok, name, ": output_padding ", output_padding,
                    " must be non-negative and smaller than either stride ", stride, " or dilation ", dilation);
  const Size2 out((input.size(-2) - 1) * stride.h - 2 * padding.h + dilation.h * (weight.size(2) - 1) +
                      output_padding.h + 1,
                  (input.size(-1) - 1) * stride.w - 2 * padding.w + dilation.w * (weight.size(3) - 1) +
                      output_padding.w + 1);
  EMBER_CHECK_VALUE(out.h > 0 && out.w > 0, name, ": input ", input.sizes(), " with weight ", weight.sizes(),
                    ", stride ", stride, ", padding ", padding, " and dilation ", dilation,
                    " gives an output of size ", out, ", which is too small");
  p.extra_padding = Size2(-output_padding.h, -output_padding.w);
  const Tensor x = input.dim() == 3 ? unsqueeze(input, 0) : input;
  Tensor y = detail::conv2d_input_backward(x, weight, {x.size(0), out_channels, out.h, out.w}, p);
  if (bias.defined()) y = y + reshape(bias, {1, out_channels, 1, 1});
  return input.dim() == 3 ? squeeze(y, 0) : y;
}

}  // namespace ember
