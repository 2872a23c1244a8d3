#pragma once
// What autograd keeps per tensor, in the slot core's TensorImpl reserves for it.
#include <memory>
#include <utility>
#include <vector>

#include "ember/autograd/node.h"

namespace ember::autograd {

struct AutogradMeta : AutogradMetaInterface {
  ~AutogradMeta() override;

  bool requires_grad = false;  // set on leaves; non-leaves require grad through grad_fn
  bool retains_grad = false;
  bool is_view = false;        // made by a view op from a tensor that requires grad
  Tensor grad;
  std::shared_ptr<Node> grad_fn;  // null for leaves
  uint32_t output_nr = 0;
  std::shared_ptr<Node> grad_accumulator;  // leaves: the AccumulateGrad node, made on demand
  std::vector<std::pair<int, Hook>> leaf_hooks;  // run by AccumulateGrad
  int retain_hook_id = 0;
};

/// The tensor's metadata, or null when autograd never touched it.
inline AutogradMeta* meta_of(const Tensor& t) {
  return static_cast<AutogradMeta*>(t.impl().autograd_meta());
}
/// The tensor's metadata, created if missing.
AutogradMeta& ensure_meta(const Tensor& t);

}  // namespace ember::autograd
