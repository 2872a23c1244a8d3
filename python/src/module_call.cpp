// Module.__call__ with hooks, as PyTorch runs them when a module is called from Python: forward
// pre-hooks hook(module, args) -> new args or None (with_kwargs: hook(module, args, kwargs) ->
// (new_args, new_kwargs) or None), forward hooks hook(module, args, output) -> new output or None
// (with_kwargs: hook(module, args, kwargs, output)), and full backward hooks
// hook(module, grad_input, grad_output) -> new grad_input or None. The hooks live in the C++ module
// (module_hooks.cpp), so a C++ container calling its children runs them too, with one tensor as args.
//
// Backward hooks wire the call's tensors through identity views whose gradients reach the hook:
// grad_input has one entry per tensor argument (None for those that need no gradient), grad_output
// one per tensor output. At most one argument may require grad (a module called with several
// raises NotImplementedError); the hook runs once that argument's gradient is known, or, when no
// argument requires grad, once the gradients of all outputs that require grad have arrived.
#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bindings.h"
#include "ember/autograd/grad_mode.h"

namespace ember::python {
namespace {

std::string type_name(py::handle h) { return py::str(py::type::of(h).attr("__name__")); }

// The full backward hooks of one call: grad_output is gathered from the outputs' identity views
// (computed first: the input's gradient depends on them), then the hooks run when the input's
// gradient is known.
struct BackwardCall : std::enable_shared_from_this<BackwardCall> {
  py::object module;
  py::list hooks;
  std::vector<size_t> tensor_positions;  // the tensor arguments: grad_input's entries
  std::optional<size_t> input_slot;      // which of them requires grad
  py::list grad_outputs;
  int pending_outputs = 0;

  BackwardCall(py::object m, py::list h) : module(std::move(m)), hooks(std::move(h)) {}

  py::tuple wrap_inputs(const py::tuple& args) {
    std::vector<size_t> needing;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!py::isinstance<Tensor>(args[i])) continue;
      tensor_positions.push_back(i);
      if (args[i].cast<Tensor>().requires_grad()) needing.push_back(i);
    }
    EMBER_CHECK_AS(NotImplementedError, needing.size() <= 1, "register_full_backward_hook: ", type_name(module),
                   " was called with ", needing.size(),
                   " tensor arguments that require grad; Ember's module backward hooks support at most one");
    if (needing.empty()) return args;
    const size_t i = needing[0];
    input_slot = std::find(tensor_positions.begin(), tensor_positions.end(), i) - tensor_positions.begin();
    py::object x = args[i].attr("view_as")(args[i]);
    x.attr("register_hook")(py::cpp_function([self = shared_from_this()](py::object grad) { return self->run(grad); }));
    py::list out(args);
    out[i] = x;
    return py::tuple(out);
  }

  py::object wrap_outputs(const py::object& output) {
    const bool single = py::isinstance<Tensor>(output);
    const bool sequence = py::isinstance<py::tuple>(output) || py::isinstance<py::list>(output);
    py::list outputs;
    if (single)
      outputs.append(output);
    else if (sequence)
      outputs = py::list(output);
    grad_outputs = py::list();
    py::list wrapped;
    for (size_t k = 0; k < outputs.size(); ++k) {
      grad_outputs.append(py::none());
      py::object out = outputs[k];
      if (py::isinstance<Tensor>(out) && out.cast<Tensor>().requires_grad()) {
        out = out.attr("view_as")(out);
        out.attr("register_hook")(py::cpp_function([self = shared_from_this(), k](py::object grad) {
          self->grad_outputs[k] = grad;
          if (--self->pending_outputs == 0 && !self->input_slot) self->run(py::none());
        }));
        ++pending_outputs;
      }
      wrapped.append(out);
    }
    if (single) return wrapped[0];
    return sequence ? py::type::of(output)(wrapped) : output;
  }

