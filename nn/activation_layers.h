#pragma once
// The activation layers of torch.nn beyond activation.h's: each forwards to its functional form
// (nn/activation_functional.h) with the options of its options struct, whose fields() name them for
// printing, io and the Python binding (as the losses' do).
#include <string>
#include <tuple>

#include "ember/nn/activation_functional.h"
#include "ember/nn/layer_with.h"

namespace ember::nn {

struct NoOptions {
  static constexpr auto fields() { return std::tuple<>(); }
};
struct ELUOptions {
  double alpha = 1.0;
  static constexpr auto fields() { return std::make_tuple(field("alpha", &ELUOptions::alpha)); }
};
using CELUOptions = ELUOptions;
struct SoftplusOptions {
  double beta = 1.0;
  double threshold = 20.0;
  static constexpr auto fields() {
    return std::make_tuple(field("beta", &SoftplusOptions::beta), field("threshold", &SoftplusOptions::threshold));
  }
};
struct HardtanhOptions {
  double min_val = -1.0;
  double max_val = 1.0;
  static constexpr auto fields() {
    return std::make_tuple(field("min_val", &HardtanhOptions::min_val), field("max_val", &HardtanhOptions::max_val));
  }
};
struct ThresholdOptions {
  double threshold;
  double value;
  static constexpr auto fields() {
    return std::make_tuple(field("threshold", &ThresholdOptions::threshold), field("value", &ThresholdOptions::value));
  }
};
/// The dim of GLU (default -1), LogSoftmax and Softmin (given).
struct DimOptions {
  int64_t dim = -1;
  static constexpr auto fields() { return std::make_tuple(field("dim", &DimOptions::dim)); }
};
struct ShrinkOptions {
  double lambd = 0.5;
  static constexpr auto fields() { return std::make_tuple(field("lambd", &ShrinkOptions::lambd)); }
};
struct RReLUOptions {
  double lower = 1.0 / 8;
  double upper = 1.0 / 3;
  static constexpr auto fields() {
    return std::make_tuple(field("lower", &RReLUOptions::lower), field("upper", &RReLUOptions::upper));
  }
};

#define EMBER_ACTIVATION_LAYER(Name, O, default_options)                               \
  class Name : public LayerWith<O> {                                                   \
   public:                                                                             \
    explicit Name(O options default_options) : LayerWith(#Name, std::move(options)) {} \
    Tensor forward(const Tensor& input) override;                                      \
  };
#define EMBER_DEFAULT = {}
#define EMBER_REQUIRED
EMBER_ACTIVATION_LAYER(SiLU, NoOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(Mish, NoOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(SELU, NoOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(ReLU6, NoOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(Hardsigmoid, NoOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(Hardswish, NoOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(Softsign, NoOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(Tanhshrink, NoOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(LogSigmoid, NoOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(Softmax2d, NoOptions, EMBER_DEFAULT)  // softmax over the channels of [N, C, H, W] or [C, H, W]
EMBER_ACTIVATION_LAYER(ELU, ELUOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(CELU, CELUOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(Softplus, SoftplusOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(Hardtanh, HardtanhOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(Threshold, ThresholdOptions, EMBER_REQUIRED)
EMBER_ACTIVATION_LAYER(GLU, DimOptions, EMBER_DEFAULT)
EMBER_ACTIVATION_LAYER(LogSoftmax, DimOptions, EMBER_REQUIRED)
EMBER_ACTIVATION_LAYER(Softmin, DimOptions, EMBER_REQUIRED)
EMBER_ACTIVATION_LAYER(RReLU, RReLUOptions, EMBER_DEFAULT)  // random slopes while training, their mean in eval
#undef EMBER_ACTIVATION_LAYER
#undef EMBER_DEFAULT
#undef EMBER_REQUIRED

/// Softshrink and Hardshrink print their lambda alone, as PyTorch's.
class Softshrink : public LayerWith<ShrinkOptions> {
 public:
  explicit Softshrink(ShrinkOptions options = {});
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return python_repr(options_.lambd); }
};
class Hardshrink : public LayerWith<ShrinkOptions> {
 public:
  explicit Hardshrink(ShrinkOptions options = {}) : LayerWith("Hardshrink", options) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override { return python_repr(options_.lambd); }
};

}  // namespace ember::nn
