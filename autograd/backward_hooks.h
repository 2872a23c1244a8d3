#pragma once
// Two hooks that let code run alongside backward, as data-parallel training needs (PyTorch's
// register_post_accumulate_grad_hook and Variable._execution_engine.queue_callback):
//
//   int id = autograd::register_post_accumulate_grad_hook(w, [](const Tensor& w) {
//     launch_allreduce(w.grad());          // w.grad() now holds this backward's sum
//   });
//   autograd::queue_callback([] { wait_for_allreduces(); });   // from inside a backward pass
//
// A post-accumulate hook runs on a leaf right after backward added into its .grad (it sees the
// leaf, not the gradient, and returns nothing); it does not run in autograd::grad(), which touches
// no .grad. A queued callback runs once when the backward pass that is running on this thread
// finishes (after every node ran), in the order queued; callbacks may queue more.
#include <functional>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::autograd {

using PostAccumulateGradHook = std::function<void(const Tensor& leaf)>;

/// Registers `hook` on the leaf `tensor` (which must require grad); returns its handle.
int register_post_accumulate_grad_hook(const Tensor& tensor, PostAccumulateGradHook hook);
/// Removes a hook by its handle; false when the tensor has no such hook.
bool remove_post_accumulate_grad_hook(const Tensor& tensor, int handle);

/// Runs `callback` at the end of the backward pass running on this thread; throws when none is
/// running (call it from a hook).
void queue_callback(std::function<void()> callback);

namespace detail {
/// The engine's side: a pass opens a frame of callbacks and runs them before it returns.
class CallbackFrame {
 public:
  CallbackFrame();
  ~CallbackFrame();
  CallbackFrame(const CallbackFrame&) = delete;
  CallbackFrame& operator=(const CallbackFrame&) = delete;
  /// Queues a callback (queue_callback's target).
  void push(std::function<void()> callback) { callbacks_.push_back(std::move(callback)); }
  /// Runs the queued callbacks (and those they queue), in order.
  void run();

 private:
  std::vector<std::function<void()>> callbacks_;
  CallbackFrame* outer_;
};
}  // namespace detail

}  // namespace ember::autograd
