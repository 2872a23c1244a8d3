#pragma once
// Preparing tensors for gemm (core/cpu/gemm.h): the kernels that multiply the last two dims of
// batched operands (matmul, attention) hand gemm each matrix in its own layout when it can.
#include "ember/core/tensor.h"

namespace ember::cpu {

/// t unchanged when gemm takes its last two dims as they are (row- or column-major, e.g. a
/// transposed weight), else a row-major copy; broadcast (stride-0) batch dims stay broadcast, so
/// each distinct matrix is copied once.
Tensor gemm_ready(const Tensor& t);

}  // namespace ember::cpu
