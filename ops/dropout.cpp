#include "ember/ops/dropout.h"

#include "ember/autograd/record.h"
#include "ember/core/factory.h"
#include "ember/ops/binary.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

namespace {

// d dropout(x)/dx = grad * mask, the mask holding 0 or 1 / (1 - p)
struct DropoutBackward : autograd::Node {
  SavedTensor mask;
  const char* name() const override { return "DropoutBackward"; }
  TensorList apply(TensorList&& g) override { return {g[0] * mask.unpack(this)}; }
  void release_saved() override { mask.reset(); }
};

}  // namespace

Tensor impl_dropout(const Tensor& t, double p, bool training, Generator* gen) {
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, "dropout: probability has to be between 0 and 1, but got ", p);
  if (!training || p == 0 || t.numel() == 0) return t;
  check_floating_compute(t.dtype(), "dropout");
  if (p == 1) return mul(t, 0.0);
  Tensor out = empty(t.sizes(), t.options());
  Tensor mask = empty(t.sizes(), t.options());
  dropout_stub(t.device().type, out, mask, t, p, gen ? *gen : default_generator());
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<DropoutBackward>(t);
    node->mask = SavedTensor(mask);
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace ember
