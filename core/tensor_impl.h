#pragma once
// The shared implementation behind a Tensor handle: storage (shared by views), sizes, strides,
// element offset and dtype, plus an opaque slot that autograd/ fills with its metadata and one
// that a language binding fills with its object for the tensor (core/binding_slot.h).
#include <memory>

#include "ember/core/attributes.h"
#include "ember/core/binding_slot.h"
#include "ember/core/dtype.h"
#include "ember/core/shape.h"
#include "ember/core/storage.h"

namespace ember {

/// What autograd keeps per tensor; core only owns it (autograd/autograd_meta.h defines it).
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
};

class TensorImpl {
 public:
  TensorImpl(std::shared_ptr<Storage> storage, DType dtype, DimVector sizes, DimVector strides,
             int64_t offset);

  const std::shared_ptr<Storage>& storage() const { return storage_; }
  DType dtype() const { return dtype_; }
  const DimVector& sizes() const { return sizes_; }
  const DimVector& strides() const { return strides_; }
  int64_t offset() const { return offset_; }
  int64_t numel() const { return numel_; }
  bool is_contiguous() const { return contiguous_; }
  Device device() const { return storage_->device(); }
  /// Address of the first element.
  void* data() const {
    return static_cast<char*>(storage_->data()) + offset_ * static_cast<int64_t>(itemsize(dtype_));
  }

  AutogradMetaInterface* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaInterface> meta) {
    autograd_meta_ = std::move(meta);
  }

  /// The tensor's named attributes (created empty on first use); ties share them.
  Attributes& attributes() {
    if (!attributes_) attributes_ = std::make_unique<Attributes>();
    return *attributes_;
  }
  const Attributes* attributes_if_any() const { return attributes_.get(); }

  /// The binding's object for this tensor (the Python extension's one Python object).
  BindingSlot& binding_slot() { return binding_slot_; }

  /// Takes `src`'s storage, dtype and layout and keeps this impl's autograd metadata: how
  /// Module::to() converts a parameter in place while every handle to it stays valid.
  void set_data(const TensorImpl& src);

 private:
  void refresh();

  std::shared_ptr<Storage> storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t offset_ = 0;
  int64_t numel_ = 0;
  DType dtype_;
  bool contiguous_ = true;
  std::unique_ptr<AutogradMetaInterface> autograd_meta_;
  std::unique_ptr<Attributes> attributes_;
  // NB: last, so it is destroyed first: an owned binding object goes while the impl is whole.
  BindingSlot binding_slot_;
};

}  // namespace ember
