// The ops as ember.<name>(input, ...) and Tensor.<name>(...), under PyTorch's names. Most are bound
// by the generator from the op table (ops/ops.toml -> <build>/generated/python/op_bindings.cpp);
// here are the argument conversions those bindings use and the few ops whose Python signature
// differs from C++'s (python = "custom" in the table).
#include <pybind11/stl.h>

#include <map>
#include <string>

#include "bindings.h"
#include "ember/ops/ops.h"

namespace ember::python {

Size2 size2(const py::handle& v) {
  if (PyIndex_Check(v.ptr())) return Size2(v.cast<int64_t>());
  auto pair = v.cast<std::vector<int64_t>>();
  EMBER_CHECK_VALUE(pair.size() == 2 || pair.size() == 1,
                    "expected an int or a pair of ints, got ", pair.size(), " values");
  return pair.size() == 1 ? Size2(pair[0]) : Size2(pair[0], pair[1]);
}

std::optional<Size2> optional_size2(const py::handle& v) {
  if (v.is_none()) return std::nullopt;
  return size2(v);
}

py::tuple tensor_tuple(const std::vector<Tensor>& tensors) {
  py::tuple out(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) out[i] = py::cast(tensors[i]);
  return out;
}

py::object named_tuple(std::initializer_list<const char*> fields, const std::tuple<Tensor, Tensor>& values) {
  // One class per field list, made once (as torch.return_types).
  static auto* classes = new std::map<std::string, py::object>();
  std::string key;
  py::tuple names(fields.size());
  size_t i = 0;
  for (const char* f : fields) {
    key += std::string(f) + ",";
    names[i++] = py::str(f);
  }
  auto it = classes->find(key);
  if (it == classes->end())
    it = classes->emplace(key, py::module_::import("collections").attr("namedtuple")("return_types", names)).first;
  return it->second(std::get<0>(values), std::get<1>(values));
}

namespace {

// var/std: var(dim, unbiased, keepdim) or var(dim, correction=0, keepdim=...), as in PyTorch.
int64_t correction_of(std::optional<bool> unbiased, std::optional<int64_t> correction) {
  if (correction) return *correction;
  return unbiased.value_or(true) ? 1 : 0;
}

}  // namespace

void bind_ops(py::module_& m) {
  bind_table_ops(m);
  auto cls = tensor_class(m);

  m.def("where", [](const Tensor& cond, const py::object& a, const py::object& b) -> Tensor {
    bool ta = py::isinstance<Tensor>(a), tb = py::isinstance<Tensor>(b);
    if (ta && tb) return where(cond, a.cast<Tensor>(), b.cast<Tensor>());
    if (ta) return where(cond, a.cast<Tensor>(), b.cast<Scalar>());
    if (tb) return where(cond, a.cast<Scalar>(), b.cast<Tensor>());
    throw ember::TypeError("where: at least one of input and other must be a tensor");
  }, py::arg("condition"), py::arg("input"), py::arg("other"),
        "input where condition holds, else other (either may be a Python number).");
  cls.def("where", [](const Tensor& self, const Tensor& cond, const py::object& other) {
    if (py::isinstance<Tensor>(other)) return where(cond, self, other.cast<Tensor>());
    return where(cond, self, other.cast<Scalar>());
  }, py::arg("condition"), py::arg("other"));

  for (const char* name : {"var", "std"}) {
    bool is_var = std::string(name) == "var";
    auto f = [is_var](const Tensor& t, const py::object& dim, std::optional<bool> unbiased, bool keepdim,
                      std::optional<int64_t> correction) {
      int64_t c = correction_of(unbiased, correction);
      return is_var ? ember::var(t, dims_arg(dim), c, keepdim) : ember::std(t, dims_arg(dim), c, keepdim);
    };
    const char* doc = is_var ? "sum((x - mean)^2) / (N - correction) over dim (correction 1, or unbiased=True)."
                             : "sqrt(var(input, dim, ...)).";
    m.def(name, f, py::arg("input"), py::arg("dim") = py::none(), py::arg("unbiased") = py::none(),
          py::arg("keepdim") = false, py::kw_only(), py::arg("correction") = py::none(), doc);
    cls.def(name, f, py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false,
            py::kw_only(), py::arg("correction") = py::none(), doc);
  }

  m.def("max_pool2d", [](const Tensor& input, const py::object& kernel, const py::object& stride,
                         const py::object& padding, const py::object& dilation, bool ceil_mode,
                         bool return_indices) -> py::object {
    Size2 k = size2(kernel), p = size2(padding), d = size2(dilation);
    std::optional<Size2> s = optional_size2(stride);
    auto r = without_gil([&] { return ember::max_pool2d_with_indices(input, k, s, p, d, ceil_mode); });
    if (return_indices) return py::make_tuple(std::get<0>(r), std::get<1>(r));
    return py::cast(std::get<0>(r));
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
        py::arg("dilation") = 1, py::arg("ceil_mode") = false, py::arg("return_indices") = false,
        "Window maxima over the last two dims (and their flat positions with return_indices=True).");
  bind_conv_ops(m);
}
}  // namespace ember::python
