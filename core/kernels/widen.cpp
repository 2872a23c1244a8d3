#include "ember/core/kernels/widen.h"

#include "ember/core/copy.h"

namespace ember::detail {

Tensor Widening::widen(const Tensor& t, bool output) {
  if (!t.defined() || !is_16bit_float(t.dtype())) return t;
  for (Entry& e : entries_) {
    const Tensor& o = e.original;
    if (o.data_ptr() == t.data_ptr() && o.dtype() == t.dtype() && o.sizes() == t.sizes() &&
        o.strides() == t.strides()) {
      e.output = e.output || output;
      return e.wide;
    }
  }
  Tensor wide = copy_as(t, DType::Float32, t.device());
  entries_.push_back({t, wide, output});
  return wide;
}

void Widening::narrow() {
  for (const Entry& e : entries_)
    if (e.output) copy_data(e.original, e.wide);
}

}  // namespace ember::detail
