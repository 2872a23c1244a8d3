#pragma once
// Sorting and running sums along a dim: argsort, sort, topk, kthvalue and cumsum (declared from
// the op table, ember/ops/functions.h). sort, topk and kthvalue gather their values with the
// indices argsort finds, so their gradients are gather's: each value's gradient goes back to
// where it came from.
#include "ember/core/kernels/sort.h"
#include "ember/ops/functions.h"

namespace ember {

/// t with `dim` (wrapped) moved last and made contiguous (0-d tensors act as [1]): the rows the
/// sort and scan kernels walk (ops/scan.h's too).
Tensor rows_last(const Tensor& t, int64_t dim);

}  // namespace ember
