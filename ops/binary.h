#pragma once
// Elementwise arithmetic with broadcasting (NumPy rules) and PyTorch's type promotion
// (core/promotion.h): add, sub, mul, div, pow, remainder, fmod, atan2, maximum, minimum and the
// bitwise ops (declared from the op table, ember/ops/functions.h) and their operators. A Scalar operand or a 0-d tensor keeps a dimensioned
// tensor's dtype unless it is of a higher category (a float meeting an integer tensor gives
// float32).
#include "ember/core/kernels/binary.h"
#include "ember/core/promotion.h"
#include "ember/ops/functions.h"

namespace ember {

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
/// remainder (Python's %: the divisor's sign).
Tensor operator%(const Tensor& a, const Tensor& b);
Tensor operator%(const Tensor& a, Scalar b);
Tensor operator%(Scalar a, const Tensor& b);
Tensor operator-(const Tensor& a);
/// The bitwise ops (integer and bool tensors): bitwise_and, _or, _xor, _not, _left_shift, _right_shift.
Tensor operator&(const Tensor& a, const Tensor& b);
Tensor operator&(const Tensor& a, Scalar b);
Tensor operator|(const Tensor& a, const Tensor& b);
Tensor operator|(const Tensor& a, Scalar b);
Tensor operator^(const Tensor& a, const Tensor& b);
Tensor operator^(const Tensor& a, Scalar b);
Tensor operator~(const Tensor& a);
Tensor operator<<(const Tensor& a, const Tensor& b);
Tensor operator<<(const Tensor& a, Scalar b);
Tensor operator>>(const Tensor& a, const Tensor& b);
Tensor operator>>(const Tensor& a, Scalar b);

/// A 0-d tensor holding s in the dtype `t op s` computes in.
Tensor wrap_scalar(const Scalar& s, const Tensor& t);

namespace detail {
/// Runs binary_stub for op on the broadcast of a and b in `dtype` (no autograd).
Tensor binary_forward(BinaryOp op, const Tensor& a, const Tensor& b, DType dtype, const char* name);
/// Whether a + alpha * b of `dtype` on `device` is one kernel (add_scaled_stub), rounded once.
bool fuses_scaled_add(DType dtype, Device device);
/// out = a + alpha * b on add_scaled_stub (a and b of out's shape and dtype), alpha rounded to a
/// 16-bit float dtype first; fuses_scaled_add holds.
void add_scaled(const Tensor& out, const Tensor& a, const Tensor& b, double alpha);
/// a + alpha * b on add_scaled_stub, broadcast, in `dtype` (no autograd); fuses_scaled_add holds.
Tensor add_scaled_forward(const Tensor& a, const Tensor& b, double alpha, DType dtype, const char* name);
/// The device an elementwise op of a and b runs on: theirs, or, as PyTorch's "CPU scalars", the
/// other one's when one is a 0-d CPU tensor (x_on_gpu * tensor(2.0)); else ValueError naming both.
Device common_device(const Tensor& a, const Tensor& b, const char* name);
}  // namespace detail

}  // namespace ember
