#pragma once
// Conv2d: 2-D convolution over [N, C, H, W] (or [C, H, W]) with stride, padding, dilation and
// groups, initialised as PyTorch's (Kaiming uniform, a = sqrt 5; bias uniform +-1/sqrt(fan_in)).
#include "ember/nn/module.h"
#include "ember/ops/conv.h"

namespace ember::nn {

struct Conv2dOptions {
  int64_t in_channels;
  int64_t out_channels;
  Size2 kernel_size;
  Size2 stride = 1;
  Size2 padding = 0;
  Size2 dilation = 1;
  int64_t groups = 1;
  bool bias = true;
};

class Conv2d : public Module {
 public:
  explicit Conv2d(Conv2dOptions options);
  Conv2d(int64_t in_channels, int64_t out_channels, Size2 kernel_size)
      : Conv2d(Conv2dOptions{in_channels, out_channels, kernel_size}) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();
  const Tensor& weight() const { return parameter("weight"); }
  Tensor bias() const { return has_parameter("bias") ? parameter("bias") : Tensor(); }
  const Conv2dOptions& options() const { return options_; }

 private:
  Conv2dOptions options_;
};

}  // namespace ember::nn
