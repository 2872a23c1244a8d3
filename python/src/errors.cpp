// C++ exceptions -> the Python exception of the same name, with the same message:
// ember::ValueError -> ValueError, TypeError, IndexError, KeyError, OSError (errno and filename
// set; FileNotFoundError, PermissionError, ... by errno),
// NotImplementedError, ember::LinAlgError -> ember._C.LinAlgError (a RuntimeError, re-exported as
// ember.linalg.LinAlgError), and every other ember::Error (InternalError included) -> RuntimeError.
#include "bindings.h"

#include "ember/core/error.h"

namespace ember::python {

py::str lenient_str(const std::string& text) {
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "backslashreplace");
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

namespace {
// PyErr_SetString would raise a UnicodeDecodeError instead for a message that is not UTF-8.
void set_error(PyObject* type, const char* what) { PyErr_SetObject(type, lenient_str(what).ptr()); }
}  // namespace

void bind_errors(py::module_& m) {
  // NB: a leaked reference: the translator below may run until the interpreter is gone.
  static PyObject* lin_alg_error = PyErr_NewExceptionWithDoc(
      "ember._C.LinAlgError", "A matrix the factorisation cannot handle (torch.linalg.LinAlgError).",
      PyExc_RuntimeError, nullptr);
  if (lin_alg_error == nullptr) throw py::error_already_set();
  m.attr("LinAlgError") = py::reinterpret_borrow<py::object>(lin_alg_error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ember::ValueError& e) {
      set_error(PyExc_ValueError, e.what());
    } catch (const ember::TypeError& e) {
      set_error(PyExc_TypeError, e.what());
    } catch (const ember::IndexError& e) {
      set_error(PyExc_IndexError, e.what());
    } catch (const ember::KeyError& e) {
      set_error(PyExc_KeyError, e.what());
    } catch (const ember::OSError& e) {
      // OSError(errno, message[, filename]) makes Python pick the subclass (FileNotFoundError,
      // PermissionError, ...) and sets e.errno / e.filename; without an errno, a plain OSError.
      PyObject* type = dynamic_cast<const ember::FileNotFoundError*>(&e) ? PyExc_FileNotFoundError : PyExc_OSError;
      py::str what = lenient_str(e.what());
      py::tuple args = e.error() == 0 ? py::tuple(py::make_tuple(what))
                       : e.filename().empty() ? py::tuple(py::make_tuple(e.error(), what))
                                              : py::tuple(py::make_tuple(e.error(), what, lenient_str(e.filename())));
      PyErr_SetObject(type, args.ptr());
    } catch (const ember::NotImplementedError& e) {
      set_error(PyExc_NotImplementedError, e.what());
    } catch (const ember::LinAlgError& e) {
      set_error(lin_alg_error, e.what());
    } catch (const ember::Error& e) {
      set_error(PyExc_RuntimeError, e.what());
    }
  });
  // For tests of the mapping (and for Python code that wants Ember's exact messages).
  m.def("_throw", [](const std::string& kind, const std::string& message) {
    if (kind == "ValueError") throw ember::ValueError(message);
    if (kind == "TypeError") throw ember::TypeError(message);
    if (kind == "IndexError") throw ember::IndexError(message);
    if (kind == "KeyError") throw ember::KeyError(message);
    if (kind == "NotImplementedError") throw ember::NotImplementedError(message);
    if (kind == "FileNotFoundError") throw ember::FileNotFoundError(message);
    if (kind == "OSError") throw ember::OSError(message, ENOSPC, "file.ember");
    if (kind == "InternalError") throw ember::InternalError(message);
    if (kind == "LinAlgError") throw ember::LinAlgError(message);
    throw ember::Error(message);
  }, py::arg("kind"), py::arg("message"), "Throws the named ember exception (tests the mapping).");
}

}  // namespace ember::python
