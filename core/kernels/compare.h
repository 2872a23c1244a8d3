#pragma once
// The kernel contract of comparisons, logical ops and where (ops/compare.h). Ops call these stubs;
// each backend (core/cpu/, cuda/) registers its kernels into them.
#include "ember/core/dispatch.h"
#include "ember/core/kernels/op_codes.h"  // UnaryOp, BinaryOp, CompareOp: from the op table
#include "ember/core/tensor.h"

namespace ember {

/// Kernel: out (bool) = a op b; a and b already broadcast to out's shape and of one dtype.
/// The logical ops treat nonzero (and NaN) as true.
using CompareFn = void (*)(CompareOp op, const Tensor& out, const Tensor& a, const Tensor& b);
EMBER_DECLARE_STUB(compare_stub, CompareFn);
/// Kernel: out = cond ? a : b; all already broadcast to out's shape, a and b of out's dtype.
using WhereFn = void (*)(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b);
EMBER_DECLARE_STUB(where_stub, WhereFn);

}  // namespace ember
