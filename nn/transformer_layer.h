#pragma once
// What torch.nn.TransformerEncoderLayer and TransformerDecoderLayer share: their options and the
// feed-forward block linear2(dropout(activation(linear1(x)))), with PyTorch's child names.
#include <memory>
#include <string>

#include "ember/nn/container.h"
#include "ember/nn/module.h"

namespace ember::nn {

struct TransformerLayerOptions {
  int64_t d_model;
  int64_t nhead;
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  std::string activation = "relu";  // or "gelu"
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;  // LayerNorm before each block (pre-norm) rather than after (post-norm)
  bool bias = true;         // biases of the attention, linear and LayerNorm layers
};
using TransformerEncoderLayerOptions = TransformerLayerOptions;
using TransformerDecoderLayerOptions = TransformerLayerOptions;

namespace detail {

/// Checks the options (`layer` names the layer in errors).
void check_transformer_layer_options(const TransformerLayerOptions& o, const char* layer);
/// Registers linear1, dropout and linear2 on `layer`.
void register_feed_forward(Module& layer, const TransformerLayerOptions& o);
/// Registers LayerNorms norm1 ... norm<count> on `layer`.
void register_norms(Module& layer, const TransformerLayerOptions& o, int count);
/// linear2(dropout(activation(linear1(x)))), through `layer`'s children as they are now.
Tensor feed_forward(const Module& layer, const std::string& activation, const Tensor& x);
/// layer.child(name).forward(x).
Tensor run_child(const Module& layer, const std::string& name, const Tensor& x);

/// A new L with layer's options, a copy of its weights and its training mode.
template <typename L>
std::shared_ptr<L> copy_layer(const L& layer) {
  auto out = std::make_shared<L>(layer.options());
  out->load_state_dict(layer.state_dict());
  out->train(layer.is_training());
  return out;
}

/// num_layers copies of layer (copy_layer) in a ModuleList; `stack` names the stack in errors.
template <typename L>
std::shared_ptr<ModuleList> copies_of(const L& layer, int64_t num_layers, const char* stack) {
  EMBER_CHECK_VALUE(num_layers >= 0, stack, ": num_layers must not be negative, got ", num_layers);
  auto layers = std::make_shared<ModuleList>();
  for (int64_t i = 0; i < num_layers; ++i) layers->push_back(copy_layer(layer));
  return layers;
}

}  // namespace detail
}  // namespace ember::nn
