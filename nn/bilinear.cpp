#include "ember/nn/bilinear.h"

#include <cmath>

#include "ember/core/factory.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"

namespace ember::nn {

Bilinear::Bilinear(BilinearOptions options) : LayerWith("Bilinear", options) {
  const BilinearOptions& o = options_;
  EMBER_CHECK_VALUE(o.in1_features > 0 && o.in2_features > 0 && o.out_features > 0,
                    "Bilinear: in1_features, in2_features and out_features must be positive, got ", o.in1_features,
                    ", ", o.in2_features, " and ", o.out_features);
  register_parameter("weight", empty({o.out_features, o.in1_features, o.in2_features}));
  if (o.bias) register_parameter("bias", empty({o.out_features}));
  reset_parameters();
}

void Bilinear::reset_parameters() {
  const double bound = 1.0 / std::sqrt(static_cast<double>(options_.in1_features));
  init::uniform_(parameter("weight"), -bound, bound);
  if (has_parameter("bias")) init::uniform_(parameter("bias"), -bound, bound);
}

Tensor Bilinear::forward(const Tensor& input1, const Tensor& input2) {
  return functional::bilinear(input1, input2, weight(), bias());
}

}  // namespace ember::nn
