#include "ember/autograd/saved_tensor.h"

#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/grad_mode.h"

namespace ember::autograd {

SavedTensor::SavedTensor(const Tensor& t, bool is_output) : is_output_(is_output) {
  if (!t.defined()) return;
  version_ = t.version();
  requires_grad_ = t.requires_grad();
  // An output keeps only its data: holding the output itself would hold its grad_fn, this node.
  data_ = is_output ? t.detach() : t;
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
    meta.output_nr = 0;
    return t;
  }
  return data_;
}

void SavedTensor::reset() {
  if (data_.defined()) released_ = true;
  data_ = Tensor();
}

}  // namespace ember::autograd
