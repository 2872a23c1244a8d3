#pragma once
// What TransformerEncoder and TransformerDecoder share: a stack of layers of one type ("layers.0",
// "layers.1", ... in a ModuleList, as PyTorch names them) and an optional final norm ("norm").
#include <memory>
#include <string>

#include "ember/nn/attention.h"
#include "ember/nn/container.h"

namespace ember::nn::detail {

template <typename Layer>
class TransformerStack : public Module {
 public:
  int64_t num_layers() const { return static_cast<int64_t>(child_as<ModuleList>("layers").size()); }
  /// The layer at `index` ("layers.<index>").
  Layer& layer(int64_t index) const {
    return child_as<ModuleList>("layers").template child_as<Layer>(std::to_string(index));
  }

 protected:
  /// `layers` (each must be a Layer), then `norm` unless null.
  TransformerStack(const char* type_name, std::shared_ptr<ModuleList> layers, std::shared_ptr<Module> norm)
      : Module(type_name) {
    EMBER_CHECK_VALUE(layers != nullptr, type_name, ": layers is null");
    register_module("layers", std::move(layers));
    for (int64_t i = 0; i < num_layers(); ++i) layer(i);  // a TypeError for any other module
    if (norm) register_module("norm", std::move(norm));
  }
  /// x through the norm, when there is one.
  Tensor final_norm(const Tensor& x) const { return has_child("norm") ? child_as("norm")(x) : x; }
  /// Whether the first layer's self-attention is batch-first (false without layers).
  bool batch_first() const {
    return num_layers() > 0 && layer(0).template child_as<MultiheadAttention>("self_attn").options().batch_first;
  }
};

}  // namespace ember::nn::detail
