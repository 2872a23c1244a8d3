// CUDA kernel for cat: each input copied (and converted) into its slice of the output, by the
// copy kernels (a plain cudaMemcpy where the slice is contiguous and the dtype the same).
#include "ember/core/copy.h"
#include "ember/core/kernels/join.h"
#include "ember/core/strided.h"

namespace ember::cuda {
namespace {

void cuda_cat(const Tensor& out, const std::vector<Tensor>& inputs, int64_t dim) {
  int64_t offset = 0;
  for (const Tensor& t : inputs) {
    const int64_t len = t.size(dim);
    if (len > 0 && t.numel() > 0)
      copy_data(as_strided_data(out, t.sizes(), out.strides(), out.storage_offset() + offset * out.stride(dim)), t);
    offset += len;
  }
}

}  // namespace

EMBER_REGISTER_KERNEL(cat_stub, DeviceType::CUDA, &cuda_cat);

}  // namespace ember::cuda
