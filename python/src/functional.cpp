// ember._C.nn.functional (linear and the losses, with PyTorch's keywords; the other functional
// forms are ember's ops, which python/ember/nn/functional.py re-exports) and ember._C.nn.init.
#include "bindings.h"

#include <pybind11/stl.h>

#include <string>

#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/loss.h"

namespace ember::python {
namespace {

using nn::functional::Reduction;

Reduction reduction_of(const std::string& r) {
  if (r == "mean") return Reduction::Mean;
  if (r == "sum") return Reduction::Sum;
  if (r == "none") return Reduction::None;
  throw ember::ValueError("reduction must be 'mean', 'sum' or 'none', got '" + r + "'");
}

nn::init::FanMode fan_mode_of(const std::string& mode) {
  if (mode == "fan_in") return nn::init::FanMode::FanIn;
  if (mode == "fan_out") return nn::init::FanMode::FanOut;
  throw ember::ValueError("mode must be 'fan_in' or 'fan_out', got '" + mode + "'");
}

void bind_functional_forms(py::module_& f) {
  namespace F = nn::functional;
  f.def("linear", [](const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
    return F::linear(x, w, b.value_or(Tensor()));
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::call_guard<py::gil_scoped_release>(),
        "input @ weight^T + bias.");
  f.def("cross_entropy", [](const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                            int64_t ignore_index, const std::string& reduction, double label_smoothing) {
    return F::cross_entropy(input, target, ignore_index, reduction_of(reduction), label_smoothing,
                            weight.value_or(Tensor()));
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("ignore_index") = -100,
        py::arg("reduction") = "mean", py::arg("label_smoothing") = 0.0,
        "-log_softmax(input)[target] for class indices target (int64), or against class probabilities (a "
        "floating target of input's shape); weight gives each class's weight (then \"mean\" divides by the "
        "weights of the counted targets), label_smoothing mixes in the uniform distribution, as PyTorch.");
  f.def("nll_loss", [](const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                       int64_t ignore_index, const std::string& reduction) {
    return F::nll_loss(input, target, ignore_index, reduction_of(reduction), weight.value_or(Tensor()));
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("ignore_index") = -100,
        py::arg("reduction") = "mean",
        "-weight[target] * input[target] for log-probabilities input; weight as in cross_entropy.");
  f.def("mse_loss", [](const Tensor& input, const Tensor& target, const std::string& reduction) {
    return F::mse_loss(input, target, reduction_of(reduction));
  }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean");
  f.def("l1_loss", [](const Tensor& input, const Tensor& target, const std::string& reduction) {
    return F::l1_loss(input, target, reduction_of(reduction));
  }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean");
  f.def("smooth_l1_loss", [](const Tensor& input, const Tensor& target, const std::string& reduction,
                             double beta) {
    return F::smooth_l1_loss(input, target, reduction_of(reduction), beta);
  }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("beta") = 1.0);
  f.def("binary_cross_entropy_with_logits", [](const Tensor& input, const Tensor& target,
                                               const std::optional<Tensor>& weight, const std::string& reduction,
                                               const std::optional<Tensor>& pos_weight) {
    return F::binary_cross_entropy_with_logits(input, target, pos_weight.value_or(Tensor()),
                                               reduction_of(reduction), weight.value_or(Tensor()));
  }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = "mean",
        py::arg("pos_weight") = py::none());
}

void bind_init(py::module_& i) {
  namespace I = nn::init;
  i.def("calculate_gain", [](const std::string& nl, std::optional<double> param) {
    return I::calculate_gain(nl, param.value_or(0.01));
  }, py::arg("nonlinearity"), py::arg("param") = py::none());
  i.def("_calculate_fan_in_and_fan_out", [](const Tensor& t) { return I::fan_in_and_fan_out(t, "_calculate_fan_in_and_fan_out"); },
        py::arg("tensor"));
  i.def("uniform_", [](Tensor t, double a, double b, Generator* g) { return I::uniform_(t, a, b, g); },
        py::arg("tensor"), py::arg("a") = 0.0, py::arg("b") = 1.0, py::arg("generator") = py::none());
  i.def("normal_", [](Tensor t, double mean, double std, Generator* g) { return I::normal_(t, mean, std, g); },
        py::arg("tensor"), py::arg("mean") = 0.0, py::arg("std") = 1.0, py::arg("generator") = py::none());
  i.def("constant_", [](Tensor t, double v) { return I::constant_(t, v); }, py::arg("tensor"), py::arg("val"));
  i.def("zeros_", [](Tensor t) { return I::zeros_(t); }, py::arg("tensor"));
  i.def("ones_", [](Tensor t) { return I::ones_(t); }, py::arg("tensor"));
  i.def("xavier_uniform_", [](Tensor t, double gain, Generator* g) { return I::xavier_uniform_(t, gain, g); },
        py::arg("tensor"), py::arg("gain") = 1.0, py::arg("generator") = py::none());
  i.def("xavier_normal_", [](Tensor t, double gain, Generator* g) { return I::xavier_normal_(t, gain, g); },
        py::arg("tensor"), py::arg("gain") = 1.0, py::arg("generator") = py::none());
  i.def("kaiming_uniform_", [](Tensor t, double a, const std::string& mode, const std::string& nl, Generator* g) {
    return I::kaiming_uniform_(t, a, fan_mode_of(mode), nl, g);
  }, py::arg("tensor"), py::arg("a") = 0.0, py::arg("mode") = "fan_in", py::arg("nonlinearity") = "leaky_relu",
        py::arg("generator") = py::none());
  i.def("kaiming_normal_", [](Tensor t, double a, const std::string& mode, const std::string& nl, Generator* g) {
    return I::kaiming_normal_(t, a, fan_mode_of(mode), nl, g);
  }, py::arg("tensor"), py::arg("a") = 0.0, py::arg("mode") = "fan_in", py::arg("nonlinearity") = "leaky_relu",
        py::arg("generator") = py::none());
  i.def("trunc_normal_", [](Tensor t, double mean, double std, double a, double b, Generator* g) {
    return I::trunc_normal_(t, mean, std, a, b, g);
  }, py::arg("tensor"), py::arg("mean") = 0.0, py::arg("std") = 1.0, py::arg("a") = -2.0, py::arg("b") = 2.0,
        py::arg("generator") = py::none());
}

}  // namespace

void bind_functional(py::module_& m) {
  py::module_ nn = m.attr("nn").cast<py::module_>();
  py::module_ functional = nn.def_submodule("functional", "linear and the losses (torch.nn.functional's)");
  bind_functional_forms(functional);
  py::module_ init = nn.def_submodule("init", "parameter initialisation, in place (torch.nn.init)");
  bind_init(init);
}

}  // namespace ember::python
