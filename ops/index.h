#pragma once
// Indexing along a dimension: index_select, gather, scatter_add, index_add, masked_fill and
// embedding. Index tensors are int64 or int32; an index outside [0, size) is an IndexError naming
// the index and the size (negative indices are refused, as in PyTorch). Each op is
// differentiable in its floating inputs (never in the index or mask), and the backward of each is
// again built from these ops, so second derivatives work.
#include <optional>

#include "ember/core/kernels/index.h"
#include "ember/core/tensor.h"

namespace ember {

/// The entries `index` (1-D or 0-d, int64/int32) of dim: index_select(x, 0, idx) picks rows.
Tensor index_select(const Tensor& t, int64_t dim, const Tensor& index);
/// out[i][j] = t[index[i][j]][j] (dim 0), t[i][index[i][j]] (dim 1), ...; out has index's shape.
Tensor gather(const Tensor& t, int64_t dim, const Tensor& index);
/// A copy of t with src added at the positions index names along dim (out-of-place scatter_add_):
/// out[index[i][j]][j] += src[i][j] (dim 0). Differentiable in t and src.
Tensor scatter_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src);
/// A copy of t with source.select(dim, i) added to t.select(dim, index[i]); duplicate indices
/// accumulate. Differentiable in t and source.
Tensor index_add(const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source);
/// t with `value` where the bool `mask` holds; t and mask broadcast together. The gradient flows
/// to t where the mask is false.
Tensor masked_fill(const Tensor& t, const Tensor& mask, Scalar value);
/// Rows of weight [V, D] for integer `indices` of any shape: the result is indices.shape + [D].
/// The rows of `padding_idx` (may be negative, counted from V) get no gradient; repeated indices
/// accumulate their gradients.
Tensor embedding(const Tensor& weight, const Tensor& indices,
                 std::optional<int64_t> padding_idx = std::nullopt);

}  // namespace ember
