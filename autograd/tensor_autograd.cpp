// The autograd half of Tensor's methods (declared in core/tensor.h).
#include "ember/autograd/accumulate_grad.h"
#include "ember/autograd/engine.h"
#include "ember/autograd/record.h"
#include "ember/core/factory.h"
#include "ember/core/tracing.h"

namespace ember {

using autograd::AutogradMeta;
using autograd::ensure_meta;
using autograd::meta_of;

namespace {
// The tensor's metadata with a view's history brought up to date, or null.
AutogradMeta* fresh_meta_of(const Tensor& t) {
  AutogradMeta* meta = meta_of(t);
  if (meta) autograd::refresh_view(t, *meta);
  return meta;
}
}  // namespace

bool Tensor::requires_grad() const {
  AutogradMeta* meta = fresh_meta_of(*this);
  return meta && (meta->requires_grad || meta->grad_fn);
}

const Tensor& Tensor::set_requires_grad(bool requires_grad) const {
  AutogradMeta* meta = fresh_meta_of(*this);
  EMBER_CHECK(!(meta && meta->grad_fn), "set_requires_grad: only leaf tensors can change "
              "requires_grad; use detach() to get a leaf");
  EMBER_CHECK_TYPE(!requires_grad || is_floating_point() || is_complex(),
                   "set_requires_grad: only "
                   "floating point and complex tensors can require gradients, got ",
                   dtype());
  if (requires_grad || meta) ensure_meta(*this).requires_grad = requires_grad;
  return *this;
}

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  AutogradMeta* meta = meta_of(*this);
  return meta ? meta->grad : undefined;
}

Tensor& Tensor::mutable_grad() const { return ensure_meta(*this).grad; }

void Tensor::set_grad(const Tensor& grad) const {
  if (grad.defined())
    EMBER_CHECK_VALUE(grad.sizes() == sizes(), "set_grad: gradient of shape ", grad.sizes(),
                      " for a tensor of shape ", sizes());
  ensure_meta(*this).grad = grad;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  AutogradMeta* meta = fresh_meta_of(*this);
  return meta ? meta->grad_fn : nullptr;
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

void Tensor::backward(const Tensor& gradient, bool retain_graph, bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph, create_graph);
}

Tensor Tensor::detach() const {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>("Tensor.detach", [&] { return detach(); }, {tracing::arg(*this)});
  const TensorImpl& src = impl();
  return Tensor(std::make_shared<TensorImpl>(src.storage(), src.dtype(), src.sizes(), src.strides(),
                                             src.offset()));
}

void Tensor::retain_grad() const {
  EMBER_CHECK(requires_grad(), "retain_grad: called on a tensor that does not require grad");
  AutogradMeta& meta = ensure_meta(*this);  // requires_grad() refreshed a view's history
  if (!meta.grad_fn || meta.retains_grad) return;  // leaves keep .grad anyway
  meta.retains_grad = true;
  std::weak_ptr<TensorImpl> weak = impl_ptr();
  meta.retain_hook_id = meta.grad_fn->add_pre_hook(meta.output_nr, [weak](const Tensor& g) {
    if (auto impl = weak.lock()) {
      Tensor self(impl);
      Tensor& grad = ensure_meta(self).grad;
      grad = grad.defined() ? grad.add(g) : g.detach().clone();
    }
    return Tensor();
  });
}

bool Tensor::retains_grad() const {
  AutogradMeta* meta = meta_of(*this);
  return meta && meta->retains_grad;
}

int Tensor::register_hook(std::function<Tensor(const Tensor&)> fn) const {
  EMBER_CHECK(requires_grad(), "register_hook: cannot register a hook on a tensor that does not "
              "require grad");
  AutogradMeta& meta = ensure_meta(*this);
  if (meta.grad_fn) return meta.grad_fn->add_pre_hook(meta.output_nr, std::move(fn));
  int id = autograd::next_hook_id();
  meta.leaf_hooks.emplace_back(id, std::move(fn));
  return id;
}

void Tensor::remove_hook(int handle) const {
  AutogradMeta* meta = meta_of(*this);
  if (!meta) return;
  if (meta->grad_fn && meta->grad_fn->remove_pre_hook(handle)) return;
  std::erase_if(meta->leaf_hooks, [&](const auto& h) { return h.first == handle; });
}

}  // namespace ember
