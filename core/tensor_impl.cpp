#include "ember/core/tensor_impl.h"

#include "ember/core/error.h"

namespace ember {

TensorImpl::TensorImpl(std::shared_ptr<Storage> storage, DType dtype, DimVector sizes,
                       DimVector strides, int64_t offset)
    : storage_(std::move(storage)),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      offset_(offset),
      dtype_(dtype) {
  EMBER_INTERNAL_ASSERT(sizes_.size() == strides_.size());
  refresh();
}

void TensorImpl::refresh() {
  numel_ = numel_of(sizes_);
  contiguous_ = is_contiguous_layout(sizes_, strides_);
}

void TensorImpl::set_data(const TensorImpl& src) {
  storage_ = src.storage_;
  sizes_ = src.sizes_;
  strides_ = src.strides_;
  offset_ = src.offset_;
  dtype_ = src.dtype_;
  refresh();
}

}  // namespace ember
