#include "ember/autograd/saved_tensor.h"

#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/grad_mode.h"

namespace ember::autograd {

SavedTensor::SavedTensor(const Tensor& t, bool is_output) : is_output_(is_output) {
  if (!t.defined()) return;
  version_ = t.version();
  requires_grad_ = t.requires_grad();
  AutogradMeta* meta = meta_of(t);
  if (!is_output && (meta == nullptr || meta->grad_fn == nullptr)) {
    data_ = t;  // a leaf, or a tensor outside the graph
    return;
  }
  data_ = t.detach();
  // NB: an output's number too: a node with several outputs (svd's U, S, Vh) saves each of them
  if (meta != nullptr) output_nr_ = meta->output_nr;
  if (!is_output) grad_fn_ = meta->grad_fn;
}

Tensor SavedTensor::unpack(const Node* owner) const {
  EMBER_CHECK(!released_,
              "backward: trying to backward through the graph a second time (or to use saved "
              "tensors after they were freed); pass retain_graph=true to the first backward",
              owner ? detail::str(" (saved by ", owner->name(), ")") : std::string());
  if (!data_.defined()) return data_;
  EMBER_CHECK(data_.version() == version_,
              "backward: a tensor needed for gradient computation was modified by an in-place "
              "operation: ", describe(data_), " is at version ", data_.version(),
              "; expected version ", version_, owner ? " (saved by " : "",
              owner ? owner->name() : "", owner ? ")" : "");
  if (is_output_ && requires_grad_ && owner && GradMode::is_enabled()) {
    // create_graph: the output must lead back to its node again.
    Tensor t = data_.detach();
    AutogradMeta& meta = ensure_meta(t);
    meta.grad_fn = const_cast<Node*>(owner)->shared_from_this();
    meta.output_nr = output_nr_;
    return t;
  }
  if (grad_fn_ && GradMode::is_enabled()) {
    // create_graph: the input leads back to the node that made it.
    Tensor t = data_.detach();
    AutogradMeta& meta = ensure_meta(t);
    meta.grad_fn = grad_fn_;
    meta.output_nr = output_nr_;
    return t;
  }
  return data_;
}

void SavedTensor::reset() {
  if (data_.defined()) released_ = true;
  data_ = Tensor();
  grad_fn_.reset();
}

}  // namespace ember::autograd
