#pragma once
// The dtype an op on several operands computes in: PyTorch's result_type. Operands are ranked by
// category (bool < integer < floating). Tensors with dimensions decide among themselves by
// promote_types; a 0-d tensor, and below it a Python number, only count when their category is
// higher than every dimensioned operand's: float32 [3] + float64 0-d is float32, int32 [3] +
// float64 0-d is float64, int32 [3] + 2.5 is float32 (a Python float is float32), uint8 [3] + 300
// is uint8.
#include <vector>

#include "ember/core/scalar.h"
#include "ember/core/tensor.h"

namespace ember {

/// The dtype `a op b` computes in.
DType result_type(const Tensor& a, const Tensor& b);
/// The dtype `t op s` computes in; s counts as a Python number.
DType result_type(const Tensor& t, const Scalar& s);
/// The dtype of an op over all of `tensors` (cat, where); undefined tensors are skipped.
DType result_type(const std::vector<Tensor>& tensors);
/// Whether an in-place op may write a `from` result into a `to` tensor (PyTorch's can_cast): never
/// down a category (complex to real, floating to integer, anything else to bool).
bool can_cast(DType from, DType to);

}  // namespace ember
