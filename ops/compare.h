#pragma once
// Comparisons and selection: eq, ne, lt, le, gt, ge, logical_not/and/or and where (declared from
// the op table, ember/ops/functions.h) and the comparison operators. Comparisons broadcast, promote
// both sides to a common dtype (a Scalar as in arithmetic: int tensor == 2.5 compares in float32)
// and return bool tensors; they have no gradient. where(cond, a, b) picks elementwise and is
// differentiable in a and b.
#include "ember/core/kernels/compare.h"
#include "ember/ops/functions.h"

namespace ember {

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
