#pragma once
// What autograd keeps per tensor, in the slot core's TensorImpl reserves for it.
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "ember/autograd/node.h"

namespace ember::autograd {

struct AutogradMeta : AutogradMetaInterface {
  ~AutogradMeta() override;

  bool requires_grad = false;  // set on leaves; non-leaves require grad through grad_fn
  bool retains_grad = false;
  Tensor grad;
  std::shared_ptr<Node> grad_fn;  // null for leaves
  uint32_t output_nr = 0;
  std::shared_ptr<Node> grad_accumulator;  // leaves: the AccumulateGrad node, made on demand
  // Leaves: held while grad_accumulator is made or replaced and while .grad is accumulated into,
  // as backward passes and forward passes on several threads share a leaf (one accumulator per
  // leaf, so the gradient of every pass arrives).
  std::mutex leaf_mutex;
  std::vector<std::pair<int, Hook>> leaf_hooks;  // run by AccumulateGrad
  // Run by AccumulateGrad after .grad was updated (autograd/backward_hooks.h).
  std::vector<std::pair<int, std::function<void(const Tensor&)>>> post_accumulate_hooks;
  int retain_hook_id = 0;
  // A view (made by a view op in grad mode from a floating tensor) keeps the tensor whose storage
  // it views (for a view of a view, the first one's base) and the storage version at which its
  // grad_fn was last set. An in-place write anywhere in that storage makes the grad_fn stale:
  // refresh_view (autograd/record.h) then rebuilds it from the base's current history.
  Tensor view_base;
  uint64_t view_version = 0;

  bool is_view() const { return view_base.defined(); }
};

/// The tensor's metadata, or null when autograd never touched it.
inline AutogradMeta* meta_of(const Tensor& t) {
  return static_cast<AutogradMeta*>(t.impl().autograd_meta());
}
/// The tensor's metadata, created if missing.
AutogradMeta& ensure_meta(const Tensor& t);

}  // namespace ember::autograd
