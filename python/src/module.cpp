// The extension module ember._C. The Python package `ember` (python/ember/) re-exports it.
#include "bindings.h"

namespace {

// NB: from Python 3.12, pybind11 gives its static_property type a __dict__ before the type has
// its size; with PYBIND11_BACKWARD_COMPATIBILITY_TP_DICTOFFSET (python/CMakeLists.txt: Tensor's
// fixed __dict__) that leaves the type 8 bytes long, and every static property and enum written
// through it would write past its object (the import crashed on 3.12). Its size is set here,
// before the first one is made: a property's, and the __dict__ after it.
void repair_static_property_type() {
#if PY_VERSION_HEX >= 0x030C0000
  PyTypeObject* type = py::detail::get_internals().static_property_type;
  if (type->tp_basicsize < PyProperty_Type.tp_basicsize) {
    type->tp_dictoffset = PyProperty_Type.tp_basicsize;
    type->tp_basicsize = PyProperty_Type.tp_basicsize + static_cast<Py_ssize_t>(sizeof(PyObject*));
  }
#endif
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  using namespace ember::python;
  m.doc() = "Ember's C++ core: tensors, ops and autograd (import `ember`, not this module)";
  repair_static_property_type();
  bind_errors(m);
  bind_return_types(m);
  bind_dtype(m);
  bind_tensor(m);
  bind_tensor_identity(m);  // NB: before any Tensor object exists
  bind_creation(m);
  bind_default_device(m);
  bind_numpy(m);
  bind_indexing(m);
  bind_ops(m);
  bind_tensor_protocol(m);  // NB: after the ops: to, repr and the properties replace theirs
  bind_autograd(m);
  bind_autograd_function(m);
  bind_autocast(m);
  bind_nn(m);
  bind_module_hooks(m);
  bind_module_protocol(m);  // NB: after the hooks: its register_*_hook call theirs
  bind_functional(m);
  bind_optim(m);
  bind_io(m);
  bind_jit(m);
  bind_data(m);
  bind_distributed(m);
  bind_fft(m);
  bind_profiler(m);
  bind_batched_dispatch(m);
}
