// The padding layers of ember._C.nn (torch.nn's ZeroPad2d, ReflectionPad1d, ...): padding an int or
// a sequence of 2 * dims ints; `padding` reads back as a tuple, `value` for the constant ones.
#include "ember/nn/padding.h"

#include <pybind11/stl.h>

#include <vector>

#include "layer_binding.h"

namespace ember::python {
namespace {

nn::PadAmounts amounts_of(const py::handle& v) {
  if (PyIndex_Check(v.ptr())) return nn::PadAmounts(v.cast<int64_t>());
  return nn::PadAmounts(v.cast<std::vector<int64_t>>());
}

template <typename M>
Layer<M> pad_class(py::module_& nn, const char* name, const char* doc) {
  return Layer<M>(nn, name, doc)
      .def_property_readonly("padding", [](const M& m) { return py::tuple(py::cast(m.padding())); })
      .def_property_readonly("value", &M::value)
      .def_property_readonly("mode", &M::mode);
}

template <typename M>
void pad_layer(py::module_& nn, const char* name, const char* doc) {
  pad_class<M>(nn, name, doc)
      .def(layer_init<M>([](py::object padding) { return amounts_of(padding); }), py::arg("padding"));
}

template <typename M>
void constant_pad_layer(py::module_& nn, const char* name, const char* doc) {
  pad_class<M>(nn, name, doc)
      .def(layer_init<M>([](py::object padding, double value) { return std::make_tuple(amounts_of(padding), value); }),
           py::arg("padding"), py::arg("value"));
}

}  // namespace

void bind_padding(py::module_& nn) {
  pad_layer<nn::ZeroPad1d>(nn, "ZeroPad1d", "torch.nn.ZeroPad1d(padding): the last dim padded with zeros.");
  pad_layer<nn::ZeroPad2d>(nn, "ZeroPad2d", "torch.nn.ZeroPad2d(padding): the last 2 dims padded with zeros.");
  pad_layer<nn::ZeroPad3d>(nn, "ZeroPad3d", "torch.nn.ZeroPad3d(padding): the last 3 dims padded with zeros.");
  constant_pad_layer<nn::ConstantPad1d>(nn, "ConstantPad1d", "torch.nn.ConstantPad1d(padding, value).");
  constant_pad_layer<nn::ConstantPad2d>(nn, "ConstantPad2d", "torch.nn.ConstantPad2d(padding, value).");
  constant_pad_layer<nn::ConstantPad3d>(nn, "ConstantPad3d", "torch.nn.ConstantPad3d(padding, value).");
  pad_layer<nn::ReflectionPad1d>(nn, "ReflectionPad1d", "torch.nn.ReflectionPad1d(padding): F.pad mode 'reflect'.");
  pad_layer<nn::ReflectionPad2d>(nn, "ReflectionPad2d", "torch.nn.ReflectionPad2d(padding): F.pad mode 'reflect'.");
  pad_layer<nn::ReflectionPad3d>(nn, "ReflectionPad3d", "torch.nn.ReflectionPad3d(padding): F.pad mode 'reflect'.");
  pad_layer<nn::ReplicationPad1d>(nn, "ReplicationPad1d", "torch.nn.ReplicationPad1d(padding): mode 'replicate'.");
  pad_layer<nn::ReplicationPad2d>(nn, "ReplicationPad2d", "torch.nn.ReplicationPad2d(padding): mode 'replicate'.");
  pad_layer<nn::ReplicationPad3d>(nn, "ReplicationPad3d", "torch.nn.ReplicationPad3d(padding): mode 'replicate'.");
  pad_layer<nn::CircularPad1d>(nn, "CircularPad1d", "torch.nn.CircularPad1d(padding): F.pad mode 'circular'.");
  pad_layer<nn::CircularPad2d>(nn, "CircularPad2d", "torch.nn.CircularPad2d(padding): F.pad mode 'circular'.");
  pad_layer<nn::CircularPad3d>(nn, "CircularPad3d", "torch.nn.CircularPad3d(padding): F.pad mode 'circular'.");
}

}  // namespace ember::python
