// In-place view ops (t_, transpose_, unsqueeze_, squeeze_), detach_ and resize_: the tensor handle
// keeps its identity (one Python object per tensor) while its shape, strides or history change.
#include <cstring>

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/recorded_method.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

// self takes the layout (and, when recorded, the history) of view(self), a view of its storage.
template <typename View>
const Tensor& inplace_view(const Tensor& self, const char* op, const View& view) {
  autograd::check_inplace(self, op);
  const Tensor result = view(self);
  self.impl().set_data(result.impl());
  autograd::take_view_history(self, result);
  return self;
}

}  // namespace

const Tensor& Tensor::t_() const {
  if (tracing::recording()) [[unlikely]]
    return detail::recorded_method(*this, "Tensor.t_", [&] { return t_(); }, {tracing::arg(*this)});
  return inplace_view(*this, "t_", [](const Tensor& s) { return ember::t(s); });
}
const Tensor& Tensor::transpose_(int64_t dim0, int64_t dim1) const {
  if (tracing::recording()) [[unlikely]]
    return detail::recorded_method(*this, "Tensor.transpose_", [&] { return transpose_(dim0, dim1); },
                                   {tracing::arg(*this), tracing::arg(dim0), tracing::arg(dim1)});
  return inplace_view(*this, "transpose_", [&](const Tensor& s) { return ember::transpose(s, dim0, dim1); });
}
const Tensor& Tensor::unsqueeze_(int64_t dim) const {
  if (tracing::recording()) [[unlikely]]
    return detail::recorded_method(*this, "Tensor.unsqueeze_", [&] { return unsqueeze_(dim); },
                                   {tracing::arg(*this), tracing::arg(dim)});
  return inplace_view(*this, "unsqueeze_", [&](const Tensor& s) { return ember::unsqueeze(s, dim); });
}
const Tensor& Tensor::squeeze_(std::optional<int64_t> dim) const {
  if (tracing::recording()) [[unlikely]]
    return detail::recorded_method(*this, "Tensor.squeeze_", [&] { return squeeze_(dim); },
                                   {tracing::arg(*this), tracing::arg(dim)});
  return inplace_view(*this, "squeeze_", [&](const Tensor& s) { return ember::squeeze(s, dim); });
}

const Tensor& Tensor::detach_() const {
  if (tracing::recording()) [[unlikely]]
    return detail::recorded_method(*this, "Tensor.detach_", [&] { return detach_(); }, {tracing::arg(*this)});
  autograd::detach_in_place(*this);
  return *this;
}

const Tensor& Tensor::resize_(IntArrayRef sizes) const {
  EMBER_CHECK(!requires_grad(), "resize_: cannot resize a tensor that requires grad");
  const int64_t numel = numel_of(sizes);  // checks for negative sizes
  const TensorImpl& old = impl();
  const auto item = static_cast<int64_t>(ember::itemsize(dtype()));
  const int64_t needed = (old.offset() + numel) * item;
  const auto held = static_cast<int64_t>(old.storage()->nbytes());
  std::shared_ptr<Storage> storage = old.storage();
  if (needed > held) {
    // NB: PyTorch grows the storage every view shares; Ember's storages have a fixed size, so this
    // tensor moves to a new one holding the old bytes first (the other views keep the old one).
    Tensor grown = empty({needed / item}, TensorOptions(dtype()).device(device()));
    const int64_t kept = held / item;
    if (kept > 0) {
      Tensor old_elements(std::make_shared<TensorImpl>(old.storage(), dtype(), DimVector{kept}, DimVector{1}, 0));
      copy_data(grown.slice(0, 0, kept), old_elements);
    }
    storage = grown.impl().storage();
  }
  impl().set_data(TensorImpl(storage, dtype(), DimVector(sizes.begin(), sizes.end()), contiguous_strides(sizes),
                             old.offset()));
  bump_version();
  return *this;
}

}  // namespace ember
