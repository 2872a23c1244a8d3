#pragma once
// The channel-wise ops of torch.nn.functional: sub-pixel shuffles (ESPCN), ShuffleNet's channel
// shuffle (views and one permutation, so their gradients are the permutation's), and the dropouts
// that drop whole channels, one mask draw per channel broadcast over its spatial dims.
#include "ember/core/tensor.h"

namespace ember::nn::functional {

/// [*, C r^2, H, W] -> [*, C, H r, W r], r = upscale_factor.
Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
/// [*, C, H r, W r] -> [*, C r^2, H, W], r = downscale_factor.
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);
/// [N, C, *] with its channels, seen as [groups, C / groups], transposed to [C / groups, groups].
Tensor channel_shuffle(const Tensor& input, int64_t groups);
/// Zeroes whole channels of [N, C, L] (or [C, L]) with probability p when training, scaling the rest
/// by 1 / (1 - p); dropout2d takes [N, C, H, W] (or [C, H, W]), dropout3d [N, C, D, H, W] (or 4-D).
Tensor dropout1d(const Tensor& input, double p = 0.5, bool training = true);
Tensor dropout2d(const Tensor& input, double p = 0.5, bool training = true);
Tensor dropout3d(const Tensor& input, double p = 0.5, bool training = true);
/// Dropout that keeps SELU's self-normalisation (mean 0, variance 1): dropped elements take SELU's
/// negative saturation value, then an affine map restores the moments. Identity when not training.
Tensor alpha_dropout(const Tensor& input, double p = 0.5, bool training = false);
/// alpha_dropout over whole channels of [N, C, *].
Tensor feature_alpha_dropout(const Tensor& input, double p = 0.5, bool training = false);

}  // namespace ember::nn::functional
