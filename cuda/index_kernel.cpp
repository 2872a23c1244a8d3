// CUDA kernels for indexing along a dim: index_select, gather, scatter_add, index_add (atomics) and
// masked_fill (cuda/kernels/index.cu, elementwise.cu). Indices are checked on the device before
// the op runs, and a bad one is reported as the CPU reports it, with its value: that check waits
// for the device (one small copy back per op).
#include "ember/core/kernels/index.h"
#include "ember/cuda/scalar_bits.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
namespace {

struct BoundsContext {
  const char* op;
  int64_t dim, size;
};

std::string out_of_range(int64_t, int64_t value, const void* context) {
  const auto* c = static_cast<const BoundsContext*>(context);
  return detail::str(c->op, ": index ", value, " is out of range for dimension ", c->dim, " with size ", c->size);
}

// Every entry of `index` (any layout) in [0, size), or an IndexError naming op, dim and size.
void check_bounds(const On& on, const Tensor& index, int64_t size, int64_t dim, const char* op) {
  if (index.numel() == 0) return;
  launch_check_indices(elementwise_args<1>({&index}, op), index.dtype(), size, error_slot(on.index), on.stream);
  const BoundsContext context{op, dim, size};
  check_error_slot(on.index, &out_of_range, &context);
}

void cuda_index_select(const Tensor& out, const Tensor& src, int64_t dim, const Tensor& index, const char* op) {
  On on(out);
  check_bounds(on, index, src.size(dim), dim, op);
  if (out.numel() == 0) return;
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < out.dim(); ++d) inner *= out.size(d);
  const Tensor src_rest = without_dim(src, out.sizes(), dim);
  launch_index_select(elementwise_args<2>({&out, &src_rest}, op), static_cast<int>(out.itemsize()), index.data_ptr(),
                      index.dtype(), index.numel(), inner, src.stride(dim) * static_cast<int64_t>(src.itemsize()),
                      on.stream);
}

void cuda_gather(const Tensor& out, const Tensor& src, int64_t dim, const Tensor& index) {
  On on(out);
  check_bounds(on, index, src.size(dim), dim, "gather");
  const Tensor src_rest = without_dim(src, index.sizes(), dim);
  launch_gather(elementwise_args<3>({&out, &index, &src_rest}, "gather"), static_cast<int>(out.itemsize()),
                index.dtype(), src.stride(dim) * static_cast<int64_t>(src.itemsize()), on.stream);
}

void cuda_scatter_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  check_compute_dtype(out.dtype(), "scatter_add");
  On on(out);
  check_bounds(on, index, out.size(dim), dim, "scatter_add");
  const Tensor out_rest = without_dim(out, index.sizes(), dim);
  // src is at least as large as index: its elements at index's positions.
  const Tensor src_part = make_tensor(src.storage(), src.dtype(), index.sizes(), src.strides(), src.storage_offset());
  launch_scatter_add(elementwise_args<3>({&out_rest, &index, &src_part}, "scatter_add"), out.dtype(), index.dtype(),
                     out.stride(dim) * static_cast<int64_t>(out.itemsize()), on.stream);
}

void cuda_index_add(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src) {
  check_compute_dtype(out.dtype(), "index_add");
  On on(out);
  check_bounds(on, index, out.size(dim), dim, "index_add");
  if (out.numel() == 0 || src.numel() == 0) return;
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < src.dim(); ++d) inner *= src.size(d);
  const Tensor out_rest = without_dim(out, src.sizes(), dim);
  launch_index_add(elementwise_args<2>({&src, &out_rest}, "index_add"), out.dtype(), index.data_ptr(), index.dtype(),
                   index.numel(), inner, out.stride(dim) * static_cast<int64_t>(out.itemsize()), on.stream);
}

void cuda_masked_fill(const Tensor& out, const Tensor& src, const Tensor& mask, const Scalar& value) {
  On on(out);
  launch_masked_fill(elementwise_args<3>({&out, &src, &mask}, "masked_fill"), static_cast<int>(out.itemsize()),
                     scalar_bits(value, out.dtype()), on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(index_select_stub, DeviceType::CUDA, &cuda_index_select);
EMBER_REGISTER_KERNEL(gather_stub, DeviceType::CUDA, &cuda_gather);
EMBER_REGISTER_KERNEL(scatter_add_stub, DeviceType::CUDA, (widened<&cuda_scatter_add, 0>));
EMBER_REGISTER_KERNEL(index_add_stub, DeviceType::CUDA, (widened<&cuda_index_add, 0>));
EMBER_REGISTER_KERNEL(masked_fill_stub, DeviceType::CUDA, &cuda_masked_fill);

}  // namespace ember::cuda
