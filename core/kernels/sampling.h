#pragma once
// The kernel contract of sampling categories from weights (ops/multinomial.h).
#include <cstdint>

#include "ember/core/dispatch.h"
#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember {

/// Kernel: out[r] (int64, contiguous [rows, k]) gets k categories drawn from row r of the
/// contiguous float64 [rows, n] `weights` (finite, >= 0, each row summing to more than 0), each
/// with probability proportional to its weight. With replacement the draws are independent;
/// without, a drawn category leaves the row, and once the positive weights are used up the rest
/// are the zero-weight categories in index order (PyTorch's CPU result). Every draw takes one
/// uniform double from gen, rows in order, k per row (so the stream is the same without
/// replacement); k <= n without replacement.
using MultinomialFn = void (*)(const Tensor& out, const Tensor& weights, int64_t k, bool replacement,
                               Generator& gen);
EMBER_DECLARE_STUB(multinomial_stub, MultinomialFn);

}  // namespace ember