  py::object run(const py::object& grad) {
    py::list grad_input;
    for (size_t j = 0; j < tensor_positions.size(); ++j) grad_input.append(py::none());
    if (input_slot) grad_input[*input_slot] = grad;
    for (py::handle hook : hooks) {
      py::object result = hook(module, py::tuple(grad_input), py::tuple(grad_outputs));
      if (result.is_none()) continue;
      py::tuple r = py::isinstance<py::tuple>(result) || py::isinstance<py::list>(result) ? py::tuple(result)
                                                                                          : py::make_tuple(result);
      EMBER_CHECK_AS(Error, r.size() == grad_input.size(),
                     "backward hook returned an invalid number of grad_input, got ", r.size(), ", but expected ",
                     grad_input.size());
      if (!input_slot) {
        for (py::handle g : r)
          EMBER_CHECK_AS(Error, g.is_none(),
                         "Backward hook for Modules where no input requires gradient should always return None or "
                         "None for all gradients.");
        continue;
      }
      grad_input = py::list(r);
    }
    return input_slot ? py::object(grad_input[*input_slot]) : py::object(py::none());
  }
};

py::object call_forward_hook(py::handle self, const py::tuple& entry, const py::tuple& args, const py::object& kwargs,
                             const py::object& output) {
  py::object hook = entry[0];
  return entry[1].cast<bool>() ? hook(self, args, kwargs, output) : hook(self, args, output);
}

}  // namespace

py::object call_with_hooks(py::handle self, const py::args& given_args, const py::kwargs& given_kwargs) {
  py::tuple lists = hook_lists(self);
  py::list pre = lists[0], forward = lists[1], backward_hooks = lists[2];
  py::tuple args = given_args;
  py::object kwargs = given_kwargs;
  for (py::handle h : pre) {
    py::tuple entry = h.cast<py::tuple>();
    py::object hook = entry[0];
    if (entry[1].cast<bool>()) {
      py::object result = hook(self, args, kwargs);
      if (result.is_none()) continue;
      EMBER_CHECK_AS(Error, py::isinstance<py::tuple>(result) && py::len(result) == 2,
                     "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got ",
                     py::repr(result).cast<std::string>(), ".");
      args = py::tuple(result[py::int_(0)]);
      kwargs = result[py::int_(1)];
    } else {
      py::object result = hook(self, args);
      if (!result.is_none()) args = py::isinstance<py::tuple>(result) ? py::tuple(result) : py::make_tuple(result);
    }
  }

  std::shared_ptr<BackwardCall> backward;
  if (py::len(backward_hooks) > 0 && autograd::GradMode::is_enabled()) {
    backward = std::make_shared<BackwardCall>(py::reinterpret_borrow<py::object>(self), backward_hooks);
    args = backward->wrap_inputs(args);
  }

  py::object output = py::none();
  std::set<size_t> ran;
  try {
    output = self.attr("forward")(*args, **kwargs);
    for (size_t i = 0; i < forward.size(); ++i) {
      ran.insert(i);
      py::object result = call_forward_hook(self, forward[i].cast<py::tuple>(), args, kwargs, output);
      if (!result.is_none()) output = result;
    }
  } catch (...) {
    // As PyTorch: the always_call hooks that have not run yet run now; what they raise gives way
    // to the error already going on (with a warning).
    for (size_t i = 0; i < forward.size(); ++i) {
      py::tuple entry = forward[i].cast<py::tuple>();
      if (!entry[2].cast<bool>() || ran.contains(i)) continue;
      try {
        py::object result = call_forward_hook(self, entry, args, kwargs, output);
        if (!result.is_none()) output = result;
      } catch (const std::exception& e) {
        std::string message =
            "module forward hook with ``always_call=True`` raised an exception that was silenced as another error "
            "was raised in forward: " +
            std::string(e.what());
        if (PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1) != 0) throw py::error_already_set();
      }
    }
    throw;
  }
  return backward ? backward->wrap_outputs(output) : output;
}

}  // namespace ember::python
