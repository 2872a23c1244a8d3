// ember._C.io: Python containers <-> io::Value (every node keeps its type: tuples stay tuples, ints
// stay ints), save/load/load_tensor, CheckpointManager, whole-module files, and ember::warn routed
// to Python's warnings module. save and load release the GIL while the file is written or read;
// the conversions around them run with it.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <string>

#include "bindings.h"
#include "ember/core/warning.h"
#include "ember/io/architecture.h"
#include "ember/io/checkpoint_manager.h"
#include "ember/io/fault_injection.h"
#include "ember/io/module_io.h"
#include "ember/io/optim_io.h"
#include "ember/io/serialize.h"
#include "ember/io/value.h"
#include "ember/jit/program_file.h"
#include "ember/nn/module.h"
#include "ember/optim/optim.h"

namespace ember::python {

Tensor from_numpy(const py::array& a);  // numpy.cpp

namespace {

// The tensor attribute that marks a NumPy value saved from Python: "ndarray" or "scalar" (a
// numpy.float32(1.0)); ember.load gives the NumPy value back, C++ sees a tensor (io/FORMAT.md §3).
constexpr const char* kNumpyMark = "ember.numpy";

constexpr int kMaxDepth = 512;

std::string type_name_of(const py::handle& obj) {
  return py::str(py::type::of(obj).attr("__name__"));
}

std::string where(const std::string& path) { return path.empty() ? "the root" : "'" + path + "'"; }

io::Value numpy_value(const py::handle& obj, const std::string& path) {
  py::module_ np = py::module_::import("numpy");
  const bool scalar = py::isinstance(obj, np.attr("generic"));
  py::array a = np.attr("array")(obj, py::arg("order") = "C");  // NB: keeps a 0-dim scalar 0-dim
  Tensor t;
  try {
    t = from_numpy(a).clone();  // NB: its own memory: the write runs without the GIL
  } catch (const ember::Error& e) {
    throw ember::TypeError("io.save: the NumPy " + std::string(scalar ? "scalar" : "array") + " at " + where(path) +
                           " has dtype " + std::string(py::str(a.dtype())) + ", which a tensor cannot hold (" +
                           e.what() + ")");
  }
  t.attributes()[kNumpyMark] = std::string(scalar ? "scalar" : "ndarray");
  return io::Value(t);
}

int64_t int_key(const py::handle& k, const std::string& path) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(k.ptr(), &overflow);
  EMBER_CHECK_VALUE(overflow == 0, "io.save: the dict key ", std::string(py::repr(k)), " at ", where(path),
                    " does not fit in 64 bits");
  return static_cast<int64_t>(v);
}

io::Value to_value(const py::handle& obj, const std::string& path, int depth) {
  EMBER_CHECK_VALUE(depth < kMaxDepth, "io.save: nesting deeper than ", kMaxDepth,
                    " levels at ", where(path), " (a container that holds itself?)");
  PyObject* o = obj.ptr();
  if (obj.is_none()) return io::Value();
  if (PyBool_Check(o)) return io::Value(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    EMBER_CHECK_VALUE(overflow == 0, "io.save: the int at ", where(path), " does not fit in 64 bits");
    return io::Value(static_cast<int64_t>(v));
  }
  if (PyFloat_Check(o)) return io::Value(PyFloat_AsDouble(o));
  if (PyUnicode_Check(o)) return io::Value(obj.cast<std::string>());
  if (py::isinstance<Tensor>(obj)) return io::Value(obj.cast<Tensor>());
  auto child = [&](const std::string& key) { return path.empty() ? key : path + "/" + key; };
  if (PyList_Check(o) || PyTuple_Check(o)) {
    std::vector<io::Value> items;
    size_t i = 0;
    for (py::handle item : obj) items.push_back(to_value(item, child(std::to_string(i++)), depth + 1));
    return PyTuple_Check(o) ? io::Value::tuple(std::move(items)) : io::Value::list(std::move(items));
  }
  if (PyDict_Check(o)) {
    std::vector<io::Value::Item> items;
    for (auto [k, v] : obj.cast<py::dict>()) {
      // str and int keys, as PyTorch's optimizer state {0: ...} has (a bool is not an int here).
      bool is_int = PyLong_Check(k.ptr()) && !PyBool_Check(k.ptr());
      EMBER_CHECK_TYPE(PyUnicode_Check(k.ptr()) || is_int, "io.save: dict keys must be str or int, got ",
                       type_name_of(k), " key ", std::string(py::repr(k)), " at ", where(path));
      io::Key key = is_int ? io::Key(int_key(k, path)) : io::Key(k.cast<std::string>());
      items.emplace_back(key, to_value(v, child(key.str()), depth + 1));
    }
    return io::Value::dict(std::move(items));
  }
  // Objects with state: saved as their state trees (load gives back the trees, which each
  // object's load_state_dict takes).
  // A traced module is saved whole (program and state): ember.load gives the module back.
  if (py::isinstance<jit::TracedModule>(obj)) return jit::to_value(obj.cast<const jit::TracedModule&>());
  if (py::isinstance<nn::Module>(obj)) {
    // ember.save(model, path): a module whose every type is built in or registered is saved whole, so
    // ember.load gives it back as torch.load does a pickled one. Any other is an error naming the two
    // ways to save it: as its state it would load back as a dict where the caller expects a module
    // (and fail far from here). Inside a container a module is its state tree, as optimizers and
    // schedulers are (each object's load_state_dict takes what ember.load gives back).
    auto& module = obj.cast<nn::Module&>();
    if (!path.empty()) return io::to_value(module);
    // What ember.load cannot rebuild: a type neither built in nor registered, or a Python subclass of
    // a built-in one (class Doubled(nn.Linear) with a forward of its own would come back a Linear).
    std::string unknown;
    for (const auto& [name, m] : module.named_modules()) {
      const py::handle type = py::type::of(py::cast(m, py::return_value_policy::reference));
      const std::string python_name = py::str(type.attr("__name__"));
      const bool built_in = py::str(type.attr("__module__")).cast<std::string>().starts_with("ember");
      if (io::has_module_type(m->type_name()) && (built_in || python_name == m->type_name())) continue;
      const std::string what = built_in ? m->type_name() : python_name;
      unknown = name.empty() ? what : what + " ('" + name + "' in " + module.type_name() + ")";
      break;
    }
    if (unknown.empty()) return io::module_value(module);
    throw TypeError("ember.save: " + unknown +
                    " cannot be saved whole (ember.load could not rebuild it without its class): trace the model "
                    "(ember.save(ember.jit.trace(model, example_input), path)) or register its type "
                    "(ember.io.register_module_type); to save its parameters and buffers by name, save "
                    "model.state_dict()");
  }
  // NB: an optimizer's Python state_dict() holds what its C++ half does and more (the state of
  // one written in Python, "keyed_by").
  if (py::isinstance<optim::Optimizer>(obj))
    return py::hasattr(obj, "state_dict") ? to_value(obj.attr("state_dict")(), path, depth + 1)
                                          : io::to_value(obj.cast<const optim::Optimizer&>());
  if (py::isinstance<optim::LRScheduler>(obj)) return io::to_value(obj.cast<const optim::LRScheduler&>());
  if (py::isinstance<optim::ReduceLROnPlateau>(obj))
    return io::to_value(obj.cast<const optim::ReduceLROnPlateau&>());
  if (py::isinstance<Generator>(obj)) return io::to_value(obj.cast<const Generator&>());
  if (py::isinstance<py::array>(obj) || py::isinstance(obj, py::module_::import("numpy").attr("generic")))
    return numpy_value(obj, path);
  throw ember::TypeError("io.save: can't save an object of type " + type_name_of(obj) + " at " + where(path) +
                         " (None, bool, int, float, str, Tensor, list, tuple, dict with str "
                         "or int keys, NumPy arrays, modules, optimizers, schedulers and generators can be saved)");
}

}  // namespace

