#include "ember/autograd/accumulate_grad.h"

#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/grad_mode.h"

namespace ember::autograd {

AccumulateGrad::AccumulateGrad(const Tensor& variable) : variable_(variable.impl_ptr()) {
  add_output(variable);
}

Tensor AccumulateGrad::variable() const {
  std::shared_ptr<TensorImpl> impl = variable_.lock();
  return impl ? Tensor(std::move(impl)) : Tensor();
}

namespace {

// grad += g: g itself the first time, when nothing else can see or change it (a broadcast
// gradient, stride 0, must be materialised before later in-place accumulation); differentiably
// under create_graph.
void accumulate(Tensor& grad, Tensor g) {
  if (!grad.defined()) {
    bool exclusive = g.impl_ptr().use_count() == 1 && g.storage().use_count() == 1 &&
                     g.is_contiguous() && g.storage_offset() == 0;
    grad = GradMode::is_enabled() ? std::move(g) : (exclusive ? std::move(g) : g.detach().clone());
  } else if (GradMode::is_enabled()) {
    grad = grad.add(g);
  } else {
    grad.add_(g);
  }
}

}  // namespace

TensorList AccumulateGrad::apply(TensorList&& grads) {
  Tensor variable = this->variable();
  if (!variable.defined()) return {};  // nobody can read this gradient any more
  Tensor g = std::move(grads[0]);
  AutogradMeta& meta = ensure_meta(variable);
  for (auto& [id, hook] : meta.leaf_hooks) {
    if (!g.defined()) break;
    Tensor replaced = hook(g);
    if (replaced.defined()) g = std::move(replaced);
  }
  if (!g.defined()) return {};
  {
    std::lock_guard<std::mutex> lock(meta.leaf_mutex);
    accumulate(meta.grad, std::move(g));
  }
  // NB: by index and on a copy: a hook may register or remove hooks.
  for (size_t i = 0; i < meta.post_accumulate_hooks.size(); ++i) {
    auto hook = meta.post_accumulate_hooks[i].second;
    hook(variable);
  }
  return {};
}

}  // namespace ember::autograd
