#include "ember/ops/softmax.h"

#include "ember/autograd/record.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/reduce.h"
#include "ember/ops/unary.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

namespace {

// softmax: d/dx = y * (grad - sum(grad * y, dim)); log_softmax: d/dx = grad - exp(y) * sum(grad, dim)
struct SoftmaxBackward : autograd::Node {
  SavedTensor out;
  int64_t dim = 0;
  bool log = false;
  const char* name() const override { return log ? "LogSoftmaxBackward" : "SoftmaxBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor y = out.unpack(this);
    if (autograd::any_requires_grad(g[0], y)) {  // create_graph: differentiable formula
      DimVector d{dim};
      if (log) return {g[0] - exp(y) * sum(g[0], d, true)};
      return {y * (g[0] - sum(g[0] * y, d, true))};
    }
    Tensor grad_in = empty(y.sizes(), y.options());
    if (y.numel() > 0) softmax_backward_stub(y.device().type, grad_in, g[0], y, dim, log);
    return {grad_in};
  }
  void release_saved() override { out.reset(); }
};

Tensor softmax_impl(const Tensor& t, int64_t dim, bool log) {
  const char* op = log ? "log_softmax" : "softmax";
  check_floating_compute(t.dtype(), op);
  int64_t d = wrap_dim(dim, t.dim(), op);
  Tensor out = empty(t.sizes(), t.options());
  if (t.numel() > 0) softmax_stub(t.device().type, out, t, d, log);
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<SoftmaxBackward>(t);
    node->dim = d;
    node->log = log;
    autograd::set_history(out, node);  // NB: before saving out, so the saved output requires grad
    node->out = SavedTensor(out, true);
  }
  return out;
}

}  // namespace

Tensor softmax(const Tensor& t, int64_t dim, std::optional<DType> dtype) {
  if (autocast::applies("softmax", t))
    return autocast::run("softmax", {t}, [&](const autocast::Cast& cast) { return softmax(cast(t), dim, dtype); });
  return softmax_impl(dtype ? t.to(*dtype) : t, dim, false);
}
Tensor log_softmax(const Tensor& t, int64_t dim, std::optional<DType> dtype) {
  if (autocast::applies("log_softmax", t))
    return autocast::run("log_softmax", {t}, [&](const autocast::Cast& cast) { return log_softmax(cast(t), dim, dtype); });
  return softmax_impl(dtype ? t.to(*dtype) : t, dim, true);
}

}  // namespace ember
