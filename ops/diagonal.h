#pragma once
// Diagonals (declared from the op table, ember/ops/functions.h): diagonal, a view of the entries
// (i, i + offset) of two dims moved last; diag_embed, zeros with the last dim written on such a
// diagonal; and diag, one or the other for 1-D and 2-D tensors. Each is the other's gradient.
#include "ember/ops/functions.h"

namespace ember {

/// Zeros of `shape` with `src` written on diagonal(out, offset, dim1, dim2) (whose shape src
/// has): diag_embed's forward and diagonal's gradient. Differentiable in src.
Tensor diagonal_scatter_zeros(const Tensor& src, IntArrayRef shape, int64_t offset, int64_t dim1, int64_t dim2);

}  // namespace ember
