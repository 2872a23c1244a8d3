// The convolution and pooling ops whose Python signatures differ from C++'s (python = "custom" in
// the op table): conv2d and conv1d take padding as a number, a pair or a name ("valid", "same");
// adaptive_max_pool2d returns the positions too with return_indices=True.
#include <pybind11/stl.h>

#include "bindings.h"
#include "ember/ops/ops.h"

namespace ember::python {

int64_t size1(const py::handle& v, const char* op, const char* name) {
  if (PyIndex_Check(v.ptr())) return v.cast<int64_t>();
  auto values = v.cast<std::vector<int64_t>>();
  EMBER_CHECK_VALUE(values.size() == 1, op, ": ", name, " must be an int or a 1-element sequence, got ",
                    values.size(), " values");
  return values[0];
}

void bind_conv_ops(py::module_& m) {
  m.def("conv2d", [](const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     const py::object& stride, const py::object& padding, const py::object& dilation,
                     int64_t groups) {
    Size2 s = size2(stride), d = size2(dilation);
    Tensor b = bias.value_or(Tensor());
    if (py::isinstance<py::str>(padding)) {
      PaddingRule rule = padding_rule(padding.cast<std::string>(), "conv2d");
      return without_gil([&] { return ember::conv2d(input, weight, b, s, rule, d, groups); });
    }
    Size2 p = size2(padding);
    return without_gil([&] { return ember::conv2d(input, weight, b, s, p, d, groups); });
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
        py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("groups") = 1,
        R"doc(2-D cross-correlation of [N, C, H, W] (or [C, H, W]) with weight [O, C / groups, kH, kW] and optional bias [O]; padding may also be "valid" or "same".)doc");
  m.def("conv1d", [](const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     const py::object& stride, const py::object& padding, const py::object& dilation,
                     int64_t groups) {
    int64_t s = size1(stride, "conv1d", "stride"), d = size1(dilation, "conv1d", "dilation");
    Tensor b = bias.value_or(Tensor());
    if (py::isinstance<py::str>(padding)) {
      PaddingRule rule = padding_rule(padding.cast<std::string>(), "conv1d");
      return without_gil([&] { return ember::conv1d(input, weight, b, s, rule, d, groups); });
    }
    int64_t p = size1(padding, "conv1d", "padding");
    return without_gil([&] { return ember::conv1d(input, weight, b, s, p, d, groups); });
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
        py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("groups") = 1,
        R"doc(1-D cross-correlation of [N, C, L] (or [C, L]) with weight [O, C / groups, k] and optional bias [O]; padding may also be "valid" or "same".)doc");
  m.def("adaptive_max_pool2d", [](const Tensor& input, const py::object& output_size,
                                  bool return_indices) -> py::object {
    Size2 size = size2(output_size);
    auto r = without_gil([&] { return ember::adaptive_max_pool2d_with_indices(input, size); });
    if (return_indices) return py::make_tuple(std::get<0>(r), std::get<1>(r));
    return py::cast(std::get<0>(r));
  }, py::arg("input"), py::arg("output_size"), py::arg("return_indices") = false,
        "Maxima over output_size windows that tile the input (and their flat positions with return_indices=True).");
}

}  // namespace ember::python