io::Value py_to_value(const py::handle& obj) { return to_value(obj, "", 0); }

py::object value_to_py(const io::Value& v) {
  using T = io::Value::Type;
  switch (v.type()) {
    case T::None: return py::none();
    case T::Bool: return py::bool_(v.as_bool());
    case T::Int: return py::int_(v.as_int());
    case T::Float: return py::float_(v.as_float());
    case T::String: return py::str(v.as_string());
    case T::Tensor: {
      const Tensor& t = v.as_tensor();
      const Attributes* attrs = t.impl().attributes_if_any();
      if (attrs == nullptr || !attrs->contains(kNumpyMark)) return py::cast(t);
      // saved from a NumPy value: that value back, in memory of its own (not the tensor's)
      Tensor plain = t.detach();
      plain.attributes().erase(kNumpyMark);
      py::object array = py::cast(plain).attr("numpy")().attr("copy")();
      if (std::get_if<std::string>(&attrs->at(kNumpyMark)) != nullptr &&
          std::get<std::string>(attrs->at(kNumpyMark)) == "scalar")
        return array.attr("__getitem__")(py::tuple());
      return array;
    }
    case T::List: {
      py::list out;
      for (const io::Value& item : v.items()) out.append(value_to_py(item));
      return out;
    }
    case T::Tuple: {
      py::tuple out(v.size());
      for (size_t i = 0; i < v.size(); ++i) out[i] = value_to_py(v[i]);
      return out;
    }
    case T::Dict: {
      if (jit::holds_program(v)) return py::cast(jit::from_value(v, "ember.load"));
      py::dict out;
      const auto& keys = v.keys();
      for (size_t i = 0; i < keys.size(); ++i) {
        py::object key = keys[i].is_int() ? py::object(py::int_(keys[i].as_int())) : py::object(py::str(keys[i].as_string()));
        out[key] = value_to_py(v.items()[i]);
      }
      return out;
    }
  }
  throw ember::InternalError("value_to_py: unknown Value type");
}

