#pragma once
// Parameter-free layers: activations, Softmax, Identity, Flatten, Dropout.
#include <string>

#include "ember/core/generator.h"
#include "ember/nn/module.h"

namespace ember::nn {

class ReLU : public Module {
 public:
  ReLU() : Module("ReLU") {}
  Tensor forward(const Tensor& input) override;
};

/// approximate: "none" (exact, erf) or "tanh".
class GELU : public Module {
 public:
  explicit GELU(std::string approximate = "none");
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  /// "none" or "tanh", as constructed (saved architectures record it).
  const std::string& approximate() const { return approximate_; }

 private:
  std::string approximate_;
};

class Tanh : public Module {
 public:
  Tanh() : Module("Tanh") {}
  Tensor forward(const Tensor& input) override;
};

class Sigmoid : public Module {
 public:
  Sigmoid() : Module("Sigmoid") {}
  Tensor forward(const Tensor& input) override;
};

class LeakyReLU : public Module {
 public:
  explicit LeakyReLU(double negative_slope = 0.01) : Module("LeakyReLU"), slope_(negative_slope) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double negative_slope() const { return slope_; }

 private:
  double slope_;
};

class Softmax : public Module {
 public:
  explicit Softmax(int64_t dim) : Module("Softmax"), dim_(dim) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  int64_t dim() const { return dim_; }

 private:
  int64_t dim_;
};

class Identity : public Module {
 public:
  Identity() : Module("Identity") {}
  Tensor forward(const Tensor& input) override { return input; }
};

/// Flattens dims start_dim..end_dim (default: all but the batch dim).
class Flatten : public Module {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1)
      : Module("Flatten"), start_(start_dim), end_(end_dim) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  int64_t start_dim() const { return start_; }
  int64_t end_dim() const { return end_; }

 private:
  int64_t start_, end_;
};

/// Zeroes each element with probability p while training (scaling the rest by 1/(1-p));
/// the identity in eval mode. Draws from the default generator, which training checkpoints save.
class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  double p() const { return p_; }

 private:
  double p_;
};

}  // namespace ember::nn
