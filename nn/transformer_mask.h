#pragma once
// The causal mask of the transformer modules (torch.nn.Transformer.generate_square_subsequent_mask)
// and how TransformerEncoder and TransformerDecoder recognise one they are given
// (torch.nn.modules.transformer._detect_is_causal_mask).
#include <optional>

#include "ember/core/tensor.h"

namespace ember::nn {

/// [sz, sz]: -inf above the diagonal and 0 elsewhere (floating dtype), or true above the
/// diagonal (bool), so that position i attends to positions 0 ... i only.
Tensor square_subsequent_mask(int64_t sz, DType dtype = kFloat32);

namespace detail {

/// is_causal when given; otherwise whether `mask` is square_subsequent_mask(size) of its own dtype
/// (false without a mask).
bool detect_is_causal_mask(const Tensor& mask, std::optional<bool> is_causal, int64_t size);
/// The sequence length of a transformer input: dim 0 of unbatched [L, E], else dim 1 (batch_first)
/// or dim 0.
int64_t sequence_length(const Tensor& x, bool batch_first);

}  // namespace detail
}  // namespace ember::nn
