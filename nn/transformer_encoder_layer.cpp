#include "ember/nn/transformer_encoder_layer.h"

#include "ember/nn/activation.h"
#include "ember/ops/binary.h"

namespace ember::nn {

using detail::run_child;

TransformerEncoderLayer::TransformerEncoderLayer(TransformerEncoderLayerOptions options)
    : Module("TransformerEncoderLayer"), options_(std::move(options)) {
  detail::check_transformer_layer_options(options_, "TransformerEncoderLayer");
  register_module("self_attn", std::make_shared<MultiheadAttention>(MultiheadAttentionOptions{
                                   options_.d_model, options_.nhead, options_.dropout, options_.bias,
                                   options_.batch_first}));
  detail::register_feed_forward(*this, options_);
  detail::register_norms(*this, options_, 2);
  register_module("dropout1", std::make_shared<Dropout>(options_.dropout));
  register_module("dropout2", std::make_shared<Dropout>(options_.dropout));
}

Tensor TransformerEncoderLayer::self_attention_block(const Tensor& x, const Tensor& mask, const Tensor& padding,
                                                     bool is_causal) {
  auto& attention = child_as<MultiheadAttention>("self_attn");
  return run_child(*this, "dropout1", attention.forward(x, x, x, padding, false, mask, true, is_causal).first);
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& src_mask,
                                        const Tensor& src_key_padding_mask, bool is_causal) {
  Tensor x = src;
  auto ff = [&](const Tensor& t) { return run_child(*this, "dropout2", detail::feed_forward(*this, options_.activation, t)); };
  if (options_.norm_first) {
    x = x + self_attention_block(run_child(*this, "norm1", x), src_mask, src_key_padding_mask, is_causal);
    x = x + ff(run_child(*this, "norm2", x));
  } else {
    x = run_child(*this, "norm1", x + self_attention_block(x, src_mask, src_key_padding_mask, is_causal));
    x = run_child(*this, "norm2", x + ff(x));
  }
  return x;
}

}  // namespace ember::nn
