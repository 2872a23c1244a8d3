#include "ember/nn/transformer.h"

#include "ember/ops/activation.h"
#include "ember/ops/binary.h"

namespace ember::nn {

TransformerEncoderLayer::TransformerEncoderLayer(TransformerEncoderLayerOptions options)
    : Module("TransformerEncoderLayer"), options_(std::move(options)) {
  EMBER_CHECK_VALUE(options_.activation == "relu" || options_.activation == "gelu",
                    "TransformerEncoderLayer: activation must be 'relu' or 'gelu', got '",
                    options_.activation, "'");
  register_module("self_attn", std::make_shared<MultiheadAttention>(MultiheadAttentionOptions{
                                   options_.d_model, options_.nhead, options_.dropout, true,
                                   options_.batch_first}));
  register_module("linear1", std::make_shared<Linear>(options_.d_model, options_.dim_feedforward));
  register_module("dropout", std::make_shared<Dropout>(options_.dropout));
  register_module("linear2", std::make_shared<Linear>(options_.dim_feedforward, options_.d_model));
  LayerNormOptions norm{{options_.d_model}, options_.layer_norm_eps};
  register_module("norm1", std::make_shared<LayerNorm>(norm));
  register_module("norm2", std::make_shared<LayerNorm>(norm));
  register_module("dropout1", std::make_shared<Dropout>(options_.dropout));
  register_module("dropout2", std::make_shared<Dropout>(options_.dropout));
}

Tensor TransformerEncoderLayer::self_attention_block(const Tensor& x, const Tensor& mask,
                                                     const Tensor& padding) {
  auto& attention = child_as<MultiheadAttention>("self_attn");
  return run("dropout1", attention.forward(x, x, x, padding, false, mask).first);
}

Tensor TransformerEncoderLayer::feed_forward_block(const Tensor& x) {
  Tensor hidden = run("linear1", x);
  hidden = options_.activation == "relu" ? relu(hidden) : gelu(hidden);
  return run("dropout2", run("linear2", run("dropout", hidden)));
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& src_mask,
                                        const Tensor& src_key_padding_mask) {
  Tensor x = src;
  if (options_.norm_first) {
    x = x + self_attention_block(run("norm1", x), src_mask, src_key_padding_mask);
    x = x + feed_forward_block(run("norm2", x));
  } else {
    x = run("norm1", x + self_attention_block(x, src_mask, src_key_padding_mask));
    x = run("norm2", x + feed_forward_block(x));
  }
  return x;
}

}  // namespace ember::nn
