// ember._C.nn: Module (subclassable from Python through a trampoline, so C++ containers can run a
// forward written in Python) and every built-in layer with PyTorch's constructor keywords. The
// Python package (python/ember/nn/) adds attribute registration (__setattr__/__getattr__),
// nn.Parameter and the generator-returning traversals on top of the _-prefixed methods here.
//
// NB: lifetime. A module written in Python keeps its Python attributes in its Python object, so
// whenever C++ takes ownership of a module passed from Python (register_module, the containers)
// it holds the Python object too (hold_module): the child then lives, Python half included, as
// long as its parent holds it, even after every Python name for it is gone.
#include "ember/nn/nn.h"

#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "bindings.h"
#include "ember/ops/conv.h"
#include "layer_binding.h"
#include "packed_sequence_caster.h"

namespace ember::python {
namespace {

using nn::Module;
using Gil = py::call_guard<py::gil_scoped_release>;
using namespace pybind11::literals;

py::object none_if_undefined(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

}  // namespace

// MultiheadAttention's C++ callers (TransformerEncoderLayer) call its full forward.
template <>
class PyLayer<nn::MultiheadAttention> : public nn::MultiheadAttention {
 public:
  using nn::MultiheadAttention::MultiheadAttention;
  Tensor forward(const Tensor& input) override {
    PYBIND11_OVERRIDE_NAME(Tensor, nn::MultiheadAttention, "forward", forward, input);
  }
  std::pair<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& key_padding_mask, bool need_weights,
                                    const Tensor& attn_mask, bool average_attn_weights, bool is_causal) override {
    {
      py::gil_scoped_acquire gil;
      py::function override = py::get_override(static_cast<const nn::MultiheadAttention*>(this), "forward");
      if (override) {
        // PyTorch's keywords; is_causal only when set, so overrides written without it still run.
        py::dict kwargs("key_padding_mask"_a = none_if_undefined(key_padding_mask), "need_weights"_a = need_weights,
                        "attn_mask"_a = none_if_undefined(attn_mask), "average_attn_weights"_a = average_attn_weights);
        if (is_causal) kwargs["is_causal"] = true;
        py::object r = override(query, key, value, **kwargs);
        auto pair = r.cast<py::tuple>();
        EMBER_CHECK_TYPE(pair.size() == 2, "MultiheadAttention.forward override must return "
                         "(attn_output, attn_weights or None), got ", pair.size(), " values");
        return {pair[0].cast<Tensor>(), pair[1].is_none() ? Tensor() : pair[1].cast<Tensor>()};
      }
    }
    return nn::MultiheadAttention::forward(query, key, value, key_padding_mask, need_weights, attn_mask,
                                           average_attn_weights, is_causal);
  }
};

namespace {

py::object py_arg(const Tensor& t) { return none_if_undefined(t); }
py::object py_arg(bool b) { return py::bool_(b); }
py::object py_arg(std::optional<bool> b) { return b ? py::object(py::bool_(*b)) : py::object(py::none()); }

// The result of the Python subclass's `forward` override on a built-in transformer module, called
// by `call` (with PyTorch's keywords, as PyTorch's modules call their children), or nothing when
// the subclass does not override it.
template <typename M, typename F>
std::optional<Tensor> python_forward(const M* self, const F& call) {
  py::gil_scoped_acquire gil;
  py::function override = py::get_override(self, "forward");
  if (!override) return std::nullopt;
  return call(override).template cast<Tensor>();
}

// The transformer layers and stacks: C++ containers (TransformerEncoder, Transformer) call their
// multi-argument forward, which a Python subclass may override. Encoders take
// (src, <MaskName>, src_key_padding_mask, is_causal), decoders the decoder's eight arguments;
// is_causal is a bool for a layer and optional for a stack.
inline constexpr char kSrcMask[] = "src_mask";
inline constexpr char kMask[] = "mask";

template <typename M, typename Causal, const char* MaskName>
class PyEncoding : public M {
 public:
  using M::M;
  Tensor forward(const Tensor& input) override { return forward(input, Tensor(), Tensor(), Causal{}); }
  Tensor forward(const Tensor& src, const Tensor& mask, const Tensor& padding, Causal is_causal) override {
    auto r = python_forward<M>(this, [&](const py::function& f) {
      return f(src, py::arg(MaskName) = py_arg(mask), "src_key_padding_mask"_a = py_arg(padding),
               "is_causal"_a = py_arg(is_causal));
    });
    return r ? *r : M::forward(src, mask, padding, is_causal);
  }
};

template <typename M, typename Causal>
class PyDecoding : public M {
 public:
  using M::M;
  using M::forward;
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask, const Tensor& memory_mask,
                 const Tensor& tgt_padding, const Tensor& memory_padding, Causal tgt_is_causal,
                 bool memory_is_causal) override {
    auto r = python_forward<M>(this, [&](const py::function& f) {
      return f(tgt, memory, "tgt_mask"_a = py_arg(tgt_mask), "memory_mask"_a = py_arg(memory_mask),
               "tgt_key_padding_mask"_a = py_arg(tgt_padding), "memory_key_padding_mask"_a = py_arg(memory_padding),
               "tgt_is_causal"_a = py_arg(tgt_is_causal), "memory_is_causal"_a = memory_is_causal);
    });
    return r ? *r : M::forward(tgt, memory, tgt_mask, memory_mask, tgt_padding, memory_padding, tgt_is_causal,
                               memory_is_causal);
  }
};

}  // namespace

template <>
class PyLayer<nn::TransformerEncoderLayer> : public PyEncoding<nn::TransformerEncoderLayer, bool, kSrcMask> {
 public:
  using PyEncoding::PyEncoding;
};
template <>
class PyLayer<nn::TransformerEncoder>
    : public PyEncoding<nn::TransformerEncoder, std::optional<bool>, kMask> {
 public:
  using PyEncoding::PyEncoding;
};
template <>
class PyLayer<nn::TransformerDecoderLayer> : public PyDecoding<nn::TransformerDecoderLayer, bool> {
 public:
  using PyDecoding::PyDecoding;
};
template <>
class PyLayer<nn::TransformerDecoder> : public PyDecoding<nn::TransformerDecoder, std::optional<bool>> {
 public:
  using PyDecoding::PyDecoding;
};

namespace {

using PyModule = PyLayer<Module>;

template <typename M, typename F, typename R, typename... A>
auto container_init_impl(F fill, R (F::*)(M&, A...) const) {
  auto build = [fill]<typename T>(type_tag<T>, A... a) {
    auto c = std::make_shared<T>();
    fill(*c, a...);
    return c;
  };
  return py::init([build](A... a) { return build(type_tag<M>{}, a...); },
                  [build](A... a) { return build(type_tag<PyLayer<M>>{}, a...); });
}

// py::init of a container M, default-constructed and then filled by `fill(container, args...)`.
template <typename M, typename F>
auto container_init(F fill) {
  return container_init_impl<M>(fill, &F::operator());
}

Size2 size2_of(const py::handle& v) {
  if (PyIndex_Check(v.ptr())) return Size2(v.cast<int64_t>());
  auto pair = v.cast<std::vector<int64_t>>();
  EMBER_CHECK_VALUE(pair.size() == 2 || pair.size() == 1,
                    "expected an int or a pair of ints, got ", pair.size(), " values");
  return pair.size() == 1 ? Size2(pair[0]) : Size2(pair[0], pair[1]);
}

py::tuple size2_tuple(Size2 s) { return py::make_tuple(s.h, s.w); }

}  // namespace

std::shared_ptr<Module> hold_module(const py::handle& obj) {
  if (!py::isinstance<Module>(obj))
    throw ember::TypeError(std::string(py::str(py::type::of(obj).attr("__name__"))) +
                           " is not an ember.nn.Module");
  auto module = obj.cast<std::shared_ptr<Module>>();
  EMBER_CHECK_VALUE(module != nullptr, "module is not initialised (was Module.__init__ called?)");
  std::shared_ptr<py::object> life(new py::object(py::reinterpret_borrow<py::object>(obj)),
                                   &delete_with_gil<py::object>);
  // NB: aliasing constructor: the pointer is the module, the owner is the Python object (which
  // owns the module through its holder).
  return std::shared_ptr<Module>(life, module.get());
}

Device device_of(const py::handle& v) {
  if (py::isinstance<py::str>(v)) return Device(v.cast<std::string>());
  return v.cast<Device>();
}

// A registered tensor as Python sees a parameter: an nn.Parameter handle (a Python subclass of
// Tensor, defined in ember/nn/parameter.py).
py::object parameter_handle(const Tensor& t) {
  // NB: as Parameter._wrap: a tensor that reached Python as a plain Tensor becomes a Parameter in
  // place (the classes share one layout), so every holder of its object sees the change.
  static PyObject* parameter = py::object(py::module_::import("ember.nn.parameter").attr("Parameter")).release().ptr();
  py::object handle = py::cast(t);
  if (Py_TYPE(handle.ptr()) == reinterpret_cast<PyTypeObject*>(py::type::of<Tensor>().ptr()))
    py::setattr(handle, "__class__", parameter);
  return handle;
}

// NB: read-only; `layer.bias = nn.Parameter(...)` goes through Module.__setattr__.
py::object bias_of(const Module& m) {
  return m.has_parameter("bias") ? parameter_handle(m.parameter("bias")) : py::none();
}

