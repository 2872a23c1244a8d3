// Upsample, UpsamplingNearest2d and UpsamplingBilinear2d of ember._C.nn and F.interpolate
// (nn/upsample.h), with torch's signatures: size an int or a tuple, scale_factor a float or a tuple.
#include "ember/nn/upsample.h"

#include <pybind11/stl.h>

#include "layer_binding.h"

namespace ember::python {
namespace {

using namespace pybind11::literals;

// One value (for every spatial dim) or one per dim.
template <typename T>
std::optional<std::vector<T>> values(const py::object& v) {
  if (v.is_none()) return std::nullopt;
  if (py::isinstance<py::sequence>(v)) return v.cast<std::vector<T>>();
  return std::vector<T>{v.cast<T>()};
}
// As given: None, one value, or a tuple.
template <typename T>
py::object as_given(const std::optional<std::vector<T>>& v) {
  if (!v) return py::none();
  if (v->size() == 1) return py::cast((*v)[0]);
  return py::tuple(py::cast(*v));
}

nn::UpsampleOptions options(const py::object& size, const py::object& scale_factor, std::string mode,
                            std::optional<bool> align_corners, std::optional<bool> recompute) {
  return {values<int64_t>(size), values<double>(scale_factor), std::move(mode), align_corners, recompute};
}

template <typename M>
Layer<M> upsample_layer(py::module_& nn, const char* name, const char* doc) {
  Layer<M> cls(nn, name, doc);
  cls.def_property_readonly("size", [](const M& m) { return as_given(m.options().size); })
      .def_property_readonly("scale_factor", [](const M& m) { return as_given(m.options().scale_factor); })
      .def_property_readonly("mode", [](const M& m) { return m.options().mode; })
      .def_property_readonly("align_corners", [](const M& m) { return m.options().align_corners; })
      .def_property_readonly("recompute_scale_factor", [](const M& m) { return m.options().recompute_scale_factor; });
  return cls;
}

}  // namespace

void bind_upsample_layers(py::module_& nn) {
  upsample_layer<nn::Upsample>(nn, "Upsample", "F.interpolate as a layer (torch.nn.Upsample).")
      .def(layer_init<nn::Upsample>([](py::object size, py::object scale_factor, std::string mode,
                                       std::optional<bool> align_corners, std::optional<bool> recompute) {
             return options(size, scale_factor, std::move(mode), align_corners, recompute);
           }),
           "size"_a = py::none(), "scale_factor"_a = py::none(), "mode"_a = "nearest", "align_corners"_a = py::none(),
           "recompute_scale_factor"_a = py::none());
  upsample_layer<nn::UpsamplingNearest2d>(nn, "UpsamplingNearest2d", "Upsample(mode='nearest').")
      .def(layer_init<nn::UpsamplingNearest2d>([](py::object size, py::object scale_factor) {
             return options(size, scale_factor, "nearest", std::nullopt, std::nullopt);
           }),
           "size"_a = py::none(), "scale_factor"_a = py::none());
  upsample_layer<nn::UpsamplingBilinear2d>(nn, "UpsamplingBilinear2d", "Upsample(mode='bilinear', align_corners=True).")
      .def(layer_init<nn::UpsamplingBilinear2d>([](py::object size, py::object scale_factor) {
             return options(size, scale_factor, "bilinear", true, std::nullopt);
           }),
           "size"_a = py::none(), "scale_factor"_a = py::none());
}

void bind_upsample_functions(py::module_& f) {
  f.def(
      "interpolate",
      [](const Tensor& input, py::object size, py::object scale_factor, std::string mode,
         std::optional<bool> align_corners, std::optional<bool> recompute, bool antialias) {
        nn::UpsampleOptions o = options(size, scale_factor, std::move(mode), align_corners, recompute);
        // NB: a sequence must have one value per spatial dim (C++ broadcasts a single one).
        const int64_t dim = input.dim() - 2;
        for (const py::object* given : {&size, &scale_factor})
          if (py::isinstance<py::sequence>(*given) && dim > 1 && py::len(*given) == 1)
            throw ValueError(detail::str("Input and ", given == &size ? "output size" : "scale_factor",
                                         " must have the same number of spatial dimensions, but got input with "
                                         "spatial dimensions of ",
                                         IntArrayRef(input.sizes().data() + 2, static_cast<size_t>(dim)),
                                         " and 1 value"));
        return without_gil([&] { return nn::functional::interpolate(input, o, antialias); });
      },
      "input"_a, "size"_a = py::none(), "scale_factor"_a = py::none(), "mode"_a = "nearest",
      "align_corners"_a = py::none(), "recompute_scale_factor"_a = py::none(), "antialias"_a = false,
      "Resamples [N, C, L] or [N, C, H, W] to size or by scale_factor (torch.nn.functional.interpolate).");
}

}  // namespace ember::python
