#include "ember/core/strided.h"

#include "ember/core/factory.h"

namespace ember {

Tensor as_strided_data(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  return make_tensor(t.storage(), t.dtype(), sizes, strides, offset);
}

Tensor expand_data(const Tensor& t, IntArrayRef shape) {
  EMBER_CHECK_VALUE(shape.size() >= static_cast<size_t>(t.dim()), "expand: the number of sizes (",
                    shape.size(), ") must be at least the tensor's dims (", t.dim(), ")");
  size_t lead = shape.size() - static_cast<size_t>(t.dim());
  DimVector sizes(shape.size()), strides(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i < lead) {
      EMBER_CHECK_VALUE(shape[i] >= 0, "expand: invalid size ", shape[i], " for a new leading dim");
      sizes[i] = shape[i];
      strides[i] = 0;
      continue;
    }
    int64_t have = t.sizes()[i - lead];
    int64_t want = shape[i] == -1 ? have : shape[i];
    EMBER_CHECK_VALUE(have == want || have == 1, "expand: cannot expand shape ", t.sizes(), " to ",
                      shape, " (dim ", i, ": ", have, " vs ", want, ")");
    sizes[i] = want;
    strides[i] = have == want ? t.strides()[i - lead] : 0;
  }
  return as_strided_data(t, sizes, strides, t.storage_offset());
}

}  // namespace ember
