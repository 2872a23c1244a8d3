#pragma once
// Complex arithmetic for the ops that take complex tensors (add, sub, mul, div, neg, exp, log,
// sqrt, reciprocal, abs, sum, mean, eq, ne; conj, angle, complex, polar): each op's complex case
// calls here. Sums, differences, negation, conjugation and comparisons work on the (real,
// imaginary) pairs of view_as_real; the rest on complex kernels (core/kernels/complex.h).
// NB: complex gradients (PyTorch's conjugate Wirtinger derivatives) are not implemented yet, so
// every function here refuses inputs that require grad with a NotImplementedError naming the op:
// a graph that skipped them would give silently wrong gradients.
#include "ember/core/kernels/complex.h"
#include "ember/core/tensor.h"

namespace ember::detail {

/// Throws NotImplementedError naming `op` when one of `ts` requires grad.
void check_no_complex_grad(const char* op, std::initializer_list<Tensor> ts);

/// a + alpha b in the complex `dtype` (a real alpha).
Tensor complex_add(const Tensor& a, const Tensor& b, double alpha, DType dtype, const char* name);
/// a * b, a / b in the complex `dtype`; complex(a, b), polar(a, b) of same-dtype real a, b.
Tensor complex_binary(ComplexBinaryOp op, const Tensor& a, const Tensor& b, DType dtype, const char* name);
/// exp, log, sqrt, 1/z (complex results) or abs, angle (real results) of the complex `t`.
Tensor complex_unary(ComplexUnaryOp op, const Tensor& t, const char* name);
Tensor complex_neg(const Tensor& t);
/// The sum (or mean) of the complex `t` over `dims` (empty: every dim).
Tensor complex_sum(const Tensor& t, IntArrayRef dims, bool keepdim, bool mean);
/// a == b (both parts equal) or a != b (either part differs), in the complex `dtype`.
Tensor complex_compare(const Tensor& a, const Tensor& b, DType dtype, bool equal);

}  // namespace ember::detail
