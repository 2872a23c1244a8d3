#pragma once
// Elementwise arithmetic with broadcasting (NumPy rules) and PyTorch's type promotion
// (core/promotion.h): a Scalar operand or a 0-d tensor keeps a dimensioned tensor's dtype unless
// it is of a higher category (a float meeting an integer tensor gives float32).
#include "ember/core/kernels/binary.h"
#include "ember/core/promotion.h"
#include "ember/core/tensor.h"

namespace ember {

/// a + alpha * b
Tensor add(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor add(const Tensor& a, Scalar b);
/// a - alpha * b
Tensor sub(const Tensor& a, const Tensor& b, Scalar alpha = 1);
Tensor sub(const Tensor& a, Scalar b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, Scalar b);
/// True division: integer inputs give float32.
Tensor div(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, Scalar b);
/// a ** b elementwise (promoted dtype; integer powers stay integer). pow(Tensor, Scalar) is in
/// ops/unary.h.
Tensor pow(const Tensor& a, const Tensor& b);
Tensor pow(Scalar a, const Tensor& b);
/// Elementwise max / min (NaN wins). Where a == b the gradient is split evenly, as in PyTorch.
Tensor maximum(const Tensor& a, const Tensor& b);
Tensor minimum(const Tensor& a, const Tensor& b);

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, Scalar b);
Tensor operator+(Scalar a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, Scalar b);
Tensor operator-(Scalar a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, Scalar b);
Tensor operator*(Scalar a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, Scalar b);
Tensor operator/(Scalar a, const Tensor& b);
Tensor operator-(const Tensor& a);

/// A 0-d tensor holding s in the dtype `t op s` computes in.
Tensor wrap_scalar(const Scalar& s, const Tensor& t);

namespace detail {
/// Runs binary_stub for op on the broadcast of a and b in `dtype` (no autograd).
Tensor binary_forward(BinaryOp op, const Tensor& a, const Tensor& b, DType dtype, const char* name);
}  // namespace detail

}  // namespace ember
