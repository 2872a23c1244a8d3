#pragma once
// jit::trace: runs a module's forward once per mode (training, then eval, or the reverse) with a
// recorder installed (core/tracing.h), and returns a TracedModule that replays what ran. The
// recorder names each tensor an op reads: an input, a parameter or buffer of the module (by dotted
// name), an earlier op's result, or a constant (a tensor made outside the ops and needing no
// gradient: copied into the program). A tensor that requires grad and is none of these is an
// error naming the op: an unregistered parameter would silently stop training, and a tensor with a
// gradient history no recorded op made was computed where the trace cannot follow.
//
//   auto traced = jit::trace(*model, {x});          // model->forward(x) traced
//   jit::save(*traced, "model.ember");
//
// The run in the mode the module is not in restores the buffers and the default CPU generator
// afterwards, so tracing changes them only as one forward in the module's own mode would. With
// check on, the eval-mode program is then replayed on the example inputs and on the inputs rolled
// by one along their first dim, against the module's own eval-mode forward: a mismatch (a value
// computed outside the ops, a Python number taken from a tensor) is a ValueError.
#include <functional>
#include <memory>
#include <vector>

#include "ember/io/value.h"
#include "ember/jit/traced_module.h"
#include "ember/nn/module.h"

namespace ember::jit {

struct TraceOptions {
  bool check = true;  // replay the program against the module (above)
  double check_tolerance = 1e-5;
};

/// The forward traced: the module's outputs for `inputs`, as a tensor or tuples, lists and dicts of
/// tensors (None allowed).
using Forward = std::function<io::Value(const std::vector<Tensor>& inputs)>;

/// A TracedModule sharing `module`'s parameters and buffers (training it trains the module).
std::shared_ptr<TracedModule> trace(nn::Module& module, const std::vector<Tensor>& example_inputs,
                                    const Forward& forward, const TraceOptions& options = {});
/// trace of module.forward(example_input).
std::shared_ptr<TracedModule> trace(nn::Module& module, const Tensor& example_input, const TraceOptions& options = {});

}  // namespace ember::jit
