#pragma once
// Convolution layers, as torch.nn's: Conv1d over [N, C, L] (or [C, L]), Conv2d over [N, C, H, W]
// (or [C, H, W]), with stride, padding (explicit or by name, "valid" / "same"), dilation, groups
// and padding_mode ("zeros", or "reflect", "replicate", "circular": the input padded by pad()
// first); ConvTranspose2d, conv2d's adjoint, with output_padding. Initialised as PyTorch's
// (Kaiming uniform, a = sqrt 5; bias uniform +-1/sqrt(fan_in) of the weight).
#include <optional>
#include <string>

#include "ember/nn/module.h"
#include "ember/ops/conv.h"

namespace ember::nn {

struct Conv2dOptions {
  int64_t in_channels;
  int64_t out_channels;
  Size2 kernel_size;
  Size2 stride = 1;
  Size2 padding = 0;  // unused when padding_rule is set
  Size2 dilation = 1;
  int64_t groups = 1;
  bool bias = true;
  std::string padding_mode = "zeros";  // or "reflect", "replicate", "circular"
  std::optional<PaddingRule> padding_rule = std::nullopt;  // padding="valid" | "same" (by name)
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

struct Conv1dOptions {
  int64_t in_channels;
  int64_t out_channels;
  int64_t kernel_size;
  int64_t stride = 1;
  int64_t padding = 0;  // unused when padding_rule is set
  int64_t dilation = 1;
  int64_t groups = 1;
  bool bias = true;
  std::string padding_mode = "zeros";  // or "reflect", "replicate", "circular"
  std::optional<PaddingRule> padding_rule = std::nullopt;  // padding="valid" | "same" (by name)
};

class Conv1d : public Module {
 public:
  explicit Conv1d(Conv1dOptions options);
  Conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size)
      : Conv1d(Conv1dOptions{in_channels, out_channels, kernel_size}) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();
  const Tensor& weight() const { return parameter("weight"); }
  Tensor bias() const { return has_parameter("bias") ? parameter("bias") : Tensor(); }
  const Conv1dOptions& options() const { return options_; }

 private:
  Conv1dOptions options_;
};

struct ConvTranspose2dOptions {
  int64_t in_channels;
  int64_t out_channels;
  Size2 kernel_size;
  Size2 stride = 1;
  Size2 padding = 0;
  Size2 output_padding = 0;
  int64_t groups = 1;
  bool bias = true;
  Size2 dilation = 1;
};

/// weight [in_channels, out_channels / groups, kH, kW], as PyTorch's.
class ConvTranspose2d : public Module {
 public:
  explicit ConvTranspose2d(ConvTranspose2dOptions options);
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, Size2 kernel_size)
      : ConvTranspose2d(ConvTranspose2dOptions{in_channels, out_channels, kernel_size}) {}
  Tensor forward(const Tensor& input) override;
  /// forward with the output_padding that gives output_size ([H, W], or the whole shape), within
  /// the stride - 1 sizes the other options allow, as PyTorch's forward(input, output_size).
  Tensor forward(const Tensor& input, IntArrayRef output_size);
  std::string extra_repr() const override;
  void reset_parameters();
  const Tensor& weight() const { return parameter("weight"); }
  Tensor bias() const { return has_parameter("bias") ? parameter("bias") : Tensor(); }
  const ConvTranspose2dOptions& options() const { return options_; }

 private:
  ConvTranspose2dOptions options_;
};

}  // namespace ember::nn
