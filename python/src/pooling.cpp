// The 1-D, 3-D and power-average pooling layers of ember._C.nn (nn/pool_layers.h) and their
// functional forms, with torch's signatures: sizes as an int or a tuple, stride=None for the
// kernel size, return_indices=True returning (maxima, positions).
#include <pybind11/stl.h>

#include "ember/nn/pool_layers.h"
#include "layer_binding.h"

namespace ember::python {
namespace {

using namespace pybind11::literals;
namespace F = nn::functional;

// An unset stride (None, or PyTorch's []): the kernel size.
std::optional<int64_t> stride1(const py::handle& v, const char* op) {
  if (v.is_none() || (py::isinstance<py::sequence>(v) && py::len(v) == 0)) return std::nullopt;
  return size1(v, op, "stride");
}
// A 3-D size: an int, or a sequence of 1 or 3 ints, with PyTorch's error naming the op and argument.
Size3 size3(const py::handle& v, const char* op, const char* name) {
  if (PyIndex_Check(v.ptr())) return Size3(v.cast<int64_t>());
  auto values = v.cast<std::vector<int64_t>>();
  EMBER_CHECK(values.size() == 1 || values.size() == 3, op, ": ", name,
              " must either be a single int, or a tuple of three ints");
  return values.size() == 1 ? Size3(values[0]) : Size3(values[0], values[1], values[2]);
}
std::optional<Size3> stride3(const py::handle& v, const char* op) {
  if (v.is_none() || (py::isinstance<py::sequence>(v) && py::len(v) == 0)) return std::nullopt;
  return size3(v, op, "stride");
}
// An adaptive 3-D output size: an int, or a triple whose None keeps that dim (-1).
Size3 adaptive_size3(const py::handle& v, const char* op) {
  if (!py::isinstance<py::sequence>(v)) return size3(v, op, "output_size");
  auto items = v.cast<std::vector<std::optional<int64_t>>>();
  EMBER_CHECK(items.size() == 3, op, ": output_size must be 3");
  return {items[0].value_or(-1), items[1].value_or(-1), items[2].value_or(-1)};
}

py::object maybe_indices(std::tuple<Tensor, Tensor> r, bool return_indices) {
  if (return_indices) return py::make_tuple(std::get<0>(r), std::get<1>(r));
  return py::cast(std::get<0>(r));
}

// forward returning (maxima, positions) when the layer was built with return_indices=True.
template <typename M, typename Cls>
void forward_with_indices(Cls& cls) {
  cls.def(
      "forward",
      [](M& m, const Tensor& input) {
        return maybe_indices(without_gil([&] { return m.forward_with_indices(input); }), m.options().return_indices);
      },
      "input"_a, "The maxima, and their flat positions with return_indices=True.");
}

}  // namespace

void bind_pool_layers(py::module_& nn) {
  auto max1 = layer_with_fields<nn::MaxPool1d>(nn, "MaxPool1d", "Max pooling along the last dim (torch.nn.MaxPool1d).");
  max1.def(
      layer_init<nn::MaxPool1d>([](py::object k, py::object s, py::object p, py::object d, bool indices, bool ceil) {
        return nn::MaxPool1dOptions{size1(k, "MaxPool1d", "kernel_size"),
                                    stride1(s, "MaxPool1d"),
                                    size1(p, "MaxPool1d", "padding"),
                                    size1(d, "MaxPool1d", "dilation"),
                                    indices,
                                    ceil};
      }),
      "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "dilation"_a = 1, "return_indices"_a = false,
      "ceil_mode"_a = false);
  forward_with_indices<nn::MaxPool1d>(max1);
  layer_with_fields<nn::AvgPool1d>(nn, "AvgPool1d", "Average pooling along the last dim (torch.nn.AvgPool1d).")
      .def(layer_init<nn::AvgPool1d>([](py::object k, py::object s, py::object p, bool ceil, bool include_pad) {
             return nn::AvgPool1dOptions{size1(k, "AvgPool1d", "kernel_size"), stride1(s, "AvgPool1d"),
                                         size1(p, "AvgPool1d", "padding"), ceil, include_pad};
           }),
           "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "ceil_mode"_a = false,
           "count_include_pad"_a = true);
  layer_with_fields<nn::AdaptiveAvgPool1d>(nn, "AdaptiveAvgPool1d",
                                           "Means over output_size windows tiling the last dim.")
      .def(layer_init<nn::AdaptiveAvgPool1d>([](py::object size) {
             return nn::AdaptiveAvgPoolOptions<int64_t>{size1(size, "AdaptiveAvgPool1d", "output_size")};
           }),
           "output_size"_a);
  auto amax1 = layer_with_fields<nn::AdaptiveMaxPool1d>(nn, "AdaptiveMaxPool1d",
                                                        "Maxima over output_size windows tiling the last dim.");
  amax1.def(layer_init<nn::AdaptiveMaxPool1d>([](py::object size, bool indices) {
              return nn::AdaptiveMaxPoolOptions<int64_t>{size1(size, "AdaptiveMaxPool1d", "output_size"), indices};
            }),
            "output_size"_a, "return_indices"_a = false);
  forward_with_indices<nn::AdaptiveMaxPool1d>(amax1);

  auto max3 =
      layer_with_fields<nn::MaxPool3d>(nn, "MaxPool3d", "Max pooling over [N, C, D, H, W] (torch.nn.MaxPool3d).");
  max3.def(
      layer_init<nn::MaxPool3d>([](py::object k, py::object s, py::object p, py::object d, bool indices, bool ceil) {
        const char* l = "MaxPool3d";
        return nn::MaxPool3dOptions{size3(k, l, "kernel_size"), stride3(s, l), size3(p, l, "padding"),
                                    size3(d, l, "dilation"),    indices,       ceil};
      }),
      "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "dilation"_a = 1, "return_indices"_a = false,
      "ceil_mode"_a = false);
  forward_with_indices<nn::MaxPool3d>(max3);
  layer_with_fields<nn::AvgPool3d>(nn, "AvgPool3d", "Average pooling over [N, C, D, H, W] (torch.nn.AvgPool3d).")
      .def(layer_init<nn::AvgPool3d>([](py::object k, py::object s, py::object p, bool ceil, bool include_pad,
                                        std::optional<int64_t> divisor) {
             const char* l = "AvgPool3d";
             return nn::AvgPool3dOptions{
                 size3(k, l, "kernel_size"), stride3(s, l), size3(p, l, "padding"), ceil, include_pad, divisor};
           }),
           "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "ceil_mode"_a = false,
           "count_include_pad"_a = true, "divisor_override"_a = py::none());
  auto avg3 = layer_with_fields<nn::AdaptiveAvgPool3d>(nn, "AdaptiveAvgPool3d",
                                                       "Means over output_size windows tiling D x H x W.");
  avg3.def(layer_init<nn::AdaptiveAvgPool3d>([](py::object size) {
             return nn::AdaptiveAvgPoolOptions<Size3>{adaptive_size3(size, "AdaptiveAvgPool3d")};
           }),
           "output_size"_a);
  auto amax3 = layer_with_fields<nn::AdaptiveMaxPool3d>(nn, "AdaptiveMaxPool3d",
                                                        "Maxima over output_size windows tiling D x H x W.");
  amax3.def(layer_init<nn::AdaptiveMaxPool3d>([](py::object size, bool indices) {
              return nn::AdaptiveMaxPoolOptions<Size3>{adaptive_size3(size, "AdaptiveMaxPool3d"), indices};
            }),
            "output_size"_a, "return_indices"_a = false);
  forward_with_indices<nn::AdaptiveMaxPool3d>(amax3);
  // output_size with None where a dim is kept (-1 in C++), as given to PyTorch's
  auto output_size3 = [](Size3 s) {
    auto one = [](int64_t v) { return v == -1 ? py::object(py::none()) : py::object(py::int_(v)); };
    return py::make_tuple(one(s.d), one(s.h), one(s.w));
  };
  avg3.def_property_readonly(
      "output_size", [output_size3](const nn::AdaptiveAvgPool3d& m) { return output_size3(m.options().output_size); });
  amax3.def_property_readonly(
      "output_size", [output_size3](const nn::AdaptiveMaxPool3d& m) { return output_size3(m.options().output_size); });

  layer_with_fields<nn::LPPool1d>(nn, "LPPool1d", "Power-average pooling along the last dim (torch.nn.LPPool1d).")
      .def(layer_init<nn::LPPool1d>([](double p, py::object k, py::object s, bool ceil) {
             return nn::LPPoolOptions<int64_t>{p, size1(k, "LPPool1d", "kernel_size"), stride1(s, "LPPool1d"), ceil};
           }),
           "norm_type"_a, "kernel_size"_a, "stride"_a = py::none(), "ceil_mode"_a = false);
  layer_with_fields<nn::LPPool2d>(nn, "LPPool2d", "Power-average pooling over [N, C, H, W] (torch.nn.LPPool2d).")
      .def(layer_init<nn::LPPool2d>([](double p, Size2 k, std::optional<Size2> s, bool ceil) {
             return nn::LPPoolOptions<Size2>{p, k, s, ceil};
           }),
           "norm_type"_a, "kernel_size"_a, "stride"_a = py::none(), "ceil_mode"_a = false);
  layer_with_fields<nn::LPPool3d>(nn, "LPPool3d", "Power-average pooling over [N, C, D, H, W] (torch.nn.LPPool3d).")
      .def(layer_init<nn::LPPool3d>([](double p, py::object k, py::object s, bool ceil) {
             return nn::LPPoolOptions<Size3>{p, size3(k, "LPPool3d", "kernel_size"), stride3(s, "LPPool3d"), ceil};
           }),
           "norm_type"_a, "kernel_size"_a, "stride"_a = py::none(), "ceil_mode"_a = false);
}

void bind_pool_functions(py::module_& f) {
  f.def(
      "max_pool1d",
      [](const Tensor& x, py::object k, py::object s, py::object p, py::object d, bool ceil, bool indices) {
        int64_t kk = size1(k, "max_pool1d", "kernel_size"), pp = size1(p, "max_pool1d", "padding"),
                dd = size1(d, "max_pool1d", "dilation");
        auto ss = stride1(s, "max_pool1d");
        return maybe_indices(without_gil([&] { return F::max_pool1d_with_indices(x, kk, ss, pp, dd, ceil); }), indices);
      },
      "input"_a, "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "dilation"_a = 1, "ceil_mode"_a = false,
      "return_indices"_a = false, "Window maxima along the last dim (and their positions, return_indices=True).");
  f.def(
      "avg_pool1d",
      [](const Tensor& x, py::object k, py::object s, py::object p, bool ceil, bool include_pad) {
        int64_t kk = size1(k, "avg_pool1d", "kernel_size"), pp = size1(p, "avg_pool1d", "padding");
        auto ss = stride1(s, "avg_pool1d");
        return without_gil([&] { return F::avg_pool1d(x, kk, ss, pp, ceil, include_pad); });
      },
      "input"_a, "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "ceil_mode"_a = false,
      "count_include_pad"_a = true, "Window means along the last dim.");
  f.def(
      "adaptive_avg_pool1d",
      [](const Tensor& x, py::object size) {
        return F::adaptive_avg_pool1d(x, size1(size, "adaptive_avg_pool1d", "output_size"));
      },
      "input"_a, "output_size"_a, "Means over output_size windows tiling the last dim.");
  f.def(
      "adaptive_max_pool1d",
      [](const Tensor& x, py::object size, bool indices) {
        return maybe_indices(F::adaptive_max_pool1d_with_indices(x, size1(size, "adaptive_max_pool1d", "output_size")),
                             indices);
      },
      "input"_a, "output_size"_a, "return_indices"_a = false, "Maxima over output_size windows tiling the last dim.");
  f.def(
      "lp_pool1d",
      [](const Tensor& x, double p, py::object k, py::object s, bool ceil) {
        return F::lp_pool1d(x, p, size1(k, "lp_pool1d", "kernel_size"), stride1(s, "lp_pool1d"), ceil);
      },
      "input"_a, "norm_type"_a, "kernel_size"_a, "stride"_a = py::none(), "ceil_mode"_a = false,
      "(sum over each window of x^p)^(1/p) along the last dim.");
  f.def("lp_pool2d", &F::lp_pool2d, "input"_a, "norm_type"_a, "kernel_size"_a, "stride"_a = py::none(),
        "ceil_mode"_a = false, "(sum over each window of x^p)^(1/p) over the last two dims.");
  f.def(
      "lp_pool3d",
      [](const Tensor& x, double p, py::object k, py::object s, bool ceil) {
        return F::lp_pool3d(x, p, size3(k, "lp_pool3d", "kernel_size"), stride3(s, "lp_pool3d"), ceil);
      },
      "input"_a, "norm_type"_a, "kernel_size"_a, "stride"_a = py::none(), "ceil_mode"_a = false,
      "(sum over each window of x^p)^(1/p) over the last three dims.");
  f.def(
      "max_pool3d",
      [](const Tensor& x, py::object k, py::object s, py::object p, py::object d, bool ceil, bool indices) {
        const char* op = "max_pool3d";
        Size3 kk = size3(k, op, "kernel_size"), pp = size3(p, op, "padding"), dd = size3(d, op, "dilation");
        auto ss = stride3(s, op);
        return maybe_indices(without_gil([&] { return F::max_pool3d_with_indices(x, kk, ss, pp, dd, ceil); }), indices);
      },
      "input"_a, "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "dilation"_a = 1, "ceil_mode"_a = false,
      "return_indices"_a = false, "Window maxima over the last three dims (and their flat D*H*W positions).");
  f.def(
      "avg_pool3d",
      [](const Tensor& x, py::object k, py::object s, py::object p, bool ceil, bool include_pad,
         std::optional<int64_t> divisor) {
        const char* op = "avg_pool3d";
        Size3 kk = size3(k, op, "kernel_size"), pp = size3(p, op, "padding");
        auto ss = stride3(s, op);
        return without_gil([&] { return F::avg_pool3d(x, kk, ss, pp, ceil, include_pad, divisor); });
      },
      "input"_a, "kernel_size"_a, "stride"_a = py::none(), "padding"_a = 0, "ceil_mode"_a = false,
      "count_include_pad"_a = true, "divisor_override"_a = py::none(), "Window means over the last three dims.");
  f.def(
      "adaptive_avg_pool3d",
      [](const Tensor& x, py::object size) {
        return F::adaptive_avg_pool3d(x, adaptive_size3(size, "adaptive_avg_pool3d"));
      },
      "input"_a, "output_size"_a, "Means over output_size windows tiling D x H x W (None keeps a dim).");
  f.def(
      "adaptive_max_pool3d",
      [](const Tensor& x, py::object size, bool indices) {
        return maybe_indices(F::adaptive_max_pool3d_with_indices(x, adaptive_size3(size, "adaptive_max_pool3d")),
                             indices);
      },
      "input"_a, "output_size"_a, "return_indices"_a = false,
      "Maxima over output_size windows tiling D x H x W (and their flat positions).");
}

}  // namespace ember::python
