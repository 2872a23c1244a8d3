// ember._C.optim's swa_utils (optim/swa_utils.h) with torch.optim.swa_utils' signatures:
// AveragedModel deep-copies the model it is given (copy.deepcopy, as PyTorch) and runs the copy's
// Python forward; update_bn iterates a Python loader; SWALR is an LRScheduler like the others.
#include "ember/optim/swa_utils.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "ember/autograd/grad_mode.h"
#include "layer_binding.h"

namespace ember::python {
namespace {

using optim::AveragedModel;

// A loader's batch as update_bn takes it: the batch itself, or the first entry of a list or tuple.
py::object input_of(py::handle batch) {
  if (py::isinstance<py::list>(batch) || py::isinstance<py::tuple>(batch)) return batch[py::int_(0)];
  return py::reinterpret_borrow<py::object>(batch);
}

optim::AnnealStrategy anneal_strategy_of(const std::string& name) {
  if (name == "cos") return optim::AnnealStrategy::Cos;
  if (name == "linear") return optim::AnnealStrategy::Linear;
  throw ember::ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got " + name);
}

}  // namespace

void bind_swa_utils(py::module_& o) {
  o.def("get_ema_multi_avg_fn", &optim::get_ema_multi_avg_fn, py::arg("decay") = 0.999,
        "multi_avg_fn(averaged, current, num_averaged) of an exponential moving average.");
  o.def("get_ema_avg_fn", &optim::get_ema_avg_fn, py::arg("decay") = 0.999,
        "avg_fn(averaged, current, num_averaged) of an exponential moving average.");
  o.def("get_swa_multi_avg_fn", &optim::get_swa_multi_avg_fn, "multi_avg_fn of the running mean.");
  o.def("get_swa_avg_fn", &optim::get_swa_avg_fn, "avg_fn of the running mean.");

  py::class_<AveragedModel, nn::Module, std::shared_ptr<AveragedModel>>(o, "AveragedModel", R"doc(
torch.optim.swa_utils.AveragedModel: a deep copy of `model` whose parameters (and buffers, with
use_buffers) average those update_parameters(model) has seen: the running mean, or avg_fn's or
multi_avg_fn's average. n_averaged is a buffer; forward calls the copy.)doc")
      .def(py::init([](py::handle model, py::object device, std::optional<optim::AvgFn> avg_fn,
                       std::optional<optim::MultiAvgFn> multi_avg_fn, bool use_buffers) {
             hold_module(model);            // a TypeError naming what it got, before the copy
             if (avg_fn && multi_avg_fn) {  // NB: torch asserts it
               PyErr_SetString(PyExc_AssertionError, "Only one of avg_fn and multi_avg_fn should be provided");
               throw py::error_already_set();
             }
             py::object copy = py::module_::import("copy").attr("deepcopy")(model);
             optim::AveragedModelOptions options{.device = std::nullopt,
                                                 .avg_fn = avg_fn.value_or(nullptr),
                                                 .multi_avg_fn = multi_avg_fn.value_or(nullptr),
                                                 .use_buffers = use_buffers};
             if (!device.is_none()) options.device = device_of(device);
             return std::make_shared<AveragedModel>(hold_module(copy), std::move(options));
           }),
           py::arg("model"), py::arg("device") = py::none(), py::arg("avg_fn") = py::none(),
           py::arg("multi_avg_fn") = py::none(), py::arg("use_buffers") = false)
      .def(
          "forward",
          [](py::object self, py::args args, py::kwargs kwargs) { return self.attr("module")(*args, **kwargs); },
          "The averaged copy's forward.")
      .def(
          "update_parameters", [](AveragedModel& m, py::handle model) { m.update_parameters(*hold_module(model)); },
          py::arg("model"), "Folds model's current parameters into the average (the first call copies them).")
      .def(
          "__deepcopy__",
          [](py::handle self, py::dict memo) {
            // A built-in layer is copied through its saved architecture, which AveragedModel (holding
            // any module, Python ones too) has none of: the copy averages into a copy of the module.
            const auto& m = self.cast<const AveragedModel&>();
            py::object module = py::module_::import("copy").attr("deepcopy")(self.attr("module"), memo);
            auto out = std::make_shared<AveragedModel>(hold_module(module), m.options());
            NoGradGuard no_grad;
            Tensor(out->buffer("n_averaged")).copy_(m.buffer("n_averaged"));
            out->train(m.is_training());
            return out;
          },
          py::arg("memo"))
      .def_property_readonly("use_buffers", [](const AveragedModel& m) { return m.options().use_buffers; })
      .def_property_readonly("avg_fn",
                             [](const AveragedModel& m) -> std::optional<optim::AvgFn> {
                               if (!m.options().avg_fn) return std::nullopt;
                               return m.options().avg_fn;
                             })
      .def_property_readonly("multi_avg_fn", [](const AveragedModel& m) -> std::optional<optim::MultiAvgFn> {
        if (!m.options().multi_avg_fn) return std::nullopt;
        return m.options().multi_avg_fn;
      });

  o.def(
      "update_bn",
      [](py::iterable loader, py::handle model, py::object device) {
        std::shared_ptr<nn::Module> m = hold_module(model);
        optim::update_bn(*m, [&] {
          for (py::handle batch : loader) {
            py::object input = input_of(batch);
            if (!device.is_none()) input = input.attr("to")(device);
            model(input);
          }
        });
      },
      py::arg("loader"), py::arg("model"), py::arg("device") = py::none(), R"doc(
Recomputes the batch-norm running statistics of `model` with one pass over `loader` (batches, or
tuples whose first entry is the input): each becomes the average over the batches of the batch's
mean and unbiased variance, as torch's.)doc");

  py::class_<optim::SWALR, optim::LRScheduler, std::shared_ptr<optim::SWALR>>(o, "SWALR", R"doc(
torch.optim.swa_utils.SWALR: anneals each group's lr to its swa_lr (stored in the group) over
anneal_epochs steps, by "cos" or "linear", then holds it. Building it takes the first step.)doc")
      .def(py::init([](optim::Optimizer& optimizer, py::object swa_lr, int64_t anneal_epochs,
                       const std::string& anneal_strategy, int64_t last_epoch) {
             EMBER_CHECK_VALUE(last_epoch == -1,
                               "SWALR: last_epoch other than -1 is not supported (resume with load_state_dict)");
             std::vector<double> lrs = py::isinstance<py::list>(swa_lr) || py::isinstance<py::tuple>(swa_lr)
                                           ? swa_lr.cast<std::vector<double>>()
                                           : std::vector<double>{swa_lr.cast<double>()};
             return std::make_shared<optim::SWALR>(optimizer, std::move(lrs), anneal_epochs,
                                                   anneal_strategy_of(anneal_strategy));
           }),
           py::arg("optimizer"), py::arg("swa_lr"), py::arg("anneal_epochs") = 10, py::arg("anneal_strategy") = "cos",
           py::arg("last_epoch") = -1, py::keep_alive<1, 2>())
      .def_property_readonly("anneal_epochs", &optim::SWALR::anneal_epochs)
      .def_property_readonly("anneal_strategy", [](const optim::SWALR& s) {
        return s.anneal_strategy() == optim::AnnealStrategy::Cos ? "cos" : "linear";
      });
}

}  // namespace ember::python
