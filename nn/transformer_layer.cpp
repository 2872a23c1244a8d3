#include "ember/nn/transformer_layer.h"

#include <memory>

#include "ember/nn/activation.h"
#include "ember/nn/linear.h"
#include "ember/nn/normalization.h"
#include "ember/ops/activation.h"

namespace ember::nn::detail {

void check_transformer_layer_options(const TransformerLayerOptions& o, const char* layer) {
  EMBER_CHECK_VALUE(o.activation == "relu" || o.activation == "gelu", layer,
                    ": activation must be 'relu' or 'gelu', got '", o.activation, "'");
  EMBER_CHECK_VALUE(o.d_model > 0 && o.nhead > 0 && o.dim_feedforward > 0, layer,
                    ": d_model, nhead and dim_feedforward must be positive, got ", o.d_model, ", ", o.nhead,
                    " and ", o.dim_feedforward);
}

void register_feed_forward(Module& layer, const TransformerLayerOptions& o) {
  layer.register_module("linear1", std::make_shared<Linear>(LinearOptions{o.d_model, o.dim_feedforward, o.bias}));
  layer.register_module("dropout", std::make_shared<Dropout>(o.dropout));
  layer.register_module("linear2", std::make_shared<Linear>(LinearOptions{o.dim_feedforward, o.d_model, o.bias}));
}

void register_norms(Module& layer, const TransformerLayerOptions& o, int count) {
  LayerNormOptions norm{{o.d_model}, o.layer_norm_eps, true, o.bias};
  for (int i = 1; i <= count; ++i) layer.register_module("norm" + std::to_string(i), std::make_shared<LayerNorm>(norm));
}

Tensor run_child(const Module& layer, const std::string& name, const Tensor& x) {
  return layer.child_as(name)(x);
}

Tensor feed_forward(const Module& layer, const std::string& activation, const Tensor& x) {
  Tensor hidden = run_child(layer, "linear1", x);
  hidden = activation == "relu" ? relu(hidden) : gelu(hidden);
  return run_child(layer, "linear2", run_child(layer, "dropout", hidden));
}

}  // namespace ember::nn::detail
