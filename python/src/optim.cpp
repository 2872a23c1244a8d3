// ember._C.optim: the optimizers, gradient clipping, loss scaling and the LR schedulers. Each
// optimizer class is bound with an internal constructor from name-keyed groups, which
// optim_api.cpp wraps in torch's signature; state dicts are the io trees of io/optim_io.h as
// Python containers.
#include "ember/optim/optim.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "bindings.h"
#include "ember/core/factory.h"
#include "ember/io/optim_io.h"
#include "optim_binding.h"

namespace ember::python {

using optim::NamedParameters;
using optim::Optimizer;
using optim::ParamGroup;

optim::Hyperparam hyperparam_of(const std::string& key, py::handle v) {
  if (PyBool_Check(v.ptr())) return v.cast<bool>();
  if (py::isinstance<py::tuple>(v) || py::isinstance<py::list>(v)) {
    auto pair = v.cast<std::vector<double>>();
    EMBER_CHECK_TYPE(pair.size() == 2, "hyperparameter '", key, "' holds ", pair.size(),
                     " values, expected a number, a bool or a pair of numbers");
    return optim::Betas{pair[0], pair[1]};
  }
  if (py::isinstance<Tensor>(v)) return v.cast<Tensor>().item<double>();
  try {
    return v.cast<double>();
  } catch (const py::cast_error&) {
    throw ember::TypeError("hyperparameter '" + key + "' is a " +
                           std::string(py::str(py::type::of(v).attr("__name__"))) +
                           ", expected a number, a bool or a pair of numbers");
  }
}

py::object py_of(const optim::Hyperparam& h) {
  if (h.is_flag()) return py::bool_(h.flag());
  if (h.is_pair()) return py::make_tuple(h.pair().first, h.pair().second);
  return py::float_(h.number());
}

namespace {

using Gil = py::call_guard<py::gil_scoped_release>;

// NB: a flag given as the int 0 or 1 (amsgrad=0, as PyTorch scripts may pass it) is the flag it
// means; `known` holds the optimizer's kinds.
optim::Hyperparam as_known(const std::string& key, optim::Hyperparam v, const optim::Hyperparams& known) {
  if (known.contains(key) && known.at(key).is_flag() && v.is_number() && (v.number() == 0 || v.number() == 1))
    return v.number() != 0;
  return v;
}

optim::Hyperparams hyperparams_of(const py::dict& d, const optim::Hyperparams& known) {
  optim::Hyperparams h;
  for (auto [k, v] : d) {
    std::string key = py::str(k);
    h.set(key, as_known(key, hyperparam_of(key, v), known));
  }
  return h;
}

}  // namespace

py::dict dict_of(const optim::Hyperparams& h) {
  py::dict out;
  for (const auto& [key, value] : h) out[py::str(key)] = py_of(value);
  return out;
}

void check_hyperparam(const std::string& who, const optim::Hyperparams& known, const std::string& key,
                      const optim::Hyperparam& value) {
  EMBER_CHECK_VALUE(known.contains(key), who, ": unknown hyperparameter '", key, "'");
  EMBER_CHECK_TYPE(value.same_kind(known.at(key)), who, ": hyperparameter '", key, "' must be ", known.at(key).kind(),
                   ", got ", value.kind());
}

void set_group_option(Optimizer& opt, size_t i, const std::string& key, py::handle value) {
  EMBER_CHECK_INDEX(i < opt.param_groups().size(), "no parameter group ", i);
  optim::Hyperparams& options = opt.param_groups()[i].options;
  const optim::Hyperparams& known = opt.defaults();
  optim::Hyperparam v = as_known(key, hyperparam_of(key, value), known);
  if (!optim::is_scheduler_key(key) || known.contains(key)) check_hyperparam(opt.name(), known, key, v);
  options.set(key, v);
}

namespace {

std::vector<ParamGroup> groups_of(const Groups& groups, const optim::Hyperparams& known) {
  std::vector<ParamGroup> out;
  for (const auto& [params, options] : groups) out.emplace_back(params, hyperparams_of(options, known));
  return out;
}

// Binds optimizer M, built from (groups, defaults): the defaults fill an options struct O through
// its field table, so an unknown or mistyped key is refused there, as the groups' are by M.
// The hyperparameters torch takes by position: O's fields before "maximize" (keyword-only in torch).
template <typename O>
std::vector<std::string> positional_fields() {
  std::vector<std::string> out;
  for (const auto& f : O::fields()) {
    if (f.name == "maximize") break;
    out.emplace_back(f.name);
  }
  return out;
}

// "SGD(params, lr=0.001, ..., *, maximize=False, ...)": the signature torch_optimizer_init gives,
// with O's defaults, for help() and the stubs.
template <typename O>
std::string torch_signature(const std::string& name) {
  optim::Hyperparams defaults = to_hyperparams(O{}, O::fields());
  std::string out = name + "(params";
  for (const auto& f : O::fields()) {
    std::string key(f.name);
    if (key == "maximize") out += ", *";
    out += ", " + key + "=" + py::repr(py_of(defaults.at(key))).cast<std::string>();
  }
  return out + ")";
}

template <typename O, typename M>
void def_optimizer(py::module_& m, const char* name, const char* doc) {
  py::class_<M, Optimizer, std::shared_ptr<M>> cls(m, name, doc, py::dynamic_attr());
  cls.def(py::init([name](const Groups& groups, const py::dict& defaults) {
            optim::Hyperparams known = to_hyperparams(O{}, O::fields());
            optim::Hyperparams given = hyperparams_of(defaults, known);
            for (const auto& [key, value] : given) check_hyperparam(name, known, key, value);
            return std::make_shared<M>(groups_of(groups, known), from_hyperparams(given, O::fields()));
          }),
          py::arg("groups"), py::arg("defaults"));
  torch_optimizer_init(cls, positional_fields<O>(), torch_signature<O>(name));
}

// A Python lr function that C++ may call and destroy with or without the GIL.
optim::LambdaLR::Fn lr_function(py::function fn) {
  std::shared_ptr<py::function> held(new py::function(std::move(fn)), [](py::function* f) {
    py::gil_scoped_acquire gil;
    delete f;
  });
  return [held](int64_t epoch) -> double {
    py::gil_scoped_acquire gil;
    return (*held)(epoch).cast<double>();
  };
}

template <typename S>
using Scheduler = py::class_<S, optim::LRScheduler, std::shared_ptr<S>>;

// A momentum bound given as one number (every group) or as a list (one per group), as torch takes.
void momentum_bound(const py::handle& value, double& scalar, std::vector<double>& per_group) {
  if (PyFloat_Check(value.ptr()) || PyLong_Check(value.ptr()))
    scalar = value.cast<double>();
  else
    per_group = value.cast<std::vector<double>>();
}

// One lr function or a sequence of them (one per group), for LambdaLR and MultiplicativeLR.
std::vector<optim::LambdaLR::Fn> lr_functions(py::object fns, size_t groups) {
  if (py::isinstance<py::function>(fns)) return std::vector<optim::LambdaLR::Fn>(groups, lr_function(fns));
  std::vector<optim::LambdaLR::Fn> list;
  for (py::handle f : fns) list.push_back(lr_function(py::reinterpret_borrow<py::function>(f)));
  return list;
}
// The C++ half of an optimizer written in Python the PyTorch way (a subclass of
// ember.optim.Optimizer with its own step() over param_groups and state): it holds the groups and
// their numeric hyperparameters, so the LR schedulers, zero_grad and checkpoints see them, and
// never updates a parameter itself.
class PyOptimizer : public Optimizer {
 public:
  PyOptimizer(std::string name, optim::Hyperparams defaults) : Optimizer(std::move(name), std::move(defaults)) {}

