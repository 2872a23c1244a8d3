#pragma once
// Multi-head attention as torch.nn.MultiheadAttention (same parameter names: in_proj_weight,
// in_proj_bias, out_proj.weight, out_proj.bias, so PyTorch state dicts load).
#include <memory>
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
};

class MultiheadAttention : public Module {
 public:
  explicit MultiheadAttention(MultiheadAttentionOptions options);
  MultiheadAttention(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttention(MultiheadAttentionOptions{embed_dim, num_heads}) {}

  /// (output, attention weights). attn_mask: [L, S] or [N*H, L, S], bool (true = masked out) or
  /// float (added to the scores); key_padding_mask: [N, S] bool (true = padding). The weights are
  /// undefined unless need_weights; averaged over heads when average_attn_weights.
  /// Virtual, so that a subclass written in Python runs inside a TransformerEncoderLayer.
  virtual std::pair<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                            const Tensor& key_padding_mask = Tensor(),
                                            bool need_weights = true, const Tensor& attn_mask = Tensor(),
                                            bool average_attn_weights = true);
  /// Self-attention on one tensor, output only.
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;
  void reset_parameters();
  const MultiheadAttentionOptions& options() const { return options_; }
  /// The output projection, looked up by name: like PyTorch, forward reads out_proj's weight and
  /// bias at each call (a replaced out_proj takes effect; its own forward is not called).
  std::shared_ptr<Linear> out_proj() const;

 private:
  MultiheadAttentionOptions options_;
};

}  // namespace ember::nn
