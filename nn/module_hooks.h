#pragma once
// Module hooks (PyTorch's register_forward_pre_hook, register_forward_hook and
// register_full_backward_hook): functions run around forward by a call through
// Module::operator(), which is how the containers and layers call their children, so hooks run
// inside a Sequential too. A module holds its lists behind a pointer to const and replaces them
// on every change (copy on write): a running call keeps the lists it started with, so a hook may
// remove itself, or add others, while it runs.
#include <functional>
#include <optional>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::nn {

class Module;

/// hook(module, input) -> a replacement input, or nullopt to keep it.
using ForwardPreHook = std::function<std::optional<Tensor>(Module& module, const Tensor& input)>;
/// hook(module, input, output) -> a replacement output, or nullopt to keep it.
using ForwardHook =
    std::function<std::optional<Tensor>(Module& module, const Tensor& input, const Tensor& output)>;
/// hook(grad_input, grad_output) -> a replacement grad_input, or nullopt to keep it. It runs during
/// backward, when the module may be gone, so it gets no module. When the input needs no gradient,
/// grad_input is undefined and the hook runs once grad_output is known (its result is unused).
using BackwardHook =
    std::function<std::optional<Tensor>(const Tensor& grad_input, const Tensor& grad_output)>;

template <typename Fn>
struct HookEntry {
  int id;
  Fn fn;
  bool always_call = false;  // forward hooks only: run even when forward throws
};

/// One module's hooks, each list in the order its hooks run.
struct HookLists {
  std::vector<HookEntry<ForwardPreHook>> pre;
  std::vector<HookEntry<ForwardHook>> forward;
  std::vector<HookEntry<BackwardHook>> backward;
  bool empty() const { return pre.empty() && forward.empty() && backward.empty(); }
};

/// forward(input) with `hooks` around it: the pre hooks (each may replace the input), forward,
/// then the forward hooks (each may replace the output); when forward throws, the always_call
/// forward hooks run (their own errors dropped) and the error goes on. With backward hooks and
/// grad mode on, input and output pass through identity views whose gradients reach the hooks.
Tensor run_with_hooks(Module& module, const HookLists& hooks, const Tensor& input,
                      const std::function<Tensor(const Tensor&)>& forward);

}  // namespace ember::nn
