#pragma once
// TransformerDecoderLayer as torch.nn.TransformerDecoderLayer: self-attention over the target,
// attention from the target to the encoder's output (memory), and a feed-forward block, each with
// dropout, a residual connection and LayerNorm, after (post-norm, the default) or before
// (norm_first) the block. Parameter names match PyTorch's (self_attn, multihead_attn, linear1,
// linear2, norm1 ... norm3). Children are looked up by name at each call.
#include <memory>

#include "ember/nn/attention.h"
#include "ember/nn/transformer_layer.h"

namespace ember::nn {

class TransformerDecoderLayer : public Module {
 public:
  explicit TransformerDecoderLayer(TransformerDecoderLayerOptions options);
  TransformerDecoderLayer(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayer(TransformerDecoderLayerOptions{d_model, nhead}) {}

  /// tgt_mask and tgt_key_padding_mask mask the self-attention, memory_mask and
  /// memory_key_padding_mask the attention to memory, as MultiheadAttention's attn_mask and
  /// key_padding_mask; tgt_is_causal and memory_is_causal say the masks are causal (hints).
  /// Virtual, so that a subclass written in Python runs inside a TransformerDecoder.
  virtual Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = Tensor(),
                         const Tensor& memory_mask = Tensor(), const Tensor& tgt_key_padding_mask = Tensor(),
                         const Tensor& memory_key_padding_mask = Tensor(), bool tgt_is_causal = false,
                         bool memory_is_causal = false);
  /// Needs memory: a NotImplementedError naming the two-argument forward.
  Tensor forward(const Tensor& tgt) override;
  const TransformerDecoderLayerOptions& options() const { return options_; }

 private:
  Tensor attention_block(const char* attention, const char* dropout, const Tensor& x, const Tensor& kv,
                         const Tensor& mask, const Tensor& padding, bool is_causal);

  TransformerDecoderLayerOptions options_;
};

}  // namespace ember::nn
