#pragma once
// TransformerEncoderLayer as torch.nn.TransformerEncoderLayer: self-attention and a feed-forward
// block, each with dropout, a residual connection and LayerNorm, after (post-norm, the default)
// or before (norm_first) the block. Parameter names match PyTorch's (self_attn.in_proj_weight,
// linear1.weight, norm1.weight, ...). Children are looked up by name at each call, so replacing
// one (layer.linear1 = ...) changes what runs, as in PyTorch.
#include <memory>
#include <string>

#include "ember/nn/attention.h"
#include "ember/nn/transformer_layer.h"

namespace ember::nn {

class TransformerEncoderLayer : public Module {
 public:
  explicit TransformerEncoderLayer(TransformerEncoderLayerOptions options);
  TransformerEncoderLayer(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayer(TransformerEncoderLayerOptions{d_model, nhead}) {}

  /// src_mask as MultiheadAttention's attn_mask, src_key_padding_mask as its key_padding_mask;
  /// is_causal says src_mask is the causal mask (MultiheadAttention's hint). Virtual, so that a
  /// subclass written in Python runs inside a TransformerEncoder.
  virtual Tensor forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask = Tensor(),
                         bool is_causal = false);
  Tensor forward(const Tensor& src) override { return forward(src, Tensor()); }
  const TransformerEncoderLayerOptions& options() const { return options_; }

 private:
  Tensor self_attention_block(const Tensor& x, const Tensor& mask, const Tensor& padding, bool is_causal);

  TransformerEncoderLayerOptions options_;
};

}  // namespace ember::nn
