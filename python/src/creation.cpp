// Creation functions under PyTorch's names and keywords (dtype=, device=, requires_grad=,
// generator=), and the Philox Generator.
#include <pybind11/stl.h>

#include "bindings.h"
#include "ember/core/factory.h"
#include "ember/core/generator.h"
#include "ember/core/kernels/conv.h"
#include "ember/core/parallel.h"
#include "ember/io/optim_io.h"
#include "ember/ops/spectral.h"

namespace ember::python {
namespace {

// NB: fallback is read per call: the default dtype can change (set_default_dtype).
TensorOptions options_of(std::optional<DType> dtype, std::optional<Device> device, bool requires_grad,
                         std::optional<DType> fallback = std::nullopt) {
  return TensorOptions(dtype.value_or(fallback.value_or(default_dtype())))
      .device(device ? *device : default_device().value_or(Device()))
      .requires_grad(requires_grad);
}

// The dtype PyTorch infers from a fill value: bool, int64 or the default dtype (float32).
DType inferred(const Scalar& s) {
  return s.is_bool() ? kBool : s.is_floating() ? default_dtype() : kInt64;
}

// requires_grad after creation: *_like functions and integer draws have no options argument.
Tensor with_grad(Tensor t, bool requires_grad) {
  if (requires_grad) t.set_requires_grad(true);
  return t;
}

}  // namespace

void bind_creation(py::module_& m) {
  py::class_<Generator>(m, "Generator", R"doc(
Counter-based random numbers (Philox 4x32-10). g = ember.Generator().manual_seed(0);
ember.randn(3, generator=g). get_state() / set_state() save and replay the stream.)doc")
      .def(py::init([](std::optional<uint64_t> seed) {
        return seed ? Generator(*seed) : Generator();
      }), py::arg("seed") = py::none())
      .def("manual_seed", [](Generator& g, uint64_t seed) -> Generator& {
        g.manual_seed(seed);
        return g;
      }, py::arg("seed"), py::return_value_policy::reference_internal)
      .def("initial_seed", &Generator::seed)
      .def("get_state", [](const Generator& g) {
        auto s = g.get_state();
        return py::make_tuple(s.seed, s.counter);
      }, "(seed, counter): restore with set_state to draw the same numbers again.")
      .def("set_state", [](Generator& g, std::pair<uint64_t, uint64_t> state) {
        g.set_state({state.first, state.second});
      }, py::arg("state"))
      .def("state_dict", [](const Generator& g) { return value_to_py(io::to_value(g)); },
           "The state as ember.io saves a generator: {'type': 'Generator', 'seed': ..., 'counter': ...}.")
      .def("load_state_dict", [](Generator& g, const py::dict& state) { io::load_into(g, py_to_value(state)); },
           py::arg("state_dict"),
           "Restores a state_dict(), or what ember.io.load gives back for a saved generator.");
  m.def("default_generator", &default_generator, py::return_value_policy::reference,
        "The generator random ops use when none is passed.");
  m.def("manual_seed", &ember::manual_seed, py::arg("seed"), "Seeds the default generator.");
  m.def("get_num_threads", &ember::get_num_threads,
        "Threads Ember's CPU ops use, the caller included (default: OMP_NUM_THREADS, else the CPUs "
        "this process may run on).");
  m.def("set_num_threads", &ember::set_num_threads, py::arg("threads"),
        "Sets the number of threads Ember's CPU ops use (at least 1).");
  m.def("_conv_winograd", &ember::conv_winograd,
        "Whether CPU float32 3x3 stride-1 convolutions with 64+ channels may use Winograd's algorithm.");
  m.def("_set_conv_winograd", &ember::set_conv_winograd, py::arg("enabled"),
        "Allows or forbids Winograd's algorithm for CPU convolutions (ember.backends.mkldnn.allow_winograd).");

  auto sized = [&m](const char* name, Tensor (*fn)(IntArrayRef, TensorOptions), const char* doc) {
    m.def(name, [fn](const py::args& size, std::optional<DType> dtype, std::optional<Device> device,
                     bool requires_grad) {
      return fn(size_args(size), options_of(dtype, device, requires_grad));
    }, py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
          py::arg("requires_grad") = false, doc);
  };
  sized("zeros", &zeros, "zeros(2, 3) or zeros((2, 3)): float32 unless dtype= says otherwise.");
  sized("ones", &ones, "ones(2, 3) or ones((2, 3)).");
  sized("empty", &empty, "Uninitialised values: empty(2, 3).");
  m.def("full", [](const std::vector<int64_t>& size, Scalar value, std::optional<DType> dtype,
                   std::optional<Device> device, bool requires_grad) {
    return full(size, value, options_of(dtype, device, requires_grad, inferred(value)));
  }, py::arg("size"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("device") = py::none(), py::arg("requires_grad") = false,
        "full((2, 3), 7.0); the dtype follows the value (bool, int64, float32) unless given.");
  m.def("scalar_tensor", [](Scalar value, std::optional<DType> dtype, std::optional<Device> device,
                            bool requires_grad) {
    return scalar_tensor(value, options_of(dtype, device, requires_grad));
  }, py::arg("value"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
        py::arg("requires_grad") = false, "A 0-d tensor (float32 unless dtype= says otherwise).");
  m.def("arange", [](Scalar start, std::optional<Scalar> end, Scalar step, std::optional<DType> dtype,
                     std::optional<Device> device, bool requires_grad) {
    if (!end) {
      end = start;
      start = Scalar(int64_t{0});
    }
    bool floating = start.is_floating() || end->is_floating() || step.is_floating();
    return arange(start, *end, step,
                  options_of(dtype, device, requires_grad, floating ? default_dtype() : kInt64));
  }, py::arg("start"), py::arg("end") = py::none(), py::arg("step") = 1, py::kw_only(),
        py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false,
        "arange(5), arange(1, 10, 2): int64 unless a bound or the step is a float (then float32).");
  m.def("linspace", [](double start, double end, int64_t steps, std::optional<DType> dtype,
                       std::optional<Device> device, bool requires_grad) {
    return linspace(start, end, steps, options_of(dtype, device, requires_grad));
  }, py::arg("start"), py::arg("end"), py::arg("steps"), py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def(
      "logspace",
      [](double start, double end, int64_t steps, double base, std::optional<DType> dtype, std::optional<Device> device,
         bool requires_grad) { return logspace(start, end, steps, base, options_of(dtype, device, requires_grad)); },
      py::arg("start"), py::arg("end"), py::arg("steps"), py::arg("base") = 10.0, py::kw_only(),
      py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false,
      "base ** linspace(start, end, steps): logspace(0, 2, 3) is [1, 10, 100].");
  // The window functions (ops/spectral.h): periodic by default, as stft wants them.
  const auto window_of = [&m](const char* name, Tensor (*make)(int64_t, bool, TensorOptions)) {
    m.def(
        name,
        [make](int64_t n, bool periodic, std::optional<DType> dtype, std::optional<Device> device, bool requires_grad) {
          return make(n, periodic, options_of(dtype, device, requires_grad));
        },
        py::arg("window_length"), py::arg("periodic") = true, py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("device") = py::none(), py::arg("requires_grad") = false);
  };
  window_of("hann_window", [](int64_t n, bool p, TensorOptions o) { return hann_window(n, p, o); });
  window_of("blackman_window", [](int64_t n, bool p, TensorOptions o) { return blackman_window(n, p, o); });
  window_of("bartlett_window", [](int64_t n, bool p, TensorOptions o) { return bartlett_window(n, p, o); });
  m.def(
      "hamming_window",
      [](int64_t n, bool periodic, double alpha, double beta, std::optional<DType> dtype, std::optional<Device> device,
         bool requires_grad) {
        return hamming_window(n, periodic, alpha, beta, options_of(dtype, device, requires_grad));
      },
      py::arg("window_length"), py::arg("periodic") = true, py::arg("alpha") = 0.54, py::arg("beta") = 0.46,
      py::kw_only(), py::arg("dtype") = py::none(), py::arg("device") = py::none(), py::arg("requires_grad") = false);
  m.def("eye", [](int64_t n, std::optional<int64_t> m_, std::optional<DType> dtype,
                  std::optional<Device> device, bool requires_grad) {
    return eye(n, m_, options_of(dtype, device, requires_grad));
  }, py::arg("n"), py::arg("m") = py::none(), py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("device") = py::none(), py::arg("requires_grad") = false);

  auto random = [&m](const char* name, Tensor (*fn)(IntArrayRef, TensorOptions, Generator*),
                     const char* doc) {
    m.def(name, [fn](const py::args& size, Generator* generator, std::optional<DType> dtype,
                     std::optional<Device> device, bool requires_grad) {
      return fn(size_args(size), options_of(dtype, device, requires_grad), generator);
    }, py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
          py::arg("device") = py::none(), py::arg("requires_grad") = false, doc);
  };
  random("rand", &rand, "Uniform in [0, 1): rand(2, 3, generator=g).");
  random("randn", &randn, "Standard normal: randn(2, 3).");
  m.def("randint", [](int64_t low, int64_t high, std::vector<int64_t> size, Generator* generator,
                      std::optional<DType> dtype, std::optional<Device> device) {
    return randint(low, high, size, options_of(dtype, device, false, kInt64), generator);
  }, py::arg("low"), py::arg("high"), py::arg("size"), py::kw_only(),
        py::arg("generator") = py::none(), py::arg("dtype") = py::none(), py::arg("device") = py::none(),
        "Uniform integers in [low, high): randint(0, 10, (3,)).");
  // randint(high, size): torch.randint(10, (3,)) and randint(10, size=(3,)).
  m.def("randint", [](int64_t high, std::vector<int64_t> size, Generator* generator,
                      std::optional<DType> dtype, std::optional<Device> device) {
    return randint(0, high, size, options_of(dtype, device, false, kInt64), generator);
  }, py::arg("high"), py::arg("size"), py::kw_only(), py::arg("generator") = py::none(),
        py::arg("dtype") = py::none(), py::arg("device") = py::none());
  m.def(
      "randperm",
      [](int64_t n, Generator* generator, std::optional<DType> dtype, std::optional<Device> device,
         bool requires_grad) {
        Tensor t = randperm(n, generator);
        if (dtype) t = t.to(*dtype);
        if (auto target = device ? device : default_device()) t = t.to(*target);
        return with_grad(t, requires_grad);
      },
      py::arg("n"), py::kw_only(), py::arg("generator") = py::none(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false, "A random permutation of range(n) (int64).");

  // *_like: the shape (and, unless given, the dtype) of another tensor.
  auto like = [&m](const char* name, auto fn) {
    m.def(name, [fn](const Tensor& t, std::optional<DType> dtype, bool requires_grad) {
      Tensor src = dtype && *dtype != t.dtype() ? empty(t.sizes(), TensorOptions(*dtype).device(t.device())) : t;
      return with_grad(fn(src), requires_grad);
    }, py::arg("input"), py::kw_only(), py::arg("dtype") = py::none(), py::arg("requires_grad") = false);
  };
  like("zeros_like", [](const Tensor& t) { return zeros_like(t); });
  like("ones_like", [](const Tensor& t) { return ones_like(t); });
  like("empty_like", [](const Tensor& t) { return empty_like(t); });
  like("rand_like", [](const Tensor& t) { return rand_like(t); });
  like("randn_like", [](const Tensor& t) { return randn_like(t); });
  // randint_like(t, high) and randint_like(t, low, high): t's shape, dtype and device unless given
  m.def(
      "randint_like",
      [](const Tensor& t, int64_t low, std::optional<int64_t> high, std::optional<DType> dtype,
         std::optional<Device> device, bool requires_grad) {
        const int64_t lo = high ? low : 0, hi = high ? *high : low;
        const Tensor out =
            randint(lo, hi, t.sizes(), TensorOptions(dtype.value_or(t.dtype())).device(device.value_or(t.device())));
        return with_grad(out, requires_grad);
      },
      py::arg("input"), py::arg("low") = 0, py::arg("high") = py::none(), py::kw_only(), py::arg("dtype") = py::none(),
      py::arg("device") = py::none(), py::arg("requires_grad") = false,
      "randint(low, high) of input's shape and dtype (randint_like(t, high) with one bound).");
  m.def("full_like", [](const Tensor& t, Scalar value, std::optional<DType> dtype, bool requires_grad) {
    return full(t.sizes(), value, TensorOptions(dtype.value_or(t.dtype())).device(t.device())
                                      .requires_grad(requires_grad));
  }, py::arg("input"), py::arg("fill_value"), py::kw_only(), py::arg("dtype") = py::none(),
        py::arg("requires_grad") = false);
}

}  // namespace ember::python
