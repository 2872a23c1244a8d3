#include "ember/nn/transformer_decoder_layer.h"

#include "ember/nn/activation.h"
#include "ember/ops/binary.h"

namespace ember::nn {

using detail::run_child;

TransformerDecoderLayer::TransformerDecoderLayer(TransformerDecoderLayerOptions options)
    : Module("TransformerDecoderLayer"), options_(std::move(options)) {
  detail::check_transformer_layer_options(options_, "TransformerDecoderLayer");
  MultiheadAttentionOptions attention{options_.d_model, options_.nhead, options_.dropout, options_.bias,
                                      options_.batch_first};
  register_module("self_attn", std::make_shared<MultiheadAttention>(attention));
  register_module("multihead_attn", std::make_shared<MultiheadAttention>(attention));
  detail::register_feed_forward(*this, options_);
  detail::register_norms(*this, options_, 3);
  for (const char* name : {"dropout1", "dropout2", "dropout3"})
    register_module(name, std::make_shared<Dropout>(options_.dropout));
}

Tensor TransformerDecoderLayer::attention_block(const char* attention, const char* dropout, const Tensor& x,
                                                const Tensor& kv, const Tensor& mask, const Tensor& padding,
                                                bool is_causal) {
  auto& mha = child_as<MultiheadAttention>(attention);
  return run_child(*this, dropout, mha.forward(x, kv, kv, padding, false, mask, true, is_causal).first);
}

Tensor TransformerDecoderLayer::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                        const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                        const Tensor& memory_key_padding_mask, bool tgt_is_causal,
                                        bool memory_is_causal) {
  auto self_block = [&](const Tensor& x) {
    return attention_block("self_attn", "dropout1", x, x, tgt_mask, tgt_key_padding_mask, tgt_is_causal);
  };
  auto memory_block = [&](const Tensor& x) {
    return attention_block("multihead_attn", "dropout2", x, memory, memory_mask, memory_key_padding_mask,
                           memory_is_causal);
  };
  auto ff = [&](const Tensor& x) { return run_child(*this, "dropout3", detail::feed_forward(*this, options_.activation, x)); };
  Tensor x = tgt;
  if (options_.norm_first) {
    x = x + self_block(run_child(*this, "norm1", x));
    x = x + memory_block(run_child(*this, "norm2", x));
    x = x + ff(run_child(*this, "norm3", x));
  } else {
    x = run_child(*this, "norm1", x + self_block(x));
    x = run_child(*this, "norm2", x + memory_block(x));
    x = run_child(*this, "norm3", x + ff(x));
  }
  return x;
}

Tensor TransformerDecoderLayer::forward(const Tensor&) {
  EMBER_CHECK_AS(NotImplementedError, false, "TransformerDecoderLayer: forward needs memory; call "
                 "forward(tgt, memory, ...)");
  return Tensor();
}

}  // namespace ember::nn
