#pragma once
// Convolution layers, as torch.nn's: Conv1d over [N, C, L] (or [C, L]), Conv2d over [N, C, H, W]
// (or [C, H, W]), Conv3d over [N, C, D, H, W] (or [C, D, H, W]), with stride, padding (explicit or
// by name, "valid" / "same"), dilation, groups and padding_mode ("zeros", or "reflect",
// "replicate", "circular": the input padded by pad() first); ConvTranspose1d, ConvTranspose2d and
// ConvTranspose3d, the adjoints, with output_padding. Initialised as PyTorch's (Kaiming uniform,
// a = sqrt 5; bias uniform +-1/sqrt(fan_in) of the weight).
#include <optional>
#include <string>

#include "ember/core/size3.h"
#include "ember/nn/module.h"
#include "ember/ops/conv.h"

namespace ember::nn {

/// The options of Conv1d (Size int64_t), Conv2d (Size2) and Conv3d (Size3).
template <typename Size>
struct ConvOptions {
  int64_t in_channels;
  int64_t out_channels;
  Size kernel_size;
  Size stride = 1;
  Size padding = 0;  // unused when padding_rule is set
  Size dilation = 1;
  int64_t groups = 1;
  bool bias = true;
  std::string padding_mode = "zeros";  // or "reflect", "replicate", "circular"
  std::optional<PaddingRule> padding_rule = std::nullopt;  // padding="valid" | "same" (by name)
};
using Conv1dOptions = ConvOptions<int64_t>;
using Conv2dOptions = ConvOptions<Size2>;
using Conv3dOptions = ConvOptions<Size3>;

/// The options of ConvTranspose1d (Size int64_t), ConvTranspose2d (Size2) and ConvTranspose3d (Size3).
template <typename Size>
struct ConvTransposeOptions {
  int64_t in_channels;
  int64_t out_channels;
  Size kernel_size;
  Size stride = 1;
  Size padding = 0;
  Size output_padding = 0;
  int64_t groups = 1;
  bool bias = true;
  Size dilation = 1;
};
using ConvTranspose1dOptions = ConvTransposeOptions<int64_t>;
using ConvTranspose2dOptions = ConvTransposeOptions<Size2>;
using ConvTranspose3dOptions = ConvTransposeOptions<Size3>;

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

/// weight [out_channels, in_channels / groups, kD, kH, kW].
class Conv3d : public Module {
 public:
  explicit Conv3d(Conv3dOptions options);
  Conv3d(int64_t in_channels, int64_t out_channels, Size3 kernel_size)
      : Conv3d(Conv3dOptions{in_channels, out_channels, kernel_size}) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();
  const Tensor& weight() const { return parameter("weight"); }
  Tensor bias() const { return has_parameter("bias") ? parameter("bias") : Tensor(); }
  const Conv3dOptions& options() const { return options_; }

 private:
  Conv3dOptions options_;
};

/// weight [in_channels, out_channels / groups, k].
class ConvTranspose1d : public Module {
 public:
  explicit ConvTranspose1d(ConvTranspose1dOptions options);
  ConvTranspose1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size)
      : ConvTranspose1d(ConvTranspose1dOptions{in_channels, out_channels, kernel_size}) {}
  Tensor forward(const Tensor& input) override;
  /// forward with the output_padding that gives output_size ([L], or the whole shape).
  Tensor forward(const Tensor& input, IntArrayRef output_size);
  std::string extra_repr() const override;
  void reset_parameters();
  const Tensor& weight() const { return parameter("weight"); }
  Tensor bias() const { return has_parameter("bias") ? parameter("bias") : Tensor(); }
  const ConvTranspose1dOptions& options() const { return options_; }

 private:
  ConvTranspose1dOptions options_;
};

/// weight [in_channels, out_channels / groups, kD, kH, kW].
class ConvTranspose3d : public Module {
 public:
  explicit ConvTranspose3d(ConvTranspose3dOptions options);
  ConvTranspose3d(int64_t in_channels, int64_t out_channels, Size3 kernel_size)
      : ConvTranspose3d(ConvTranspose3dOptions{in_channels, out_channels, kernel_size}) {}
  Tensor forward(const Tensor& input) override;
  /// forward with the output_padding that gives output_size ([D, H, W], or the whole shape).
  Tensor forward(const Tensor& input, IntArrayRef output_size);
  std::string extra_repr() const override;
  void reset_parameters();
  const Tensor& weight() const { return parameter("weight"); }
  Tensor bias() const { return has_parameter("bias") ? parameter("bias") : Tensor(); }
  const ConvTranspose3dOptions& options() const { return options_; }

 private:
  ConvTranspose3dOptions options_;
};

}  // namespace ember::nn
