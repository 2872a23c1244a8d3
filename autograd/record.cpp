#include "ember/autograd/record.h"

#include "ember/autograd/accumulate_grad.h"

namespace ember::autograd {
namespace {
constinit ViewNodes g_view_nodes;  // constant-initialised: ops may register before this file initialises
}  // namespace

void register_view_nodes(const ViewNodes& nodes) { g_view_nodes = nodes; }

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
  refresh_view(t, *meta);
  if (meta->grad_fn) return {meta->grad_fn, meta->output_nr};
  if (!meta->requires_grad) return {};
  std::lock_guard<std::mutex> lock(meta->leaf_mutex);
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

void set_view_history(const Tensor& in, const Tensor& out, const std::shared_ptr<Node>& node) {
  if (node) set_history(out, node);
  // NB: views of integer tensors can never carry gradients, and views made without grad mode
  // stay plain tensors (as PyTorch's no_grad views behave for everything but error messages).
  if (!GradMode::is_enabled() || !(is_floating(out.dtype()) || is_complex(out.dtype()))) return;
  AutogradMeta* in_meta = meta_of(in);
  AutogradMeta& meta = ensure_meta(out);
  meta.view_base = in_meta && in_meta->is_view() ? in_meta->view_base : in;
  meta.view_version = out.version();
}

void refresh_view(const Tensor& t, AutogradMeta& meta) {
  if (!meta.is_view() || meta.view_version == t.version()) return;
  meta.view_version = t.version();
  const Tensor& base = meta.view_base;
  if (base.requires_grad() && g_view_nodes.as_strided) {
    std::shared_ptr<Node> node = g_view_nodes.as_strided(base, t);
    meta.output_nr = node->add_output(t);
    meta.grad_fn = std::move(node);
  } else {
    release_node(std::move(meta.grad_fn));
    meta.grad_fn = nullptr;
  }
}

void check_inplace(const Tensor& self, const char* op) {
  if (!GradMode::is_enabled()) return;
  AutogradMeta* meta = meta_of(self);
  if (!meta) return;
  refresh_view(self, *meta);
  EMBER_CHECK(!(meta->requires_grad && !meta->grad_fn), op,
              ": a leaf tensor that requires grad is being used in an in-place operation; "
              "wrap the update in NoGradGuard (ember.no_grad() in Python)");
  if (meta->is_view()) {
    const Tensor& base = meta->view_base;
    EMBER_CHECK(!(base.requires_grad() && base.is_leaf()), op,
                ": a view of a leaf tensor that requires grad is being used in an in-place "
                "operation; wrap the update in NoGradGuard (ember.no_grad() in Python) or write "
                "into a clone");
  }
}

void rebase_history(const Tensor& self, const Edge& result) {
  self.bump_version();
  AutogradMeta& meta = ensure_meta(self);
  if (meta.is_view()) {
    const Tensor& base = meta.view_base;
    EMBER_CHECK(g_view_nodes.copy_slices != nullptr, "internal error: view nodes not registered");
    std::shared_ptr<Node> copy = g_view_nodes.copy_slices(base, self, result);
    AutogradMeta& base_meta = ensure_meta(base);
    base_meta.output_nr = copy->add_output(base);
    base_meta.grad_fn = std::move(copy);
  }
  release_node(std::move(meta.grad_fn));
  meta.grad_fn = result.fn;
  meta.output_nr = result.input_nr;
  meta.view_version = self.version();
}

void take_view_history(const Tensor& self, const Tensor& view) {
  AutogradMeta* from = meta_of(view);
  if (!from || !from->grad_fn) return;
  AutogradMeta& meta = ensure_meta(self);
  release_node(std::move(meta.grad_fn));
  meta.grad_fn = from->grad_fn;
  meta.output_nr = from->output_nr;
  // NB: a view keeps its base; its grad_fn is current, so refresh_view must not rebuild it from the
  // base with the layout it had before.
  meta.view_version = self.version();
}

void detach_in_place(const Tensor& self) {
  AutogradMeta* meta = meta_of(self);
  if (!meta) return;
  EMBER_CHECK(!(meta->is_view() && meta->view_base.requires_grad()),
              "detach_: cannot detach a view in place (its base's gradient flows through it); use detach()");
  release_node(std::move(meta->grad_fn));
  meta->output_nr = 0;
  meta->requires_grad = false;
}

}  // namespace ember::autograd
