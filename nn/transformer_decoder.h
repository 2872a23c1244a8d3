#pragma once
// TransformerDecoder as torch.nn.TransformerDecoder: a stack of TransformerDecoderLayers
// ("layers.0", ... in a ModuleList) and an optional final LayerNorm ("norm"). Built from one
// layer, it holds num_layers copies of it (PyTorch deep-copies the layer).
#include <memory>
#include <optional>

#include "ember/nn/transformer_decoder_layer.h"
#include "ember/nn/transformer_stack.h"

namespace ember::nn {

class TransformerDecoder : public detail::TransformerStack<TransformerDecoderLayer> {
 public:
  /// num_layers copies of `layer`, then `norm` (none when null) on the output.
  TransformerDecoder(const TransformerDecoderLayer& layer, int64_t num_layers, std::shared_ptr<Module> norm = nullptr);
  /// Layers already built (each a TransformerDecoderLayer); what a checkpoint rebuilds.
  TransformerDecoder(std::shared_ptr<ModuleList> layers, std::shared_ptr<Module> norm);

  /// Runs tgt through every layer, each attending to memory, with the same masks
  /// (TransformerDecoderLayer's), then the norm. tgt_is_causal: whether tgt_mask is the causal
  /// mask; when not given, it is detected by comparing tgt_mask with square_subsequent_mask.
  virtual Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = Tensor(),
                         const Tensor& memory_mask = Tensor(), const Tensor& tgt_key_padding_mask = Tensor(),
                         const Tensor& memory_key_padding_mask = Tensor(),
                         std::optional<bool> tgt_is_causal = std::nullopt, bool memory_is_causal = false);
  /// Needs memory: a NotImplementedError naming the two-argument forward.
  Tensor forward(const Tensor& tgt) override;
};

}  // namespace ember::nn
