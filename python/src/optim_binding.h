#pragma once
// What optim.cpp (the optimizer classes) and optim_api.cpp (torch.optim's Python API over them)
// share: hyperparameters between Python values and optim::Hyperparam, and the hooks by which each
// optimizer class gets torch's constructor signature.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "ember/optim/optim.h"

namespace ember::python {

/// Parameter groups as the optimizer classes' internal constructors take them.
using Groups = std::vector<std::pair<optim::NamedParameters, py::dict>>;

/// A Python hyperparameter: a bool is a flag, a pair (tuple or list) Adam's betas, anything else a
/// number (int, float, a NumPy scalar, a one-element tensor); a TypeError names `key` otherwise.
optim::Hyperparam hyperparam_of(const std::string& key, py::handle v);
py::object py_of(const optim::Hyperparam& h);
py::dict dict_of(const optim::Hyperparams& h);
/// Sets group i's hyperparameter `key`, checked against the optimizer's kinds (scheduler keys too).
void set_group_option(optim::Optimizer& opt, size_t i, const std::string& key, py::handle value);

/// Gives an optimizer class torch's signature: __init__(self, params, <positional>..., **keywords),
/// the params resolved to names (ember.optim's docstring) and the class's own py::init called with
/// (groups, defaults). `positional` lists the hyperparameters torch takes by position; `signature`
/// is the docstring's first line ("SGD(params, lr=0.001, ...)"); `translate`, if given, turns torch's
/// arguments into the class's hyperparameters (LBFGS's line_search_fn).
void torch_optimizer_init(py::handle cls, std::vector<std::string> positional, const std::string& signature,
                          std::function<void(py::dict&)> translate = {});
/// Gives ember._C.optim.Optimizer torch.optim.Optimizer's Python API (optim_api.cpp); after every
/// optimizer class is bound.
void bind_optimizer_api(py::module_& o);

}  // namespace ember::python