 protected:
  void update(const ParamUpdate&) override {
    EMBER_CHECK_AS(NotImplementedError, false, name(), ": an optimizer written in Python must override step()");
  }
};

}  // namespace

void bind_optim(py::module_& m) {
  py::module_ o = m.def_submodule("optim", "ember.optim's C++ half: optimizers and LR schedulers");

  py::class_<Optimizer, PyOptimizer, std::shared_ptr<Optimizer>>(o, "Optimizer", R"doc(
torch.optim.Optimizer over the C++ optimizers: parameters are held by name and optimizer state is keyed
by name, so a checkpoint lands on the right parameter even after the model's parameters were
reordered. Subclass it to write an optimizer in Python (ember.optim's docstring).)doc",
                                                                 py::dynamic_attr())
      // NB: the internal constructor, which optim_api.cpp's __init__(params, defaults) calls.
      .def(py::init([](const std::string& name, const Groups& groups, const py::dict& defaults) {
             optim::Hyperparams given;
             for (auto [k, v] : defaults) given.set(py::str(k), hyperparam_of(py::str(k), v));
             auto opt = std::make_shared<PyOptimizer>(name, given);
             for (auto& group : groups_of(groups, given)) opt->add_param_group(std::move(group));
             return opt;
           }),
           py::arg("name"), py::arg("groups"), py::arg("defaults"))
      .def_property_readonly("_name", &Optimizer::name)
      .def("zero_grad", &Optimizer::zero_grad, py::arg("set_to_none") = true, Gil())
      .def("_add_param_group", [](Optimizer& opt, const NamedParameters& params, const py::dict& options) {
        opt.add_param_group(ParamGroup(params, hyperparams_of(options, opt.defaults())));
      });

  o.def("_is_scheduler_key", &optim::is_scheduler_key, py::arg("key"),
        "True for the keys LR schedulers add to parameter groups (initial_lr, max_lr, ...).");

  def_optimizer<optim::SGDOptions, optim::SGD>(o, "SGD", "SGD with momentum (torch.optim.SGD).");
  def_optimizer<optim::AdamOptions, optim::Adam>(o, "Adam", "Adam (torch.optim.Adam).");
  // NB: AdamW derives from Adam in C++; bound beside it under Optimizer, as Python sees no Adam base.
  py::class_<optim::AdamW, Optimizer, std::shared_ptr<optim::AdamW>> adamw(o, "AdamW", "AdamW (torch.optim.AdamW).",
                                                                           py::dynamic_attr());
  adamw.def(
      py::init([](const Groups& groups, const py::dict& defaults) {
        // AdamW's options are Adam's with a different weight_decay default and no
        // decoupled_weight_decay (always true).
        optim::AdamWOptions w;
        optim::AdamOptions a = w.adam();
        optim::Hyperparams known = to_hyperparams(a, optim::AdamOptions::fields());
        optim::Hyperparams given = hyperparams_of(defaults, known);
        EMBER_CHECK_VALUE(!given.contains("decoupled_weight_decay"),
                          "AdamW: unknown hyperparameter 'decoupled_weight_decay'");
        for (const auto& [key, value] : given) check_hyperparam("AdamW", known, key, value);
        for (const auto& [key, value] : given) known.set(key, value);
        a = from_hyperparams(known, optim::AdamOptions::fields());
        return std::make_shared<optim::AdamW>(groups_of(groups, known),
                                              optim::AdamWOptions{.lr = a.lr, .betas = a.betas, .eps = a.eps,
                                                                  .weight_decay = a.weight_decay,
                                                                  .amsgrad = a.amsgrad, .maximize = a.maximize,
                                                                  .master_weights = a.master_weights});
      }),
      py::arg("groups"), py::arg("defaults"));
  torch_optimizer_init(adamw, positional_fields<optim::AdamOptions>(),
                       "AdamW(params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.01, amsgrad=False, *, "
                       "maximize=False, master_weights=False)");
  def_optimizer<optim::RMSpropOptions, optim::RMSprop>(o, "RMSprop", "RMSprop (torch.optim.RMSprop).");
  def_optimizer<optim::AdagradOptions, optim::Adagrad>(o, "Adagrad", "Adagrad (torch.optim.Adagrad).");
  def_optimizer<optim::AdadeltaOptions, optim::Adadelta>(o, "Adadelta", "Adadelta (torch.optim.Adadelta).");
  def_optimizer<optim::AdamaxOptions, optim::Adamax>(o, "Adamax", "Adamax (torch.optim.Adamax).");
  def_optimizer<optim::NAdamOptions, optim::NAdam>(o, "NAdam", "NAdam (torch.optim.NAdam).");
  def_optimizer<optim::RAdamOptions, optim::RAdam>(o, "RAdam", "RAdam (torch.optim.RAdam).");
  def_optimizer<optim::RpropOptions, optim::Rprop>(o, "Rprop", "Rprop (torch.optim.Rprop).");
  def_optimizer<optim::ASGDOptions, optim::ASGD>(o, "ASGD", "ASGD (torch.optim.ASGD).");
  py::class_<optim::LBFGS, Optimizer, std::shared_ptr<optim::LBFGS>> lbfgs(o, "LBFGS", R"doc(
torch.optim.LBFGS(params, lr=1, max_iter=20, max_eval=None (max_iter * 5 // 4), tolerance_grad=1e-7,
tolerance_change=1e-9, history_size=100, line_search_fn=None or 'strong_wolfe', *, maximize=False);
step(closure) is required. One parameter group, whose line search shows as the flag "strong_wolfe".)doc",
                                                                           py::dynamic_attr());
  lbfgs
      .def(py::init([](const Groups& groups, const py::dict& defaults) {
             EMBER_CHECK_VALUE(groups.size() == 1, "LBFGS doesn't support per-parameter options (parameter groups)");
             optim::Hyperparams known = to_hyperparams(optim::LBFGSOptions{}, optim::LBFGSOptions::fields());
             optim::Hyperparams given = hyperparams_of(defaults, known);
             for (const auto& [key, value] : hyperparams_of(groups[0].second, known)) given.set(key, value);
             for (const auto& [key, value] : given) check_hyperparam("LBFGS", known, key, value);
             return std::make_shared<optim::LBFGS>(groups[0].first,
                                                   from_hyperparams(given, optim::LBFGSOptions::fields()));
           }),
           py::arg("groups"), py::arg("defaults"))
      .def(
          "step",
          [](optim::LBFGS& opt, py::object closure) {
            EMBER_CHECK_AS(Error, !closure.is_none(),
                           "LBFGS.step needs a closure that reevaluates the model and returns the loss");
            // NB: the step runs without the GIL; the closure (Python) takes it back.
            return without_gil([&] {
              return opt.step([&] {
                py::gil_scoped_acquire gil;
                py::object loss = closure();
                if (py::isinstance<Tensor>(loss)) return loss.cast<Tensor>();
                return full({}, loss.cast<double>(), TensorOptions(kFloat64));
              });
            });
          },
          py::arg("closure") = py::none(),
          "One L-BFGS step: up to max_iter iterations, each calling closure() (which zeroes the gradients, computes "
          "the loss, calls backward and returns it) as often as the line search needs. Returns the first loss.")
      .def(
          "add_param_group",
          [](const optim::LBFGS&, py::handle) {
            throw ember::ValueError("LBFGS doesn't support per-parameter options (parameter groups)");
          },
          py::arg("param_group"));
  lbfgs.attr("_int_keys") = py::frozenset(py::make_tuple("max_iter", "max_eval", "history_size"));
  // torch's line_search_fn is the flag strong_wolfe here; max_eval None is max_iter * 5 // 4.
  auto lbfgs_arguments = [](py::dict& defaults) {
    py::object search = defaults.attr("pop")("line_search_fn", py::none());
    EMBER_CHECK_VALUE(
        search.is_none() || (py::isinstance<py::str>(search) && search.cast<std::string>() == "strong_wolfe"),
        "LBFGS: line_search_fn must be None or 'strong_wolfe', got ", py::repr(search).cast<std::string>());
    defaults["strong_wolfe"] = py::bool_(!search.is_none());
    if (defaults.attr("get")("max_eval", py::none()).is_none())
      defaults["max_eval"] = defaults.attr("get")("max_iter", 20).attr("__mul__")(5).attr("__floordiv__")(4);
  };
  torch_optimizer_init(
      lbfgs, {"lr", "max_iter", "max_eval", "tolerance_grad", "tolerance_change", "history_size", "line_search_fn"},
      "LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-07, tolerance_change=1e-09, "
      "history_size=100, line_search_fn=None, *, maximize=False)",
      lbfgs_arguments);

  o.def("clip_grad_norm_", [](const std::vector<Tensor>& params, double max_norm, double norm_type,
                              bool error_if_nonfinite) {
    return optim::clip_grad_norm_(params, max_norm, norm_type, error_if_nonfinite);
  }, py::arg("parameters"), py::arg("max_norm"), py::arg("norm_type") = 2.0,
        py::arg("error_if_nonfinite") = false, Gil());
  o.def("clip_grad_value_", [](const std::vector<Tensor>& params, double clip_value) {
    optim::clip_grad_value_(params, clip_value);
  }, py::arg("parameters"), py::arg("clip_value"), Gil());

  bind_grad_scaler(o);

  // ---- schedulers (each keeps its optimizer alive)
  py::class_<optim::LRScheduler, std::shared_ptr<optim::LRScheduler>>(o, "LRScheduler",
      "The base of the LR schedulers: step() after optimizer.step().")
      .def("step", [](optim::LRScheduler& s, py::object epoch) {
        EMBER_CHECK_VALUE(epoch.is_none(), s.name(), ".step: the epoch argument is not supported");
        s.step();
      }, py::arg("epoch") = py::none())
      .def("get_last_lr", &optim::LRScheduler::get_last_lr)
      .def_property_readonly("last_epoch", &optim::LRScheduler::last_epoch)
      .def_property_readonly("base_lrs", &optim::LRScheduler::base_lrs)
      .def("state_dict", [](const optim::LRScheduler& s) { return value_to_py(io::to_value(s)); })
      .def("load_state_dict", [](optim::LRScheduler& s, py::handle state) {
        io::load_into(s, py_to_value(state));
      }, py::arg("state_dict"));
  auto alive = py::keep_alive<1, 2>();
  Scheduler<optim::StepLR>(o, "StepLR")
      .def(py::init<Optimizer&, int64_t, double>(), py::arg("optimizer"), py::arg("step_size"),
           py::arg("gamma") = 0.1, alive);
  Scheduler<optim::MultiStepLR>(o, "MultiStepLR")
      .def(py::init<Optimizer&, std::vector<int64_t>, double>(), py::arg("optimizer"), py::arg("milestones"),
           py::arg("gamma") = 0.1, alive);
  Scheduler<optim::ExponentialLR>(o, "ExponentialLR")
      .def(py::init<Optimizer&, double>(), py::arg("optimizer"), py::arg("gamma"), alive);
  Scheduler<optim::LinearLR>(o, "LinearLR")
      .def(py::init<Optimizer&, double, double, int64_t>(), py::arg("optimizer"),
           py::arg("start_factor") = 1.0 / 3, py::arg("end_factor") = 1.0, py::arg("total_iters") = 5, alive);
  Scheduler<optim::CosineAnnealingLR>(o, "CosineAnnealingLR")
      .def(py::init<Optimizer&, int64_t, double>(), py::arg("optimizer"), py::arg("T_max"),
           py::arg("eta_min") = 0.0, alive);
  Scheduler<optim::WarmupCosineLR>(o, "WarmupCosineLR")
      .def(py::init<Optimizer&, int64_t, int64_t, double>(), py::arg("optimizer"), py::arg("warmup_steps"),
           py::arg("total_steps"), py::arg("min_lr") = 0.0, alive);
  Scheduler<optim::NoamDecay>(o, "NoamDecay")
      .def(py::init<Optimizer&, int64_t, int64_t>(), py::arg("optimizer"), py::arg("d_model"),
           py::arg("warmup_steps"), alive);
  Scheduler<optim::OneCycleLR>(o, "OneCycleLR")
      .def(py::init([](Optimizer& opt, std::vector<double> max_lrs, int64_t total_steps, double pct_start,
                       const std::string& anneal, bool cycle_momentum, py::object base_momentum,
                       py::object max_momentum, double div_factor, double final_div_factor, bool three_phase) {
        optim::OneCycleOptions oc;
        oc.pct_start = pct_start;
        EMBER_CHECK_VALUE(anneal == "cos" || anneal == "linear",
                          "OneCycleLR: anneal_strategy must be 'cos' or 'linear', got '", anneal, "'");
        oc.anneal_strategy = anneal == "cos" ? optim::OneCycleOptions::Anneal::Cos
                                             : optim::OneCycleOptions::Anneal::Linear;
        oc.cycle_momentum = cycle_momentum;
        momentum_bound(base_momentum, oc.base_momentum, oc.base_momentums);
        momentum_bound(max_momentum, oc.max_momentum, oc.max_momentums);
        oc.div_factor = div_factor;
        oc.final_div_factor = final_div_factor;
        oc.three_phase = three_phase;
        return std::make_shared<optim::OneCycleLR>(opt, std::move(max_lrs), total_steps, oc);
      }), py::arg("optimizer"), py::arg("max_lrs"), py::arg("total_steps"), py::arg("pct_start"),
         py::arg("anneal_strategy"), py::arg("cycle_momentum"), py::arg("base_momentum"),
         py::arg("max_momentum"), py::arg("div_factor"), py::arg("final_div_factor"), py::arg("three_phase"),
         alive);
  Scheduler<optim::PolynomialLR>(o, "PolynomialLR")
      .def(py::init<Optimizer&, int64_t, double>(), py::arg("optimizer"), py::arg("total_iters") = 5,
           py::arg("power") = 1.0, alive);
  Scheduler<optim::CosineAnnealingWarmRestarts>(o, "CosineAnnealingWarmRestarts")
      .def(py::init<Optimizer&, int64_t, int64_t, double>(), py::arg("optimizer"), py::arg("T_0"),
           py::arg("T_mult") = 1, py::arg("eta_min") = 0.0, alive);
  Scheduler<optim::CyclicLR>(o, "CyclicLR")
      .def(py::init([](Optimizer& opt, std::vector<double> base_lrs, std::vector<double> max_lrs, int64_t up,
                       std::optional<int64_t> down, const std::string& mode, double gamma, py::object scale_fn,
                       const std::string& scale_mode, bool cycle_momentum, py::object base_momentum,
                       py::object max_momentum) {
        optim::CyclicOptions c;
        c.step_size_up = up;
        c.step_size_down = down.value_or(0);
        EMBER_CHECK_VALUE(!down || *down > 0, "CyclicLR: step_size_down must be positive, got ", down.value_or(0));
        EMBER_CHECK_VALUE(mode == "triangular" || mode == "triangular2" || mode == "exp_range" || !scale_fn.is_none(),
                          "CyclicLR: mode must be 'triangular', 'triangular2' or 'exp_range', got '", mode, "'");
        EMBER_CHECK_VALUE(scale_mode == "cycle" || scale_mode == "iterations",
                          "CyclicLR: scale_mode must be 'cycle' or 'iterations', got '", scale_mode, "'");
        c.mode = mode == "triangular2" ? optim::CyclicOptions::Mode::Triangular2
                 : mode == "exp_range" ? optim::CyclicOptions::Mode::ExpRange
                                       : optim::CyclicOptions::Mode::Triangular;
        c.gamma = gamma;
        if (!scale_fn.is_none()) {
          std::shared_ptr<py::function> held(new py::function(scale_fn.cast<py::function>()), [](py::function* f) {
            py::gil_scoped_acquire gil;
            delete f;
          });
          c.scale_fn = [held](double x) {
            py::gil_scoped_acquire gil;
            return (*held)(x).cast<double>();
          };
          c.scale_by_cycle = scale_mode == "cycle";
        }
        c.cycle_momentum = cycle_momentum;
        momentum_bound(base_momentum, c.base_momentum, c.base_momentums);
        momentum_bound(max_momentum, c.max_momentum, c.max_momentums);
        return std::make_shared<optim::CyclicLR>(opt, std::move(base_lrs), std::move(max_lrs), std::move(c));
      }), py::arg("optimizer"), py::arg("base_lrs"), py::arg("max_lrs"), py::arg("step_size_up"),
         py::arg("step_size_down"), py::arg("mode"), py::arg("gamma"), py::arg("scale_fn"), py::arg("scale_mode"),
         py::arg("cycle_momentum"), py::arg("base_momentum"), py::arg("max_momentum"), alive);
  Scheduler<optim::SequentialLR>(o, "SequentialLR")
      .def(py::init<Optimizer&, std::vector<std::shared_ptr<optim::LRScheduler>>, std::vector<int64_t>>(),
           py::arg("optimizer"), py::arg("schedulers"), py::arg("milestones"), alive)
      .def_property_readonly("schedulers", [](const optim::SequentialLR& s) { return s.schedulers(); });
  Scheduler<optim::ChainedScheduler>(o, "ChainedScheduler")
      .def(py::init<std::vector<std::shared_ptr<optim::LRScheduler>>>(), py::arg("schedulers"))
      .def_property_readonly("schedulers", [](const optim::ChainedScheduler& s) { return s.schedulers(); });
  Scheduler<optim::LambdaLR>(o, "LambdaLR")
      .def(py::init([](Optimizer& opt, py::object fns) {
        return std::make_shared<optim::LambdaLR>(opt, lr_functions(fns, opt.param_groups().size()));
      }), py::arg("optimizer"), py::arg("lr_lambda"), alive,
         "lr = initial lr * lr_lambda(epoch); one function or one per group. The function is code, "
         "not state: state_dict() does not hold it.");

  Scheduler<optim::MultiplicativeLR>(o, "MultiplicativeLR")
      .def(py::init([](Optimizer& opt, py::object fns) {
        return std::make_shared<optim::MultiplicativeLR>(opt, lr_functions(fns, opt.param_groups().size()));
      }), py::arg("optimizer"), py::arg("lr_lambda"), alive,
         "lr *= lr_lambda(epoch) at every step; one function or one per group. The function is code, not "
         "state: state_dict() does not hold it.");
  Scheduler<optim::ConstantLR>(o, "ConstantLR")
      .def(py::init<Optimizer&, double, int64_t>(), py::arg("optimizer"), py::arg("factor") = 1.0 / 3,
           py::arg("total_iters") = 5, alive, "lr scaled by factor until total_iters steps, then restored.");

  py::class_<optim::ReduceLROnPlateau, std::shared_ptr<optim::ReduceLROnPlateau>>(o, "ReduceLROnPlateau",
      "Cuts the lrs by factor once a metric stalls: scheduler.step(val_loss).")
      .def(py::init([](Optimizer& opt, const std::string& mode, double factor, int64_t patience,
                       double threshold, const std::string& threshold_mode, int64_t cooldown, py::object min_lr,
                       double eps) {
        optim::ReduceLROnPlateauOptions r;
        EMBER_CHECK_VALUE(mode == "min" || mode == "max", "ReduceLROnPlateau: mode must be 'min' or 'max'");
        EMBER_CHECK_VALUE(threshold_mode == "rel" || threshold_mode == "abs",
                          "ReduceLROnPlateau: threshold_mode must be 'rel' or 'abs'");
        r.mode = mode == "min" ? optim::ReduceLROnPlateauOptions::Mode::Min
                               : optim::ReduceLROnPlateauOptions::Mode::Max;
        r.factor = factor;
        r.patience = patience;
        r.threshold = threshold;
        r.threshold_mode = threshold_mode == "rel" ? optim::ReduceLROnPlateauOptions::ThresholdMode::Rel
                                                   : optim::ReduceLROnPlateauOptions::ThresholdMode::Abs;
        r.cooldown = cooldown;
        if (PyFloat_Check(min_lr.ptr()) || PyLong_Check(min_lr.ptr())) r.min_lr = min_lr.cast<double>();
        else r.min_lrs = min_lr.cast<std::vector<double>>();
        r.eps = eps;
        return std::make_shared<optim::ReduceLROnPlateau>(opt, r);
      }), py::arg("optimizer"), py::arg("mode") = "min", py::arg("factor") = 0.1, py::arg("patience") = 10,
         py::arg("threshold") = 1e-4, py::arg("threshold_mode") = "rel", py::arg("cooldown") = 0,
         py::arg("min_lr") = 0.0, py::arg("eps") = 1e-8, alive)
      .def("step", [](optim::ReduceLROnPlateau& s, py::handle metrics) {
        s.step(py::isinstance<Tensor>(metrics) ? metrics.cast<Tensor>().item<double>() : metrics.cast<double>());
      }, py::arg("metrics"))
      .def("get_last_lr", &optim::ReduceLROnPlateau::get_last_lr)
      .def_property_readonly("last_epoch", &optim::ReduceLROnPlateau::last_epoch)
      .def_property_readonly("best", &optim::ReduceLROnPlateau::best)
      .def_property_readonly("num_bad_epochs", &optim::ReduceLROnPlateau::num_bad_epochs)
      .def("state_dict", [](const optim::ReduceLROnPlateau& s) { return value_to_py(io::to_value(s)); })
      .def("load_state_dict", [](optim::ReduceLROnPlateau& s, py::handle state) {
        io::load_into(s, py_to_value(state));
      }, py::arg("state_dict"));

  bind_optimizer_api(o);
  bind_swa_utils(o);
}

}  // namespace ember::python
