#pragma once
// torch.nn.functional.multi_head_attention_forward: the functional form of MultiheadAttention with
// PyTorch's whole signature, composed of ops (so its gradients are theirs). Sequence-first: query
// [L, N, E] (or unbatched [L, E]), key / value [S, N, E*]. Returns (output [L, N, E], weights):
// the weights are [N, L, S] averaged over heads ([N, H, L, S] without average_attn_weights), and
// undefined unless need_weights. Bool masks mark positions to HIDE (true = not attended), floating
// masks are added to the scores; is_causal is a hint that needs attn_mask, as in PyTorch.
// A malformed call throws ValueError with PyTorch's AssertionError text (Python raises it as an
// AssertionError), except the four that PyTorch raises as RuntimeError (ember::Error here).
#include <utility>

#include "ember/core/tensor.h"

namespace ember::nn::functional {

struct MultiheadAttentionForwardOptions {
  int64_t embed_dim_to_check = 0;
  int64_t num_heads = 1;
  Tensor in_proj_weight, in_proj_bias;  // [3E, E], [3E]
  Tensor bias_k, bias_v;                // [1, 1, E] each: one more key / value
  bool add_zero_attn = false;           // one more zero key / value
  double dropout_p = 0.0;               // on the weights, only when training
  Tensor out_proj_weight, out_proj_bias;
  bool training = true;
  Tensor key_padding_mask;  // [N, S] ([S] unbatched)
  bool need_weights = true;
  Tensor attn_mask;  // [L, S] or [N*H, L, S]
  bool use_separate_proj_weight = false;
  Tensor q_proj_weight, k_proj_weight, v_proj_weight;  // with use_separate_proj_weight
  Tensor static_k, static_v;                           // [N*H, S, E/H]: replace the projected keys / values
  bool average_attn_weights = true;
  bool is_causal = false;
};

std::pair<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                       const MultiheadAttentionForwardOptions& options);

}  // namespace ember::nn::functional
