#include "ember/nn/module_hooks.h"

#include <memory>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/ops.h"

namespace ember::nn {
namespace {

// What the backward hooks of one call share. The output's gradient is computed before the
// input's, so grad_output is known when the input's hook runs.
struct BackwardCall {
  std::vector<BackwardHook> hooks;
  Tensor grad_output;
};

Tensor run_backward_hooks(const BackwardCall& call, Tensor grad_input) {
  const bool input_needs_grad = grad_input.defined();
  for (const auto& fn : call.hooks) {
    std::optional<Tensor> r = fn(grad_input, call.grad_output);
    if (!r || !r->defined()) continue;
    // NB: as PyTorch: there is no input gradient to replace.
    EMBER_CHECK_VALUE(input_needs_grad, "backward hook of a module whose input requires no gradient "
                      "must return None (got a tensor)");
    grad_input = *r;
  }
  return grad_input;
}

}  // namespace

Tensor run_with_hooks(Module& module, const HookLists& hooks, const Tensor& input,
                      const std::function<Tensor(const Tensor&)>& forward) {
  Tensor x = input;
  for (const auto& h : hooks.pre)
    if (std::optional<Tensor> r = h.fn(module, x)) x = *r;

  std::shared_ptr<BackwardCall> backward;
  bool input_needs_grad = false;
  if (!hooks.backward.empty() && autograd::GradMode::is_enabled()) {
    backward = std::make_shared<BackwardCall>();
    for (const auto& h : hooks.backward) backward->hooks.push_back(h.fn);
    input_needs_grad = x.defined() && x.requires_grad();
    if (input_needs_grad) {
      x = x.view_as(x);  // an identity node: its gradient is the input's
      x.register_hook([backward](const Tensor& g) { return run_backward_hooks(*backward, g); });
    }
  }

  Tensor out;
  std::vector<bool> ran(hooks.forward.size(), false);
  try {
    out = forward(x);
    for (size_t i = 0; i < hooks.forward.size(); ++i) {
      ran[i] = true;
      if (std::optional<Tensor> r = hooks.forward[i].fn(module, x, out)) out = *r;
    }
  } catch (...) {
    // NB: as PyTorch: the always_call hooks that have not run yet run now, and what they throw
    // gives way to the error that is already going on.
    for (size_t i = 0; i < hooks.forward.size(); ++i) {
      if (!hooks.forward[i].always_call || ran[i]) continue;
      try {
        hooks.forward[i].fn(module, x, out);
      } catch (...) {  // NOLINT(bugprone-empty-catch)
      }
    }
    throw;
  }

  if (backward && out.defined() && out.requires_grad()) {
    out = out.view_as(out);  // its gradient is grad_output
    out.register_hook([backward, input_needs_grad](const Tensor& g) {
      backward->grad_output = g;
      if (!input_needs_grad) run_backward_hooks(*backward, Tensor());
      return Tensor();
    });
  }
  return out;
}

}  // namespace ember::nn
