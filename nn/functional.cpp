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
  Tensor y = matmul(x, weight.t());
  return bias.defined() ? y + bias : y;
}

}  // namespace ember::nn::functional
