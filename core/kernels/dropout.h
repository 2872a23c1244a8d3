#pragma once
// The kernel contract of inverted dropout from a Philox stream (ops/dropout.h). Ops call these
// stubs; each backend (core/cpu/, cuda/) registers its kernels into them.
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

}  // namespace ember
