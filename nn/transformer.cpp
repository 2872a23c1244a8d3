#include "ember/nn/transformer.h"

#include "ember/nn/init.h"
#include "ember/nn/normalization.h"

namespace ember::nn {
namespace {

std::shared_ptr<LayerNorm> final_norm(const TransformerOptions& o) {
  return std::make_shared<LayerNorm>(LayerNormOptions{{o.d_model}, o.layer_norm_eps, true, o.bias});
}

}  // namespace

Transformer::Transformer(TransformerOptions options, std::shared_ptr<TransformerEncoder> custom_encoder,
                         std::shared_ptr<TransformerDecoder> custom_decoder)
    : Module("Transformer"), options_(std::move(options)) {
  const TransformerLayerOptions layer = options_.layer();
  if (!custom_encoder)
    custom_encoder = std::make_shared<TransformerEncoder>(TransformerEncoderLayer(layer), options_.num_encoder_layers,
                                                          final_norm(options_));
  if (!custom_decoder)
    custom_decoder = std::make_shared<TransformerDecoder>(TransformerDecoderLayer(layer), options_.num_decoder_layers,
                                                          final_norm(options_));
  register_module("encoder", std::move(custom_encoder));
  register_module("decoder", std::move(custom_decoder));
  for (Tensor& p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
}

Tensor Transformer::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask, const Tensor& tgt_mask,
                            const Tensor& memory_mask, const Tensor& src_key_padding_mask,
                            const Tensor& tgt_key_padding_mask, const Tensor& memory_key_padding_mask,
                            std::optional<bool> src_is_causal, std::optional<bool> tgt_is_causal,
                            bool memory_is_causal) {
  const int64_t batch_dim = options_.batch_first ? 0 : 1;
  EMBER_CHECK_VALUE(src.dim() != 3 || tgt.dim() != 3 || src.size(batch_dim) == tgt.size(batch_dim),
                    "Transformer: the batch number of src and tgt must be equal, got src ", src.sizes(), " and tgt ",
                    tgt.sizes(), options_.batch_first ? " (batch_first)" : "");
  EMBER_CHECK_VALUE(src.dim() > 0 && tgt.dim() > 0 && src.size(-1) == options_.d_model &&
                        tgt.size(-1) == options_.d_model,
                    "Transformer: the feature number of src and tgt must be equal to d_model (", options_.d_model,
                    "), got src ", src.sizes(), " and tgt ", tgt.sizes());
  Tensor memory = encoder().forward(src, src_mask, src_key_padding_mask, src_is_causal);
  return decoder().forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
                           tgt_is_causal, memory_is_causal);
}

Tensor Transformer::forward(const Tensor&) {
  EMBER_CHECK_AS(NotImplementedError, false, "Transformer: forward needs a target; call forward(src, tgt, ...)");
  return Tensor();
}

}  // namespace ember::nn
