#pragma once
// The kernel contract of the running scans beyond cumsum (ops/scan.h, ops/product.h): cumprod,
// logcumsumexp, cummax and cummin along a dim. As for cumsum (core/kernels/sort.h), the ops move
// the dim last and make the input contiguous, so a kernel sees rows: in is [rows, n] row-major.
#include <cstdint>

#include "ember/core/dispatch.h"
#include "ember/core/kernels/op_codes.h"  // ScanOp, generated from the op table
#include "ember/core/tensor.h"

namespace ember {

/// Kernel: out[r][j] = in[r][0] op ... op in[r][j] along each row of the contiguous [rows, n]
/// `in`, left to right; out is contiguous, of in's shape and dtype. Cumprod multiplies (integers
/// wrap); Logcumsumexp is log(sum(exp)) without overflow (floating only; a NaN stays). Cummax and
/// Cummin keep the running extreme and fill the int64 `indices` (contiguous, in's shape; undefined
/// for the other ops) with where it was last taken: a tie moves the index to the later entry, and
/// a NaN is the extreme from where it appears (its index moves to each later NaN), as in PyTorch.
using ScanFn = void (*)(ScanOp op, const Tensor& out, const Tensor& indices, const Tensor& in);
EMBER_DECLARE_STUB(scan_stub, ScanFn);

}  // namespace ember
