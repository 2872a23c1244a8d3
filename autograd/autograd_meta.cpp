#include "ember/autograd/autograd_meta.h"

namespace ember::autograd {

AutogradMeta::~AutogradMeta() { release_node(std::move(grad_fn)); }

AutogradMeta& ensure_meta(const Tensor& t) {
  TensorImpl& impl = t.impl();
  if (!impl.autograd_meta()) impl.set_autograd_meta(std::make_unique<AutogradMeta>());
  return *static_cast<AutogradMeta*>(impl.autograd_meta());
}

}  // namespace ember::autograd
