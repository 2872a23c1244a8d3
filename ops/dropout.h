#pragma once
// Inverted dropout: in training each element is zeroed with probability p and the survivors are
// scaled by 1 / (1 - p), so the expected value is unchanged and evaluation needs no rescaling.
#include "ember/core/dispatch.h"
#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember {

/// Kernel: mask = (u < 1 - p) / (1 - p) and out = in * mask, with u uniform in [0, 1) drawn from
/// gen (element i, in row-major order, takes draw i of the stream, so the mask does not depend on
/// the thread count); advances gen by one draw per element. out and mask are contiguous, in has
/// their shape and dtype (floating), 0 < p < 1.
using DropoutFn = void (*)(const Tensor& out, const Tensor& mask, const Tensor& in, double p,
                           Generator& gen);
EMBER_DECLARE_STUB(dropout_stub, DropoutFn);

/// dropout(x, 0.1, training) as torch.nn.functional.dropout: t itself when !training, p == 0 or
/// t is empty; t * 0 when p == 1 (as PyTorch: zeros, NaN stays NaN). The mask comes from `gen`
/// (default_generator() when null): the same seed gives the same mask. The gradient is
/// grad * mask / (1 - p).
Tensor dropout(const Tensor& t, double p = 0.5, bool training = true, Generator* gen = nullptr);

}  // namespace ember
