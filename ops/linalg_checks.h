#pragma once
// The input checks the linalg ops share (ops/linalg.cpp, ops/linalg_composite.cpp), with
// PyTorch's messages: float32 or float64 (NotImplementedError naming complex, 16-bit or integer
// dtypes), and for a matrix at least 2 dims.
#include <string_view>

#include "ember/core/tensor.h"

namespace ember::detail {

void check_linalg_float(const Tensor& a, std::string_view op);
void check_linalg_matrix(const Tensor& a, std::string_view op);

}  // namespace ember::detail
