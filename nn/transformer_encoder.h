#pragma once
// TransformerEncoder as torch.nn.TransformerEncoder: a stack of TransformerEncoderLayers
// ("layers.0", "layers.1", ... in a ModuleList, as PyTorch names them) and an optional final
// LayerNorm ("norm"). Built from one layer, it holds num_layers copies of it (PyTorch deep-copies
// the layer, so all start with its weights).
#include <memory>
#include <optional>

#include "ember/nn/transformer_encoder_layer.h"
#include "ember/nn/transformer_stack.h"

namespace ember::nn {

class TransformerEncoder : public detail::TransformerStack<TransformerEncoderLayer> {
 public:
  /// num_layers copies of `layer`, then `norm` (none when null) on the output.
  TransformerEncoder(const TransformerEncoderLayer& layer, int64_t num_layers, std::shared_ptr<Module> norm = nullptr);
  /// Layers already built (each a TransformerEncoderLayer); what a checkpoint rebuilds.
  TransformerEncoder(std::shared_ptr<ModuleList> layers, std::shared_ptr<Module> norm);

  /// Runs src through every layer with the same masks (MultiheadAttention's attn_mask and
  /// key_padding_mask), then the norm. is_causal: whether mask is the causal mask; when not given,
  /// it is detected by comparing mask with square_subsequent_mask (as PyTorch).
  virtual Tensor forward(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask = Tensor(),
                         std::optional<bool> is_causal = std::nullopt);
  Tensor forward(const Tensor& src) override { return forward(src, Tensor()); }
};

}  // namespace ember::nn
