#include "ember/autograd/backward_hooks.h"

#include "ember/autograd/autograd_meta.h"

namespace ember::autograd {
namespace {
// The innermost backward pass of this thread (a hook may run a nested backward).
thread_local detail::CallbackFrame* t_frame = nullptr;
}  // namespace

int register_post_accumulate_grad_hook(const Tensor& tensor, PostAccumulateGradHook hook) {
  EMBER_CHECK(tensor.requires_grad(), "register_post_accumulate_grad_hook: cannot register a hook "
              "on a tensor that does not require grad");
  EMBER_CHECK(tensor.is_leaf(), "register_post_accumulate_grad_hook: only leaf tensors get their "
              ".grad accumulated; this tensor has a grad_fn");
  int id = next_hook_id();
  ensure_meta(tensor).post_accumulate_hooks.emplace_back(id, std::move(hook));
  return id;
}

bool remove_post_accumulate_grad_hook(const Tensor& tensor, int handle) {
  AutogradMeta* meta = meta_of(tensor);
  if (!meta) return false;
  return std::erase_if(meta->post_accumulate_hooks, [&](const auto& h) { return h.first == handle; }) > 0;
}

void queue_callback(std::function<void()> callback) {
  EMBER_CHECK(t_frame != nullptr, "queue_callback: no backward pass is running on this thread; "
              "queue callbacks from a hook");
  t_frame->push(std::move(callback));
}

namespace detail {

CallbackFrame::CallbackFrame() : outer_(t_frame) { t_frame = this; }

CallbackFrame::~CallbackFrame() { t_frame = outer_; }

void CallbackFrame::run() {
  // NB: by index, since a callback may queue another one (and so grow the vector).
  for (size_t i = 0; i < callbacks_.size(); ++i) {
    std::function<void()> cb = std::move(callbacks_[i]);
    cb();
  }
  callbacks_.clear();
}

}  // namespace detail
}  // namespace ember::autograd
