#include "ember/core/cpu/gemm_operand.h"

#include "ember/core/copy.h"
#include "ember/core/cpu/gemm.h"
#include "ember/core/strided.h"

namespace ember::cpu {

Tensor gemm_ready(const Tensor& t) {
  const int64_t nd = t.dim();
  if (gemm_layout_ok(t.size(nd - 2), t.size(nd - 1), t.stride(nd - 2), t.stride(nd - 1))) return t;
  DimVector sizes = t.sizes().vec();
  for (int64_t d = 0; d < nd - 2; ++d)
    if (t.stride(d) == 0) sizes[static_cast<size_t>(d)] = 1;
  Tensor dense = contiguous_data(as_strided_data(t, sizes, t.strides(), t.storage_offset()));
  DimVector strides = dense.strides().vec();
  for (int64_t d = 0; d < nd - 2; ++d)
    if (t.stride(d) == 0) strides[static_cast<size_t>(d)] = 0;
  return as_strided_data(dense, t.sizes(), strides, dense.storage_offset());
}

}  // namespace ember::cpu
