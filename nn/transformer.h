#pragma once
// TransformerEncoderLayer as torch.nn.TransformerEncoderLayer: self-attention and a feed-forward
// block, each with dropout, a residual connection and LayerNorm, after (post-norm, the default)
// or before (norm_first) the block. Parameter names match PyTorch's. Children are looked up by
// name at each call, so replacing one (layer.linear1 = ...) changes what runs, as in PyTorch.
#include <memory>
#include <string>

#include "ember/nn/activation.h"
#include "ember/nn/attention.h"
#include "ember/nn/linear.h"
#include "ember/nn/normalization.h"

namespace ember::nn {

struct TransformerEncoderLayerOptions {
  int64_t d_model;
  int64_t nhead;
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  std::string activation = "relu";  // or "gelu"
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;
};

class TransformerEncoderLayer : public Module {
 public:
  explicit TransformerEncoderLayer(TransformerEncoderLayerOptions options);
  TransformerEncoderLayer(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayer(TransformerEncoderLayerOptions{d_model, nhead}) {}

  /// src_mask as MultiheadAttention's attn_mask, src_key_padding_mask as its key_padding_mask.
  Tensor forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask = Tensor());
  Tensor forward(const Tensor& src) override { return forward(src, Tensor()); }
  const TransformerEncoderLayerOptions& options() const { return options_; }

 private:
  Tensor self_attention_block(const Tensor& x, const Tensor& mask, const Tensor& padding);
  Tensor feed_forward_block(const Tensor& x);

  Tensor run(const std::string& child, const Tensor& x) const { return child_as(child)(x); }

  TransformerEncoderLayerOptions options_;
};

}  // namespace ember::nn
