#pragma once
// Raw data movement under every op: strided copy with dtype conversion and fill. No autograd, no
// version bump; the differentiable forms are in ops/ (copy_, contiguous, to, clone).
#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

using CopyFn = void (*)(const Tensor& dst, const Tensor& src);
using FillFn = void (*)(const Tensor& dst, const Scalar& value);
/// Registered for CPU by core/cpu; a CUDA backend registers copies that involve a CUDA tensor.
EMBER_DECLARE_STUB(copy_stub, CopyFn);
EMBER_DECLARE_STUB(fill_stub, FillFn);

/// Writes src's values into dst: same shape, any dtypes and layouts.
void copy_data(const Tensor& dst, const Tensor& src);
/// Sets every element of dst to value.
void fill_data(const Tensor& dst, const Scalar& value);
/// A new contiguous tensor with t's values, converted to `dtype` and placed on `device`.
Tensor copy_as(const Tensor& t, DType dtype, Device device);
/// t itself when already contiguous, else a contiguous copy (no autograd).
Tensor contiguous_data(const Tensor& t);

}  // namespace ember
