#pragma once
// Advanced indexing, PyTorch's t[indices] and t[indices] = values. `indices` has one entry per
// leading index position: an undefined Tensor takes a whole dim (Python's `:`), an int64/int32
// tensor picks entries of one dim, a bool (or uint8) mask picks the true positions of as many dims
// as it has. The int indices (masks turned into their coordinates) broadcast together; the
// result's indexed dims replace the indexed ones where those are adjacent, and come first
// otherwise. Negative indices count from the end; out-of-range ones are an IndexError naming the
// index, the dim and its size. Both ops are differentiable in t and values.
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

/// t[indices]: a copy (index_select underneath).
Tensor index(const Tensor& t, const std::vector<Tensor>& indices);
/// A copy of t with t[indices] = values (values broadcast to the indexed shape and converted to
/// t's dtype); with `accumulate`, values are added instead and repeated positions add up; without
/// it, the last of repeated positions wins. Tensor::index_put_ is the in-place form.
Tensor index_put(const Tensor& t, const std::vector<Tensor>& indices, const Tensor& values,
                 bool accumulate = false);
/// Coordinates of the non-zero (true) elements, one row each in row-major order: [n, t.dim()].
Tensor nonzero(const Tensor& t);

}  // namespace ember
