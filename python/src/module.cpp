// The extension module ember._C. The Python package `ember` (python/ember/) re-exports it.
#include "bindings.h"

PYBIND11_MODULE(_C, m) {
  using namespace ember::python;
  m.doc() = "Ember's C++ core: tensors, ops and autograd (import `ember`, not this module)";
  bind_errors(m);
  bind_dtype(m);
  bind_tensor(m);
  bind_tensor_identity(m);  // NB: before any Tensor object exists
  bind_creation(m);
  bind_numpy(m);
  bind_indexing(m);
  bind_ops(m);
  bind_autograd(m);
  bind_nn(m);
  bind_module_hooks(m);
  bind_functional(m);
  bind_optim(m);
  bind_io(m);
  bind_data(m);
  bind_distributed(m);
}
