#pragma once
// Functional forms of the layers (torch.nn.functional): stateless, the layers call them.
#include "ember/core/tensor.h"

namespace ember::nn::functional {

/// x @ weight^T + bias; weight [out, in], bias [out] or undefined.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());

}  // namespace ember::nn::functional
