#pragma once
// BatchNorm1d/2d/3d (running statistics and num_batches_tracked are buffers, so they are saved and
// moved like parameters) and LayerNorm.
#include <optional>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

struct BatchNormOptions {
  int64_t num_features;
  double eps = 1e-5;
  /// The weight of each batch in the running statistics; nullopt keeps their cumulative average
  /// over the batches seen (weight 1 / num_batches_tracked: torch's momentum=None).
  std::optional<double> momentum = 0.1;
  bool affine = true;
  bool track_running_stats = true;
};

/// Normalises over the batch (and spatial dims) per channel: batch statistics while training
/// (updating the running ones), running statistics in eval mode.
class BatchNorm : public Module {
 public:
  BatchNorm(const char* type_name, BatchNormOptions options, int64_t expected_dims_lo,
            int64_t expected_dims_hi);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();
  void reset_running_stats();
  const BatchNormOptions& options() const { return options_; }
  /// Changes the running statistics' weight (torch's bn.momentum = ...; update_bn sets nullopt).
  void set_momentum(std::optional<double> momentum) { options_.momentum = momentum; }

 private:
  BatchNormOptions options_;
  int64_t dims_lo_, dims_hi_;
};

/// Input [N, C] or [N, C, L].
class BatchNorm1d : public BatchNorm {
 public:
  explicit BatchNorm1d(BatchNormOptions options) : BatchNorm("BatchNorm1d", options, 2, 3) {}
  explicit BatchNorm1d(int64_t num_features) : BatchNorm1d(BatchNormOptions{num_features}) {}
};

/// Input [N, C, H, W].
class BatchNorm2d : public BatchNorm {
 public:
  explicit BatchNorm2d(BatchNormOptions options) : BatchNorm("BatchNorm2d", options, 4, 4) {}
  explicit BatchNorm2d(int64_t num_features) : BatchNorm2d(BatchNormOptions{num_features}) {}
};

/// Input [N, C, D, H, W].
class BatchNorm3d : public BatchNorm {
 public:
  explicit BatchNorm3d(BatchNormOptions options) : BatchNorm("BatchNorm3d", options, 5, 5) {}
  explicit BatchNorm3d(int64_t num_features) : BatchNorm3d(BatchNormOptions{num_features}) {}
};

struct LayerNormOptions {
  std::vector<int64_t> normalized_shape;
  double eps = 1e-5;
  bool elementwise_affine = true;
  bool bias = true;
};

/// Normalises over the trailing normalized_shape dims of each sample.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(LayerNormOptions options);
  explicit LayerNorm(int64_t normalized_size) : LayerNorm(LayerNormOptions{{normalized_size}}) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  const LayerNormOptions& options() const { return options_; }

 private:
  LayerNormOptions options_;
};

/// The running statistics of a normalisation over `features` channels, as PyTorch's _NormBase
/// registers them: buffers running_mean (zeros), running_var (ones), num_batches_tracked (int64 0).
void register_running_stats_buffers(Module& m, int64_t features);
/// Puts them back to those values.
void reset_running_stats_buffers(Module& m);

}  // namespace ember::nn
