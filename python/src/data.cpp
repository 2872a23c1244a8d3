// ember._C.data: the idx reader, FashionMNIST and the DataLoader of data/, with the loader's
// state_dict()/load_state_dict(). ember.data (Python) adds the iteration protocol. Reading files
// releases the GIL.
#include "bindings.h"

#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "ember/core/error.h"
#include "ember/data/data.h"
#include "ember/io/optim_io.h"
#include "ember/io/value.h"

namespace ember::python {
namespace {

/// data::DataLoader with PyTorch's state_dict()/load_state_dict().
class PyDataLoader : public data::DataLoader {
 public:
  using data::DataLoader::DataLoader;

  /// What resumes the loader exactly: its generator's state (taken during an epoch, the state
  /// that epoch's order was drawn from) and the next batch, with the settings the position
  /// depends on. The generator is io's tree ({"type": "Generator", "seed": "...", ...}: uint64s
  /// as strings), as io::TrainingState saves it.
  py::dict state_dict() {
    py::dict out;
    out["num_samples"] = size();
    out["batch_size"] = options().batch_size;
    out["shuffle"] = options().shuffle;
    out["drop_last"] = options().drop_last;
    out["generator"] = value_to_py(io::to_value(generator()));
    out["position"] = position();
    return out;
  }

  /// Restores state_dict()'s state and begins the saved epoch at the saved batch. Nothing changes
  /// when the state is refused.
  void load_state_dict(const py::dict& state) {
    auto field = [&](const char* key) -> py::object {
      if (!state.contains(key))
        throw ember::KeyError(ember::detail::str("DataLoader.load_state_dict: no '", key,
                                                 "' in the state (keys: ",
                                                 std::string(py::str(py::list(state.attr("keys")()))), ")"));
      return state[key];
    };
    auto expect = [&](const char* key, const py::object& mine) {
      py::object saved = field(key);
      EMBER_CHECK_VALUE(saved.equal(mine), "DataLoader.load_state_dict: the state is of a loader with ", key,
                        " ", std::string(py::repr(saved)), ", this one has ", std::string(py::repr(mine)));
    };
    expect("num_samples", py::int_(size()));
    expect("batch_size", py::int_(options().batch_size));
    expect("shuffle", py::bool_(options().shuffle));
    expect("drop_last", py::bool_(options().drop_last));
    Generator saved;
    io::load_into(saved, py_to_value(field("generator")));
    py::object pos = field("position");
    EMBER_CHECK_TYPE(PyLong_Check(pos.ptr()) && !PyBool_Check(pos.ptr()),
                     "DataLoader.load_state_dict: 'position' must be an int, got ",
                     std::string(py::str(py::type::of(pos).attr("__name__"))));
    const int64_t position = pos.cast<int64_t>();
    EMBER_CHECK_VALUE(position >= 0 && position <= num_batches(), "DataLoader.load_state_dict: position ",
                      position, " is outside [0, ", num_batches(), "]");
    generator().set_state(saved.get_state());
    resume_epoch(position);
  }

};

}  // namespace

void bind_data(py::module_& m) {
  py::module_ d = m.def_submodule("data", "ember.data's C++ half: idx files, Fashion-MNIST, DataLoader");

  d.def("read_idx", &data::read_idx, py::arg("path"), py::call_guard<py::gil_scoped_release>(),
        "Reads an idx file (gzipped or plain) into a new tensor of its shape and element type.");

  using FM = data::FashionMNIST;
  py::list classes;
  for (const char* name : FM::kClasses) classes.append(name);
  py::class_<FM> fashion_mnist(d, "FashionMNIST", R"doc(
One split of Fashion-MNIST: images (uint8 [N, 28, 28]) and labels (int64 [N]) read from the idx files
under root ({train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]).)doc");
  fashion_mnist
      .def(py::init([](const std::string& root, bool train) {
        py::gil_scoped_release release;
        return FM(root, train);
      }), py::arg("root") = std::string(FM::kDefaultRoot), py::arg("train") = true)
      .def_readwrite("images", &FM::images, "uint8 [N, 28, 28]")
      .def_readwrite("labels", &FM::labels, "int64 [N], in [0, 10)")
      .def("__len__", &FM::size);
  fashion_mnist.attr("classes") = classes;  // the class names, by label
  fashion_mnist.attr("num_classes") = FM::kNumClasses;
  fashion_mnist.attr("default_root") = FM::kDefaultRoot;  // where dataset-fashion-mnist puts the files

  py::class_<PyDataLoader>(d, "DataLoader", R"doc(
Mini-batches of (inputs, targets) rows, in order or shuffled every epoch by the loader's own
generator; start_epoch() (or resume_epoch(next_batch)) then next() until None.
state_dict()/load_state_dict() resume mid-epoch exactly.)doc")
      .def(py::init([](Tensor inputs, Tensor targets, int64_t batch_size, bool shuffle, bool drop_last,
                       uint64_t seed) {
        return PyDataLoader(std::move(inputs), std::move(targets), {.batch_size = batch_size, .shuffle = shuffle,
                                                                    .drop_last = drop_last, .seed = seed});
      }), py::arg("inputs"), py::arg("targets"), py::arg("batch_size") = 1, py::arg("shuffle") = false,
           py::arg("drop_last") = false, py::arg("seed") = 0)
      .def("start_epoch", &PyDataLoader::start_epoch,
           "Begins the next epoch at its first batch: draws its order when shuffling.")
      .def("resume_epoch", &PyDataLoader::resume_epoch, py::arg("next_batch"),
           "Continues the epoch whose order the generator draws now (restored from a checkpoint) "
           "from batch next_batch.")
      .def("next", [](PyDataLoader& l) -> py::object {
        auto batch = l.next();
        if (!batch) return py::none();
        return py::make_tuple(std::move(batch->inputs), std::move(batch->targets));
      }, "The next (inputs, targets) of the current epoch, or None once it is over.")
      .def("__len__", &PyDataLoader::num_batches)
      .def_property_readonly("num_batches", &PyDataLoader::num_batches)
      .def_property_readonly("num_samples", &PyDataLoader::size)
      .def_property_readonly("position", &PyDataLoader::position,
                             "The index in the current epoch of the batch next() returns next.")
      .def_property_readonly("order", [](const PyDataLoader& l) -> py::object {
        return l.order().defined() ? py::cast(l.order()) : py::none();
      }, "The current epoch's order of sample indices (None before the first epoch).")
      .def_property_readonly("batch_size", [](const PyDataLoader& l) { return l.options().batch_size; })
      .def_property_readonly("shuffle", [](const PyDataLoader& l) { return l.options().shuffle; })
      .def_property_readonly("drop_last", [](const PyDataLoader& l) { return l.options().drop_last; })
      .def_property_readonly("generator", &PyDataLoader::generator,
                             py::return_value_policy::reference_internal,
                             "The generator the epoch orders are drawn from.")
      .def("state_dict", &PyDataLoader::state_dict,
           "{'num_samples', 'batch_size', 'shuffle', 'drop_last', 'generator', 'position'}: a snapshot.")
      .def("load_state_dict", &PyDataLoader::load_state_dict, py::arg("state_dict"),
           "Restores a state_dict() and begins its epoch at its position (the settings must match).");
}

}  // namespace ember::python
