#include "ember/nn/channel_functional.h"

#include <cmath>

#include "ember/core/factory.h"
#include "ember/core/warning.h"
#include "ember/nn/activation_functional.h"
#include "ember/ops/ops.h"

namespace ember::nn::functional {
namespace {

// SELU's negative saturation value.
constexpr double kAlphaPrime = -kSeluAlpha * kSeluScale;

void check_p(double p) {
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
}

// input's shape with everything after its first `kept` dims 1: the shape of a per-channel mask.
DimVector channel_shape(const Tensor& input, int64_t kept) {
  DimVector shape = input.sizes().vec();
  for (size_t i = static_cast<size_t>(kept); i < shape.size(); ++i) shape[i] = 1;
  return shape;
}

Tensor feature_dropout(const Tensor& input, double p, bool training, int64_t spatial) {
  check_p(p);
  if (!training || p == 0) return input;
  return input *
         dropout(ones(channel_shape(input, input.dim() - spatial), TensorOptions(input.dtype()).device(input.device())),
                 p, true);
}

// (input * keep + alpha' (1 - keep)) a + b, keep drawn in `mask_shape`: PyTorch's a and b.
Tensor alpha_dropout_with(const Tensor& input, double p, bool training, const DimVector& mask_shape) {
  check_p(p);
  if (!training || p == 0) return input;
  if (p == 1) return input * 0.0;
  Tensor keep = ge(rand(mask_shape, TensorOptions(kFloat32).device(input.device())), p).to(input.dtype());
  const double a = std::pow((1 - p) * (1 + p * kAlphaPrime * kAlphaPrime), -0.5);
  const double b = -a * kAlphaPrime * p;
  return (input * keep + (1.0 - keep) * kAlphaPrime) * a + b;
}

}  // namespace

Tensor pixel_shuffle(const Tensor& input, int64_t r) {
  EMBER_CHECK(input.dim() >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  const int64_t n = input.dim() - 3, c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(r > 0 && c % (r * r) == 0,
              "pixel_shuffle expects its input's 'channel' dimension to be divisible by "
              "the square of upscale_factor, but input.size(-3)=",
              c, " is not divisible by ", r * r);
  DimVector split(input.sizes().begin(), input.sizes().begin() + n), out = split;
  for (int64_t s : {c / (r * r), r, r, h, w}) split.push_back(s);
  for (int64_t s : {c / (r * r), h * r, w * r}) out.push_back(s);
  DimVector order;
  for (int64_t i = 0; i < n; ++i) order.push_back(i);
  for (int64_t i : {0, 3, 1, 4, 2}) order.push_back(n + i);  // [*, C, H, r, W, r]
  return reshape(permute(reshape(input, split), order), out);
}

Tensor pixel_unshuffle(const Tensor& input, int64_t r) {
  EMBER_CHECK(input.dim() >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  const int64_t n = input.dim() - 3, c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(r > 0 && h % r == 0 && w % r == 0,
              "pixel_unshuffle expects height and width to be divisible by "
              "downscale_factor, got ",
              h, " and ", w, " for ", r);
  DimVector split(input.sizes().begin(), input.sizes().begin() + n), out = split;
  for (int64_t s : {c, h / r, r, w / r, r}) split.push_back(s);
  for (int64_t s : {c * r * r, h / r, w / r}) out.push_back(s);
  DimVector order;
  for (int64_t i = 0; i < n; ++i) order.push_back(i);
  for (int64_t i : {0, 2, 4, 1, 3}) order.push_back(n + i);  // [*, C, r, r, H, W]
  return reshape(permute(reshape(input, split), order), out);
}

Tensor channel_shuffle(const Tensor& input, int64_t groups) {
  EMBER_CHECK(input.dim() >= 3, "channel_shuffle expects input to have at least 3 dimensions, but got input with ",
              input.dim(), " dimension(s)");
  EMBER_CHECK(groups > 0, "Number of groups to divide channels in must be positive. Value of groups:", groups);
  const int64_t c = input.size(1);
  EMBER_CHECK(c % groups == 0, "Number of channels must be divisible by groups. Got ", c, " channels and ", groups,
              " groups.");
  DimVector split{input.size(0), groups, c / groups};
  for (int64_t i = 2; i < input.dim(); ++i) split.push_back(input.size(i));
  return reshape(transpose(reshape(input, split), 1, 2), input.sizes());
}

Tensor dropout1d(const Tensor& input, double p, bool training) {
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "dropout1d: Expected 2D or 3D input, but received a ", input.dim(),
              "D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
              "spatial dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
  return feature_dropout(input, p, training, 1);
}

Tensor dropout2d(const Tensor& input, double p, bool training) {
  // NB: PyTorch's behaviour, warnings included: other ranks than 4 keep a mask over the first two
  // dims, so a 3-D input is (N, C, L) and a 2-D one is dropped element-wise.
  check_p(p);
  const int64_t d = input.dim();
  if (d != 3 && d != 4)
    warn(detail::str("dropout2d: Received a ", d,
                     "-D input to dropout2d, which is deprecated and will result in an "
                     "error in a future release. To retain the behavior and silence this warning, please use dropout "
                     "instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 spatial "
                     "dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs)."));
  if (d == 3)
    warn(
        "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is desired - "
        "input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will change in a future "
        "release to interpret the input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
        "channel-wise dropout behavior, please switch to using dropout1d instead.");
  if (!training || p == 0) return input;
  EMBER_CHECK_VALUE(d >= 2, "dropout2d: feature dropout needs at least 2 dims (batch and channel), got shape ",
                    input.sizes());
  return feature_dropout(input, p, training, d - 2);
}

Tensor dropout3d(const Tensor& input, double p, bool training) {
  // NB: PyTorch only warns for other ranks and then guesses the layout; Ember refuses.
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5, "dropout3d: Expected 4D or 5D input, but received a ", input.dim(),
              "D input");
  return feature_dropout(input, p, training, 3);
}

Tensor alpha_dropout(const Tensor& input, double p, bool training) {
  return alpha_dropout_with(input, p, training, input.sizes().vec());
}

Tensor feature_alpha_dropout(const Tensor& input, double p, bool training) {
  return alpha_dropout_with(input, p, training, channel_shape(input, std::min<int64_t>(2, input.dim())));
}

}  // namespace ember::nn::functional
