#include "ember/nn/functional.h"

#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/matmul.h"

namespace ember::nn::functional {

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  if (autocast::applies("linear", x))
    return autocast::run("linear", {x, weight, bias}, [&](const autocast::Cast& cast) { return linear(cast(x), cast(weight), cast(bias)); });
  EMBER_CHECK_VALUE(weight.dim() == 2, "linear: weight must be 2-D [out, in], got ", weight.sizes());
  EMBER_CHECK_VALUE(x.dim() >= 1 && x.size(-1) == weight.size(1), "linear: input of shape ",
                    x.sizes(), " does not match weight of shape ", weight.sizes(),
                    " (expected last input dim ", weight.size(1), ")");
  // NB: rows folded into one addmm with the bias written first (PyTorch's form): a separate bias add
  // was a pass over every output, 4% of a small GPT's training step.
  if (bias.defined() && x.dim() >= 2 && bias.dim() <= 1) {
    DimVector out_shape = x.sizes().vec();
    out_shape.back() = weight.size(0);
    return reshape(matmul_add(bias, fold_rows(x), weight.t()), out_shape);
  }
  Tensor y = matmul(x, weight.t());
  return bias.defined() ? y + bias : y;
}

}  // namespace ember::nn::functional
