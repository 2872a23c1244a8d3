// Conv3d, ConvTranspose1d and ConvTranspose3d of ember._C.nn (nn/conv.h) and their functional
// forms ember.conv3d, conv_transpose1d, conv_transpose3d (nn/conv_functional.h), with torch's
// signatures: sizes as an int or a tuple, padding also "valid" / "same" for conv3d, device= and
// dtype= for the layers.
#include <pybind11/stl.h>

#include "ember/nn/conv.h"
#include "ember/nn/conv_functional.h"
#include "layer_binding.h"

namespace ember::python {
namespace {

using namespace pybind11::literals;
namespace F = nn::functional;

// A 3-D size as its tuple, a 1-D one as a 1-tuple (PyTorch's _single / _triple).
py::tuple sizes(Size3 s) { return py::make_tuple(s.d, s.h, s.w); }
py::tuple sizes(int64_t s) { return py::make_tuple(s); }

template <typename M, typename Cls>
void transposed(Cls& cls) {
  cls.def_property_readonly("in_channels", [](const M& m) { return m.options().in_channels; })
      .def_property_readonly("out_channels", [](const M& m) { return m.options().out_channels; })
      .def_property_readonly("kernel_size", [](const M& m) { return sizes(m.options().kernel_size); })
      .def_property_readonly("stride", [](const M& m) { return sizes(m.options().stride); })
      .def_property_readonly("padding", [](const M& m) { return sizes(m.options().padding); })
      .def_property_readonly("output_padding", [](const M& m) { return sizes(m.options().output_padding); })
      .def_property_readonly("dilation", [](const M& m) { return sizes(m.options().dilation); })
      .def_property_readonly("groups", [](const M& m) { return m.options().groups; })
      .def_property_readonly("padding_mode", [](const M&) { return "zeros"; })
      .def_property_readonly(
          "bias", [](const M& m) { return bias_of(m); },
          "The bias parameter, or None for a layer built with bias=False.")
      .def("reset_parameters", &M::reset_parameters)
      .def(
          "forward",
          [](M& m, const Tensor& input, const py::object& output_size) {
            if (output_size.is_none()) return without_gil([&] { return m.forward(input); });
            std::vector<int64_t> size = output_size.cast<std::vector<int64_t>>();
            return without_gil([&] { return m.forward(input, size); });
          },
          "input"_a, "output_size"_a = py::none(),
          "The transposed convolution; output_size (the spatial sizes or the whole shape) picks the output_padding.");
}

void check_zeros(const char* layer, const std::string& padding_mode) {
  EMBER_CHECK_VALUE(padding_mode == "zeros", layer, ": only padding_mode='zeros' is supported, got '", padding_mode,
                    "' (as in PyTorch)");
}

}  // namespace

void bind_conv_layers(py::module_& nn) {
  Layer<nn::Conv3d> conv3d(nn, "Conv3d", "3-D convolution over [N, C, D, H, W] (torch.nn.Conv3d).");
  conv3d
      .def(
          layer_init_placed<nn::Conv3d>([](int64_t in, int64_t out, Size3 kernel, Size3 stride, py::object padding,
                                           Size3 dilation, int64_t groups, bool bias, const std::string& padding_mode) {
            nn::Conv3dOptions o{in, out, kernel, stride, 0, dilation, groups, bias, padding_mode};
            if (py::isinstance<py::str>(padding))
              o.padding_rule = padding_rule(padding.cast<std::string>(), "Conv3d");
            else
              o.padding = padding.cast<Size3>();
            return o;
          }),
          "in_channels"_a, "out_channels"_a, "kernel_size"_a, "stride"_a = 1, "padding"_a = 0, "dilation"_a = 1,
          "groups"_a = 1, "bias"_a = true, "padding_mode"_a = "zeros", "device"_a = py::none(), "dtype"_a = py::none())
      .def_property_readonly("in_channels", [](const nn::Conv3d& m) { return m.options().in_channels; })
      .def_property_readonly("out_channels", [](const nn::Conv3d& m) { return m.options().out_channels; })
      .def_property_readonly("kernel_size", [](const nn::Conv3d& m) { return sizes(m.options().kernel_size); })
      .def_property_readonly("stride", [](const nn::Conv3d& m) { return sizes(m.options().stride); })
      .def_property_readonly(
          "padding",
          [](const nn::Conv3d& m) -> py::object {
            const auto& rule = m.options().padding_rule;
            return rule ? py::str(padding_rule_name(*rule)) : py::object(sizes(m.options().padding));
          },
          "(d, h, w), or 'same' / 'valid' when given by name.")
      .def_property_readonly("dilation", [](const nn::Conv3d& m) { return sizes(m.options().dilation); })
      .def_property_readonly("groups", [](const nn::Conv3d& m) { return m.options().groups; })
      .def_property_readonly("padding_mode", [](const nn::Conv3d& m) { return m.options().padding_mode; })
      .def_property_readonly(
          "bias", [](const nn::Conv3d& m) { return bias_of(m); },
          "The bias parameter, or None for a layer built with bias=False.")
      .def("reset_parameters", &nn::Conv3d::reset_parameters);

  Layer<nn::ConvTranspose1d> t1(nn, "ConvTranspose1d",
                                "Transposed 1-D convolution over [N, C, L] (torch.nn.ConvTranspose1d).");
  t1.def(layer_init_placed<nn::ConvTranspose1d>([](int64_t in, int64_t out, py::object kernel, py::object stride,
                                                   py::object padding, py::object output_padding, int64_t groups,
                                                   bool bias, py::object dilation, const std::string& padding_mode) {
           check_zeros("ConvTranspose1d", padding_mode);
           const char* l = "ConvTranspose1d";
           return nn::ConvTranspose1dOptions{in,
                                             out,
                                             size1(kernel, l, "kernel_size"),
                                             size1(stride, l, "stride"),
                                             size1(padding, l, "padding"),
                                             size1(output_padding, l, "output_padding"),
                                             groups,
                                             bias,
                                             size1(dilation, l, "dilation")};
         }),
         "in_channels"_a, "out_channels"_a, "kernel_size"_a, "stride"_a = 1, "padding"_a = 0, "output_padding"_a = 0,
         "groups"_a = 1, "bias"_a = true, "dilation"_a = 1, "padding_mode"_a = "zeros", "device"_a = py::none(),
         "dtype"_a = py::none());
  transposed<nn::ConvTranspose1d>(t1);

  Layer<nn::ConvTranspose3d> t3(nn, "ConvTranspose3d",
                                "Transposed 3-D convolution over [N, C, D, H, W] (torch.nn.ConvTranspose3d).");
  t3.def(layer_init_placed<nn::ConvTranspose3d>([](int64_t in, int64_t out, Size3 kernel, Size3 stride, Size3 padding,
                                                   Size3 output_padding, int64_t groups, bool bias, Size3 dilation,
                                                   const std::string& padding_mode) {
           check_zeros("ConvTranspose3d", padding_mode);
           return nn::ConvTranspose3dOptions{in, out, kernel, stride, padding, output_padding, groups, bias, dilation};
         }),
         "in_channels"_a, "out_channels"_a, "kernel_size"_a, "stride"_a = 1, "padding"_a = 0, "output_padding"_a = 0,
         "groups"_a = 1, "bias"_a = true, "dilation"_a = 1, "padding_mode"_a = "zeros", "device"_a = py::none(),
         "dtype"_a = py::none());
  transposed<nn::ConvTranspose3d>(t3);
}

void bind_conv3d_ops(py::module_& m) {
  m.def(
      "conv3d",
      [](const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, Size3 stride,
         const py::object& padding, Size3 dilation, int64_t groups) {
        Tensor b = bias.value_or(Tensor());
        if (py::isinstance<py::str>(padding)) {
          PaddingRule rule = padding_rule(padding.cast<std::string>(), "conv3d");
          return without_gil([&] { return F::conv3d(input, weight, b, stride, rule, dilation, groups); });
        }
        Size3 p = padding.cast<Size3>();
        return without_gil([&] { return F::conv3d(input, weight, b, stride, p, dilation, groups); });
      },
      "input"_a, "weight"_a, "bias"_a = py::none(), "stride"_a = 1, "padding"_a = 0, "dilation"_a = 1, "groups"_a = 1,
      "3-D cross-correlation of [N, C, D, H, W] (or [C, D, H, W]) with weight [O, C / groups, kD, kH, kW]; padding may "
      "also be \"valid\" or \"same\".");
  m.def(
      "conv_transpose1d",
      [](const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, py::object stride,
         py::object padding, py::object output_padding, int64_t groups, py::object dilation) {
        const char* op = "conv_transpose1d";
        int64_t s = size1(stride, op, "stride"), p = size1(padding, op, "padding"),
                op_ = size1(output_padding, op, "output_padding"), d = size1(dilation, op, "dilation");
        return without_gil(
            [&] { return F::conv_transpose1d(input, weight, bias.value_or(Tensor()), s, p, op_, groups, d); });
      },
      "input"_a, "weight"_a, "bias"_a = py::none(), "stride"_a = 1, "padding"_a = 0, "output_padding"_a = 0,
      "groups"_a = 1, "dilation"_a = 1,
      "The transposed 1-D convolution of [N, Cin, L] (or [Cin, L]) with weight [Cin, Cout / groups, k].");
  m.def(
      "conv_transpose3d",
      [](const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, Size3 stride, Size3 padding,
         Size3 output_padding, int64_t groups, Size3 dilation) {
        return without_gil([&] {
          return F::conv_transpose3d(input, weight, bias.value_or(Tensor()), stride, padding, output_padding, groups,
                                     dilation);
        });
      },
      "input"_a, "weight"_a, "bias"_a = py::none(), "stride"_a = 1, "padding"_a = 0, "output_padding"_a = 0,
      "groups"_a = 1, "dilation"_a = 1,
      "The transposed 3-D convolution of [N, Cin, D, H, W] (or 4-D) with weight [Cin, Cout / groups, kD, kH, kW].");
}

}  // namespace ember::python
