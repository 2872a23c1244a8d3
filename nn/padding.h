#pragma once
// The padding layers (torch.nn's ZeroPad2d, ConstantPad1d, ReflectionPad2d, ReplicationPad3d,
// CircularPad1d, ...): pad() of the last 1, 2 or 3 dims by a fixed amount per side. The padding is
// one int for every side or (left, right[, top, bottom[, front, back]]), as in PyTorch.
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/option_field.h"

namespace ember::nn {

/// The amounts of a padding layer: one for every side, or one per side.
struct PadAmounts {
  PadAmounts(int64_t all) : all(all) {}                                // NOLINT: implicit, as PyTorch's int
  PadAmounts(std::vector<int64_t> sides) : sides(std::move(sides)) {}  // NOLINT: implicit
  PadAmounts(std::initializer_list<int64_t> sides) : sides(sides) {}   // NOLINT: implicit
  int64_t all = 0;
  std::vector<int64_t> sides;
};

/// The base of the padding layers: `dims` trailing dims padded in `mode` ("constant", "reflect",
/// "replicate", "circular"), constant ones with `value`.
class Pad : public Module {
 public:
  Pad(std::string type_name, int64_t dims, std::string mode, PadAmounts padding, double value = 0.0);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  /// One amount per side, 2 * dims of them.
  const std::vector<int64_t>& padding() const { return padding_; }
  const std::string& mode() const { return mode_; }
  double value() const { return value_; }

 private:
  std::vector<int64_t> padding_;
  std::string mode_;
  double value_;
};

#define EMBER_PAD_LAYER(Name, dims, mode)                                             \
  class Name : public Pad {                                                           \
   public:                                                                            \
    explicit Name(PadAmounts padding) : Pad(#Name, dims, mode, std::move(padding)) {} \
  };
#define EMBER_CONSTANT_PAD_LAYER(Name, dims)                                                            \
  class Name : public Pad {                                                                             \
   public:                                                                                              \
    Name(PadAmounts padding, double value) : Pad(#Name, dims, "constant", std::move(padding), value) {} \
  };
EMBER_PAD_LAYER(ZeroPad1d, 1, "constant")
EMBER_PAD_LAYER(ZeroPad2d, 2, "constant")
EMBER_PAD_LAYER(ZeroPad3d, 3, "constant")
EMBER_CONSTANT_PAD_LAYER(ConstantPad1d, 1)
EMBER_CONSTANT_PAD_LAYER(ConstantPad2d, 2)
EMBER_CONSTANT_PAD_LAYER(ConstantPad3d, 3)
EMBER_PAD_LAYER(ReflectionPad1d, 1, "reflect")
EMBER_PAD_LAYER(ReflectionPad2d, 2, "reflect")
EMBER_PAD_LAYER(ReflectionPad3d, 3, "reflect")
EMBER_PAD_LAYER(ReplicationPad1d, 1, "replicate")
EMBER_PAD_LAYER(ReplicationPad2d, 2, "replicate")
EMBER_PAD_LAYER(ReplicationPad3d, 3, "replicate")
EMBER_PAD_LAYER(CircularPad1d, 1, "circular")
EMBER_PAD_LAYER(CircularPad2d, 2, "circular")
EMBER_PAD_LAYER(CircularPad3d, 3, "circular")
#undef EMBER_PAD_LAYER
#undef EMBER_CONSTANT_PAD_LAYER

}  // namespace ember::nn
