#pragma once
// Transformer as torch.nn.Transformer: a TransformerEncoder (num_encoder_layers layers and a final
// LayerNorm) and a TransformerDecoder (num_decoder_layers layers and a final LayerNorm), children
// "encoder" and "decoder" with PyTorch's parameter names, so a torch state dict loads. Every
// weight matrix starts Xavier-uniform (PyTorch's _reset_parameters). This header also brings in
// the layers and stacks it is made of.
#include <memory>
#include <optional>
#include <string>

#include "ember/nn/transformer_decoder.h"
#include "ember/nn/transformer_encoder.h"
#include "ember/nn/transformer_mask.h"

namespace ember::nn {

struct TransformerOptions {
  int64_t d_model = 512;
  int64_t nhead = 8;
  int64_t num_encoder_layers = 6;
  int64_t num_decoder_layers = 6;
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  std::string activation = "relu";  // or "gelu"
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;
  bool bias = true;
  /// The options of each encoder and decoder layer.
  TransformerLayerOptions layer() const {
    return {d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first, norm_first, bias};
  }
  /// Options whose layers have the options `l` (the numbers of layers are the defaults).
  static TransformerOptions from(const TransformerLayerOptions& l) {
    TransformerOptions o;
    o.d_model = l.d_model;
    o.nhead = l.nhead;
    o.dim_feedforward = l.dim_feedforward;
    o.dropout = l.dropout;
    o.activation = l.activation;
    o.layer_norm_eps = l.layer_norm_eps;
    o.batch_first = l.batch_first;
    o.norm_first = l.norm_first;
    o.bias = l.bias;
    return o;
  }
};

class Transformer : public Module {
 public:
  /// custom_encoder / custom_decoder replace the stacks the options describe (num_*_layers are
  /// then unused for that side, as in PyTorch).
  explicit Transformer(TransformerOptions options = {}, std::shared_ptr<TransformerEncoder> custom_encoder = nullptr,
                       std::shared_ptr<TransformerDecoder> custom_decoder = nullptr);

  /// memory = encoder(src, src_mask, src_key_padding_mask, src_is_causal), then
  /// decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask,
  /// tgt_is_causal, memory_is_causal). src [S, N, E] and tgt [T, N, E] ([N, *, E] batch_first, or
  /// unbatched [S, E] and [T, E]).
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = Tensor(),
                 const Tensor& tgt_mask = Tensor(), const Tensor& memory_mask = Tensor(),
                 const Tensor& src_key_padding_mask = Tensor(), const Tensor& tgt_key_padding_mask = Tensor(),
                 const Tensor& memory_key_padding_mask = Tensor(), std::optional<bool> src_is_causal = std::nullopt,
                 std::optional<bool> tgt_is_causal = std::nullopt, bool memory_is_causal = false);
  /// Needs a target: a NotImplementedError naming the two-argument forward.
  Tensor forward(const Tensor& src) override;
  const TransformerOptions& options() const { return options_; }
  TransformerEncoder& encoder() const { return child_as<TransformerEncoder>("encoder"); }
  TransformerDecoder& decoder() const { return child_as<TransformerDecoder>("decoder"); }
  /// square_subsequent_mask(sz, dtype): -inf above the diagonal, 0 elsewhere.
  static Tensor generate_square_subsequent_mask(int64_t sz, DType dtype = kFloat32) {
    return square_subsequent_mask(sz, dtype);
  }

 private:
  TransformerOptions options_;
};

}  // namespace ember::nn
