// The activation layers of ember._C.nn beyond nn.cpp's (SiLU, ELU, Softplus, GLU, ...), with
// PyTorch's constructors (inplace accepted: Ember returns a new tensor, of the same value), their
// options as attributes, and their functional forms in ember._C.nn.functional.
#include <pybind11/stl.h>

#include "ember/nn/activation_layers.h"
#include "layer_binding.h"

namespace ember::python {
namespace {

using namespace pybind11::literals;
namespace F = nn::functional;

// A layer without options: M(inplace=False) or M().
template <typename M>
void plain(py::module_& nn, const char* name, const char* doc, bool takes_inplace) {
  auto cls = layer_with_fields<M>(nn, name, doc);
  if (takes_inplace)
    cls.def(layer_init<M>([](bool) { return nn::NoOptions{}; }), "inplace"_a = false);
  else
    cls.def(layer_init<M>([]() { return nn::NoOptions{}; }));
}

int64_t required_dim(const std::optional<int64_t>& dim, const char* name) {
  EMBER_CHECK_VALUE(dim.has_value(), name, ": give dim (PyTorch's implicit choice is deprecated)");
  return *dim;
}

void bind_layers(py::module_& nn) {
  plain<nn::SiLU>(nn, "SiLU", "x * sigmoid(x) (torch.nn.SiLU).", true);
  plain<nn::Mish>(nn, "Mish", "x * tanh(softplus(x)) (torch.nn.Mish).", true);
  plain<nn::SELU>(nn, "SELU", "scale * elu(x, alpha), SELU's constants (torch.nn.SELU).", true);
  plain<nn::ReLU6>(nn, "ReLU6", "min(max(x, 0), 6) (torch.nn.ReLU6).", true);
  plain<nn::Hardsigmoid>(nn, "Hardsigmoid", "clamp(x / 6 + 1/2, 0, 1) (torch.nn.Hardsigmoid).", true);
  plain<nn::Hardswish>(nn, "Hardswish", "x * hardsigmoid(x) (torch.nn.Hardswish).", true);
  plain<nn::Softsign>(nn, "Softsign", "x / (1 + |x|) (torch.nn.Softsign).", false);
  plain<nn::Tanhshrink>(nn, "Tanhshrink", "x - tanh(x) (torch.nn.Tanhshrink).", false);
  plain<nn::LogSigmoid>(nn, "LogSigmoid", "log(sigmoid(x)) (torch.nn.LogSigmoid).", false);
  plain<nn::Softmax2d>(nn, "Softmax2d", "softmax over the channels of [N, C, H, W] or [C, H, W] input.", false);
  layer_with_fields<nn::ELU>(nn, "ELU", "x where > 0, else alpha (e^x - 1) (torch.nn.ELU).")
      .def(layer_init<nn::ELU>([](double alpha, bool) { return nn::ELUOptions{alpha}; }), "alpha"_a = 1.0,
           "inplace"_a = false);
  layer_with_fields<nn::CELU>(nn, "CELU", "x where > 0, else alpha (e^(x / alpha) - 1) (torch.nn.CELU).")
      .def(layer_init<nn::CELU>([](double alpha, bool) { return nn::CELUOptions{alpha}; }), "alpha"_a = 1.0,
           "inplace"_a = false);
  layer_with_fields<nn::Softplus>(nn, "Softplus",
                                  "log(1 + e^(beta x)) / beta, linear past threshold (torch.nn.Softplus).")
      .def(layer_init<nn::Softplus>([](double beta, double threshold) {
             return nn::SoftplusOptions{beta, threshold};
           }),
           "beta"_a = 1.0, "threshold"_a = 20.0);
  layer_with_fields<nn::Hardtanh>(nn, "Hardtanh", "x clamped to [min_val, max_val] (torch.nn.Hardtanh).")
      .def(layer_init<nn::Hardtanh>(
               [](double lo, double hi, bool, std::optional<double> min_value, std::optional<double> max_value) {
                 return nn::HardtanhOptions{min_value.value_or(lo), max_value.value_or(hi)};
               }),
           "min_val"_a = -1.0, "max_val"_a = 1.0, "inplace"_a = false, "min_value"_a = py::none(),
           "max_value"_a = py::none());
  layer_with_fields<nn::Threshold>(nn, "Threshold", "value where x <= threshold, else x (torch.nn.Threshold).")
      .def(layer_init<nn::Threshold>([](double threshold, double value, bool) {
             return nn::ThresholdOptions{threshold, value};
           }),
           "threshold"_a, "value"_a, "inplace"_a = false);
  layer_with_fields<nn::GLU>(nn, "GLU", "a * sigmoid(b) for the halves a, b of the input along dim (torch.nn.GLU).")
      .def(layer_init<nn::GLU>([](int64_t dim) { return nn::DimOptions{dim}; }), "dim"_a = -1);
  layer_with_fields<nn::LogSoftmax>(nn, "LogSoftmax", "log_softmax along dim (torch.nn.LogSoftmax).")
      .def(layer_init<nn::LogSoftmax>(
               [](std::optional<int64_t> dim) { return nn::DimOptions{required_dim(dim, "LogSoftmax")}; }),
           "dim"_a = py::none());
  layer_with_fields<nn::Softmin>(nn, "Softmin", "softmax(-x) along dim (torch.nn.Softmin).")
      .def(layer_init<nn::Softmin>(
               [](std::optional<int64_t> dim) { return nn::DimOptions{required_dim(dim, "Softmin")}; }),
           "dim"_a = py::none());
  layer_with_fields<nn::Softshrink>(nn, "Softshrink",
                                    "x -+ lambd outside [-lambd, lambd], 0 inside (torch.nn.Softshrink).")
      .def(layer_init<nn::Softshrink>([](double lambd) { return nn::ShrinkOptions{lambd}; }), "lambd"_a = 0.5);
  layer_with_fields<nn::Hardshrink>(nn, "Hardshrink", "x outside [-lambd, lambd], 0 inside (torch.nn.Hardshrink).")
      .def(layer_init<nn::Hardshrink>([](double lambd) { return nn::ShrinkOptions{lambd}; }), "lambd"_a = 0.5);
  layer_with_fields<nn::RReLU>(nn, "RReLU",
                               "Leaky ReLU with slopes from U(lower, upper) in training, their mean in eval.")
      .def(layer_init<nn::RReLU>([](double lower, double upper, bool) {
             return nn::RReLUOptions{lower, upper};
           }),
           "lower"_a = 1.0 / 8, "upper"_a = 1.0 / 3, "inplace"_a = false);
}

void bind_functions(py::module_& f) {
  f.def(
      "silu", [](const Tensor& x, bool) { return F::silu(x); }, "input"_a, "inplace"_a = false);
  f.def(
      "mish", [](const Tensor& x, bool) { return F::mish(x); }, "input"_a, "inplace"_a = false);
  f.def(
      "elu", [](const Tensor& x, double alpha, bool) { return F::elu(x, alpha); }, "input"_a, "alpha"_a = 1.0,
      "inplace"_a = false);
  f.def(
      "celu", [](const Tensor& x, double alpha, bool) { return F::celu(x, alpha); }, "input"_a, "alpha"_a = 1.0,
      "inplace"_a = false);
  f.def(
      "selu", [](const Tensor& x, bool) { return F::selu(x); }, "input"_a, "inplace"_a = false);
  f.def("softplus", &F::softplus, "input"_a, "beta"_a = 1.0, "threshold"_a = 20.0);
  f.def(
      "relu6", [](const Tensor& x, bool) { return F::relu6(x); }, "input"_a, "inplace"_a = false);
  f.def(
      "hardsigmoid", [](const Tensor& x, bool) { return F::hardsigmoid(x); }, "input"_a, "inplace"_a = false);
  f.def(
      "hardswish", [](const Tensor& x, bool) { return F::hardswish(x); }, "input"_a, "inplace"_a = false);
  f.def("softsign", &F::softsign, "input"_a);
  f.def(
      "softmin",
      [](const Tensor& x, std::optional<int64_t> dim, int, std::optional<DType> dtype) {
        return F::softmin(x, required_dim(dim, "softmin"), dtype);
      },
      "input"_a, "dim"_a = py::none(), "_stacklevel"_a = 3, "dtype"_a = py::none());
  f.def("glu", &F::glu, "input"_a, "dim"_a = -1);
  f.def(
      "threshold",
      [](const Tensor& x, double threshold, double value, bool) { return F::threshold(x, threshold, value); },
      "input"_a, "threshold"_a, "value"_a, "inplace"_a = false);
  f.def("tanhshrink", &F::tanhshrink, "input"_a);
  f.def("softshrink", &F::softshrink, "input"_a, "lambd"_a = 0.5);
  f.def("hardshrink", &F::hardshrink, "input"_a, "lambd"_a = 0.5);
  f.def(
      "rrelu",
      [](const Tensor& x, double lower, double upper, bool training, bool) {
        return F::rrelu(x, lower, upper, training);
      },
      "input"_a, "lower"_a = 1.0 / 8, "upper"_a = 1.0 / 3, "training"_a = false, "inplace"_a = false);
}

}  // namespace

void bind_activation_layers(py::module_& nn) { bind_layers(nn); }
void bind_activation_functions(py::module_& functional) { bind_functions(functional); }

}  // namespace ember::python
