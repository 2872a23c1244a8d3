#include "ember/ops/prelu.h"

#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/compare.h"
#include "ember/ops/view.h"

namespace ember {

Tensor impl_prelu(const Tensor& self, const Tensor& weight) {
  if (autocast::applies("prelu", self))
    return autocast::run("prelu", {self, weight}, [&](const autocast::Cast& cast) { return prelu(cast(self), cast(weight)); });
  EMBER_CHECK_VALUE(self.defined() && weight.defined(), "prelu: input and weight must be defined tensors");
  check_floating_compute(self.dtype(), "prelu");
  EMBER_CHECK_TYPE(weight.dtype() == self.dtype(), "prelu: weight has dtype ", weight.dtype(), "; expected ",
                   self.dtype(), " (the input's)");
  const int64_t channels = self.dim() >= 2 ? self.size(1) : 1;
  EMBER_CHECK_VALUE(weight.dim() <= 1 && (weight.numel() == 1 || weight.numel() == channels), "prelu: weight ",
                    weight.sizes(), " must have one element or one per channel (", channels,
                    ", dim 1) of input ", self.sizes());
  Tensor w = weight;
  if (weight.numel() != 1) {  // [C] broadcast along dim 1
    DimVector shape(static_cast<size_t>(self.dim()), 1);
    shape[1] = channels;
    w = reshape(weight, shape);
  } else if (weight.dim() == 1) {
    w = reshape(weight, {});
  }
  // NB: the slope multiplies only the inputs it is picked for: an infinite weight times a
  // positive input's masked gradient would send 0 * inf = NaN back through where().
  Tensor positive = gt(self, Scalar(0));
  return where(positive, self, w * where(positive, Scalar(0), self));
}

}  // namespace ember
