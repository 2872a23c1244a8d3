#pragma once
// Bilinear: y = x1^T A x2 + b per output, weight [out, in1, in2] and bias [out], both initialised
// from U(-1/sqrt(in1), 1/sqrt(in1)) as PyTorch's.
#include "ember/nn/layer_with.h"

namespace ember::nn {

struct BilinearOptions {
  int64_t in1_features;
  int64_t in2_features;
  int64_t out_features;
  bool bias = true;
  static constexpr auto fields() {
    using O = BilinearOptions;
    return std::make_tuple(field("in1_features", &O::in1_features), field("in2_features", &O::in2_features),
                           field("out_features", &O::out_features), field("bias", &O::bias));
  }
};

class Bilinear : public LayerWith<BilinearOptions> {
 public:
  explicit Bilinear(BilinearOptions options);
  using Module::forward;
  Tensor forward(const Tensor& input1, const Tensor& input2);
  void reset_parameters();
  const Tensor& weight() const { return parameter("weight"); }
  /// Undefined when built without bias.
  Tensor bias() const { return has_parameter("bias") ? parameter("bias") : Tensor(); }
};

}  // namespace ember::nn
