#pragma once
// Creating tensors: empty/zeros/ones/full, ranges, eye, random draws and tensors from data.
// Random draws take a Generator (default_generator() when none is given).
#include <memory>
#include <vector>

#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember {

/// Uninitialised values.
Tensor empty(IntArrayRef shape, TensorOptions options = {});
Tensor zeros(IntArrayRef shape, TensorOptions options = {});
Tensor ones(IntArrayRef shape, TensorOptions options = {});
Tensor full(IntArrayRef shape, Scalar value, TensorOptions options = {});
/// A 0-d tensor holding value.
Tensor scalar_tensor(Scalar value, TensorOptions options = {});
/// [0, end) in steps of 1; int64 unless options say otherwise.
Tensor arange(Scalar end, TensorOptions options = TensorOptions(kInt64));
Tensor arange(Scalar start, Scalar end, Scalar step = 1, TensorOptions options = TensorOptions(kInt64));
/// `steps` evenly spaced values from start to end inclusive.
Tensor linspace(double start, double end, int64_t steps, TensorOptions options = {});
/// base ** linspace(start, end, steps), each power taken from the nearer end as PyTorch's
/// (in float64 for floating dtypes, float32 for integer ones, whose bounds truncate first).
Tensor logspace(double start, double end, int64_t steps, double base = 10.0, TensorOptions options = {});
/// n x m identity (m = n when omitted).
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, TensorOptions options = {});
/// Uniform in [0, 1).
Tensor rand(IntArrayRef shape, TensorOptions options = {}, Generator* gen = nullptr);
/// Standard normal.
Tensor randn(IntArrayRef shape, TensorOptions options = {}, Generator* gen = nullptr);
/// Uniform integers in [low, high).
Tensor randint(int64_t low, int64_t high, IntArrayRef shape,
               TensorOptions options = TensorOptions(kInt64), Generator* gen = nullptr);
/// A random permutation of [0, n) (int64).
Tensor randperm(int64_t n, Generator* gen = nullptr);

Tensor empty_like(const Tensor& t);
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
Tensor full_like(const Tensor& t, Scalar value);
Tensor rand_like(const Tensor& t, Generator* gen = nullptr);
Tensor randn_like(const Tensor& t, Generator* gen = nullptr);
/// randint(low, high) of t's shape, dtype and device.
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, Generator* gen = nullptr);

/// Copies `values` into a new tensor of `shape` (1-D when shape is omitted).
template <typename T>
Tensor tensor(const std::vector<T>& values, IntArrayRef shape, TensorOptions options);
template <typename T>
Tensor tensor(const std::vector<T>& values, IntArrayRef shape) {
  return tensor(values, shape, TensorOptions(dtype_of<T>));
}
template <typename T>
Tensor tensor(const std::vector<T>& values) {
  int64_t n = static_cast<int64_t>(values.size());
  return tensor(values, IntArrayRef(n), TensorOptions(dtype_of<T>));
}
template <>
Tensor tensor(const std::vector<bool>& values, IntArrayRef shape, TensorOptions options);
/// tensor({1.f, 2.f, 3.f}): a 1-D tensor of the literal's type.
template <typename T>
Tensor tensor(std::initializer_list<T> values) {
  return tensor(std::vector<T>(values));
}
/// Wraps existing memory without copying; `owner` keeps it alive (may be null if the caller
/// guarantees the memory outlives every tensor that views it). Strides in elements; empty = dense.
Tensor from_blob(void* data, IntArrayRef shape, DType dtype, std::shared_ptr<void> owner = nullptr,
                 IntArrayRef strides = {}, Device device = Device());

/// A tensor over `storage` with the given layout (views use this).
Tensor make_tensor(std::shared_ptr<Storage> storage, DType dtype, IntArrayRef sizes,
                   IntArrayRef strides, int64_t offset);

}  // namespace ember
