#pragma once
// Multi-head attention as torch.nn.MultiheadAttention, with the same parameter names so PyTorch
// state dicts load: in_proj_weight [3E, E] (or q_proj_weight [E, E], k_proj_weight [E, kdim],
// v_proj_weight [E, vdim] when kdim or vdim differ from embed_dim), in_proj_bias [3E],
// out_proj.weight, out_proj.bias, and bias_k, bias_v [1, 1, E] with add_bias_kv.
// Masks follow PyTorch's MultiheadAttention: bool true means "masked out" (the opposite of
// scaled_dot_product_attention's), a floating mask is added to the scores.
#include <memory>
#include <optional>
#include <utility>

#include "ember/nn/linear.h"
#include "ember/nn/module.h"

namespace ember::nn {

struct MultiheadAttentionOptions {
  int64_t embed_dim;
  int64_t num_heads;
  double dropout = 0.0;
  bool bias = true;
  bool batch_first = false;  // [N, L, E] when true, [L, N, E] otherwise
  bool add_bias_kv = false;  // learnt bias_k, bias_v appended to the keys and values
  bool add_zero_attn = false;  // a zero key and value appended (after bias_k, bias_v)
  std::optional<int64_t> kdim = std::nullopt;  // key features (default embed_dim)
  std::optional<int64_t> vdim = std::nullopt;  // value features (default embed_dim)
};

class MultiheadAttention : public Module {
 public:
  explicit MultiheadAttention(MultiheadAttentionOptions options);
  MultiheadAttention(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttention(MultiheadAttentionOptions{embed_dim, num_heads}) {}

  /// (output, attention weights) for query [L, N, E] (or [N, L, E] batch_first, or unbatched
  /// [L, E]) and key/value [S, N, kdim/vdim]. attn_mask: [L, S] or [N*H, L, S]; key_padding_mask:
  /// [N, S] ([S] unbatched); bool (true = masked out) or floating (added). is_causal says that
  /// attn_mask is the causal mask (it must still be given), so the fused kernel may use its
  /// triangle instead. The weights ([N, L, S] averaged over heads, [N, H, L, S] otherwise) are
  /// undefined unless need_weights; computing them takes the unfused path, where, as in PyTorch, a
  /// query whose keys are all masked out gives NaN (zeros without need_weights).
  /// Virtual, so that a subclass written in Python runs inside a transformer layer.
  virtual std::pair<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                            const Tensor& key_padding_mask = Tensor(),
                                            bool need_weights = true, const Tensor& attn_mask = Tensor(),
                                            bool average_attn_weights = true, bool is_causal = false);
  /// Self-attention on one tensor, output only.
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  void reset_parameters();
  const MultiheadAttentionOptions& options() const { return options_; }
  int64_t kdim() const { return options_.kdim.value_or(options_.embed_dim); }
  int64_t vdim() const { return options_.vdim.value_or(options_.embed_dim); }
  /// True when one in_proj_weight holds the three projections (kdim == vdim == embed_dim).
  bool qkv_same_embed_dim() const { return kdim() == options_.embed_dim && vdim() == options_.embed_dim; }
  /// The output projection, looked up by name: like PyTorch, forward reads out_proj's weight and
  /// bias at each call (a replaced out_proj takes effect; its own forward is not called).
  std::shared_ptr<Linear> out_proj() const;

 private:
  MultiheadAttentionOptions options_;
};

}  // namespace ember::nn
