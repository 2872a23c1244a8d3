#pragma once
// Tensor: a cheap, copyable handle to a shared TensorImpl. Copies alias; views (reshape, transpose,
// slice, ...) share storage; clone() and contiguous() copy. The op methods are generated from the
// op table (ops/ops.toml) and forward to the ops' free functions; the in-place methods are defined
// in ops/inplace.cpp, the autograd methods in autograd/.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/core/scalar.h"
#include "ember/core/shape.h"
#include "ember/core/tensor_impl.h"

namespace ember {

namespace autograd {
class Node;
}

/// dtype, device and requires_grad of a new tensor: zeros({2, 3}, kFloat64),
/// zeros({2}, TensorOptions().dtype(kFloat64).requires_grad(true)). The dtype defaults to
/// default_dtype() (float32 unless set_default_dtype changed it).
class TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions(DType dtype) : dtype_(dtype) {}      // NOLINT: implicit
  TensorOptions(Device device) : device_(device) {}  // NOLINT: implicit
  TensorOptions(DeviceType type) : device_(type) {}  // NOLINT: implicit

  DType dtype() const { return dtype_; }
  Device device() const { return device_; }
  bool requires_grad() const { return requires_grad_; }
  TensorOptions dtype(DType d) const { auto o = *this; o.dtype_ = d; return o; }
  TensorOptions device(Device d) const { auto o = *this; o.device_ = d; return o; }
  TensorOptions requires_grad(bool r) const { auto o = *this; o.requires_grad_ = r; return o; }

 private:
  DType dtype_ = default_dtype();  // float32 unless set_default_dtype chose another
  Device device_;
  bool requires_grad_ = false;
};

class Tensor {
 public:
  /// An undefined tensor (like a null pointer): defined() is false.
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- metadata
  bool defined() const { return impl_ != nullptr; }
  IntArrayRef sizes() const { return impl().sizes(); }
  IntArrayRef shape() const { return impl().sizes(); }
  /// Size of `dim` (negative counts from the end).
  int64_t size(int64_t dim) const;
  IntArrayRef strides() const { return impl().strides(); }
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(impl().sizes().size()); }
  int64_t ndim() const { return dim(); }
  int64_t numel() const { return impl().numel(); }
  DType dtype() const { return impl().dtype(); }
  Device device() const { return impl().device(); }
  int64_t storage_offset() const { return impl().offset(); }
  bool is_contiguous() const { return impl().is_contiguous(); }
  bool is_floating_point() const { return is_floating(dtype()); }
  bool is_complex() const { return ember::is_complex(dtype()); }
  size_t itemsize() const { return ember::itemsize(dtype()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * itemsize(); }
  TensorOptions options() const { return TensorOptions(dtype()).device(device()); }

  // ---- data
  /// Address of the first element (storage data plus offset).
  void* data_ptr() const { return impl().data(); }
  /// Typed address of the first element; checks that T matches the dtype.
  template <typename T>
  T* data_ptr() const {
    EMBER_CHECK_TYPE(dtype_of<T> == dtype(), "data_ptr: tensor has dtype ", dtype(),
                     ", requested ", dtype_of<T>);
    return static_cast<T*>(data_ptr());
  }
  /// The value of a one-element tensor, converted to T.
  template <typename T = double>
  T item() const;
  /// All values in row-major order, converted to T.
  template <typename T>
  std::vector<T> to_vector() const;

  const std::shared_ptr<Storage>& storage() const { return impl().storage(); }
  TensorImpl& impl() const {
    EMBER_CHECK(impl_ != nullptr, "tensor is undefined");
    return *impl_;
  }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  /// True when both handles refer to the same tensor (not merely equal values).
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  /// The in-place version counter shared with every view of the storage.
  uint64_t version() const { return storage()->version(); }
  /// Marks an in-place write: ops that write in place call it.
  void bump_version() const { storage()->bump_version(); }
  /// Named attributes carried by this tensor (not by its views): t.attributes()["lr_scale"] = 0.1.
  Attributes& attributes() const { return impl().attributes(); }
  /// PyTorch's printout, tensor([[1., 2.], [3., 4.]], requires_grad=True), under print_options()
  /// (autograd/tensor_print.cpp, which names the grad_fn).
  std::string str() const;

  // ---- autograd (autograd/tensor_autograd.cpp)
  bool requires_grad() const;
  /// Sets requires_grad on a leaf; returns *this.
  const Tensor& set_requires_grad(bool requires_grad = true) const;
  const Tensor& requires_grad_(bool requires_grad = true) const { return set_requires_grad(requires_grad); }
  /// The accumulated gradient of a leaf (undefined until backward reaches it).
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  void set_grad(const Tensor& grad) const;
  /// The node that produced this tensor; null for leaves.
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const;
  /// Backpropagates from this tensor; `gradient` is required unless it has one element.
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false,
                bool create_graph = false) const;
  /// Same data, cut from the graph.
  Tensor detach() const;
  /// Keeps .grad for a non-leaf after backward.
  void retain_grad() const;
  bool retains_grad() const;
  /// Registers fn(grad) -> new grad (or an undefined tensor to keep it); returns a handle.
  int register_hook(std::function<Tensor(const Tensor&)> fn) const;
  void remove_hook(int handle) const;

  // ---- ops: one method per op of the table (ops/ops.toml), generated with their declarations
  // (t.f(args) is ember::f(t, args); <build>/generated/include/ember/core/tensor_methods.inc).
#include "ember/core/tensor_methods.inc"

  // ---- in-place ops: write through the handle (hence const, as in libtorch), bump the version
  // counter and return *this
  const Tensor& add_(const Tensor& other, Scalar alpha = 1) const;
  const Tensor& add_(Scalar other) const;
  const Tensor& sub_(const Tensor& other, Scalar alpha = 1) const;
  const Tensor& sub_(Scalar other) const;
  const Tensor& mul_(const Tensor& other) const;
  const Tensor& mul_(Scalar other) const;
  const Tensor& div_(const Tensor& other) const;
  const Tensor& div_(Scalar other) const;
  const Tensor& zero_() const;
  const Tensor& fill_(Scalar value) const;
  const Tensor& copy_(const Tensor& src) const;
  const Tensor& clamp_(std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt) const;
  /// self[indices] = values (or += with accumulate): ops/advanced_index.h describes the indices.
  const Tensor& index_put_(const std::vector<Tensor>& indices, const Tensor& values,
                           bool accumulate = false) const;

  // ---- in-place view ops: this tensor takes the layout of the view op's result over the same
  // storage, and its history when recorded (as PyTorch, refused on a leaf that requires grad;
  // ops/inplace_view.cpp)
  const Tensor& t_() const;
  const Tensor& transpose_(int64_t dim0, int64_t dim1) const;
  const Tensor& unsqueeze_(int64_t dim) const;
  const Tensor& squeeze_(std::optional<int64_t> dim = std::nullopt) const;
  /// Cuts this tensor from the graph: a leaf that needs no gradient (a view requiring grad refuses).
  const Tensor& detach_() const;
  /// Gives the tensor `sizes` with contiguous strides from its offset, keeping its storage's
  /// elements in order; grows the storage (a new one for this tensor alone) when it is too small.
  /// Refused for a tensor that requires grad.
  const Tensor& resize_(IntArrayRef sizes) const;

 private:
  std::shared_ptr<TensorImpl> impl_;
};

std::ostream& operator<<(std::ostream& os, const Tensor& t);

/// "float32 [2, 3]": how error messages name a tensor.
std::string describe(const Tensor& t);

}  // namespace ember
