#pragma once
// Shared declarations of the Python bindings (the extension module ember._C). Each bind_* function
// adds one concept to the module; module.cpp calls them in dependency order (dtypes and the Tensor
// class first, so that later signatures can name them). Later layers add their own bind_* here
// (nn, optim, io, data) and one call each in module.cpp.
#include <pybind11/pybind11.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ember/core/scalar.h"
#include "ember/core/shape.h"
#include "ember/core/size2.h"
#include "ember/core/size3.h"
#include "ember/core/tensor.h"

namespace py = pybind11;

namespace ember::io {
class Value;
}
namespace ember::nn {
class Module;
}

namespace pybind11::detail {
/// Python bool / int / float (and NumPy scalars) <-> ember::Scalar, keeping the kind, which decides
/// the result dtype as in PyTorch (t * 2 stays int64, t * 2.0 is float32). Tensors never convert.
template <>
struct type_caster<ember::Scalar> {
  PYBIND11_TYPE_CASTER(ember::Scalar, const_name("Union[bool, int, float]"));
  bool load(handle src, bool convert);
  static handle cast(const ember::Scalar& s, return_value_policy, handle) {
    if (s.is_bool()) return PyBool_FromLong(s.to<int64_t>());
    if (s.is_floating()) return PyFloat_FromDouble(s.to<double>());
    return PyLong_FromLongLong(s.to<int64_t>());
  }
};
/// Python int or sequence of 1 or N ints <-> ember::Size2 / Size3 (a tuple back), as PyTorch's
/// kernel_size=3 or (1, 3, 3); a sequence of another length is a ValueError naming both.
bool load_sizes(handle src, int64_t* out, size_t n);
template <>
struct type_caster<ember::Size2> {
  PYBIND11_TYPE_CASTER(ember::Size2, const_name("Union[int, Tuple[int, int]]"));
  type_caster() : value(0) {}
  bool load(handle src, bool) {
    int64_t v[2];
    if (!load_sizes(src, v, 2)) return false;
    value = ember::Size2(v[0], v[1]);
    return true;
  }
  static handle cast(ember::Size2 s, return_value_policy, handle) { return make_tuple(s.h, s.w).release(); }
};
template <>
struct type_caster<ember::Size3> {
  PYBIND11_TYPE_CASTER(ember::Size3, const_name("Union[int, Tuple[int, int, int]]"));
  type_caster() : value(0) {}
  bool load(handle src, bool) {
    int64_t v[3];
    if (!load_sizes(src, v, 3)) return false;
    value = ember::Size3(v[0], v[1], v[2]);
    return true;
  }
  static handle cast(ember::Size3 s, return_value_policy, handle) { return make_tuple(s.d, s.h, s.w).release(); }
};
/// ember::Tensor to Python as the one Python object of that tensor (python/src/tensor_identity.cpp):
/// a tensor that already has one gets it back, so the same tensor is the same object every time.
/// Python to C++ is pybind11's. Every file that casts tensors sees this (they include this header).
template <>
class type_caster<ember::Tensor> : public type_caster_base<ember::Tensor> {
 public:
  static handle cast(const ember::Tensor& src, return_value_policy policy, handle parent);
  static handle cast(ember::Tensor&& src, return_value_policy policy, handle parent) {
    return cast(static_cast<const ember::Tensor&>(src), policy, parent);
  }
  static handle cast(const ember::Tensor* src, return_value_policy policy, handle parent) {
    if (src == nullptr) return none().release();
    return cast(*src, policy, parent);
  }
};

/// NB: pybind11 moves a C++ value out of a Python object that has no other reference (a forward
/// override's result, say), which would leave that tensor's object without its tensor while the
/// tensor still names it. A Tensor is a handle: copying it is as cheap.
template <>
struct move_if_unreferenced<ember::Tensor, void> : std::false_type {};

}  // namespace pybind11::detail

