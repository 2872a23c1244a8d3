#include "ember/nn/transformer_decoder.h"

#include "ember/nn/transformer_mask.h"

namespace ember::nn {

TransformerDecoder::TransformerDecoder(const TransformerDecoderLayer& layer, int64_t num_layers,
                                       std::shared_ptr<Module> norm)
    : TransformerDecoder(detail::copies_of(layer, num_layers, "TransformerDecoder"), std::move(norm)) {}

TransformerDecoder::TransformerDecoder(std::shared_ptr<ModuleList> layers, std::shared_ptr<Module> norm)
    : TransformerStack("TransformerDecoder", std::move(layers), std::move(norm)) {}

Tensor TransformerDecoder::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                   const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                   const Tensor& memory_key_padding_mask, std::optional<bool> tgt_is_causal,
                                   bool memory_is_causal) {
  const int64_t n = num_layers();
  Tensor x = tgt;
  if (n > 0) {
    const bool causal = detail::detect_is_causal_mask(tgt_mask, tgt_is_causal, detail::sequence_length(tgt, batch_first()));
    for (int64_t i = 0; i < n; ++i)
      x = layer(i).forward(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask, causal,
                           memory_is_causal);
  }
  return final_norm(x);
}

Tensor TransformerDecoder::forward(const Tensor&) {
  EMBER_CHECK_AS(NotImplementedError, false, "TransformerDecoder: forward needs memory; call "
                 "forward(tgt, memory, ...)");
  return Tensor();
}

}  // namespace ember::nn
