// One C++ tensor, one Python object, as in PyTorch: `t.grad is t.grad`, a parameter is the same
// object from model.fc.weight, model.parameters(), optimizer.param_groups and
// state_dict(keep_vars=True), dicts and sets keyed by tensors work, and Python attributes set on a
// tensor (p.my_flag = 1) stay with it.
//
// NB: the design. The tensor keeps its Python object in its impl's BindingSlot (core/binding_slot.h,
// an opaque pointer: core includes no Python), and the Tensor caster (bindings.h) returns that
// object whenever the tensor goes to Python. pybind11's own registry of instances cannot do this:
// it keys instances by the address of the C++ value, and every Tensor returned by value is a new
// handle at a new address. Who keeps whom alive flips, as in PyTorch ("PyObject preservation"):
//   - while Python holds the object, the object holds the tensor (its pybind11 holder) and the
//     slot only points back at the object (borrowed);
//   - when Python lets go while C++ still holds the tensor (a module's parameter, a gradient, a
//     tensor saved for backward), the dealloc below resurrects the object instead of freeing it:
//     the slot now owns it and the object drops its handle, so there is no cycle. When the tensor
//     goes back to Python, the object takes its handle back and Python owns it again; when C++
//     lets go too, ~BindingSlot releases the object, which then dies for good.
// So the object dies exactly when both sides have let go (no leak, no cycle for the collector to
// find), and its __dict__ and its class (nn.Parameter) survive in between. An object that has
// weak references keeps its handle instead (a weak reference may give it back to Python without
// the caster, and it must work then): that cycle is shown to Python's collector, which frees
// the object and the tensor at its next pass once C++ has let go, as PyTorch's weak references
// to tensors need _fix_weakref() (Ember's need nothing).
//
// Threads: every read and write of a slot happens under the GIL (the caster, the dealloc, the
// constructor). The one exception is the tensor's destructor, which runs on whatever thread drops
// the last handle, often one that released the GIL (backward, optimizer.step): an owned object is
// then queued and released at the next chance with the GIL (a Python pending call, or the next
// cast), never by waiting for the GIL on a thread that may hold locks the GIL's holder waits for.
//
// Limits: an object whose class adds instance layout (a Python subclass of Tensor with __slots__
// or __del__) goes through CPython's own subtype dealloc, which clears __dict__ first; such an
// object is not preserved (the tensor gets a plain new object next time). A cycle through C++
// (p.owner = module, where the module holds p) is invisible to Python's collector, as the modules
// held by C++ containers are (see nn.cpp).
#include "bindings.h"

#include <atomic>
#include <mutex>
#include <vector>

namespace ember::python {
namespace {

PyTypeObject* tensor_type = nullptr;
// pybind11's slots, which the ones below wrap
destructor pybind_dealloc = nullptr;
traverseproc pybind_traverse = nullptr;
inquiry pybind_clear = nullptr;

// ---- objects whose tensor died on a thread without the GIL, released later with it
std::mutex pending_mutex;
std::vector<PyObject*> pending;
std::atomic<bool> has_pending{false};
std::atomic<bool> drain_scheduled{false};

void drain_pending() {
  if (!has_pending.load(std::memory_order_acquire)) return;
  std::vector<PyObject*> objects;
  {
    std::lock_guard<std::mutex> lock(pending_mutex);
    objects.swap(pending);
    has_pending.store(false, std::memory_order_release);
  }
  for (PyObject* o : objects) Py_DECREF(o);
}

int drain_pending_call(void*) {
  drain_scheduled.store(false);
  drain_pending();
  return 0;
}

bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

// BindingSlot::Release: the tensor died while owning its Python object.
void release_object(void* object) {
  auto* o = static_cast<PyObject*>(object);
  if (!Py_IsInitialized() || interpreter_finalizing()) return;  // exit: leak it
  if (PyGILState_Check()) {
    Py_DECREF(o);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(pending_mutex);
    pending.push_back(o);
    has_pending.store(true, std::memory_order_release);
  }
  // NB: at most one pending call at a time (CPython's queue is short); a failed one is retried by
  // the next release, and the next cast or dealloc drains the queue anyway.
  if (!drain_scheduled.exchange(true) && Py_AddPendingCall(&drain_pending_call, nullptr) != 0)
    drain_scheduled.store(false);
}

// The Tensor inside a Python Tensor object, or null before its __init__ has run.
Tensor* held_tensor(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  py::detail::value_and_holder v_h = inst->get_value_and_holder();
  if (!v_h.holder_constructed() && v_h.value_ptr() == nullptr) return nullptr;
  return v_h.value_ptr<Tensor>();
}

void adopt(PyObject* self, const Tensor& t) {
  if (t.defined()) t.impl().binding_slot().set(self, /*owned=*/false, &release_object);
}

// The tensor of `self` if `self` is its object and the tensor owns it (else null).
Tensor* owning_tensor(PyObject* self) {
  Tensor* t = held_tensor(self);
  if (t == nullptr || !t->defined()) return nullptr;
  BindingSlot& slot = t->impl().binding_slot();
  return slot.object() == self && slot.owned() ? t : nullptr;
}

// tp_dealloc of Tensor and of the Python subclasses that add no instance layout (see the top).
void tensor_dealloc(PyObject* self) {
  Tensor* t = held_tensor(self);
  if (t != nullptr && t->defined()) {
    BindingSlot& slot = t->impl().binding_slot();
    if (slot.object() == self) {
      if (t->impl_ptr().use_count() > 1 && Py_TYPE(self)->tp_dealloc == &tensor_dealloc) {
        // C++ holds the tensor too: keep the object for the next time the tensor reaches Python.
        Py_SET_REFCNT(self, 1);  // the reference the slot owns from now on
        slot.set_owned(true);
        // NB: an object with weak references keeps its handle, since a weak reference may hand it
        // to Python again without the caster: a cycle, which tensor_traverse shows to the
        // collector once C++ has let go. Any other object drops it (no cycle; it dies as soon as
        // C++ lets go); if another thread dropped its handle meanwhile, this was the last one:
        // ~BindingSlot then releases the object again, and the nested dealloc frees it.
        if (reinterpret_cast<py::detail::instance*>(self)->weakrefs == nullptr)
          *t = Tensor();  // NB: may free self (see above): nothing touches it after this
        return;
      }
      slot.clear();
    }
  }
  pybind_dealloc(self);
  drain_pending();
}

// tp_traverse: the tensor's reference to its object counts as the object's own once nothing
// but the object holds the tensor (the cycle of an object with weak references, see above).
int tensor_traverse(PyObject* self, visitproc visit, void* arg) {
  if (int r = pybind_traverse(self, visit, arg)) return r;
  Tensor* t = owning_tensor(self);
  if (t != nullptr && t->impl_ptr().use_count() == 1) Py_VISIT(self);
  return 0;
}

// tp_clear: the collector found such a cycle unreachable; the tensor lets go of the object
// (the collector holds a reference meanwhile), which then dies and takes the tensor with it.
int tensor_clear(PyObject* self) {
  if (Tensor* t = owning_tensor(self)) {
    t->impl().binding_slot().set_owned(false);
    Py_DECREF(self);
  }
  return pybind_clear(self);
}

}  // namespace

}  // namespace ember::python

