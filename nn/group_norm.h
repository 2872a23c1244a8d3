#pragma once
// GroupNorm and InstanceNorm1d/2d/3d, as torch.nn's. GroupNorm normalises each sample over groups
// of channels (weight ones, bias zeros, affine by default). InstanceNorm normalises each (sample,
// channel) over the spatial dims; affine and track_running_stats are off by default, and with
// track_running_stats the running statistics (buffers) are updated in training and used in eval
// mode. num_batches_tracked is registered but, as in PyTorch, not counted.
#include "ember/nn/module.h"

namespace ember::nn {

struct GroupNormOptions {
  int64_t num_groups;
  int64_t num_channels;
  double eps = 1e-5;
  bool affine = true;
  bool bias = true;  // with affine: a learned bias too
};

/// Input [N, C, *].
class GroupNorm : public Module {
 public:
  explicit GroupNorm(GroupNormOptions options);
  GroupNorm(int64_t num_groups, int64_t num_channels) : GroupNorm(GroupNormOptions{num_groups, num_channels}) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();
  const GroupNormOptions& options() const { return options_; }

 private:
  GroupNormOptions options_;
};

struct InstanceNormOptions {
  int64_t num_features;
  double eps = 1e-5;
  double momentum = 0.1;
  bool affine = false;
  bool track_running_stats = false;
  bool bias = true;  // with affine: a learned bias too
};

/// Batched ([N, C, *spatial]) or unbatched ([C, *spatial]) input of `spatial_dims` spatial dims.
class InstanceNorm : public Module {
 public:
  InstanceNorm(const char* type_name, InstanceNormOptions options, int64_t spatial_dims);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  void reset_parameters();
  void reset_running_stats();
  const InstanceNormOptions& options() const { return options_; }

 private:
  InstanceNormOptions options_;
  int64_t spatial_dims_;
};

class InstanceNorm1d : public InstanceNorm {
 public:
  explicit InstanceNorm1d(InstanceNormOptions options) : InstanceNorm("InstanceNorm1d", options, 1) {}
  explicit InstanceNorm1d(int64_t num_features) : InstanceNorm1d(InstanceNormOptions{num_features}) {}
};

class InstanceNorm2d : public InstanceNorm {
 public:
  explicit InstanceNorm2d(InstanceNormOptions options) : InstanceNorm("InstanceNorm2d", options, 2) {}
  explicit InstanceNorm2d(int64_t num_features) : InstanceNorm2d(InstanceNormOptions{num_features}) {}
};

class InstanceNorm3d : public InstanceNorm {
 public:
  explicit InstanceNorm3d(InstanceNormOptions options) : InstanceNorm("InstanceNorm3d", options, 3) {}
  explicit InstanceNorm3d(int64_t num_features) : InstanceNorm3d(InstanceNormOptions{num_features}) {}
};

}  // namespace ember::nn
