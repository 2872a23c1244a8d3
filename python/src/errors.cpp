// C++ exceptions -> the Python exception of the same name, with the same message:
// ember::ValueError -> ValueError, TypeError, IndexError, KeyError, FileNotFoundError,
// NotImplementedError, and every other ember::Error (InternalError included) -> RuntimeError.
#include "bindings.h"

#include "ember/core/error.h"

namespace ember::python {

void bind_errors(py::module_& m) {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ember::ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const ember::TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const ember::IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const ember::KeyError& e) {
      PyErr_SetString(PyExc_KeyError, e.what());
    } catch (const ember::FileNotFoundError& e) {
      PyErr_SetString(PyExc_FileNotFoundError, e.what());
    } catch (const ember::NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const ember::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
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
    if (kind == "InternalError") throw ember::InternalError(message);
    throw ember::Error(message);
  }, py::arg("kind"), py::arg("message"), "Throws the named ember exception (tests the mapping).");
}

}  // namespace ember::python