namespace pybind11::detail {

handle type_caster<ember::Tensor>::cast(const ember::Tensor& src, return_value_policy, handle parent) {
  // NB: never a reference to the C++ handle (it may be a temporary): the object holds a copy.
  if (!src.defined()) return type_caster_base<ember::Tensor>::cast(src, return_value_policy::copy, parent);
  ember::python::drain_pending();
  ember::BindingSlot& slot = src.impl().binding_slot();
  if (auto* object = static_cast<PyObject*>(slot.object())) {
    if (!slot.owned()) return handle(object).inc_ref();
    // Back to Python: the object holds the tensor again, and the reference the slot owned is the
    // caller's now.
    *ember::python::held_tensor(object) = src;
    slot.set_owned(false);
    return handle(object);
  }
  handle h = type_caster_base<ember::Tensor>::cast(src, return_value_policy::copy, parent);
  if (h) ember::python::adopt(h.ptr(), src);
  return h;
}

}  // namespace pybind11::detail

namespace ember::python {

void bind_tensor_identity(py::module_& m) {
  auto cls = tensor_class(m);
  tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  pybind_dealloc = tensor_type->tp_dealloc;
  pybind_traverse = tensor_type->tp_traverse;
  pybind_clear = tensor_type->tp_clear;
  tensor_type->tp_dealloc = &tensor_dealloc;
  tensor_type->tp_traverse = &tensor_traverse;
  tensor_type->tp_clear = &tensor_clear;

  // NB: what nn.Parameter (a Python subclass of Tensor) builds on.
  cls.def("__init__", [](py::detail::value_and_holder& v_h, const Tensor& data) {
    v_h.value_ptr() = new Tensor(data.detach());
    adopt(reinterpret_cast<PyObject*>(v_h.inst), *v_h.value_ptr<Tensor>());
  }, py::detail::is_new_style_constructor(), py::arg("data"),
     "A new tensor sharing data's memory, cut from the graph (data.detach()).");
  cls.def("__hash__", [](py::handle self) { return reinterpret_cast<uintptr_t>(self.ptr()); },
          "By identity, as PyTorch's (== compares values, elementwise).");

  // A Python subclass that adds no instance layout (nn.Parameter, most user subclasses) uses
  // tensor_dealloc in place of CPython's subtype_dealloc, so its objects are preserved too.
  auto init_subclass = py::cpp_function([](py::handle subclass, const py::kwargs&) {
    auto* t = reinterpret_cast<PyTypeObject*>(subclass.ptr());
    bool same_layout = t->tp_basicsize == tensor_type->tp_basicsize && t->tp_itemsize == 0 &&
                       t->tp_dictoffset == tensor_type->tp_dictoffset &&
                       t->tp_weaklistoffset == tensor_type->tp_weaklistoffset &&
                       t->tp_finalize == nullptr && t->tp_del == nullptr;
    if (same_layout) t->tp_dealloc = &tensor_dealloc;
  });
  cls.attr("__init_subclass__") = py::module_::import("builtins").attr("classmethod")(init_subclass);

  m.def("_tensor_object_state", [](const Tensor& t) {
    BindingSlot& slot = t.impl().binding_slot();
    return py::make_tuple(slot.object() != nullptr, slot.owned(), t.impl_ptr().use_count());
  }, "(has an object, the tensor owns it, C++ handles): for tests of the object's lifetime.");
}

}  // namespace ember::python