namespace ember::python {

void bind_errors(py::module_& m);
void bind_return_types(py::module_& m);  // ember._C.return_types, before anything makes a named tuple
/// `text` as a Python str; bytes that are not UTF-8 (a damaged file's name or header quoted in a
/// message) become \xNN escapes instead of a UnicodeDecodeError.
py::str lenient_str(const std::string& text);
void bind_dtype(py::module_& m);     // dtype and device objects
void bind_tensor(py::module_& m);    // the Tensor class: metadata, operators, in-place ops, repr
void bind_tensor_identity(py::module_& m);  // one Python object per tensor: its lifetime, __init__
void bind_creation(py::module_& m);  // zeros, arange, rand, ..., Generator
void bind_default_device(py::module_& m);  // set_default_device, `with ember.device(...)`
void bind_ops(py::module_& m);       // every op as ember.<name> and Tensor.<name>
void bind_tensor_protocol(py::module_& m);  // repr, print options, pickling, deepcopy, to/cuda's forms, mT
void bind_table_ops(py::module_& m);  // those of the op table (generated: op_bindings.cpp)
void bind_conv_ops(py::module_& m);   // conv2d, conv1d, adaptive_max_pool2d (conv.cpp)
void bind_indexing(py::module_& m);  // Tensor.__getitem__ / __setitem__
void bind_numpy(py::module_& m);     // from_numpy, Tensor.numpy, the buffer protocol
void bind_autograd(py::module_& m);  // grad mode, backward, grad, hooks, gradcheck
void bind_autograd_function(py::module_& m);  // the node behind ember.autograd.Function
void bind_autocast(py::module_& m);  // autocast's per-thread state and the policy of ops written in Python
void bind_nn(py::module_& m);          // ember._C.nn: Module (subclassable), the layers, containers
void bind_losses(py::module_& nn);     // the loss modules of ember._C.nn (loss.cpp)
void bind_padding(py::module_& nn);    // the padding layers of ember._C.nn (padding.cpp)
void bind_activation_layers(py::module_& nn);             // SiLU, ELU, GLU, ... (activation.cpp)
void bind_activation_functions(py::module_& functional);  // silu, elu, glu, ... (activation.cpp)
void bind_embedding_bag(py::module_& nn);                 // nn.EmbeddingBag (embedding_bag.cpp)
void bind_embedding_bag_function(py::module_& functional);  // F.embedding_bag
void bind_channel_layers(py::module_& nn);                  // PixelShuffle, the channel dropouts, ... (channel.cpp)
void bind_channel_functions(py::module_& functional);       // pixel_shuffle, dropout2d, ...
void bind_conv_layers(py::module_& nn);                 // Conv3d, ConvTranspose1d, ConvTranspose3d (conv_layers.cpp)
void bind_conv3d_ops(py::module_& m);                   // conv3d, conv_transpose1d, conv_transpose3d
void bind_linalg_composites(py::module_& m);            // _linalg_pinv, _linalg_lstsq, ... (linalg.cpp)
void bind_pool_layers(py::module_& nn);                 // the 1-D, 3-D and LP pools (pooling.cpp)
void bind_pool_functions(py::module_& functional);      // max_pool1d, avg_pool3d, lp_pool2d, ...
void bind_fold_layers(py::module_& nn);                 // Unfold, Fold (fold.cpp)
void bind_fold_functions(py::module_& functional);      // unfold, fold
void bind_upsample_layers(py::module_& nn);             // Upsample and its fixed-mode forms (upsample.cpp)
void bind_upsample_functions(py::module_& functional);  // interpolate
void bind_rnn_utils(py::module_& nn);                   // pack_padded_sequence & co. (rnn_utils.cpp)
/// PyTorch's reading of the deprecated size_average and reduce arguments (with its warning): the
/// reduction they ask for, or `reduction` when both are None.
std::string legacy_reduction(const py::object& size_average, const py::object& reduce, const std::string& reduction);
/// CTC lengths from an integer tensor, a sequence of ints or one int.
std::vector<int64_t> lengths_of(const py::handle& values, const char* what);
void bind_module_hooks(py::module_& m);  // Module hooks from Python (forward, pre, full backward)
/// The hooks of a module as Python calls them: (pre, forward, backward) lists (module_hooks.cpp).
py::tuple hook_lists(const py::handle& self);
/// Module.__call__ with hooks: pre-hooks, forward, forward hooks (always_call ones on an error too),
/// full backward hooks wired through identity views (module_call.cpp).
py::object call_with_hooks(py::handle self, const py::args& args, const py::kwargs& kwargs);
void bind_module_protocol(py::module_& m);  // Module's Python API: __setattr__, traversals, state_dict, __call__
void bind_functional(py::module_& m);  // ember._C.nn.functional (linear, losses), ember._C.nn.init
void bind_optim(py::module_& m);       // ember._C.optim: optimizers, clipping, LR schedulers
void bind_swa_utils(py::module_& optim);  // AveragedModel, SWALR, update_bn (swa_utils.cpp)
void bind_grad_scaler(py::module_& optim);  // GradScaler with torch.amp's API (grad_scaler.cpp)
void bind_io(py::module_& m);          // ember._C.io: save/load of containers, CheckpointManager
void bind_jit(py::module_& m);         // ember._C.jit: tracing, TracedModule, program files (jit.cpp)
void bind_data(py::module_& m);        // ember._C.data: read_idx, FashionMNIST, DataLoader
void bind_distributed(py::module_& m);  // ember._C.distributed: stores, process groups, DDP reducer, launcher
void bind_fsdp(py::module_& distributed);  // ember._C.distributed.FSDP (fsdp.cpp)
void bind_fft(py::module_& m);          // ember._C.fft: torch.fft's functions (ops/fft.h)
void bind_profiler(py::module_& m);     // ember._C.profiler: Profile, RecordFunction, key averages, traces
void bind_batched_dispatch(py::module_& m);  // ember.func.vmap's hook into every op binding (batched_dispatch.cpp)
int vmap_depth();  // how many vmaps run: Module.__call__ asks ember.func's dispatcher while any does
// That dispatcher's answer for one module call: its output, or Ellipsis where the call is not batched.
py::object call_batched_module(py::handle module, const py::args& args, const py::kwargs& kwargs);

/// The Tensor class object registered by bind_tensor, for adding methods from other files.
py::class_<Tensor> tensor_class(py::module_& m);

/// Sizes from Python's two spellings: f(2, 3) and f((2, 3)) (also a list or an empty call).
std::vector<int64_t> size_args(const py::args& args);
/// Dims from None (every dim: empty), an int or a sequence of ints.
std::vector<int64_t> dims_arg(const py::handle& dim);
/// An int[]? argument: nullopt for None, else dims_arg's (an empty sequence is an empty list).
std::optional<std::vector<int64_t>> optional_dims_arg(const py::handle& dim);
/// stride=2 or stride=(2, 1), as PyTorch takes them (None: nullopt for the optional form).
Size2 size2(const py::handle& v);
std::optional<Size2> optional_size2(const py::handle& v);
/// A str? argument: a view of the Python string, nullopt for None (the string outlives the call).
inline std::optional<std::string_view> optional_view(const std::optional<std::string>& s) {
  return s ? std::optional<std::string_view>(*s) : std::nullopt;
}
/// A 1-D op's size: stride=2 or stride=(2,); `op` and `name` name it in the error.
int64_t size1(const py::handle& v, const char* op, const char* name);
/// A registered parameter as Python sees it: its nn.Parameter handle.
py::object parameter_handle(const Tensor& t);

/// The device set_default_device chose; nullopt while it is the CPU (default_device.cpp).
std::optional<Device> default_device();
/// A layer's "bias" parameter handle, or None for one built with bias=False.
py::object bias_of(const nn::Module& m);
/// f() with the GIL released, for ops that may run long: without_gil([&] { return matmul(a, b); }).
template <typename F>
auto without_gil(F&& f) {
  py::gil_scoped_release nogil;
  return f();
}
/// A Python tuple of tensors (split, chunk and unbind return tuples, as in PyTorch).
py::tuple tensor_tuple(const std::vector<Tensor>& tensors);
/// The named tuple class ember.return_types.<name> with these fields, made once (return_types.cpp).
py::object named_tuple_class(const char* name, std::initializer_list<const char*> fields);
/// A named tuple as torch.return_types: named_tuple("max", {"values", "indices"}, r).
template <typename... Ts>
py::object named_tuple(const char* name, std::initializer_list<const char*> fields, const std::tuple<Ts...>& values) {
  return std::apply([&](const auto&... v) { return named_tuple_class(name, fields)(v...); }, values);
}
/// A Tensor, or a 0-d tensor made from a Python number in the dtype `like op number` computes in.
Tensor as_tensor_like(const py::handle& value, const Tensor& like);
/// A Python complex number as PyTorch wraps it: a 0-d complex128 tensor next to a float64 or
/// complex128 `like`, else complex64 (as a Python float next to float32 stays float32).
Tensor complex_number(std::complex<double> value, const Tensor& like);
/// The Python number of a one-element tensor: bool, int or float as its dtype says.
py::object item_of(const Tensor& t);
/// The values as nested Python lists (a number for a 0-d tensor).
py::object tolist(const Tensor& t);
/// A shape as a Python tuple of ints.
py::tuple shape_tuple(IntArrayRef sizes);

/// Deletes a Python object that C++ holds (new py::object(...)), from any thread: with the GIL,
/// or leaking the object once the interpreter is gone (C++ statics die after it).
template <typename T>
void delete_with_gil(T* o) {
  if (!Py_IsInitialized()) {
    o->release();
    delete o;
    return;
  }
  py::gil_scoped_acquire gil;
  delete o;
}

/// A Python callable that C++ may copy and destroy on a thread without the GIL (the autograd
/// engine, a forward running with the GIL released): destruction takes the GIL; callers take it
/// around each call.
class PyCallable {
 public:
  explicit PyCallable(py::function fn) : fn_(new py::function(std::move(fn)), &delete_with_gil<py::function>) {}
  /// The function; call it, and drop what it returns, only while holding the GIL.
  const py::function& fn() const { return *fn_; }

 private:
  std::shared_ptr<py::function> fn_;
};

/// The module behind a Python object, owned so that the Python object (a module written in Python
/// keeps its attributes there) lives as long as C++ holds the module. A TypeError for non-modules.
std::shared_ptr<nn::Module> hold_module(const py::handle& obj);
/// A Python object as an io::Value: None, bool, int, float, str, Tensor, list, tuple, dict with
/// str keys, and modules / optimizers / schedulers / generators as their state trees.
io::Value py_to_value(const py::handle& obj);
/// An io::Value as Python objects (dicts, lists and tuples kept apart).
py::object value_to_py(const io::Value& value);

}  // namespace ember::python
