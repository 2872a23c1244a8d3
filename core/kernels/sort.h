#pragma once
// The kernel contracts of sorting and running scans along a dim (ops/sort.h). The ops move the dim
// last and make the input contiguous, so a kernel sees rows: in is [rows, n] row-major.
#include <cstdint>

#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

/// Kernel: the int64 `indices` ([rows, n], contiguous) get, per row of the contiguous `in`, the
/// order that sorts it ascending (or descending); NaN sorts above every number, as in PyTorch;
/// equal entries keep their input order (always stable, so results do not depend on the standard
/// library's unstable sort). in is of a compute dtype.
using ArgsortFn = void (*)(const Tensor& indices, const Tensor& in, bool descending);
EMBER_DECLARE_STUB(argsort_stub, ArgsortFn);

/// Kernel: out[r][j] = in[r][0] + ... + in[r][j] (running sums along each row of the contiguous
/// [rows, n] `in`, left to right); out is contiguous, of in's shape and dtype.
using CumsumFn = void (*)(const Tensor& out, const Tensor& in);
EMBER_DECLARE_STUB(cumsum_stub, CumsumFn);

}  // namespace ember
