#include "ember/nn/conv_functional.h"

#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/ops.h"

namespace ember::nn::functional {
namespace {

void check_conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t groups) {
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5,
              "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: ", input.sizes());
  EMBER_CHECK(weight.dim() == 5, "conv3d: expected a 5-D weight [out, in / groups, kD, kH, kW], got weight of size ",
              weight.sizes());
  EMBER_CHECK(groups >= 1, "non-positive groups is not supported, got groups=", groups);
  EMBER_CHECK(weight.size(0) % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ", groups,
              " at dimension 0, but got weight of size ", weight.sizes(), " instead");
  // NB: an unbatched input is named as the batch of one PyTorch makes of it.
  EMBER_CHECK(input.size(-4) == weight.size(1) * groups, "Given groups=", groups, ", weight of size ", weight.sizes(),
              ", expected input", input.dim() == 5 ? input.sizes() : input.unsqueeze(0).sizes(), " to have ",
              weight.size(1) * groups, " channels, but got ", input.size(-4), " channels instead");
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)), "Given weight of size ",
              weight.sizes(), ", expected bias to be 1-dimensional with ", weight.size(0),
              " elements, but got bias of size ", bias.sizes(), " instead");
}

}  // namespace

std::vector<std::pair<int64_t, int64_t>> same_padding_sides(IntArrayRef kernel, IntArrayRef dilation) {
  std::vector<std::pair<int64_t, int64_t>> sides;
  for (size_t i = 0; i < kernel.size(); ++i) {
    const int64_t total = dilation[i] * (kernel[i] - 1);
    sides.emplace_back(total / 2, total - total / 2);
  }
  return sides;
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size3 stride, PaddingRule padding,
              Size3 dilation, int64_t groups) {
  if (autocast::applies("conv3d", input))
    return autocast::run("conv3d", {input, weight, bias}, [&](const autocast::Cast& cast) {
      return conv3d(cast(input), cast(weight), cast(bias), stride, padding, dilation, groups);
    });
  if (padding == PaddingRule::Valid) return conv3d(input, weight, bias, stride, 0, dilation, groups);
  EMBER_CHECK(stride == Size3(1), "padding='same' is not supported for strided convolutions");
  check_conv3d(input, weight, bias, groups);
  auto sides = same_padding_sides(IntArrayRef(weight.sizes().data() + 2, 3), {dilation.d, dilation.h, dilation.w});
  Tensor padded =
      pad(input, {sides[2].first, sides[2].second, sides[1].first, sides[1].second, sides[0].first, sides[0].second});
  return conv3d(padded, weight, bias, stride, 0, dilation, groups);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size3 stride, Size3 padding,
              Size3 dilation, int64_t groups) {
  if (autocast::applies("conv3d", input))
    return autocast::run("conv3d", {input, weight, bias}, [&](const autocast::Cast& cast) {
      return conv3d(cast(input), cast(weight), cast(bias), stride, padding, dilation, groups);
    });
  check_conv3d(input, weight, bias, groups);
  Tensor x = input.dim() == 5 ? input : input.unsqueeze(0);
  const int64_t kd = weight.size(2), kh = weight.size(3), kw = weight.size(4);
  if (padding.d) x = pad(x, {0, 0, 0, 0, padding.d, padding.d});
  const int64_t n = x.size(0), c = x.size(1), d = x.size(2), h = x.size(3), w = x.size(4);
  EMBER_CHECK(d >= dilation.d * (kd - 1) + 1 && h + 2 * padding.h >= dilation.h * (kh - 1) + 1 &&
                  w + 2 * padding.w >= dilation.w * (kw - 1) + 1,
              "Calculated padded input size per channel: (", d, " x ", h + 2 * padding.h, " x ", w + 2 * padding.w,
              "). Kernel size: (", dilation.d * (kd - 1) + 1, " x ", dilation.h * (kh - 1) + 1, " x ",
              dilation.w * (kw - 1) + 1, "). Kernel size can't be greater than actual input size");
  const int64_t od = (d - dilation.d * (kd - 1) - 1) / stride.d + 1;
  // taps[:, i] is the depth slice tap i meets at every output depth: [N, kD, C, oD, H, W].
  std::vector<Tensor> slices;
  for (int64_t i = 0; i < kd; ++i)
    slices.push_back(slice(x, 2, i * dilation.d, i * dilation.d + stride.d * (od - 1) + 1, stride.d));
  // NB: conv2d's groups split the channels in contiguous blocks, so the taps go inside each group:
  // channel (g, i, c) of the stack meets weight[g O / groups + o, c, i].
  const int64_t cg = c / groups, out_channels = weight.size(0);
  Tensor planes = stack(slices, 1)
                      .reshape({n, kd, groups, cg, od, h, w})
                      .permute({0, 4, 2, 1, 3, 5, 6})
                      .reshape({n * od, groups * kd * cg, h, w});
  Tensor kernel2d = weight.permute({0, 2, 1, 3, 4}).reshape({out_channels, kd * cg, kh, kw});
  Tensor y =
      conv2d(planes, kernel2d, bias, {stride.h, stride.w}, {padding.h, padding.w}, {dilation.h, dilation.w}, groups);
  y = y.reshape({n, od, out_channels, y.size(-2), y.size(-1)}).permute({0, 2, 1, 3, 4});
  return input.dim() == 5 ? y : y.squeeze(0);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t stride, int64_t padding,
                        int64_t output_padding, int64_t groups, int64_t dilation) {
  if (autocast::applies("conv_transpose1d", input))
    return autocast::run("conv_transpose1d", {input, weight, bias}, [&](const autocast::Cast& cast) {
      return conv_transpose1d(cast(input), cast(weight), cast(bias), stride, padding, output_padding, groups, dilation);
    });
  EMBER_CHECK(
      input.dim() == 2 || input.dim() == 3,
      "Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d, but got input of size: ", input.sizes());
  EMBER_CHECK(weight.dim() == 3, "conv_transpose1d: expected a 3-D weight [in, out / groups, k], got weight of size ",
              weight.sizes());
  return conv_transpose2d(input.unsqueeze(-2), weight.unsqueeze(-2), bias, {1, stride}, {0, padding},
                          {0, output_padding}, groups, {1, dilation})
      .squeeze(-2);
}

Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias, Size3 stride, Size3 padding,
                        Size3 output_padding, int64_t groups, Size3 dilation) {
  if (autocast::applies("conv_transpose3d", input))
    return autocast::run("conv_transpose3d", {input, weight, bias}, [&](const autocast::Cast& cast) {
      return conv_transpose3d(cast(input), cast(weight), cast(bias), stride, padding, output_padding, groups, dilation);
    });
  EMBER_CHECK(
      input.dim() == 4 || input.dim() == 5,
      "Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input of size: ", input.sizes());
  EMBER_CHECK(weight.dim() == 5,
              "conv_transpose3d: expected a 5-D weight [in, out / groups, kD, kH, kW], got weight of size ",
              weight.sizes());
  EMBER_CHECK(groups >= 1 && weight.size(0) % groups == 0, "conv_transpose3d: groups=", groups,
              " must be positive and divide weight's first dim ", weight.size(0));
  EMBER_CHECK(input.size(-4) == weight.size(0), "Given transposed=1, weight of size ", weight.sizes(),
              ", expected input ", input.sizes(), " to have ", weight.size(0), " channels, but got ", input.size(-4),
              " channels instead");
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(1) * groups),
              "conv_transpose3d: expected bias of ", weight.size(1) * groups, " elements, got ", bias.sizes());
  for (int i = 0; i < 3; ++i)
    EMBER_CHECK(output_padding[i] >= 0 && output_padding[i] < std::max(stride[i], dilation[i]),
                "conv_transpose3d: output padding must be smaller than either stride or dilation, got "
                "output_padding=",
                output_padding, ", stride=", stride, ", dilation=", dilation);
  if (input.dim() == 4)
    return conv_transpose3d(input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups, dilation)
        .squeeze(0);
  const int64_t n = input.size(0), cin = input.size(1), depth = input.size(2), height = input.size(3),
                width = input.size(4);
  const int64_t cout_g = weight.size(1), kd = weight.size(2), kh = weight.size(3), kw = weight.size(4);
  // weight [Cin, Cout/g, kD, kH, kW] -> [Cin, kD Cout/g, kH, kW]: within a group, channel kd Cout/g + c.
  Tensor taps = weight.permute({0, 2, 1, 3, 4}).reshape({cin, kd * cout_g, kh, kw});
  Tensor planes = input.permute({0, 2, 1, 3, 4}).reshape({n * depth, cin, height, width});
  Tensor out2d = conv_transpose2d(planes, taps, Tensor(), {stride.h, stride.w}, {padding.h, padding.w},
                                  {output_padding.h, output_padding.w}, groups, {dilation.h, dilation.w});
  const int64_t ho = out2d.size(-2), wo = out2d.size(-1);
  // [N, D, g, kD, Cout/g, Ho, Wo] -> [N, g, Cout/g, kD, D, Ho, Wo] -> [N, Cout, kD D, Ho, Wo]
  Tensor stacked = out2d.reshape({n, depth, groups, kd, cout_g, ho, wo})
                       .permute({0, 2, 4, 3, 1, 5, 6})
                       .reshape({n, groups * cout_g, kd * depth, ho, wo});
  const int64_t full = (depth - 1) * stride.d + dilation.d * (kd - 1) + 1 + output_padding.d;
  EMBER_CHECK(full - 2 * padding.d > 0, "conv_transpose3d: padding ", padding.d,
              " leaves no output depth (the full depth is ", full, ")");
  TensorOptions index_options = TensorOptions(kInt64).device(input.device());
  Tensor target = (arange(kd, index_options).reshape({kd, 1}) * dilation.d +
                   arange(depth, index_options).reshape({1, depth}) * stride.d)
                      .reshape({kd * depth});
  Tensor out = index_add(zeros({n, groups * cout_g, full, ho, wo}, TensorOptions(out2d.dtype()).device(out2d.device())),
                         2, target, stacked);
  out = slice(out, 2, padding.d, full - padding.d);
  return bias.defined() ? out + bias.reshape({1, -1, 1, 1, 1}) : out;
}

std::vector<int64_t> output_padding_for(const char* op, IntArrayRef input_spatial, IntArrayRef size, IntArrayRef kernel,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation) {
  const size_t k = input_spatial.size();
  std::vector<int64_t> extra(k), lo(k), hi(k);
  bool fits = size.size() == k;
  for (size_t d = 0; d < k; ++d) {
    lo[d] = (input_spatial[d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel[d] - 1) + 1;
    hi[d] = lo[d] + stride[d] - 1;
    if (!fits) continue;
    extra[d] = size[d] - lo[d];
    fits = extra[d] >= 0 && size[d] <= hi[d];
  }
  EMBER_CHECK_VALUE(fits, op, ": requested an output size of ", size, ", but valid sizes range from ", IntArrayRef(lo),
                    " to ", IntArrayRef(hi), " (for an input of ", input_spatial, ")");
  return extra;
}

}  // namespace ember::nn::functional