void bind_io(py::module_& m) {
  py::module_ io = m.def_submodule("io", "ember.io's C++ half: checkpoints of Python containers");

  // ember::warn (a damaged checkpoint skipped, ...) -> warnings.warn(message, UserWarning).
  ember::set_warning_handler([](const std::string& message) {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    // NB: the message may quote a damaged file's bytes: made valid UTF-8 first, or the warning
    // would be lost to a UnicodeDecodeError.
    std::string text = py::str(lenient_str(message)).cast<std::string>();
    if (PyErr_WarnEx(PyExc_UserWarning, text.c_str(), 1) != 0) PyErr_Clear();  // NB: can't raise here
  });

  io.def("save", [](py::handle obj, const std::string& path, bool durable) {
    io::Value v = py_to_value(obj);
    py::gil_scoped_release release;
    io::save(v, path, io::SaveOptions{durable});
  }, py::arg("obj"), py::arg("path"), py::arg("durable") = true,
        "Writes obj (nested containers of tensors and plain values) to path atomically.");
  io.def(
      "load",
      [](const std::string& path, bool verify, const Device& map_location, bool mmap,
         std::vector<std::string> pickle_globals) {
        io::Value v;
        {
          py::gil_scoped_release release;
          v = io::load(path, io::LoadOptions{.verify = verify,
                                             .mmap = mmap,
                                             .map_location = map_location,
                                             .pickle_globals = std::move(pickle_globals)});
        }
        // A file ember.save(model, path) wrote whole (or io::save(module, path)): the module, rebuilt.
        if (io::is_module_value(v)) return py::cast(io::module_from_value(v, "ember.load: '" + path + "'"));
        return value_to_py(v);
      },
      py::arg("path"), py::arg("verify") = true, py::arg("map_location") = Device::cpu(), py::arg("mmap") = false,
      py::arg("pickle_globals") = std::vector<std::string>{},
      "Reads what save wrote, every container type kept; the tensors on map_location, in memory of "
      "their own (mmap=True: borrowing a mapping of the file). pickle_globals: a torch.save file's "
      "globals to describe instead of refusing (ember.serialization builds them).");
  io.def("load_tensor", [](const std::string& path, const std::string& name, bool mmap) {
    return io::load_tensor(path, name, io::OpenOptions{.mmap = mmap});
  }, py::arg("path"), py::arg("name"), py::arg("mmap") = false, py::call_guard<py::gil_scoped_release>(),
         "One tensor by its path in the saved tree ('model/fc.weight'), without reading the others.");
  io.def("load_latest", [](const std::string& dir, bool allow_fresh_start) -> py::object {
    std::optional<io::CheckpointManager::Restored> r;
    {
      py::gil_scoped_release release;
      r = io::load_latest(dir, allow_fresh_start);
    }
    if (!r) return py::none();
    return py::make_tuple(r->step, r->path, value_to_py(r->state));
  }, py::arg("dir"), py::arg("allow_fresh_start") = false,
         "(step, path, obj) of the newest checkpoint of a run directory that loads, read without "
         "creating or changing anything; None when there is none.");
  io.def("save_module", [](const nn::Module& module, const std::string& path) {
    io::save(module, path);
  }, py::arg("module"), py::arg("path"), py::call_guard<py::gil_scoped_release>(),
         "Writes the module's architecture and state (built-in layers, containers and the types "
         "registered with ember.io.register_module_type).");
  io.def("load_module", [](const std::string& path) { return io::load_module(path); }, py::arg("path"),
         "Rebuilds a module written by save_module.");
  io.def("_register_module_type", [](const std::string& name, py::function to_options, py::function from_options) {
    // NB: the registry lives until exit, past the interpreter's end: the callables are never
    // released (a py::object destroyed then would touch a finalised interpreter).
    auto* to = new py::function(std::move(to_options));
    auto* from = new py::function(std::move(from_options));
    io::register_module_type(
        name,
        [to](const nn::Module& m) {
          py::gil_scoped_acquire gil;
          return py_to_value((*to)(py::cast(const_cast<nn::Module*>(&m), py::return_value_policy::reference)));
        },
        [from](const io::Value& options) {
          py::gil_scoped_acquire gil;
          return hold_module((*from)(value_to_py(options)));
        });
  }, py::arg("name"), py::arg("to_options"), py::arg("from_options"),
         "Registers a module type written in Python (ember.io.register_module_type wraps it).");
  io.def("_has_module_type", &io::has_module_type, py::arg("name"));
  io.def("load_into", [](nn::Module& module, const std::string& path, bool strict, const std::string& key) {
    nn::LoadResult r;
    {
      py::gil_scoped_release release;
      io::Value root = io::load(path);
      const io::Value* state = &root;
      std::string walked;
      for (size_t begin = 0; !key.empty() && begin <= key.size();) {
        const size_t end = std::min(key.find('/', begin), key.size());
        const std::string part = key.substr(begin, end - begin);
        walked += (walked.empty() ? "" : "/") + part;
        EMBER_CHECK_KEY(state->is_dict() && state->find(io::Key(part)) != nullptr, "io.load_into: '", path,
                        "' has no entry '", walked, "'");
        state = &state->at(io::Key(part));
        begin = end + 1;
      }
      r = io::load_into(module, *state, strict);
    }
    std::string mismatches;
    for (const auto& m : r.shape_mismatches) {
      std::string c = "[", w = "[";
      for (size_t i = 0; i < m.checkpoint_shape.size(); ++i) c += (i ? ", " : "") + std::to_string(m.checkpoint_shape[i]);
      for (size_t i = 0; i < m.model_shape.size(); ++i) w += (i ? ", " : "") + std::to_string(m.model_shape[i]);
      mismatches += "size mismatch for '" + m.key + "': checkpoint " + c + "], model " + w + "]\n";
    }
    return py::make_tuple(r.missing_keys, r.unexpected_keys, mismatches);
  }, py::arg("module"), py::arg("path"), py::arg("strict") = true, py::arg("key") = "",
         "Loads the module state saved at key ('/'-separated; '' for the root) of the file at path in place, "
         "with requires_grad and attributes; returns (missing_keys, unexpected_keys, size mismatches).");
  // Fault injection for tests (io/fault_injection.h): fail, shorten or kill at the `at`-th call
  // of io's file layer, or count the calls when `at` is 0.
  io.def("_set_fault_plan", [](int64_t at, const std::string& fault, int error, const std::string& only) {
    io::testing::FaultPlan plan{.at = at, .error = error};
    if (fault == "error") plan.fault = io::testing::Fault::Error;
    else if (fault == "short") plan.fault = io::testing::Fault::ShortWrite;
    else if (fault == "kill") plan.fault = io::testing::Fault::Kill;
    else throw ValueError("_set_fault_plan: fault must be 'error', 'short' or 'kill', got '" + fault + "'");
    for (int op = 0; !only.empty() && op <= static_cast<int>(io::detail::FileOp::Close); ++op)
      if (only == io::detail::file_op_name(static_cast<io::detail::FileOp>(op))) plan.only = static_cast<io::detail::FileOp>(op);
    EMBER_CHECK_VALUE(only.empty() || plan.only, "_set_fault_plan: unknown call kind '", only, "'");
    io::testing::set_fault_plan(plan);
  }, py::arg("at"), py::arg("fault") = "error", py::arg("errno") = EIO, py::arg("only") = "");
  io.def("_clear_fault_plan", &io::testing::clear_fault_plan);
  io.def("_fault_points", &io::testing::fault_points);
  io.def("_tensor_names", [](const std::string& path) {
    std::vector<std::vector<std::string>> out;
    for (const io::TensorInfo& info : io::File::open(path).tensors()) out.push_back(info.names);
    return out;
  }, py::arg("path"));

  py::class_<io::CheckpointManager>(io, "CheckpointManager", R"doc(
Numbered checkpoints in a directory ("ckpt-<step>.ember"), keeping the newest keep_last; restore()
reads the newest one that loads, skipping damaged newer ones with a warning.)doc")
      .def(py::init<std::string, int64_t>(), py::arg("dir"), py::arg("keep_last"))
      .def("save", [](io::CheckpointManager& cm, py::handle obj, int64_t step) {
        io::Value v = py_to_value(obj);
        py::gil_scoped_release release;
        return cm.save(v, step);
      }, py::arg("obj"), py::arg("step"), "Writes obj as the checkpoint of step; returns its path.")
      .def("save_async", [](io::CheckpointManager& cm, py::handle obj, int64_t step) {
        io::Value v = py_to_value(obj);
        py::gil_scoped_release release;
        return cm.save_async(v, step);
      }, py::arg("obj"), py::arg("step"),
         "save() in a background thread, on a copy taken before returning; returns the path.")
      .def("wait", &io::CheckpointManager::wait, py::call_guard<py::gil_scoped_release>(),
           "Blocks until the background save is written; raises its error.")
      .def("latest", [](const io::CheckpointManager& cm, bool allow_fresh_start) -> py::object {
        std::optional<io::CheckpointManager::Entry> e;
        {
          py::gil_scoped_release release;
          e = cm.latest(allow_fresh_start);
        }
        if (!e) return py::none();
        return py::make_tuple(e->step, e->path);
      }, py::arg("allow_fresh_start") = false,
         "(step, path) of the newest checkpoint that loads; None when there is none yet. Raises when "
         "checkpoints exist but none loads, unless allow_fresh_start.")
      .def("restore", [](const io::CheckpointManager& cm, bool allow_fresh_start) -> py::object {
        std::optional<io::CheckpointManager::Restored> r;
        {
          py::gil_scoped_release release;
          r = cm.restore(allow_fresh_start);
        }
        if (!r) return py::none();
        return py::make_tuple(r->step, r->path, value_to_py(r->state));
      }, py::arg("allow_fresh_start") = false,
         "(step, path, obj) of the newest checkpoint that loads; None when there is none yet. Raises "
         "when checkpoints exist but none loads, unless allow_fresh_start.")
      .def("checkpoints", [](const io::CheckpointManager& cm) {
        std::vector<std::pair<int64_t, std::string>> out;
        for (const auto& e : cm.checkpoints()) out.emplace_back(e.step, e.path);
        return out;
      }, "(step, path) of every checkpoint file present, oldest first.")
      .def("path_for", &io::CheckpointManager::path_for, py::arg("step"))
      .def_property_readonly("dir", &io::CheckpointManager::dir)
      .def_property_readonly("keep_last", &io::CheckpointManager::keep_last);
}

}  // namespace ember::python
