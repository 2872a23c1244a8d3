#pragma once
// Comparisons and selection. Comparisons broadcast, promote both sides to a common dtype (a Scalar
// as in arithmetic: int tensor == 2.5 compares in float32) and return bool tensors; they have no
// gradient. where(cond, a, b) picks elementwise and is differentiable in a and b.
#include "ember/core/kernels/compare.h"
#include "ember/core/tensor.h"

namespace ember {

/// a == b elementwise (NaN != NaN).
Tensor eq(const Tensor& a, const Tensor& b);
Tensor eq(const Tensor& a, Scalar b);
Tensor ne(const Tensor& a, const Tensor& b);
Tensor ne(const Tensor& a, Scalar b);
/// a < b elementwise.
Tensor lt(const Tensor& a, const Tensor& b);
Tensor lt(const Tensor& a, Scalar b);
Tensor le(const Tensor& a, const Tensor& b);
Tensor le(const Tensor& a, Scalar b);
Tensor gt(const Tensor& a, const Tensor& b);
Tensor gt(const Tensor& a, Scalar b);
Tensor ge(const Tensor& a, const Tensor& b);
Tensor ge(const Tensor& a, Scalar b);

/// True where t is zero (any dtype).
Tensor logical_not(const Tensor& t);
/// Nonzero-ness of a and b combined (any dtypes, broadcast).
Tensor logical_and(const Tensor& a, const Tensor& b);
Tensor logical_or(const Tensor& a, const Tensor& b);

/// a where cond else b; cond must be bool; a, b and cond broadcast together; the result has the
/// promoted dtype of a and b. Gradients flow to a where cond holds and to b elsewhere.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor where(const Tensor& cond, const Tensor& a, Scalar b);
Tensor where(const Tensor& cond, Scalar a, const Tensor& b);

/// x > 0, x == y, ...: the comparisons as operators (bool tensors, as in libtorch).
Tensor operator==(const Tensor& a, const Tensor& b);
Tensor operator==(const Tensor& a, Scalar b);
Tensor operator!=(const Tensor& a, const Tensor& b);
Tensor operator!=(const Tensor& a, Scalar b);
Tensor operator<(const Tensor& a, const Tensor& b);
Tensor operator<(const Tensor& a, Scalar b);
Tensor operator<=(const Tensor& a, const Tensor& b);
Tensor operator<=(const Tensor& a, Scalar b);
Tensor operator>(const Tensor& a, const Tensor& b);
Tensor operator>(const Tensor& a, Scalar b);
Tensor operator>=(const Tensor& a, const Tensor& b);
Tensor operator>=(const Tensor& a, Scalar b);

}  // namespace ember
