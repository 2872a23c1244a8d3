#pragma once
// What binding a built-in layer takes (nn.cpp, padding.cpp, ...): the trampoline that lets a Python
// subclass override forward and extra_repr for C++ callers, and py::init from the layer's
// constructor arguments.
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "bindings.h"
#include "ember/nn/loss.h"
#include "ember/nn/module.h"
#include "ember/nn/option_field.h"

namespace ember::python {

// Lets a Python subclass of Module, or of a built-in layer (class MyLinear(nn.Linear)), override
// forward and extra_repr: without it, a C++ caller (Sequential, a parent layer) would run the
// built-in forward and skip the override. C++ calling either takes the GIL. Layers whose C++
// callers use another forward specialise it (nn.cpp).
template <typename M>
class PyLayer : public M {
 public:
  using M::M;
  Tensor forward(const Tensor& input) override { PYBIND11_OVERRIDE_NAME(Tensor, M, "forward", forward, input); }
  std::string extra_repr() const override { PYBIND11_OVERRIDE_NAME(std::string, M, "extra_repr", extra_repr, ); }
};

template <typename M>
using Layer = py::class_<M, PyLayer<M>, nn::Module, std::shared_ptr<M>>;

template <typename T, typename Arg>
std::shared_ptr<T> construct(Arg&& arg) {
  if constexpr (requires { std::tuple_size<std::decay_t<Arg>>::value; })
    return std::apply([](auto&&... a) { return std::make_shared<T>(std::forward<decltype(a)>(a)...); },
                      std::forward<Arg>(arg));
  else
    return std::make_shared<T>(std::forward<Arg>(arg));
}

template <typename M, typename F, typename R, typename... A>
auto layer_init_impl(F make, R (F::*)(A...) const) {
  return py::init([make](A... a) { return construct<M>(make(a...)); },
                  [make](A... a) { return construct<PyLayer<M>>(make(a...)); });
}

// py::init of a built-in layer M from `make(args...)`, which returns M's constructor argument (or
// a tuple of them): a plain M for ember.nn.M itself, the trampoline PyLayer<M> for a Python
// subclass.
template <typename M, typename F>
auto layer_init(F make) {
  return layer_init_impl<M>(make, &F::operator());
}

/// A device as Python names one: "cpu", "cuda:1" or an ember.device (nn.cpp).
Device device_of(const py::handle& v);

// A built layer moved to PyTorch's device= and dtype= keywords (device None: the default device,
// set_default_device's; dtype None: left as built).
template <typename P>
P placed(P m, const py::object& device, const py::object& dtype) {
  if (!dtype.is_none()) m->to(dtype.cast<DType>());
  if (!device.is_none())
    m->to(device_of(device));
  else if (auto fallback = default_device())
    m->to(*fallback);
  return m;
}

template <typename M, typename F, typename R, typename... A>
auto layer_init_placed_impl(F make, R (F::*)(A...) const) {
  return py::init(
      [make](A... a, py::object device, py::object dtype) { return placed(construct<M>(make(a...)), device, dtype); },
      [make](A... a, py::object device, py::object dtype) {
        return placed(construct<PyLayer<M>>(make(a...)), device, dtype);
      });
}

// layer_init for a layer with parameters, taking PyTorch's device= and dtype= after make's
// arguments (bind them last: ..., "device"_a = py::none(), "dtype"_a = py::none()).
template <typename M, typename F>
auto layer_init_placed(F make) {
  return layer_init_placed_impl<M>(make, &F::operator());
}

// Each field of M::Options as a read-write attribute of the Python class (a Reduction as its name,
// a Size2 / Size3 as a tuple, an unset optional as None).
template <typename M, typename Cls, typename O, typename T>
void bind_field(Cls& cls, nn::OptionField<O, T> f) {
  auto member = f.member;
  if constexpr (std::is_same_v<T, nn::functional::Reduction>) {
    cls.def_property(
        f.name, [member](const M& m) { return std::string(nn::functional::reduction_name(m.options().*member)); },
        [member](M& m, const std::string& r) {
          m.options().*member = nn::functional::reduction_from_string(r, m.type_name().c_str());
        });
  } else {
    cls.def_property(
        f.name, [member](const M& m) { return m.options().*member; }, [member](M& m, T v) { m.options().*member = v; });
  }
}

template <typename M, typename Cls>
Cls& bind_fields(Cls& cls) {
  std::apply([&](auto... f) { (bind_field<M>(cls, f), ...); }, M::Options::fields());
  return cls;
}

/// A built-in layer M bound with its options as attributes.
template <typename M>
Layer<M> layer_with_fields(py::module_& nn, const char* name, const char* doc) {
  Layer<M> cls(nn, name, doc);
  bind_fields<M>(cls);
  return cls;
}

}  // namespace ember::python
