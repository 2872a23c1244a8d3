#pragma once
// Pooling layers over [N, C, H, W] (or [C, H, W]): MaxPool2d, AvgPool2d, AdaptiveAvgPool2d,
// AdaptiveMaxPool2d.
#include <optional>
#include <tuple>

#include "ember/nn/module.h"
#include "ember/ops/conv.h"

namespace ember::nn {

struct Pool2dOptions {
  Size2 kernel_size;
  std::optional<Size2> stride = std::nullopt;  // default: kernel_size
  Size2 padding = 0;
  Size2 dilation = 1;           // MaxPool2d only
  bool ceil_mode = false;
  bool count_include_pad = true;  // AvgPool2d only
};

class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(Pool2dOptions options) : Module("MaxPool2d"), options_(options) {}
  explicit MaxPool2d(int64_t kernel_size) : MaxPool2d(Pool2dOptions{.kernel_size = kernel_size}) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  const Pool2dOptions& options() const { return options_; }

 private:
  Pool2dOptions options_;
};

class AvgPool2d : public Module {
 public:
  explicit AvgPool2d(Pool2dOptions options) : Module("AvgPool2d"), options_(options) {}
  explicit AvgPool2d(int64_t kernel_size) : AvgPool2d(Pool2dOptions{.kernel_size = kernel_size}) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  const Pool2dOptions& options() const { return options_; }

 private:
  Pool2dOptions options_;
};

/// Averages over output_size bins that cover the input exactly (PyTorch's bin boundaries).
class AdaptiveAvgPool2d : public Module {
 public:
  explicit AdaptiveAvgPool2d(Size2 output_size) : Module("AdaptiveAvgPool2d"), output_size_(output_size) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  Size2 output_size() const { return output_size_; }

 private:
  Size2 output_size_;
};

/// Maxima over output_size bins that cover the input exactly (AdaptiveAvgPool2d's bins).
/// return_indices is recorded for Python, whose forward then returns the positions too; forward
/// here returns the maxima alone, forward_with_indices both.
class AdaptiveMaxPool2d : public Module {
 public:
  explicit AdaptiveMaxPool2d(Size2 output_size, bool return_indices = false)
      : Module("AdaptiveMaxPool2d"), output_size_(output_size), return_indices_(return_indices) {}
  Tensor forward(const Tensor& input) override;
  /// The maxima and their int64 positions, flat in each H x W plane.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  std::string extra_repr() const override;
  Size2 output_size() const { return output_size_; }
  bool return_indices() const { return return_indices_; }

 private:
  Size2 output_size_;
  bool return_indices_;
};

}  // namespace ember::nn
