#pragma once
// The kernel contract of reductions over dims and arg-reductions along one dim (ops/reduce.h). Ops
// call these stubs; each backend (core/cpu/, cuda/) registers its kernels into them.
#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

enum class ReduceOp : uint8_t { Sum, Max, Min, Prod };
/// Kernel: out (contiguous, input's shape with `dims` set to 1) = op over `dims` of in (Prod:
/// integers wrap, as PyTorch's).
/// `dims` is sorted, unique and non-empty, every reduced dim is non-empty; in has out's dtype
/// (never bool).
using ReduceFn = void (*)(ReduceOp op, const Tensor& out, const Tensor& in, IntArrayRef dims);
EMBER_DECLARE_STUB(reduce_stub, ReduceFn);
/// Kernel: values (in's dtype; may be undefined) and indices (int64) of the max (op == Max) or
/// min (op == Min) along `dim`, both contiguous of in's shape with `dim` set to 1; in.size(dim) > 0.
/// The first extreme wins ties; a NaN counts as the extreme (the first NaN is reported).
using ArgReduceFn = void (*)(ReduceOp op, const Tensor& values, const Tensor& indices,
                             const Tensor& in, int64_t dim);
EMBER_DECLARE_STUB(arg_reduce_stub, ArgReduceFn);

}  // namespace ember
