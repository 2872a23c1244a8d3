#pragma once
// Functional forms of the layers (torch.nn.functional): stateless, the layers call them.
#include "ember/core/tensor.h"

namespace ember::nn::functional {

/// x @ weight^T + bias; weight [out, in], bias [out] or undefined.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());
/// y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]; weight [out, in1, in2].
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = Tensor());
/// (x1 / max(||x1||, eps)) . (x2 / max(||x2||, eps)) along dim, after x1 and x2 broadcast. Each norm
/// is clamped at eps on its own (which keeps the result in [-1, 1]); the gradient is the unclamped
/// norm's, as PyTorch's. An integer input is cast to the floating dtype the two promote to.
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
/// softmax((logits + g) / tau) along dim with Gumbel(0, 1) noise g (drawn from ember's generator);
/// hard=true returns the one-hot of its argmax, whose gradient is the soft sample's (straight-through).
Tensor gumbel_softmax(const Tensor& logits, double tau = 1.0, bool hard = false, double eps = 1e-10, int64_t dim = -1);
/// input / (k + alpha * mean over `size` neighbouring channels of input^2)^beta, channels dim 1
/// (AlexNet's normalisation, as PyTorch computes it); input [N, C, *].
Tensor local_response_norm(const Tensor& input, int64_t size, double alpha = 1e-4, double beta = 0.75, double k = 1.0);
/// input / max(||input||_p along dim, eps): linalg_vector_norm's norm, whose gradient at a zero vector
/// is 0 as PyTorch's (a norm composed of pow would give 0 * inf = NaN there).
Tensor normalize(const Tensor& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12);

}  // namespace ember::nn::functional
