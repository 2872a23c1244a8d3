#pragma once
// Complex arithmetic for the ops that take complex tensors (add, sub, mul, div, neg, exp, log,
// sqrt, reciprocal, abs, sum, mean, eq, ne; conj, angle, complex, polar): each op's complex case
// calls here. Sums, differences, negation, conjugation and comparisons work on the (real,
// imaginary) pairs of view_as_real; the rest on complex kernels (core/kernels/complex.h).
// Gradients are PyTorch's (conjugate Wirtinger): for a real loss L of z = x + iy, z.grad is
// dL/dx + i dL/dy, and a holomorphic f passes grad * conj(f'(z)) back. The ops record their nodes as
// for real inputs (ops/binary.cpp, ops/unary.cpp, ops/reduce.cpp), whose formulas conjugate where a
// complex input needs it; conj, angle, complex and polar record theirs here.
#include "ember/core/kernels/complex.h"
#include "ember/core/tensor.h"

namespace ember::detail {

/// conj(t) for a complex t, t itself for a real one (backward formulas' grad * conj(b)).
Tensor conj_if_complex(const Tensor& t);
/// z / |z|, 0 where z is 0: the gradient direction of |z| (PyTorch's sgn), differentiable.
Tensor complex_sgn(const Tensor& z);

/// The forwards below record no gradient: their callers do.
/// a + alpha b in the complex `dtype` (a real alpha).
Tensor complex_add(const Tensor& a, const Tensor& b, double alpha, DType dtype, const char* name);
/// a * b, a / b in the complex `dtype`; complex(a, b), polar(a, b) of same-dtype real a, b.
Tensor complex_binary(ComplexBinaryOp op, const Tensor& a, const Tensor& b, DType dtype, const char* name);
/// exp, log, sqrt, 1/z (complex results) or abs, angle (real results) of the complex `t`.
Tensor complex_unary(ComplexUnaryOp op, const Tensor& t, const char* name);
Tensor complex_neg(const Tensor& t);
/// The sum of the complex `t` over the wrapped `dims`.
Tensor complex_sum(const Tensor& t, IntArrayRef dims, bool keepdim);
/// a @ b of complex (or one complex, one real) operands of one dtype, as four real products.
Tensor complex_matmul(const Tensor& a, const Tensor& b);
/// a == b (both parts equal) or a != b (either part differs), in the complex `dtype`.
Tensor complex_compare(const Tensor& a, const Tensor& b, DType dtype, bool equal);

}  // namespace ember::detail
