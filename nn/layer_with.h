#pragma once
// LayerWith<O>: a layer whose options struct O lists its options in fields() (nn/option_field.h),
// so printing, io and the Python binding need nothing written per layer.
#include <string>
#include <tuple>

#include "ember/nn/module.h"
#include "ember/nn/option_field.h"

namespace ember::nn {

/// A layer with options of type O; prints them as name=value in PyTorch's spelling.
template <typename O>
class LayerWith : public Module {
 public:
  using Options = O;
  LayerWith(std::string type_name, O options) : Module(std::move(type_name)), options_(std::move(options)) {}
  const O& options() const { return options_; }
  O& options() { return options_; }
  std::string extra_repr() const override;

 protected:
  O options_;
};

template <typename O>
std::string LayerWith<O>::extra_repr() const {
  std::string out;
  std::apply(
      [&](auto... f) {
        ((out += (out.empty() ? "" : ", ") + std::string(f.name) + "=" + python_repr(options_.*(f.member))), ...);
      },
      O::fields());
  return out;
}

}  // namespace ember::nn