namespace {

// What a module attribute name holds, as Module._entry(name) reports it to the Python half.
enum class EntryKind { Parameter, Buffer, Child };

py::list pairs(const std::vector<std::pair<std::string, Tensor>>& items) {
  py::list out;
  for (const auto& [k, v] : items) out.append(py::make_tuple(k, v));
  return out;
}

void bind_module(py::module_& nn) {
  py::enum_<EntryKind>(nn, "EntryKind", "What a module attribute name holds (Module._entry).")
      .value("Parameter", EntryKind::Parameter)
      .value("Buffer", EntryKind::Buffer)
      .value("Child", EntryKind::Child);
  py::class_<Module, PyModule, std::shared_ptr<Module>> cls(nn, "Module", R"doc(
The base of every layer, as torch.nn.Module. Subclass it in Python: assigning an nn.Parameter,
an nn.Module or a buffer name registers it; forward(...) runs through __call__.)doc");
  cls.def(py::init_alias<std::string>(), py::arg("type_name") = "Module")
      .def_property_readonly("_type_name", &Module::type_name)
      .def_property_readonly("training", &Module::is_training)
      // False until Module.__init__ has run (PyTorch's "cannot assign module before __init__").
      .def("_initialized", [](py::handle self) {
        auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
        for (auto vh : py::detail::values_and_holders(inst))
          if (!vh.holder_constructed()) return false;
        return true;
      })
      .def("_register_parameter", [](Module& m, const std::string& name, Tensor t, bool requires_grad) {
        return m.register_parameter(name, std::move(t), requires_grad);
      })
      .def("_register_buffer", &Module::register_buffer)
      .def("_register_module", [](Module& m, const std::string& name, py::handle child) {
        m.register_module(name, hold_module(child));
      })
      .def("_replace_parameter", &Module::replace_parameter)
      .def("_replace_buffer", &Module::replace_buffer)
      .def("_replace_module", [](Module& m, const std::string& name, py::handle child) {
        m.replace_module(name, hold_module(child));
      })
      .def("_has_parameter", &Module::has_parameter)
      .def("_has_buffer", &Module::has_buffer)
      .def("_has_child", &Module::has_child)
      .def("_is_persistent_buffer", &Module::is_persistent_buffer)
      // (EntryKind, value), or None when `name` is no parameter, buffer or child.
      .def("_entry", [](const Module& m, const std::string& name) -> py::object {
        if (m.has_parameter(name)) return py::make_tuple(EntryKind::Parameter, m.parameter(name));
        if (m.has_buffer(name)) return py::make_tuple(EntryKind::Buffer, m.buffer(name));
        if (m.has_child(name)) return py::make_tuple(EntryKind::Child, m.child(name));
        return py::none();
      })
      .def("_named_parameters", [](const Module& m, const std::string& prefix, bool recurse) {
        return pairs(m.named_parameters(prefix, recurse));
      })
      .def("_named_buffers", [](const Module& m, const std::string& prefix, bool recurse) {
        return pairs(m.named_buffers(prefix, recurse));
      })
      .def("_named_children", &Module::named_children)
      // (name, tensor, is it a parameter) of state_dict(), in its order.
      .def("_state_dict", [](const Module& m) {
        py::list out;
        for (const auto& e : m.state_entries(false))
          out.append(py::make_tuple(e.name, e.tensor, e.kind == nn::StateKind::Parameter));
        return out;
      })
      .def("_load_state_dict", [](Module& m, const std::vector<std::pair<std::string, Tensor>>& items,
                                  bool strict) {
        nn::StateDict state;
        for (const auto& [k, v] : items) state.set(k, v);
        nn::LoadResult r = [&] {
          py::gil_scoped_release release;
          return m.load_state_dict(state, strict);
        }();
        std::string mismatches;
        auto shape = [](const auto& dims) {
          std::string out = "[";
          for (size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
          return out + "]";
        };
        for (const auto& s : r.shape_mismatches)
          mismatches += "size mismatch for '" + s.key + "': checkpoint " + shape(s.checkpoint_shape) +
                        ", model " + shape(s.model_shape) + "\n";
        return py::make_tuple(r.missing_keys, r.unexpected_keys, mismatches);
      })
      .def("train", [](py::object self, bool mode) {
        self.cast<Module&>().train(mode);
        return self;
      }, py::arg("mode") = true, "Sets training mode here and in every descendant; returns self.")
      .def("eval", [](py::object self) {
        self.cast<Module&>().eval();
        return self;
      }, "train(False); returns self.")
      .def("zero_grad", &Module::zero_grad, py::arg("set_to_none") = true,
           "Clears (set_to_none) or zeroes every parameter's gradient.")
      .def("to", [](py::object self, py::args args, py::kwargs kwargs) {
        Module& m = self.cast<Module&>();
        std::vector<py::handle> targets(args.begin(), args.end());
        for (const char* key : {"dtype", "device"})
          if (kwargs.contains(key)) targets.push_back(kwargs[key]);
        for (py::handle t : targets) {
          if (t.is_none()) continue;
          if (py::isinstance<DType>(t)) {
            m.to(t.cast<DType>());
          } else if (py::isinstance<Tensor>(t)) {
            const Tensor other = t.cast<Tensor>();
            m.to(other.device());
            m.to(other.dtype());
          } else {
            m.to(device_of(t));
          }
        }
        return self;
      }, "to(dtype), to(device), to(tensor): converts parameters and buffers in place; returns self.")
      .def("extra_repr", [](const Module& m) { return m.Module::extra_repr(); },
           "The settings shown in repr(); override it in Python to show your own.")
      .def("__repr__", [](const Module& m) {
        std::string s = m.str();
        return s.substr(0, s.rfind("\nparameters:"));
      })
      .def("summary", &Module::str, "repr() plus the parameter counts.")
      .def("num_parameters", &Module::num_parameters, py::arg("trainable_only") = false)
      .def("forward", [](Module& m, const Tensor& input) { return m.forward(input); }, py::arg("input"),
           Gil(), "The layer's computation; call the module itself (module(x)) rather than this.");
}

// The child at a Python index of a container (negative counts from the end).
std::shared_ptr<Module> child_at(const Module& container, int64_t index) {
  auto children = container.named_children();
  const auto n = static_cast<int64_t>(children.size());
  EMBER_CHECK_INDEX(index >= -n && index < n, "index ", index, " is out of range for ",
                    container.type_name(), " of length ", n);
  return children[static_cast<size_t>(index < 0 ? index + n : index)].second;
}

// The (name, child) pairs a Python slice selects.
std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_in(const Module& container,
                                                                          const py::slice& slice) {
  auto children = container.named_children();
  py::ssize_t start = 0, stop = 0, step = 0, length = 0;
  if (!slice.compute(static_cast<py::ssize_t>(children.size()), &start, &stop, &step, &length))
    throw py::error_already_set();
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> out;
  for (py::ssize_t i = 0; i < length; ++i) out.push_back(children[static_cast<size_t>(start + i * step)]);
  return out;
}

// iter(container): its children, in order.
py::iterator iterate_children(const Module& container) {
  py::list children;
  for (const auto& [name, m] : container.named_children()) children.append(py::cast(m));
  return py::iter(children);
}

void bind_layers(py::module_& nn) {
  Layer<nn::Linear>(nn, "Linear", "y = x W^T + b (torch.nn.Linear).")
      .def(layer_init_placed<nn::Linear>([](int64_t in, int64_t out, bool bias) {
             return nn::LinearOptions{in, out, bias};
           }),
           py::arg("in_features"), py::arg("out_features"), py::arg("bias") = true, py::arg("device") = py::none(),
           py::arg("dtype") = py::none())
      .def_property_readonly("in_features", [](const nn::Linear& l) { return l.options().in_features; })
      .def_property_readonly("out_features", [](const nn::Linear& l) { return l.options().out_features; })
      .def_property_readonly(
          "bias", [](const nn::Linear& l) { return bias_of(l); },
          "The bias parameter, or None for a layer built with bias=False.")
      .def("reset_parameters", &nn::Linear::reset_parameters);

  layer_with_fields<nn::Bilinear>(nn, "Bilinear", "y = x1^T A x2 + b (torch.nn.Bilinear).")
      .def(layer_init_placed<nn::Bilinear>([](int64_t in1, int64_t in2, int64_t out, bool bias) {
             return nn::BilinearOptions{in1, in2, out, bias};
           }),
           py::arg("in1_features"), py::arg("in2_features"), py::arg("out_features"), py::arg("bias") = true,
           py::arg("device") = py::none(), py::arg("dtype") = py::none())
      .def("forward", py::overload_cast<const Tensor&, const Tensor&>(&nn::Bilinear::forward), py::arg("input1"),
           py::arg("input2"))
      .def_property_readonly(
          "bias", [](const nn::Bilinear& l) { return bias_of(l); },
          "The bias parameter, or None for a layer built with bias=False.")
      .def("reset_parameters", &nn::Bilinear::reset_parameters);

  Layer<nn::Conv2d>(nn, "Conv2d", "2-D convolution over [N, C, H, W] (torch.nn.Conv2d).")
      .def(layer_init_placed<nn::Conv2d>([](int64_t in, int64_t out, py::object kernel, py::object stride,
                                            py::object padding, py::object dilation, int64_t groups, bool bias,
                                            const std::string& padding_mode) {
             nn::Conv2dOptions o{in,     out,  size2_of(kernel), size2_of(stride), 0, size2_of(dilation),
                                 groups, bias, padding_mode};
             if (py::isinstance<py::str>(padding))
               o.padding_rule = padding_rule(padding.cast<std::string>(), "Conv2d");
             else
               o.padding = size2_of(padding);
             return o;
           }),
           py::arg("in_channels"), py::arg("out_channels"), py::arg("kernel_size"), py::arg("stride") = 1,
           py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("groups") = 1, py::arg("bias") = true,
           py::arg("padding_mode") = "zeros", py::arg("device") = py::none(), py::arg("dtype") = py::none())
      .def_property_readonly("in_channels", [](const nn::Conv2d& c) { return c.options().in_channels; })
      .def_property_readonly("out_channels", [](const nn::Conv2d& c) { return c.options().out_channels; })
      .def_property_readonly("kernel_size", [](const nn::Conv2d& c) { return size2_tuple(c.options().kernel_size); })
      .def_property_readonly("stride", [](const nn::Conv2d& c) { return size2_tuple(c.options().stride); })
      .def_property_readonly(
          "padding",
          [](const nn::Conv2d& c) -> py::object {
            const auto& rule = c.options().padding_rule;
            return rule ? py::str(padding_rule_name(*rule)) : py::object(size2_tuple(c.options().padding));
          },
          "(h, w), or 'same' / 'valid' when given by name.")
      .def_property_readonly("dilation", [](const nn::Conv2d& c) { return size2_tuple(c.options().dilation); })
      .def_property_readonly("groups", [](const nn::Conv2d& c) { return c.options().groups; })
      .def_property_readonly("padding_mode", [](const nn::Conv2d& c) { return c.options().padding_mode; })
      .def_property_readonly(
          "bias", [](const nn::Conv2d& c) { return bias_of(c); },
          "The bias parameter, or None for a layer built with bias=False.")
      .def("reset_parameters", &nn::Conv2d::reset_parameters);

  Layer<nn::Conv1d>(nn, "Conv1d", "1-D convolution over [N, C, L] (torch.nn.Conv1d).")
      .def(layer_init_placed<nn::Conv1d>([](int64_t in, int64_t out, py::object kernel, py::object stride,
                                            py::object padding, py::object dilation, int64_t groups, bool bias,
                                            const std::string& padding_mode) {
             nn::Conv1dOptions o{in,
                                 out,
                                 size1(kernel, "Conv1d", "kernel_size"),
                                 size1(stride, "Conv1d", "stride"),
                                 0,
                                 size1(dilation, "Conv1d", "dilation"),
                                 groups,
                                 bias,
                                 padding_mode};
             if (py::isinstance<py::str>(padding))
               o.padding_rule = padding_rule(padding.cast<std::string>(), "Conv1d");
             else
               o.padding = size1(padding, "Conv1d", "padding");
             return o;
           }),
           py::arg("in_channels"), py::arg("out_channels"), py::arg("kernel_size"), py::arg("stride") = 1,
           py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("groups") = 1, py::arg("bias") = true,
           py::arg("padding_mode") = "zeros", py::arg("device") = py::none(), py::arg("dtype") = py::none())
      .def_property_readonly("in_channels", [](const nn::Conv1d& c) { return c.options().in_channels; })
      .def_property_readonly("out_channels", [](const nn::Conv1d& c) { return c.options().out_channels; })
      .def_property_readonly("kernel_size", [](const nn::Conv1d& c) { return py::make_tuple(c.options().kernel_size); })
      .def_property_readonly("stride", [](const nn::Conv1d& c) { return py::make_tuple(c.options().stride); })
      .def_property_readonly(
          "padding",
          [](const nn::Conv1d& c) -> py::object {
            const auto& rule = c.options().padding_rule;
            return rule ? py::str(padding_rule_name(*rule)) : py::object(py::make_tuple(c.options().padding));
          },
          "(padding,), or 'same' / 'valid' when given by name.")
      .def_property_readonly("dilation", [](const nn::Conv1d& c) { return py::make_tuple(c.options().dilation); })
      .def_property_readonly("groups", [](const nn::Conv1d& c) { return c.options().groups; })
      .def_property_readonly("padding_mode", [](const nn::Conv1d& c) { return c.options().padding_mode; })
      .def_property_readonly(
          "bias", [](const nn::Conv1d& c) { return bias_of(c); },
          "The bias parameter, or None for a layer built with bias=False.")
      .def("reset_parameters", &nn::Conv1d::reset_parameters);

  Layer<nn::ConvTranspose2d>(nn, "ConvTranspose2d",
                             "Transposed 2-D convolution over [N, C, H, W] (torch.nn.ConvTranspose2d).")
      .def(layer_init_placed<nn::ConvTranspose2d>([](int64_t in, int64_t out, py::object kernel, py::object stride,
                                                     py::object padding, py::object output_padding, int64_t groups,
                                                     bool bias, py::object dilation, const std::string& padding_mode) {
             EMBER_CHECK_VALUE(padding_mode == "zeros",
                               "ConvTranspose2d: only padding_mode='zeros' is supported, got '", padding_mode,
                               "' (as in PyTorch)");
             return nn::ConvTranspose2dOptions{
                 in,     out,  size2_of(kernel),  size2_of(stride), size2_of(padding), size2_of(output_padding),
                 groups, bias, size2_of(dilation)};
           }),
           py::arg("in_channels"), py::arg("out_channels"), py::arg("kernel_size"), py::arg("stride") = 1,
           py::arg("padding") = 0, py::arg("output_padding") = 0, py::arg("groups") = 1, py::arg("bias") = true,
           py::arg("dilation") = 1, py::arg("padding_mode") = "zeros", py::arg("device") = py::none(),
           py::arg("dtype") = py::none())
      .def(
          "forward",
          [](nn::ConvTranspose2d& m, const Tensor& input, const py::object& output_size) {
            if (output_size.is_none()) return without_gil([&] { return m.forward(input); });
            std::vector<int64_t> size = output_size.cast<std::vector<int64_t>>();
            return without_gil([&] { return m.forward(input, size); });
          },
          py::arg("input"), py::arg("output_size") = py::none(),
          "The transposed convolution; output_size ([H, W] or the whole shape) picks the output_padding.")
      .def_property_readonly("in_channels", [](const nn::ConvTranspose2d& c) { return c.options().in_channels; })
      .def_property_readonly("out_channels", [](const nn::ConvTranspose2d& c) { return c.options().out_channels; })
      .def_property_readonly("kernel_size",
                             [](const nn::ConvTranspose2d& c) { return size2_tuple(c.options().kernel_size); })
      .def_property_readonly("stride", [](const nn::ConvTranspose2d& c) { return size2_tuple(c.options().stride); })
      .def_property_readonly("padding", [](const nn::ConvTranspose2d& c) { return size2_tuple(c.options().padding); })
      .def_property_readonly("output_padding",
                             [](const nn::ConvTranspose2d& c) { return size2_tuple(c.options().output_padding); })
      .def_property_readonly("dilation", [](const nn::ConvTranspose2d& c) { return size2_tuple(c.options().dilation); })
      .def_property_readonly("groups", [](const nn::ConvTranspose2d& c) { return c.options().groups; })
      .def_property_readonly("padding_mode", [](const nn::ConvTranspose2d&) { return "zeros"; })
      .def_property_readonly(
          "bias", [](const nn::ConvTranspose2d& c) { return bias_of(c); },
          "The bias parameter, or None for a layer built with bias=False.")
      .def("reset_parameters", &nn::ConvTranspose2d::reset_parameters);

  auto pool_options = [](py::object kernel, py::object stride, py::object padding, py::object dilation,
                         bool ceil_mode, bool count_include_pad) {
    return nn::Pool2dOptions{.kernel_size = size2_of(kernel),
                             .stride = stride.is_none() ? std::nullopt : std::optional<Size2>(size2_of(stride)),
                             .padding = size2_of(padding),
                             .dilation = size2_of(dilation),
                             .ceil_mode = ceil_mode,
                             .count_include_pad = count_include_pad};
  };
  Layer<nn::MaxPool2d>(nn, "MaxPool2d", "Max pooling over [N, C, H, W] (torch.nn.MaxPool2d).")
      .def(layer_init<nn::MaxPool2d>([pool_options](py::object kernel, py::object stride, py::object padding,
                                   py::object dilation, bool return_indices, bool ceil_mode) {
        EMBER_CHECK_VALUE(!return_indices, "MaxPool2d: return_indices is not supported");
        return pool_options(kernel, stride, padding, dilation, ceil_mode, true);
      }), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
         py::arg("dilation") = 1, py::arg("return_indices") = false, py::arg("ceil_mode") = false);
  Layer<nn::AvgPool2d>(nn, "AvgPool2d", "Average pooling over [N, C, H, W] (torch.nn.AvgPool2d).")
      .def(layer_init<nn::AvgPool2d>([pool_options](py::object kernel, py::object stride, py::object padding, bool ceil_mode,
                                   bool count_include_pad) {
        return pool_options(kernel, stride, padding, py::int_(1), ceil_mode, count_include_pad);
      }), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
         py::arg("ceil_mode") = false, py::arg("count_include_pad") = true);
  Layer<nn::AdaptiveAvgPool2d>(nn, "AdaptiveAvgPool2d", "Averages into output_size bins (torch.nn.AdaptiveAvgPool2d).")
      .def(layer_init<nn::AdaptiveAvgPool2d>([](py::object output_size) {
        return size2_of(output_size);
      }), py::arg("output_size"));

  Layer<nn::AdaptiveMaxPool2d>(nn, "AdaptiveMaxPool2d",
                               "Maxima over output_size bins (torch.nn.AdaptiveMaxPool2d).")
      .def(layer_init<nn::AdaptiveMaxPool2d>([](py::object output_size, bool return_indices) {
        return std::make_tuple(size2_of(output_size), return_indices);
      }), py::arg("output_size"), py::arg("return_indices") = false)
      .def("forward", [](nn::AdaptiveMaxPool2d& m, const Tensor& input) -> py::object {
        auto [out, indices] = without_gil([&] { return m.forward_with_indices(input); });
        if (m.return_indices()) return py::make_tuple(out, indices);
        return py::cast(out);
      }, py::arg("input"), "The maxima, and their flat positions with return_indices=True.")
      .def_property_readonly("output_size", [](const nn::AdaptiveMaxPool2d& m) { return size2_tuple(m.output_size()); })
      .def_property_readonly("return_indices", &nn::AdaptiveMaxPool2d::return_indices);

  Layer<nn::GroupNorm>(nn, "GroupNorm", "Normalises each sample over groups of channels (torch.nn.GroupNorm).")
      .def(layer_init_placed<nn::GroupNorm>([](int64_t groups, int64_t channels, double eps, bool affine, bool bias) {
             return nn::GroupNormOptions{groups, channels, eps, affine, bias};
           }),
           py::arg("num_groups"), py::arg("num_channels"), py::arg("eps") = 1e-5, py::arg("affine") = true,
           py::kw_only(), py::arg("bias") = true, py::arg("device") = py::none(), py::arg("dtype") = py::none())
      .def_property_readonly("num_groups", [](const nn::GroupNorm& g) { return g.options().num_groups; })
      .def_property_readonly("num_channels", [](const nn::GroupNorm& g) { return g.options().num_channels; })
      .def_property_readonly("eps", [](const nn::GroupNorm& g) { return g.options().eps; })
      .def_property_readonly("affine", [](const nn::GroupNorm& g) { return g.options().affine; })
      .def("reset_parameters", &nn::GroupNorm::reset_parameters);

  Layer<nn::InstanceNorm>(nn, "_InstanceNorm")
      .def_property_readonly("num_features", [](const nn::InstanceNorm& m) { return m.options().num_features; })
      .def_property_readonly("eps", [](const nn::InstanceNorm& m) { return m.options().eps; })
      .def_property_readonly("momentum", [](const nn::InstanceNorm& m) { return m.options().momentum; })
      .def_property_readonly("affine", [](const nn::InstanceNorm& m) { return m.options().affine; })
      .def_property_readonly("track_running_stats",
                             [](const nn::InstanceNorm& m) { return m.options().track_running_stats; })
      .def("reset_parameters", &nn::InstanceNorm::reset_parameters)
      .def("reset_running_stats", &nn::InstanceNorm::reset_running_stats);
  auto instance_norm_layer = [&nn]<typename M>(type_tag<M>, const char* name, const char* doc) {
    py::class_<M, PyLayer<M>, nn::InstanceNorm, std::shared_ptr<M>>(nn, name, doc)
        .def(layer_init_placed<M>([](int64_t n, double eps, double momentum, bool affine, bool track, bool bias) {
               return nn::InstanceNormOptions{n, eps, momentum, affine, track, bias};
             }),
             py::arg("num_features"), py::arg("eps") = 1e-5, py::arg("momentum") = 0.1, py::arg("affine") = false,
             py::arg("track_running_stats") = false, py::kw_only(), py::arg("bias") = true,
             py::arg("device") = py::none(), py::arg("dtype") = py::none());
  };
  instance_norm_layer(type_tag<nn::InstanceNorm1d>{}, "InstanceNorm1d",
                      "Normalises each channel of each sample over L (torch.nn.InstanceNorm1d).");
  instance_norm_layer(type_tag<nn::InstanceNorm2d>{}, "InstanceNorm2d",
                      "Normalises each channel of each sample over H, W (torch.nn.InstanceNorm2d).");
  instance_norm_layer(type_tag<nn::InstanceNorm3d>{}, "InstanceNorm3d",
                      "Normalises each channel of each sample over D, H, W (torch.nn.InstanceNorm3d).");

  Layer<nn::PReLU>(nn, "PReLU", "max(0, x) + weight * min(0, x) with a learned weight (torch.nn.PReLU).")
      .def(layer_init_placed<nn::PReLU>(
               [](int64_t num_parameters, double init) { return std::make_tuple(num_parameters, init); }),
           py::arg("num_parameters") = 1, py::arg("init") = 0.25, py::arg("device") = py::none(),
           py::arg("dtype") = py::none())
      .def_property_readonly("num_parameters", &nn::PReLU::num_parameters)
      .def("reset_parameters", &nn::PReLU::reset_parameters);

  Layer<nn::BatchNorm>(nn, "_BatchNorm")
      .def_property_readonly("num_features", [](const nn::BatchNorm& b) { return b.options().num_features; })
      .def_property_readonly("eps", [](const nn::BatchNorm& b) { return b.options().eps; })
      .def_property(
          "momentum", [](const nn::BatchNorm& b) { return b.options().momentum; }, &nn::BatchNorm::set_momentum,
          "Each batch's weight in the running statistics; None: their "
          "cumulative average.")
      .def_property_readonly("affine", [](const nn::BatchNorm& b) { return b.options().affine; })
      .def_property_readonly("track_running_stats",
                             [](const nn::BatchNorm& b) { return b.options().track_running_stats; })
      .def("reset_parameters", &nn::BatchNorm::reset_parameters)
      .def("reset_running_stats", &nn::BatchNorm::reset_running_stats);
  auto batch_norm_layer = [&nn]<typename M>(type_tag<M>, const char* name, const char* doc) {
    py::class_<M, PyLayer<M>, nn::BatchNorm, std::shared_ptr<M>>(nn, name, doc)
        .def(layer_init_placed<M>([](int64_t n, double eps, std::optional<double> momentum, bool affine, bool track) {
               return nn::BatchNormOptions{n, eps, momentum, affine, track};
             }),
             py::arg("num_features"), py::arg("eps") = 1e-5, py::arg("momentum") = 0.1, py::arg("affine") = true,
             py::arg("track_running_stats") = true, py::arg("device") = py::none(), py::arg("dtype") = py::none());
  };
  batch_norm_layer(type_tag<nn::BatchNorm1d>{}, "BatchNorm1d",
                   "Batch normalisation over [N, C] or [N, C, L] (torch.nn.BatchNorm1d).");
  batch_norm_layer(type_tag<nn::BatchNorm2d>{}, "BatchNorm2d",
                   "Batch normalisation over [N, C, H, W] (torch.nn.BatchNorm2d).");
  batch_norm_layer(type_tag<nn::BatchNorm3d>{}, "BatchNorm3d",
                   "Batch normalisation over [N, C, D, H, W] (torch.nn.BatchNorm3d).");

  Layer<nn::LayerNorm>(nn, "LayerNorm", "Normalises over the trailing normalized_shape dims (torch.nn.LayerNorm).")
      .def(layer_init_placed<nn::LayerNorm>([](py::object shape, double eps, bool affine, bool bias) {
             return nn::LayerNormOptions{dims_arg(shape), eps, affine, bias};
           }),
           py::arg("normalized_shape"), py::arg("eps") = 1e-5, py::arg("elementwise_affine") = true,
           py::arg("bias") = true, py::arg("device") = py::none(), py::arg("dtype") = py::none())
      .def_property_readonly("normalized_shape",
                             [](const nn::LayerNorm& l) { return py::tuple(py::cast(l.options().normalized_shape)); })
      .def_property_readonly("eps", [](const nn::LayerNorm& l) { return l.options().eps; });

  Layer<nn::Embedding>(nn, "Embedding", "A lookup table of num_embeddings vectors (torch.nn.Embedding).")
      .def(layer_init_placed<nn::Embedding>([](int64_t num, int64_t dim, std::optional<int64_t> padding_idx) {
             return nn::EmbeddingOptions{num, dim, padding_idx};
           }),
           py::arg("num_embeddings"), py::arg("embedding_dim"), py::arg("padding_idx") = py::none(),
           py::arg("device") = py::none(), py::arg("dtype") = py::none())
      .def_property_readonly("num_embeddings", [](const nn::Embedding& e) { return e.options().num_embeddings; })
      .def_property_readonly("embedding_dim", [](const nn::Embedding& e) { return e.options().embedding_dim; })
      .def_property_readonly("padding_idx", [](const nn::Embedding& e) { return e.options().padding_idx; })
      .def("reset_parameters", &nn::Embedding::reset_parameters);

  Layer<nn::Dropout>(nn, "Dropout", "Zeroes elements with probability p while training (torch.nn.Dropout).")
      .def(layer_init<nn::Dropout>([](double p, bool inplace) { return p; }),
           py::arg("p") = 0.5, py::arg("inplace") = false)
      .def_property_readonly("p", &nn::Dropout::p);
  Layer<nn::Flatten>(nn, "Flatten", "Flattens dims start_dim..end_dim (torch.nn.Flatten).")
      .def(py::init<int64_t, int64_t>(), py::arg("start_dim") = 1, py::arg("end_dim") = -1);
  Layer<nn::ReLU>(nn, "ReLU").def(layer_init<nn::ReLU>([](bool inplace) { return std::make_tuple(); }),
                                  py::arg("inplace") = false);
  Layer<nn::GELU>(nn, "GELU").def(py::init<std::string>(), py::arg("approximate") = "none");
  Layer<nn::Tanh>(nn, "Tanh").def(py::init<>());
  Layer<nn::Sigmoid>(nn, "Sigmoid").def(py::init<>());
  Layer<nn::LeakyReLU>(nn, "LeakyReLU")
      .def(layer_init<nn::LeakyReLU>([](double slope, bool inplace) { return slope; }),
           py::arg("negative_slope") = 0.01, py::arg("inplace") = false)
      .def_property_readonly("negative_slope", &nn::LeakyReLU::negative_slope);
  Layer<nn::Softmax>(nn, "Softmax").def(py::init<int64_t>(), py::arg("dim"))
      .def_property_readonly("dim", &nn::Softmax::dim);
  Layer<nn::Identity>(nn, "Identity")
      .def(layer_init<nn::Identity>([](py::args, py::kwargs) { return std::make_tuple(); }));

  auto mha =
      Layer<nn::MultiheadAttention>(nn, "MultiheadAttention", "torch.nn.MultiheadAttention, same parameter names.")
          .def(layer_init_placed<nn::MultiheadAttention>(
                   [](int64_t embed_dim, int64_t num_heads, double dropout, bool bias, bool add_bias_kv,
                      bool add_zero_attn, std::optional<int64_t> kdim, std::optional<int64_t> vdim, bool batch_first) {
                     return nn::MultiheadAttentionOptions{embed_dim,   num_heads,     dropout, bias, batch_first,
                                                          add_bias_kv, add_zero_attn, kdim,    vdim};
                   }),
               py::arg("embed_dim"), py::arg("num_heads"), py::arg("dropout") = 0.0, py::arg("bias") = true,
               py::arg("add_bias_kv") = false, py::arg("add_zero_attn") = false, py::arg("kdim") = py::none(),
               py::arg("vdim") = py::none(), py::arg("batch_first") = false, py::arg("device") = py::none(),
               py::arg("dtype") = py::none())
          .def(
              "forward",
              [](nn::MultiheadAttention& m, const Tensor& q, const Tensor& k, const Tensor& v,
                 const std::optional<Tensor>& key_padding_mask, bool need_weights,
                 const std::optional<Tensor>& attn_mask, bool average, bool is_causal) -> py::tuple {
                std::pair<Tensor, Tensor> r;
                {
                  py::gil_scoped_release release;
                  r = m.forward(q, k, v, key_padding_mask.value_or(Tensor()), need_weights,
                                attn_mask.value_or(Tensor()), average, is_causal);
                }
                return py::make_tuple(r.first, r.second.defined() ? py::cast(r.second) : py::none());
              },
              py::arg("query"), py::arg("key"), py::arg("value"), py::arg("key_padding_mask") = py::none(),
              py::arg("need_weights") = true, py::arg("attn_mask") = py::none(), py::arg("average_attn_weights") = true,
              py::arg("is_causal") = false, "(attn_output, attn_weights or None).")
          .def_property_readonly("embed_dim", [](const nn::MultiheadAttention& m) { return m.options().embed_dim; })
          .def_property_readonly("num_heads", [](const nn::MultiheadAttention& m) { return m.options().num_heads; })
          .def_property_readonly(
              "head_dim", [](const nn::MultiheadAttention& m) { return m.options().embed_dim / m.options().num_heads; })
          .def_property_readonly("kdim", &nn::MultiheadAttention::kdim)
          .def_property_readonly("vdim", &nn::MultiheadAttention::vdim)
          .def_property_readonly("_qkv_same_embed_dim", &nn::MultiheadAttention::qkv_same_embed_dim)
          .def_property_readonly("dropout", [](const nn::MultiheadAttention& m) { return m.options().dropout; })
          .def_property_readonly("add_zero_attn",
                                 [](const nn::MultiheadAttention& m) { return m.options().add_zero_attn; })
          .def_property_readonly("batch_first",
                                 [](const nn::MultiheadAttention& m) { return m.options().batch_first; });
  // NB: read-only; PyTorch's attributes that are None when the layer has no such parameter.
  for (const char* name : {"in_proj_weight", "in_proj_bias", "q_proj_weight", "k_proj_weight", "v_proj_weight",
                           "bias_k", "bias_v"}) {
    mha.def_property_readonly(name, [key = std::string(name)](const nn::MultiheadAttention& m) -> py::object {
      return m.has_parameter(key) ? parameter_handle(m.parameter(key)) : py::none();
    });
  }

  // activation: "relu" / "gelu", or the functions and modules PyTorch scripts pass for them.
  auto activation_name = [](const py::object& activation, const char* layer) -> std::string {
    if (py::isinstance<py::str>(activation)) return activation.cast<std::string>();
    py::module_ F = py::module_::import("ember.nn.functional");
    if (activation.is(F.attr("relu")) || py::isinstance<nn::ReLU>(activation)) return "relu";
    if (activation.is(F.attr("gelu"))) return "gelu";
    if (py::isinstance<nn::GELU>(activation) && activation.cast<const nn::GELU&>().approximate() == "none")
      return "gelu";
    throw ember::NotImplementedError(std::string(layer) + ": activation must be 'relu', 'gelu', F.relu, F.gelu, "
                                     "nn.ReLU() or nn.GELU(); other callables are not supported, got " +
                                     std::string(py::repr(activation)));
  };
  auto layer_options = [activation_name](const char* layer, int64_t d_model, int64_t nhead, int64_t dim_ff,
                                         double dropout, const py::object& activation, double eps, bool batch_first,
                                         bool norm_first, bool bias) {
    return nn::TransformerLayerOptions{d_model, nhead, dim_ff, dropout, activation_name(activation, layer),
                                       eps, batch_first, norm_first, bias};
  };
  Layer<nn::TransformerEncoderLayer>(nn, "TransformerEncoderLayer", "torch.nn.TransformerEncoderLayer.")
      .def(layer_init_placed<nn::TransformerEncoderLayer>(
               [layer_options](int64_t d_model, int64_t nhead, int64_t dim_ff, double dropout, py::object activation,
                               double eps, bool batch_first, bool norm_first, bool bias) {
                 return layer_options("TransformerEncoderLayer", d_model, nhead, dim_ff, dropout, activation, eps,
                                      batch_first, norm_first, bias);
               }),
           py::arg("d_model"), py::arg("nhead"), py::arg("dim_feedforward") = 2048, py::arg("dropout") = 0.1,
           py::arg("activation") = "relu", py::arg("layer_norm_eps") = 1e-5, py::arg("batch_first") = false,
           py::arg("norm_first") = false, py::arg("bias") = true, py::arg("device") = py::none(),
           py::arg("dtype") = py::none())
      .def(
          "forward",
          [](nn::TransformerEncoderLayer& m, const Tensor& src, const std::optional<Tensor>& mask,
             const std::optional<Tensor>& padding,
             bool is_causal) { return m.forward(src, mask.value_or(Tensor()), padding.value_or(Tensor()), is_causal); },
          py::arg("src"), py::arg("src_mask") = py::none(), py::arg("src_key_padding_mask") = py::none(),
          py::arg("is_causal") = false, Gil())
      .def_property_readonly("norm_first", [](const nn::TransformerEncoderLayer& m) { return m.options().norm_first; });

  Layer<nn::TransformerDecoderLayer>(nn, "TransformerDecoderLayer", "torch.nn.TransformerDecoderLayer.")
      .def(layer_init_placed<nn::TransformerDecoderLayer>(
               [layer_options](int64_t d_model, int64_t nhead, int64_t dim_ff, double dropout, py::object activation,
                               double eps, bool batch_first, bool norm_first, bool bias) {
                 return layer_options("TransformerDecoderLayer", d_model, nhead, dim_ff, dropout, activation, eps,
                                      batch_first, norm_first, bias);
               }),
           py::arg("d_model"), py::arg("nhead"), py::arg("dim_feedforward") = 2048, py::arg("dropout") = 0.1,
           py::arg("activation") = "relu", py::arg("layer_norm_eps") = 1e-5, py::arg("batch_first") = false,
           py::arg("norm_first") = false, py::arg("bias") = true, py::arg("device") = py::none(),
           py::arg("dtype") = py::none())
      .def(
          "forward",
          [](nn::TransformerDecoderLayer& m, const Tensor& tgt, const Tensor& memory,
             const std::optional<Tensor>& tgt_mask, const std::optional<Tensor>& memory_mask,
             const std::optional<Tensor>& tgt_padding, const std::optional<Tensor>& memory_padding, bool tgt_is_causal,
             bool memory_is_causal) {
            return m.forward(tgt, memory, tgt_mask.value_or(Tensor()), memory_mask.value_or(Tensor()),
                             tgt_padding.value_or(Tensor()), memory_padding.value_or(Tensor()), tgt_is_causal,
                             memory_is_causal);
          },
          py::arg("tgt"), py::arg("memory"), py::arg("tgt_mask") = py::none(), py::arg("memory_mask") = py::none(),
          py::arg("tgt_key_padding_mask") = py::none(), py::arg("memory_key_padding_mask") = py::none(),
          py::arg("tgt_is_causal") = false, py::arg("memory_is_causal") = false, Gil())
      .def_property_readonly("norm_first", [](const nn::TransformerDecoderLayer& m) { return m.options().norm_first; });

  // The stacks hold num_layers copies of the layer given: built-in layers are copied in C++, a
  // Python subclass with copy.deepcopy (as PyTorch does for any layer).
  auto stack_of = [](const py::object& layer, int64_t num_layers, const char* stack, const py::handle& builtin) {
    EMBER_CHECK_VALUE(num_layers >= 0, stack, ": num_layers must not be negative, got ", num_layers);
    auto layers = std::make_shared<nn::ModuleList>();
    py::object deepcopy = py::module_::import("copy").attr("deepcopy");
    for (int64_t i = 0; i < num_layers; ++i) {
      if (py::type::of(layer).is(builtin)) {
        if (py::isinstance<nn::TransformerEncoderLayer>(layer))
          layers->push_back(nn::detail::copy_layer(layer.cast<const nn::TransformerEncoderLayer&>()));
        else
          layers->push_back(nn::detail::copy_layer(layer.cast<const nn::TransformerDecoderLayer&>()));
        continue;
      }
      py::object copy;
      try {
        copy = deepcopy(layer);
      } catch (py::error_already_set& e) {
        throw ember::TypeError(std::string(stack) + ": cannot copy the layer, a " +
                               std::string(py::str(py::type::of(layer).attr("__name__"))) + " (copy.deepcopy: " +
                               e.what() + ")");
      }
      layers->push_back(hold_module(copy));
    }
    return layers;
  };
  auto norm_of = [](const py::object& norm) { return norm.is_none() ? nullptr : hold_module(norm); };

  Layer<nn::TransformerEncoder>(nn, "TransformerEncoder", R"doc(
torch.nn.TransformerEncoder: num_layers copies of encoder_layer ("layers.0", ...) and an optional
final norm. enable_nested_tensor and mask_check are accepted and ignored (Ember has no nested
tensors: padded positions are computed, never dropped).)doc")
      .def(layer_init<nn::TransformerEncoder>([stack_of, norm_of](py::object layer, int64_t num_layers, py::object norm,
                                                                  bool enable_nested_tensor, bool mask_check) {
        auto layers = stack_of(layer, num_layers, "TransformerEncoder", py::type::of<nn::TransformerEncoderLayer>());
        return std::make_tuple(layers, norm_of(norm));
      }), py::arg("encoder_layer"), py::arg("num_layers"), py::arg("norm") = py::none(),
         py::arg("enable_nested_tensor") = true, py::arg("mask_check") = true)
      .def("forward", [](nn::TransformerEncoder& m, const Tensor& src, const std::optional<Tensor>& mask,
                         const std::optional<Tensor>& padding, std::optional<bool> is_causal) {
        return m.forward(src, mask.value_or(Tensor()), padding.value_or(Tensor()), is_causal);
      }, py::arg("src"), py::arg("mask") = py::none(), py::arg("src_key_padding_mask") = py::none(),
         py::arg("is_causal") = py::none(), Gil())
      .def_property_readonly("num_layers", &nn::TransformerEncoder::num_layers)
      .def_property_readonly("norm", [](const nn::TransformerEncoder& m) -> py::object {
        return m.has_child("norm") ? py::cast(m.child("norm")) : py::none();
      });

  Layer<nn::TransformerDecoder>(nn, "TransformerDecoder", R"doc(
torch.nn.TransformerDecoder: num_layers copies of decoder_layer ("layers.0", ...) and an optional
final norm.)doc")
      .def(layer_init<nn::TransformerDecoder>([stack_of, norm_of](py::object layer, int64_t num_layers, py::object norm) {
        auto layers = stack_of(layer, num_layers, "TransformerDecoder", py::type::of<nn::TransformerDecoderLayer>());
        return std::make_tuple(layers, norm_of(norm));
      }), py::arg("decoder_layer"), py::arg("num_layers"), py::arg("norm") = py::none())
      .def("forward", [](nn::TransformerDecoder& m, const Tensor& tgt, const Tensor& memory,
                         const std::optional<Tensor>& tgt_mask, const std::optional<Tensor>& memory_mask,
                         const std::optional<Tensor>& tgt_padding, const std::optional<Tensor>& memory_padding,
                         std::optional<bool> tgt_is_causal, bool memory_is_causal) {
        return m.forward(tgt, memory, tgt_mask.value_or(Tensor()), memory_mask.value_or(Tensor()),
                         tgt_padding.value_or(Tensor()), memory_padding.value_or(Tensor()), tgt_is_causal,
                         memory_is_causal);
      }, py::arg("tgt"), py::arg("memory"), py::arg("tgt_mask") = py::none(), py::arg("memory_mask") = py::none(),
         py::arg("tgt_key_padding_mask") = py::none(), py::arg("memory_key_padding_mask") = py::none(),
         py::arg("tgt_is_causal") = py::none(), py::arg("memory_is_causal") = false, Gil())
      .def_property_readonly("num_layers", &nn::TransformerDecoder::num_layers)
      .def_property_readonly("norm", [](const nn::TransformerDecoder& m) -> py::object {
        return m.has_child("norm") ? py::cast(m.child("norm")) : py::none();
      });

  Layer<nn::Transformer>(nn, "Transformer", R"doc(
torch.nn.Transformer: an encoder and a decoder stack with PyTorch's parameter names; custom_encoder
and custom_decoder take a TransformerEncoder / TransformerDecoder (or a subclass).)doc")
      .def(layer_init_placed<nn::Transformer>(
               [activation_name](int64_t d_model, int64_t nhead, int64_t encoder_layers, int64_t decoder_layers,
                                 int64_t dim_ff, double dropout, py::object activation, py::object custom_encoder,
                                 py::object custom_decoder, double eps, bool batch_first, bool norm_first, bool bias) {
                 nn::TransformerOptions o{d_model,
                                          nhead,
                                          encoder_layers,
                                          decoder_layers,
                                          dim_ff,
                                          dropout,
                                          activation_name(activation, "Transformer"),
                                          eps,
                                          batch_first,
                                          norm_first,
                                          bias};
                 auto typed = [](const py::object& m, const char* what, const char* type, auto tag) {
                   using M = typename decltype(tag)::type;
                   if (m.is_none()) return std::shared_ptr<M>();
                   EMBER_CHECK_TYPE(py::isinstance<M>(m), "Transformer: ", what, " must be a ", type, ", got a ",
                                    std::string(py::str(py::type::of(m).attr("__name__"))));
                   return std::static_pointer_cast<M>(hold_module(m));
                 };
                 return std::make_tuple(
                     o,
                     typed(custom_encoder, "custom_encoder", "TransformerEncoder", type_tag<nn::TransformerEncoder>{}),
                     typed(custom_decoder, "custom_decoder", "TransformerDecoder", type_tag<nn::TransformerDecoder>{}));
               }),
           py::arg("d_model") = 512, py::arg("nhead") = 8, py::arg("num_encoder_layers") = 6,
           py::arg("num_decoder_layers") = 6, py::arg("dim_feedforward") = 2048, py::arg("dropout") = 0.1,
           py::arg("activation") = "relu", py::arg("custom_encoder") = py::none(),
           py::arg("custom_decoder") = py::none(), py::arg("layer_norm_eps") = 1e-5, py::arg("batch_first") = false,
           py::arg("norm_first") = false, py::arg("bias") = true, py::arg("device") = py::none(),
           py::arg("dtype") = py::none())
      .def(
          "forward",
          [](nn::Transformer& m, const Tensor& src, const Tensor& tgt, const std::optional<Tensor>& src_mask,
             const std::optional<Tensor>& tgt_mask, const std::optional<Tensor>& memory_mask,
             const std::optional<Tensor>& src_padding, const std::optional<Tensor>& tgt_padding,
             const std::optional<Tensor>& memory_padding, std::optional<bool> src_is_causal,
             std::optional<bool> tgt_is_causal, bool memory_is_causal) {
            return m.forward(src, tgt, src_mask.value_or(Tensor()), tgt_mask.value_or(Tensor()),
                             memory_mask.value_or(Tensor()), src_padding.value_or(Tensor()),
                             tgt_padding.value_or(Tensor()), memory_padding.value_or(Tensor()), src_is_causal,
                             tgt_is_causal, memory_is_causal);
          },
          py::arg("src"), py::arg("tgt"), py::arg("src_mask") = py::none(), py::arg("tgt_mask") = py::none(),
          py::arg("memory_mask") = py::none(), py::arg("src_key_padding_mask") = py::none(),
          py::arg("tgt_key_padding_mask") = py::none(), py::arg("memory_key_padding_mask") = py::none(),
          py::arg("src_is_causal") = py::none(), py::arg("tgt_is_causal") = py::none(),
          py::arg("memory_is_causal") = false, Gil())
      .def_static(
          "generate_square_subsequent_mask",
          [](int64_t sz, py::object device, std::optional<DType> dtype) {
            return nn::Transformer::generate_square_subsequent_mask(sz, dtype.value_or(default_dtype()));
          },
          py::arg("sz"), py::arg("device") = py::none(), py::arg("dtype") = py::none(),
          "[sz, sz]: -inf above the diagonal, 0 elsewhere (position i attends to 0 ... i).")
      .def_property_readonly("d_model", [](const nn::Transformer& m) { return m.options().d_model; })
      .def_property_readonly("nhead", [](const nn::Transformer& m) { return m.options().nhead; })
      .def_property_readonly("batch_first", [](const nn::Transformer& m) { return m.options().batch_first; });
}

// PyTorch's forward of RNN, LSTM and GRU: input a tensor or a PackedSequence (whose output is
// packed the same way, the states permuted into its sorted order and back), hx None, a tensor or
// (LSTM) (h_0, c_0); returns (output, h_n) or (output, (h_n, c_n)).
py::tuple recurrent_forward(nn::RNNBase& m, py::handle input, py::handle hx) {
  const bool lstm = m.cell() == RnnCell::Lstm;
  Tensor h, c;
  if (!hx.is_none() && lstm) {
    auto pair = hx.cast<py::sequence>();
    EMBER_CHECK_TYPE(pair.size() == 2, "LSTM: hx must be a tuple (h_0, c_0), got ", pair.size(), " items");
    h = pair[0].cast<Tensor>();
    c = pair[1].cast<Tensor>();
  } else if (!hx.is_none()) {
    h = hx.cast<Tensor>();
  }
  nn::RNNBase::Result r;
  py::object output;
  if (py::isinstance<Tensor>(input)) {
    Tensor x = input.cast<Tensor>();
    {
      py::gil_scoped_release release;
      r = m.run(x, h, c);
    }
    output = py::cast(r.output);
  } else if (py::hasattr(input, "batch_sizes") && py::hasattr(input, "sorted_indices")) {  // a PackedSequence
    auto packed = input.cast<nn::PackedSequence>();
    nn::RNNBase::PackedResult p;
    {
      py::gil_scoped_release release;
      p = m.run(packed, h, c);
    }
    output = py::cast(p.output);
    r.h_n = p.h_n;
    r.c_n = p.c_n;
  } else {
    throw ember::TypeError(m.type_name() + ": input must be a Tensor or a PackedSequence, got " +
                           std::string(py::str(py::type::of(input).attr("__name__"))));
  }
  if (lstm) return py::make_tuple(output, py::make_tuple(r.h_n, r.c_n));
  return py::make_tuple(output, r.h_n);
}

py::list parameter_list(const std::vector<Tensor>& tensors) {
  py::list out;
  for (const Tensor& t : tensors) out.append(parameter_handle(t));
  return out;
}

void bind_recurrent(py::module_& nn) {
  Layer<nn::RNNBase>(nn, "RNNBase", "What RNN, LSTM and GRU share (torch.nn.RNNBase).")
      .def_property_readonly("mode", &nn::RNNBase::mode)
      .def_property_readonly("input_size", [](const nn::RNNBase& m) { return m.options().input_size; })
      .def_property_readonly("hidden_size", [](const nn::RNNBase& m) { return m.options().hidden_size; })
      .def_property_readonly("num_layers", [](const nn::RNNBase& m) { return m.options().num_layers; })
      .def_property_readonly("bias", [](const nn::RNNBase& m) { return m.options().bias; },
                             "Whether the layer has biases (a bool, as in PyTorch).")
      .def_property_readonly("batch_first", [](const nn::RNNBase& m) { return m.options().batch_first; })
      .def_property_readonly("dropout", [](const nn::RNNBase& m) { return m.options().dropout; })
      .def_property_readonly("bidirectional", [](const nn::RNNBase& m) { return m.options().bidirectional; })
      .def_property_readonly("proj_size", [](const nn::RNNBase& m) { return m.options().proj_size; })
      .def_property_readonly("_flat_weights_names", &nn::RNNBase::flat_weights_names)
      .def_property_readonly("_flat_weights", [](const nn::RNNBase& m) { return parameter_list(m.flat_weights()); })
      .def_property_readonly("all_weights", [](const nn::RNNBase& m) {
        // One list per layer and direction: [w_ih, w_hh(, b_ih, b_hh)].
        std::vector<Tensor> flat = m.flat_weights();
        const size_t per = m.options().bias ? 4 : 2;
        py::list out;
        for (size_t i = 0; i < flat.size(); i += per)
          out.append(parameter_list(std::vector<Tensor>(flat.begin() + i, flat.begin() + i + per)));
        return out;
      })
      .def("flatten_parameters", [](const nn::RNNBase&) {},
           "Does nothing: Ember's layers read their parameters where they are (PyTorch compacts them for cuDNN).")
      .def("reset_parameters", &nn::RNNBase::reset_parameters)
      .def("forward", &recurrent_forward, py::arg("input"), py::arg("hx") = py::none(),
           "input [T, B, input_size] ([B, T, ...] with batch_first), unbatched [T, input_size] or a "
           "PackedSequence -> (output, h_n), for LSTM (output, (h_n, c_n)).");

  py::class_<nn::RNN, PyLayer<nn::RNN>, nn::RNNBase, std::shared_ptr<nn::RNN>>(nn, "RNN", R"doc(
Elman RNN, h_t = tanh or relu(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (torch.nn.RNN).
forward(input, hx=None) -> (output, h_n).)doc")
      .def(layer_init_placed<nn::RNN>([](int64_t input_size, int64_t hidden_size, int64_t num_layers,
                                         const std::string& nonlinearity, bool bias, bool batch_first, double dropout,
                                         bool bidirectional, int64_t proj_size) {
             return nn::RNNOptions{input_size,  hidden_size, num_layers,    nonlinearity, bias,
                                   batch_first, dropout,     bidirectional, proj_size};
           }),
           py::arg("input_size"), py::arg("hidden_size"), py::arg("num_layers") = 1, py::arg("nonlinearity") = "tanh",
           py::arg("bias") = true, py::arg("batch_first") = false, py::arg("dropout") = 0.0,
           py::arg("bidirectional") = false, py::kw_only(), py::arg("proj_size") = 0, py::arg("device") = py::none(),
           py::arg("dtype") = py::none())
      .def_property_readonly("nonlinearity", [](const nn::RNN& m) { return m.options().nonlinearity; });
  py::class_<nn::GRU, PyLayer<nn::GRU>, nn::RNNBase, std::shared_ptr<nn::GRU>>(nn, "GRU", R"doc(
GRU with gates r, z, n (torch.nn.GRU). forward(input, hx=None) -> (output, h_n).)doc")
      .def(layer_init_placed<nn::GRU>([](int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bias,
                                         bool batch_first, double dropout, bool bidirectional, int64_t proj_size) {
             return nn::RNNOptions{input_size,  hidden_size, num_layers,    "tanh",   bias,
                                   batch_first, dropout,     bidirectional, proj_size};
           }),
           py::arg("input_size"), py::arg("hidden_size"), py::arg("num_layers") = 1, py::arg("bias") = true,
           py::arg("batch_first") = false, py::arg("dropout") = 0.0, py::arg("bidirectional") = false, py::kw_only(),
           py::arg("proj_size") = 0, py::arg("device") = py::none(), py::arg("dtype") = py::none());
  py::class_<nn::LSTM, PyLayer<nn::LSTM>, nn::RNNBase, std::shared_ptr<nn::LSTM>>(nn, "LSTM", R"doc(
LSTM with gates i, f, g, o (torch.nn.LSTM). forward(input, hx=None), hx = (h_0, c_0), returns
(output, (h_n, c_n)). proj_size > 0 is refused (NotImplementedError).)doc")
      .def(layer_init_placed<nn::LSTM>([](int64_t input_size, int64_t hidden_size, int64_t num_layers, bool bias,
                                          bool batch_first, double dropout, bool bidirectional, int64_t proj_size) {
             return nn::RNNOptions{input_size,  hidden_size, num_layers,    "tanh",   bias,
                                   batch_first, dropout,     bidirectional, proj_size};
           }),
           py::arg("input_size"), py::arg("hidden_size"), py::arg("num_layers") = 1, py::arg("bias") = true,
           py::arg("batch_first") = false, py::arg("dropout") = 0.0, py::arg("bidirectional") = false,
           py::arg("proj_size") = 0, py::arg("device") = py::none(), py::arg("dtype") = py::none());

  Layer<nn::RNNCellBase>(nn, "RNNCellBase", "What RNNCell, LSTMCell and GRUCell share (torch.nn.RNNCellBase).")
      .def_property_readonly("input_size", [](const nn::RNNCellBase& m) { return m.options().input_size; })
      .def_property_readonly("hidden_size", [](const nn::RNNCellBase& m) { return m.options().hidden_size; })
      .def_property_readonly("bias", [](const nn::RNNCellBase& m) { return m.options().bias; })
      .def("reset_parameters", &nn::RNNCellBase::reset_parameters);
  auto cell_options = [](int64_t input_size, int64_t hidden_size, bool bias) {
    return nn::RNNCellOptions{input_size, hidden_size, bias};
  };
  py::class_<nn::RNNCell, PyLayer<nn::RNNCell>, nn::RNNCellBase, std::shared_ptr<nn::RNNCell>>(
      nn, "RNNCell", "One Elman RNN step (torch.nn.RNNCell): forward(input, hx=None) -> h'.")
      .def(layer_init_placed<nn::RNNCell>(
               [](int64_t input_size, int64_t hidden_size, bool bias, const std::string& nonlinearity) {
                 return nn::RNNCellOptions{input_size, hidden_size, bias, nonlinearity};
               }),
           py::arg("input_size"), py::arg("hidden_size"), py::arg("bias") = true, py::arg("nonlinearity") = "tanh",
           py::arg("device") = py::none(), py::arg("dtype") = py::none())
      .def_property_readonly("nonlinearity", [](const nn::RNNCell& m) { return m.options().nonlinearity; })
      .def(
          "forward",
          [](nn::RNNCell& m, const Tensor& input, const std::optional<Tensor>& hx) {
            return m.forward(input, hx.value_or(Tensor()));
          },
          py::arg("input"), py::arg("hx") = py::none(), Gil());
  py::class_<nn::GRUCell, PyLayer<nn::GRUCell>, nn::RNNCellBase, std::shared_ptr<nn::GRUCell>>(
      nn, "GRUCell", "One GRU step (torch.nn.GRUCell): forward(input, hx=None) -> h'.")
      .def(layer_init_placed<nn::GRUCell>([cell_options](int64_t input_size, int64_t hidden_size, bool bias) {
             return cell_options(input_size, hidden_size, bias);
           }),
           py::arg("input_size"), py::arg("hidden_size"), py::arg("bias") = true, py::arg("device") = py::none(),
           py::arg("dtype") = py::none())
      .def(
          "forward",
          [](nn::GRUCell& m, const Tensor& input, const std::optional<Tensor>& hx) {
            return m.forward(input, hx.value_or(Tensor()));
          },
          py::arg("input"), py::arg("hx") = py::none(), Gil());
  py::class_<nn::LSTMCell, PyLayer<nn::LSTMCell>, nn::RNNCellBase, std::shared_ptr<nn::LSTMCell>>(
      nn, "LSTMCell", "One LSTM step (torch.nn.LSTMCell): forward(input, hx=None), hx = (h, c) -> (h', c').")
      .def(layer_init_placed<nn::LSTMCell>([cell_options](int64_t input_size, int64_t hidden_size, bool bias) {
             return cell_options(input_size, hidden_size, bias);
           }),
           py::arg("input_size"), py::arg("hidden_size"), py::arg("bias") = true, py::arg("device") = py::none(),
           py::arg("dtype") = py::none())
      .def(
          "forward",
          [](nn::LSTMCell& m, const Tensor& input, py::handle hx) {
            Tensor h, c;
            if (!hx.is_none()) {
              auto pair = hx.cast<py::sequence>();
              EMBER_CHECK_TYPE(pair.size() == 2, "LSTMCell: hx must be a tuple (h, c), got ", pair.size(), " items");
              h = pair[0].cast<Tensor>();
              c = pair[1].cast<Tensor>();
            }
            std::pair<Tensor, Tensor> r;
            {
              py::gil_scoped_release release;
              r = m.forward(input, h, c);
            }
            return py::make_tuple(r.first, r.second);
          },
          py::arg("input"), py::arg("hx") = py::none());
}

void bind_containers(py::module_& nn) {
  Layer<nn::Sequential>(nn, "Sequential", R"doc(
Runs its children in order (torch.nn.Sequential): Sequential(m1, m2, ...) names them "0", "1", ...;
Sequential(OrderedDict(name=module, ...)) keeps the names. Children may be written in Python.)doc")
      .def(container_init<nn::Sequential>([](nn::Sequential& seq, py::args args) {
        if (args.size() == 1 && py::isinstance<py::dict>(args[0])) {
          for (auto [k, v] : args[0].cast<py::dict>()) seq.push_back(k.cast<std::string>(), hold_module(v));
        } else {
          for (py::handle a : args) seq.push_back(hold_module(a));
        }
      }))
      .def("append", [](py::object self, py::handle module) {
        self.cast<nn::Sequential&>().push_back(hold_module(module));
        return self;
      }, py::arg("module"))
      .def("__len__", &nn::Sequential::size)
      .def("__getitem__", [](const nn::Sequential& s, int64_t i) { return child_at(s, i); })
      .def("__getitem__", [](const nn::Sequential& s, const py::slice& slice) {
        auto seq = std::make_shared<nn::Sequential>();  // the children keep their names
        for (const auto& [name, m] : children_in(s, slice)) seq->push_back(name, m);
        return seq;
      })
      .def("__iter__", [](const nn::Sequential& s) { return iterate_children(s); });

  Layer<nn::ModuleList>(nn, "ModuleList", "An indexable list of registered modules (torch.nn.ModuleList).")
      .def(container_init<nn::ModuleList>([](nn::ModuleList& list, std::optional<py::iterable> modules) {
        if (modules)
          for (py::handle m : *modules) list.push_back(hold_module(m));
      }), py::arg("modules") = py::none())
      .def("append", [](py::object self, py::handle module) {
        self.cast<nn::ModuleList&>().push_back(hold_module(module));
        return self;
      }, py::arg("module"))
      .def("extend", [](py::object self, py::iterable modules) {
        for (py::handle m : modules) self.cast<nn::ModuleList&>().push_back(hold_module(m));
        return self;
      }, py::arg("modules"))
      .def("__iadd__", [](py::object self, py::iterable modules) {
        for (py::handle m : modules) self.cast<nn::ModuleList&>().push_back(hold_module(m));
        return self;
      })
      .def("__len__", &nn::ModuleList::size)
      .def("__getitem__", [](const nn::ModuleList& l, int64_t i) { return child_at(l, i); })
      .def("__getitem__", [](const nn::ModuleList& l, const py::slice& slice) {
        auto list = std::make_shared<nn::ModuleList>();
        for (const auto& [name, m] : children_in(l, slice)) list->push_back(m);
        return list;
      })
      .def("__setitem__", [](nn::ModuleList& l, int64_t i, py::handle module) {
        const auto n = static_cast<int64_t>(l.size());
        EMBER_CHECK_INDEX(i >= -n && i < n, "index ", i, " is out of range for ModuleList of length ", n);
        l.replace_module(std::to_string(i < 0 ? i + n : i), hold_module(module));
      })
      .def("__iter__", [](const nn::ModuleList& l) { return iterate_children(l); });

  Layer<nn::ModuleDict>(nn, "ModuleDict", "Registered modules by name, in insertion order (torch.nn.ModuleDict).")
      .def(container_init<nn::ModuleDict>([](nn::ModuleDict& dict, std::optional<py::object> modules) {
        if (modules) {
          py::object items = py::isinstance<py::dict>(*modules) ? modules->attr("items")() : *modules;
          for (py::handle kv : items) {
            auto pair = kv.cast<py::tuple>();
            dict.insert(pair[0].cast<std::string>(), hold_module(pair[1]));
          }
        }
      }), py::arg("modules") = py::none())
      .def("__setitem__", [](nn::ModuleDict& d, const std::string& key, py::handle module) {
        if (d.contains(key)) d.replace_module(key, hold_module(module));
        else d.insert(key, hold_module(module));
      })
      .def("__contains__", &nn::ModuleDict::contains)
      .def("__len__", &nn::ModuleDict::size)
      .def("__getitem__", [](const nn::ModuleDict& d, const std::string& key) {
        if (!d.contains(key)) throw py::key_error(key);
        return d.child(key);
      })
      .def("__iter__", [](const nn::ModuleDict& d) {
        py::list keys;
        for (const auto& [name, m] : d.named_children()) keys.append(name);
        return py::iter(keys);
      })
      .def("keys", [](const nn::ModuleDict& d) {
        py::list keys;
        for (const auto& [name, m] : d.named_children()) keys.append(name);
        return keys;
      })
      .def("values", [](const nn::ModuleDict& d) {
        py::list values;
        for (const auto& [name, m] : d.named_children()) values.append(py::cast(m));
        return values;
      })
      .def("items", [](const nn::ModuleDict& d) {
        py::list items;
        for (const auto& [name, m] : d.named_children()) items.append(py::make_tuple(name, m));
        return items;
      })
      .def("update", [](py::object self, py::object modules) {
        py::object items = py::hasattr(modules, "items") ? modules.attr("items")() : modules;
        for (py::handle kv : items) {
          auto pair = kv.cast<py::tuple>();
          self.attr("__setitem__")(pair[0], pair[1]);
        }
      }, py::arg("modules"));
}

}  // namespace

void bind_nn(py::module_& m) {
  py::module_ nn = m.def_submodule("nn", "ember.nn's C++ half: Module and the built-in layers");
  bind_module(nn);
  nn.def("_address", [](const Module& module) { return reinterpret_cast<uintptr_t>(&module); },
         "The C++ object's address: identifies a module whatever Python object wraps it.");
  bind_layers(nn);
  bind_recurrent(nn);
  bind_containers(nn);
  bind_losses(nn);
  bind_padding(nn);
  bind_activation_layers(nn);
  bind_embedding_bag(nn);
  bind_channel_layers(nn);
  bind_conv_layers(nn);
  bind_pool_layers(nn);
  bind_fold_layers(nn);
  bind_upsample_layers(nn);
  bind_rnn_utils(nn);

  // __all__: every layer and container bound above, which ember/nn/__init__.py re-exports with
  // `from .._C.nn import *` (so a new layer needs no line there).
  py::list all;
  py::handle module_class = nn.attr("Module");
  for (auto [name, value] : nn.attr("__dict__").cast<py::dict>()) {
    bool is_layer = PyType_Check(value.ptr()) && !value.is(module_class) &&
                    PyObject_IsSubclass(value.ptr(), module_class.ptr()) == 1;
    if (is_layer && py::str(name).cast<std::string>()[0] != '_') all.append(name);
  }
  all.attr("sort")();
  nn.attr("__all__") = all;
}

}  // namespace ember::python
