#pragma once
// Resampling of the last one or two dims (torch.nn.functional.interpolate's kernels; declared from
// the op table, ember/ops/functions.h): upsample_nearest1d/2d, upsample_nearest_exact1d/2d,
// upsample_linear1d, upsample_bilinear2d and upsample_bicubic2d of [N, C, L] / [N, C, H, W] (or
// unbatched) floating inputs, to any output size (down as well as up).
//
// Source positions are PyTorch's, computed in the input's dtype as PyTorch's CPU kernels do:
// nearest reads floor(i * scale) and nearest-exact floor((i + 0.5) * scale), with scale = 1 / scales
// when a scale factor is given and in / out otherwise; the interpolating modes read
// i * (in - 1) / (out - 1) with align_corners, else (i + 0.5) * scale - 0.5 (clamped at 0 except
// for bicubic). Bicubic uses Keys' kernel with a = -0.75 and replicates the edges.
//
// Each dim is resampled on its own (the last first, as PyTorch's kernels nest their loops): a sum
// over taps of index_select(input, dim, tap indices) * tap weights, so gradients (and higher ones)
// are index_select's.
#include "ember/ops/functions.h"
