#pragma once
// Linear: y = x W^T + b, with W [out, in] initialised as PyTorch does (Kaiming uniform, a = sqrt 5)
// and b uniform in +-1/sqrt(in).
#include "ember/nn/module.h"

namespace ember::nn {

struct LinearOptions {
  int64_t in_features;
  int64_t out_features;
  bool bias = true;
};

class Linear : public Module {
 public:
  explicit Linear(LinearOptions options);
  Linear(int64_t in_features, int64_t out_features, bool bias = true)
      : Linear(LinearOptions{in_features, out_features, bias}) {}

  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();

  const Tensor& weight() const { return parameter("weight"); }
  /// Undefined when built without bias.
  Tensor bias() const { return has_parameter("bias") ? parameter("bias") : Tensor(); }
  const LinearOptions& options() const { return options_; }

 private:
  LinearOptions options_;
};

}  // namespace ember::nn
