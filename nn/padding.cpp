#include "ember/nn/padding.h"

#include "ember/ops/ops.h"

namespace ember::nn {
Pad::Pad(std::string type_name, int64_t dims, std::string mode, PadAmounts padding, double value)
    : Module(type_name), mode_(std::move(mode)), value_(value) {
  padding_ = padding.sides.empty() ? std::vector<int64_t>(static_cast<size_t>(2 * dims), padding.all) : padding.sides;
  EMBER_CHECK_VALUE(static_cast<int64_t>(padding_.size()) == 2 * dims, type_name, ": padding must be an int or ",
                    2 * dims, " ints, got ", IntArrayRef(padding_));
}

Tensor Pad::forward(const Tensor& input) {
  if (mode_ == "constant") return pad(input, padding_, mode_, Scalar(value_));
  return pad(input, padding_, mode_);
}

std::string Pad::extra_repr() const {
  if (mode_ == "constant") return "padding=" + python_repr(padding_) + ", value=" + python_repr(value_);
  return python_repr(padding_);
}

}  // namespace ember::nn
