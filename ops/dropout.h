#pragma once
// Inverted dropout: in training each element is zeroed with probability p and the survivors are
// scaled by 1 / (1 - p), so the expected value is unchanged and evaluation needs no rescaling.
#include "ember/core/kernels/dropout.h"
#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember {

/// dropout(x, 0.1, training) as torch.nn.functional.dropout: t itself when !training, p == 0 or
/// t is empty; t * 0 when p == 1 (as PyTorch: zeros, NaN stays NaN). The mask comes from `gen`
/// (default_generator() when null): the same seed gives the same mask. The gradient is
/// grad * mask / (1 - p).
Tensor dropout(const Tensor& t, double p = 0.5, bool training = true, Generator* gen = nullptr);

}  // namespace ember
