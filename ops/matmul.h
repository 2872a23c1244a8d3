#pragma once
// Matrix products with PyTorch's matmul semantics (matmul, mm, bmm: declared from the op table,
// ember/ops/functions.h): 1-D x 1-D is a dot product (0-d result), 2-D x 2-D a matrix product, a
// 1-D operand gets a dim prepended (left) or appended (right) that is removed again, and N-D
// operands multiply their last two dims batched over the broadcast of the rest:
// [2, 1, 3, 4] @ [5, 4, 6] -> [2, 5, 3, 6]. Both operands must have one dtype (float32, float64 or
// an integer type other than bool). Transposed operands are multiplied in place.
#include "ember/core/kernels/matmul.h"
#include "ember/ops/functions.h"

namespace ember {

/// addend + a @ b for 2-D a [m, k] and b [k, n], the addend broadcast to [m, n] (addmm with beta =
/// alpha = 1; a linear layer's bias). The addend is written into the result first and the product
/// accumulates onto it, as PyTorch's addmm does: no pass over the result of its own, one rounding.
/// An addend of another dtype or device, or of a wider shape, gets add(addend, matmul(a, b)).
Tensor matmul_add(const Tensor& addend, const Tensor& a, const Tensor& b);

/// x [..., k] as one [rows, k] matrix: a view where its leading dims merge with its rows, else a
/// copy (reshape). How matmul and linear take a stack against a shared matrix as one product.
Tensor fold_rows(const Tensor& x);

}  // namespace ember
