// CUDA kernels for value reductions over dims and arg-reductions along one dim (the block
// reduction of cuda/kernels/reduce.cu). A contiguous input whose dims group as [A, O, R, I] is
// reduced in place (cuda/shared/reduce_layout.h); any other is first copied with its kept dims
// first and reduced dims last.
#include <vector>

#include "ember/core/copy.h"
#include "ember/core/kernels/reduce.h"
#include "ember/core/strided.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
namespace {

ReduceKind kind_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return ReduceKind::Sum;
    case ReduceOp::Max: return ReduceKind::Max;
    case ReduceOp::Min: return ReduceKind::Min;
    case ReduceOp::Prod: return ReduceKind::Prod;
  }
  EMBER_CHECK_AS(NotImplementedError, false, "reduce: no CUDA kernel for reduce op ", static_cast<int>(op));
  return ReduceKind::Sum;
}

void cuda_reduce(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims) {
  check_compute_dtype(in.dtype(), "reduce");
  EMBER_CHECK_TYPE(in.dtype() != kBool, "reduce: bool tensors are reduced as int64 or uint8");
  const int64_t nd = in.dim();
  std::vector<char> reduced(static_cast<size_t>(nd), 0);  // NB: not vector<bool>, whose data() is no bool*
  for (int64_t d : dims) reduced[static_cast<size_t>(d)] = 1;
  ReduceLayout l;
  Tensor src = in;
  if (!in.is_contiguous() ||
      !contiguous_reduce_layout(static_cast<int>(nd), in.sizes().data(), reinterpret_cast<const bool*>(reduced.data()), l)) {
    DimVector sizes, strides;
    l = ReduceLayout();
    for (int pass = 0; pass < 2; ++pass)
      for (int64_t d = 0; d < nd; ++d)
        if (reduced[static_cast<size_t>(d)] == (pass == 1)) {
          sizes.push_back(in.size(d));
          strides.push_back(in.stride(d));
          (pass == 1 ? l.R : l.O) *= in.size(d);
        }
    src = contiguous_data(as_strided_data(in, sizes, strides, in.storage_offset()));
  }
  On on(out);
  TensorScratch scratch(out.device());
  launch_reduce(kind_of(op), in.dtype(), src.data_ptr(), out.data_ptr(), l, scratch, on.stream);
}

void cuda_arg_reduce(ReduceOp op, const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim) {
  check_compute_dtype(in.dtype(), "max");
  const Tensor src = contiguous_data(in);
  int64_t O = 1, I = 1;
  const int64_t R = in.dim() == 0 ? 1 : in.size(dim);
  for (int64_t d = 0; d < dim; ++d) O *= in.size(d);
  for (int64_t d = dim + 1; d < in.dim(); ++d) I *= in.size(d);
  if (O * I == 0) return;
  On on(indices);
  TensorScratch scratch(indices.device());
  launch_arg_reduce(op == ReduceOp::Max, in.dtype(), src.data_ptr(), values.defined() ? values.data_ptr() : nullptr,
                    static_cast<int64_t*>(indices.data_ptr()), O, R, I, scratch, on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(reduce_stub, DeviceType::CUDA, (widened<&cuda_reduce, 1>));
EMBER_REGISTER_KERNEL(arg_reduce_stub, DeviceType::CUDA, (widened<&cuda_arg_reduce, 1>));

}  // namespace ember::cuda
