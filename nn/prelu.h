#pragma once
// PReLU, as torch.nn.PReLU: max(0, x) + weight * min(0, x) with a learned weight of num_parameters
// elements (1, or one per channel, dim 1 of the input), each initialised to `init`.
#include "ember/nn/module.h"

namespace ember::nn {

class PReLU : public Module {
 public:
  explicit PReLU(int64_t num_parameters = 1, double init = 0.25);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();
  int64_t num_parameters() const { return num_parameters_; }
  double init() const { return init_; }

 private:
  int64_t num_parameters_;
  double init_;
};

}  // namespace ember::nn
