#include "ember/autograd/record.h"

#include "ember/autograd/accumulate_grad.h"

namespace ember::autograd {

bool any_requires_grad(const std::vector<Tensor>& ts) {
  if (!GradMode::is_enabled()) return false;
  for (const Tensor& t : ts)
    if (t.defined() && t.requires_grad()) return true;
  return false;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined()) return {};
  AutogradMeta* meta = meta_of(t);
  if (!meta) return {};
  if (meta->grad_fn) return {meta->grad_fn, meta->output_nr};
  if (!meta->requires_grad) return {};
  std::shared_ptr<Node>& acc = meta->grad_accumulator;
  // Remade when the leaf's dtype or shape changed (Module::to converts parameters in place).
  if (!acc || acc->output_meta(0).dtype != t.dtype() || acc->output_meta(0).sizes != t.impl().sizes())
    acc = std::make_shared<AccumulateGrad>(t);
  return {acc, 0};
}

void set_history(const Tensor& out, const std::shared_ptr<Node>& node) {
  AutogradMeta& meta = ensure_meta(out);
  meta.output_nr = node->add_output(out);
  meta.grad_fn = node;
}

void set_view_history(const Tensor& out, const std::shared_ptr<Node>& node) {
  set_history(out, node);
  meta_of(out)->is_view = true;
}

void check_inplace(const Tensor& self, const char* op) {
  if (!GradMode::is_enabled()) return;
  AutogradMeta* meta = meta_of(self);
  if (!meta) return;
  EMBER_CHECK(!(meta->requires_grad && !meta->grad_fn), op,
              ": a leaf tensor that requires grad is being used in an in-place operation; "
              "wrap the update in NoGradGuard (ember.no_grad() in Python)");
  EMBER_CHECK(!(meta->is_view && meta->grad_fn), op,
              ": in-place operation on a view of a tensor that requires grad is not supported; "
              "use the out-of-place op");
}

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& node) {
  self.bump_version();
  if (!node) return;
  AutogradMeta& meta = ensure_meta(self);
  meta.output_nr = node->add_output(self);
  meta.grad_fn = node;
}

}  // namespace ember::autograd
