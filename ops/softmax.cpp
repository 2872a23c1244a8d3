#include "ember/ops/softmax.h"

#include "ember/autograd/record.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/convert.h"
#include "ember/ops/reduce.h"
#include "ember/ops/unary.h"
#include "ember/ops/view.h"

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

// d/d logits of -log_softmax(logits)[target] = grad * (softmax(logits) - onehot(target)), a row at a time.
struct LogSoftmaxNllBackward : autograd::Node {
  SavedTensor logits, target;
  Tensor stats;  // [N, 2]: each row's max and log of its sum of exponentials, no history
  const char* name() const override { return "LogSoftmaxNllBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = logits.unpack(this), t = target.unpack(this);
    if (autograd::any_requires_grad(g[0], x)) {  // create_graph: differentiable formula
      return {unsqueeze(g[0], 1) * (exp(log_softmax(x, 1)) - one_hot(t, x.size(1)).to(x.dtype()))};
    }
    Tensor grad_in = empty(x.sizes(), x.options());
    if (x.numel() > 0) log_softmax_nll_backward_stub(x.device().type, grad_in, g[0], x, stats, t);
    return {grad_in};
  }
  void release_saved() override {
    logits.reset();
    target.reset();
    stats = Tensor();
  }
};

}  // namespace

Tensor detail::nll_at_targets(const Tensor& log_probs, const Tensor& target) {
  return neg(squeeze(gather(log_probs, 1, unsqueeze(target, 1)), 1));
}

Tensor detail::log_softmax_nll(const Tensor& logits, const Tensor& target) {
  EMBER_CHECK_VALUE(logits.dim() == 2 && target.dim() == 1 && target.size(0) == logits.size(0),
                    "log_softmax_nll: expected [N, C] logits and [N] targets, got ", logits.sizes(), " and ",
                    target.sizes());
  EMBER_CHECK_TYPE(target.dtype() == kInt64, "log_softmax_nll: expected int64 targets, got ", target.dtype());
  const bool fused = (logits.dtype() == kFloat32 || logits.dtype() == kFloat64) &&
                     log_softmax_nll_stub.has(logits.device().type) && logits.size(1) > 0;
  if (!fused) return nll_at_targets(log_softmax(logits, 1), target);
  const int64_t N = logits.size(0);
  Tensor loss = empty({N}, logits.options()), stats = empty({N, 2}, logits.options());
  if (N > 0) log_softmax_nll_stub(logits.device().type, loss, stats, logits, target);
  if (autograd::any_requires_grad(logits)) {
    auto node = autograd::make_node<LogSoftmaxNllBackward>(logits);
    node->logits = SavedTensor(logits);
    node->target = SavedTensor(target);
    node->stats = stats;
    autograd::set_history(loss, node);
  }
  return loss;
}

Tensor impl_softmax(const Tensor& t, int64_t dim, std::optional<DType> dtype) {
  if (autocast::applies("softmax", t))
    return autocast::run("softmax", {t}, [&](const autocast::Cast& cast) { return softmax(cast(t), dim, dtype); });
  return softmax_impl(dtype ? t.to(*dtype) : t, dim, false);
}
Tensor impl_log_softmax(const Tensor& t, int64_t dim, std::optional<DType> dtype) {
  if (autocast::applies("log_softmax", t))
    return autocast::run("log_softmax", {t}, [&](const autocast::Cast& cast) { return log_softmax(cast(t), dim, dtype); });
  return softmax_impl(dtype ? t.to(*dtype) : t, dim, true);
}

}  // namespace ember
