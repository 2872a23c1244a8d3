#pragma once
// The kernel contract of indexing along a dim: index_select, gather, scatter_add, index_add,
// masked_fill (ops/index.h). Ops call these stubs; each backend (core/cpu/, cuda/) registers its
// kernels into them.
#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

/// Kernel: out = src with `dim` indexed by the 1-D `index` (int64 or int32, contiguous):
/// out.select(dim, i) = src.select(dim, index[i]). out is contiguous, of src's dtype; indices are
/// checked against src.size(dim), errors naming `op`.
using IndexSelectFn = void (*)(const Tensor& out, const Tensor& src, int64_t dim,
                               const Tensor& index, const char* op);
EMBER_DECLARE_STUB(index_select_stub, IndexSelectFn);

/// Kernel: out[..., j, ...] = src[..., index[..., j, ...], ...] with j at `dim`; out and index
/// have one shape, src has out's dtype and is at least as large outside `dim`.
using GatherFn = void (*)(const Tensor& out, const Tensor& src, int64_t dim, const Tensor& index);
EMBER_DECLARE_STUB(gather_stub, GatherFn);

/// Kernel: out[..., index[..., j, ...], ...] += src[..., j, ...] with j at `dim`, over index's
/// shape; src has out's dtype and is at least as large as index; out is written in place.
using ScatterAddFn = void (*)(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src);
EMBER_DECLARE_STUB(scatter_add_stub, ScatterAddFn);

/// Kernel: out.select(dim, index[i]) += src.select(dim, i) for the 1-D `index` (contiguous); src
/// has out's dtype and out's sizes outside `dim`; out is written in place.
using IndexAddFn = void (*)(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src);
EMBER_DECLARE_STUB(index_add_stub, IndexAddFn);

/// Kernel: out = mask ? value : src; all of out's shape (already broadcast), src of out's dtype,
/// mask bool.
using MaskedFillFn = void (*)(const Tensor& out, const Tensor& src, const Tensor& mask,
                              const Scalar& value);
EMBER_DECLARE_STUB(masked_fill_stub, MaskedFillFn);

}  // namespace ember
