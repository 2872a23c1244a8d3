#include "ember/nn/transformer_encoder.h"

#include "ember/nn/transformer_mask.h"

namespace ember::nn {

TransformerEncoder::TransformerEncoder(const TransformerEncoderLayer& layer, int64_t num_layers,
                                       std::shared_ptr<Module> norm)
    : TransformerEncoder(detail::copies_of(layer, num_layers, "TransformerEncoder"), std::move(norm)) {}

TransformerEncoder::TransformerEncoder(std::shared_ptr<ModuleList> layers, std::shared_ptr<Module> norm)
    : TransformerStack("TransformerEncoder", std::move(layers), std::move(norm)) {}

Tensor TransformerEncoder::forward(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask,
                                   std::optional<bool> is_causal) {
  const int64_t n = num_layers();
  Tensor x = src;
  if (n > 0) {
    const bool causal = detail::detect_is_causal_mask(mask, is_causal, detail::sequence_length(src, batch_first()));
    for (int64_t i = 0; i < n; ++i) x = layer(i).forward(x, mask, src_key_padding_mask, causal);
  }
  return final_norm(x);
}

}  // namespace ember::nn
