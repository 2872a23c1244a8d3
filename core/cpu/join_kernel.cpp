// cat: contiguous inputs of the output's dtype are copied a whole row (all of one input's entries
// for one position of the outer dims) per memcpy; others go through the strided, converting copy.
#include <cstring>

#include "ember/core/copy.h"
#include "ember/core/cpu/parallel.h"
#include "ember/core/kernels/join.h"
#include "ember/core/strided.h"

namespace ember::cpu {
namespace {

void cpu_cat(const Tensor& out, const std::vector<Tensor>& inputs, int64_t dim) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= out.size(d);
  for (int64_t d = dim + 1; d < out.dim(); ++d) inner *= out.size(d);
  const int64_t isz = static_cast<int64_t>(out.itemsize());
  const int64_t out_row = out.size(dim) * inner * isz;  // bytes of one outer position in out
  char* base = static_cast<char*>(out.data_ptr());

  struct Fast {
    const char* src;
    int64_t row;     // bytes per outer position
    int64_t offset;  // byte offset inside an output row
  };
  SmallVector<Fast, 8> fast;
  int64_t offset = 0, fast_bytes = 0;
  for (const Tensor& t : inputs) {
    int64_t len = t.size(dim);
    if (len > 0) {
      if (t.dtype() == out.dtype() && t.is_contiguous()) {
        fast.push_back({static_cast<const char*>(t.data_ptr()), len * inner * isz, offset * inner * isz});
        fast_bytes += len * inner * isz;
      } else {
        copy_data(as_strided_data(out, t.sizes(), out.strides(),
                                  out.storage_offset() + offset * out.stride(dim)),
                  t);
      }
    }
    offset += len;
  }
  if (fast.empty() || fast_bytes == 0) return;
  int64_t per_outer = std::max<int64_t>(fast_bytes / isz, 1);
  int64_t grain = (kElementwiseGrain + per_outer - 1) / per_outer;
  parallel_for(0, outer, grain, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) {
      char* dst = base + k * out_row;
      for (const Fast& f : fast) std::memcpy(dst + f.offset, f.src + k * f.row, static_cast<size_t>(f.row));
    }
  });
}

}  // namespace

EMBER_REGISTER_KERNEL(cat_stub, DeviceType::CPU, &cpu_cat);

}  // namespace ember::cpu
