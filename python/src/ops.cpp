// The ops as ember.<name>(input, ...) and Tensor.<name>(...), under PyTorch's names. Most are bound
// by the generator from the op table (ops/ops.toml -> <build>/generated/python/op_bindings.cpp);
// here are the argument conversions those bindings use and the few ops whose Python signature
// differs from C++'s (python = "custom" in the table).
#include "ember/ops/ops.h"

#include <pybind11/stl.h>

#include <string>
#include <utility>

#include "bindings.h"
#include "ember/core/factory.h"
#include "ember/ops/gamma_grad.h"
#include "ember/ops/random_fill.h"

namespace ember::python {}  // namespace ember::python

namespace pybind11::detail {
bool load_sizes(handle src, int64_t* out, size_t n) {
  if (PyBool_Check(src.ptr())) return false;
  if (PyIndex_Check(src.ptr())) {
    for (size_t i = 0; i < n; ++i) out[i] = src.cast<int64_t>();
    return true;
  }
  if (!PySequence_Check(src.ptr()) || PyUnicode_Check(src.ptr())) return false;
  auto values = src.cast<std::vector<int64_t>>();
  EMBER_CHECK_VALUE(values.size() == 1 || values.size() == n, "expected an int or a sequence of ", n, " ints, got ",
                    values.size(), " values");
  for (size_t i = 0; i < n; ++i) out[i] = values[values.size() == 1 ? 0 : i];
  return true;
}
}  // namespace pybind11::detail

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

namespace {

// var/std: var(dim, unbiased, keepdim) or var(dim, correction=0, keepdim=...), as in PyTorch.
int64_t correction_of(std::optional<bool> unbiased, std::optional<int64_t> correction) {
  if (correction) return *correction;
  return unbiased.value_or(true) ? 1 : 0;
}

// nonzero(as_tuple=True) and where(condition): one 1-D index tensor per dim (a 0-d input counts as
// 1-D, as in PyTorch).
py::tuple nonzero_tuple(const Tensor& t) {
  Tensor coords = ember::nonzero(t);
  if (t.dim() == 0) return py::make_tuple(zeros({coords.size(0)}, TensorOptions(kInt64)));
  py::tuple out(static_cast<size_t>(t.dim()));
  for (int64_t d = 0; d < t.dim(); ++d) out[static_cast<size_t>(d)] = py::cast(coords.select(1, d));
  return out;
}

// einsum's sublist form, einsum(op0, [0, 1], op1, [1, 2], [0, 2]): the equation it stands for
// (subscripts 0..51 are a-z then A-Z, as in PyTorch; Ellipsis is "...").
std::string sublist_equation(const py::args& args, std::vector<Tensor>& operands) {
  auto term = [](const py::handle& sublist) {
    std::string out;
    for (py::handle item : sublist) {
      if (item.is(py::ellipsis())) {
        out += "...";
        continue;
      }
      const int64_t v = item.cast<int64_t>();
      EMBER_CHECK_VALUE(v >= 0 && v < 52, "einsum(): subscript in subscript list is not within the valid range [0, 52), got ", v);
      out += static_cast<char>(v < 26 ? 'a' + v : 'A' + (v - 26));
    }
    return out;
  };
  std::string eq;
  size_t i = 0;
  for (; i + 1 < args.size(); i += 2) {
    operands.push_back(args[i].cast<Tensor>());
    eq += (i ? "," : "") + term(args[i + 1]);
  }
  if (i < args.size()) eq += "->" + term(args[i]);
  return eq;
}

}  // namespace

void bind_ops(py::module_& m) {
  bind_table_ops(m);
  auto cls = tensor_class(m);

  m.def("_standard_gamma_grad", &standard_gamma_grad, py::arg("self"), py::arg("output"),
        py::call_guard<py::gil_scoped_release>(),
        "dz/dalpha at Gamma(alpha, 1) draws z (torch._standard_gamma_grad), computed in double.");

  m.def("where", [](const Tensor& cond, const py::object& a, const py::object& b) -> Tensor {
    bool ta = py::isinstance<Tensor>(a), tb = py::isinstance<Tensor>(b);
    if (ta && tb) return where(cond, a.cast<Tensor>(), b.cast<Tensor>());
    if (ta) return where(cond, a.cast<Tensor>(), b.cast<Scalar>());
    if (tb) return where(cond, a.cast<Scalar>(), b.cast<Tensor>());
    // Two Python numbers: a as a 0-dim tensor of its own type (bool, int64, or the default float
    // dtype), so that the result's dtype is PyTorch's promotion of the two numbers.
    const DType t = py::isinstance<py::bool_>(a) ? kBool : py::isinstance<py::int_>(a) ? kInt64 : default_dtype();
    return where(cond, scalar_tensor(a.cast<Scalar>(), TensorOptions(t).device(cond.device())), b.cast<Scalar>());
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
  for (const char* name : {"var_mean", "std_mean"}) {
    const bool is_var = std::string(name) == "var_mean";
    m.def(
        name,
        [is_var](const Tensor& t, const py::object& dim, std::optional<bool> unbiased, bool keepdim,
                 std::optional<int64_t> correction) {
          const int64_t c = correction_of(unbiased, correction);
          auto [spread, mean] =
              is_var ? ember::var_mean(t, dims_arg(dim), c, keepdim) : ember::std_mean(t, dims_arg(dim), c, keepdim);
          return py::make_tuple(spread, mean);
        },
        py::arg("input"), py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false,
        py::kw_only(), py::arg("correction") = py::none(),
        is_var ? "(var, mean) over dim in one call, past a sum's overflow as PyTorch's Welford pass."
               : "(std, mean) over dim in one call, past a sum's overflow as PyTorch's Welford pass.");
  }

  // clamp(x, min=tensor, max=number) and the reverse, which PyTorch takes: the number becomes a 0-d
  // tensor of x's dtype. After the table's overloads (two numbers, two tensors), which keep theirs.
  auto mixed_clamp = [](const Tensor& x, const py::object& min, const py::object& max) {
    auto bound = [&x](const py::object& b) {
      if (b.is_none()) return Tensor();
      if (py::isinstance<Tensor>(b)) return b.cast<Tensor>();
      return scalar_tensor(b.cast<Scalar>(), TensorOptions(x.dtype()).device(x.device()));
    };
    return clamp(x, bound(min), bound(max));
  };
  for (const char* name : {"clamp", "clip"}) {
    m.def(name, mixed_clamp, py::arg("input"), py::arg("min") = py::none(), py::arg("max") = py::none());
    cls.def(name, mixed_clamp, py::arg("min") = py::none(), py::arg("max") = py::none());
  }

  // cartesian_prod, broadcast_tensors and meshgrid as PyTorch's take them: the tensors as arguments, or one list
  auto tensor_args = [](const py::args& args) {
    std::vector<Tensor> list;
    const bool one_list = args.size() == 1 && (py::isinstance<py::list>(args[0]) || py::isinstance<py::tuple>(args[0]));
    for (const py::handle& t : one_list ? py::reinterpret_borrow<py::sequence>(args[0]) : py::sequence(args))
      list.push_back(t.cast<Tensor>());
    return list;
  };
  m.def(
      "cartesian_prod", [tensor_args](const py::args& tensors) { return cartesian_prod(tensor_args(tensors)); },
      "Every combination of the 1-D tensors' entries, one per row (itertools.product's order).");
  m.def(
      "broadcast_tensors",
      [tensor_args](const py::args& tensors) { return tensor_tuple(broadcast_tensors(tensor_args(tensors))); },
      "The tensors expanded (as views) to their common broadcast shape.");
  m.def(
      "meshgrid",
      [tensor_args](const py::args& tensors, const std::string& indexing) {
        return tensor_tuple(meshgrid(tensor_args(tensors), indexing));
      },
      py::kw_only(), py::arg("indexing") = "ij",
      "Coordinate grids of 0-D or 1-D tensors, as views: with \"ij\" output k varies along dim k, \"xy\" swaps "
      "the first two dims (NumPy's default).");

  m.def("where", [](const Tensor& cond) { return nonzero_tuple(cond); }, py::arg("condition"),
        "where(condition): nonzero(condition, as_tuple=True).");
  auto nonzero = [](const Tensor& t, bool as_tuple) -> py::object {
    if (as_tuple) return nonzero_tuple(t);
    return py::cast(ember::nonzero(t));
  };
  const char* nonzero_doc = "Coordinates of the nonzero elements, one row each in row-major order: [n, input.dim()]; "
                            "with as_tuple=True one 1-D tensor per dim.";
  m.def("nonzero", nonzero, py::arg("input"), py::kw_only(), py::arg("as_tuple") = false, nonzero_doc);
  cls.def("nonzero", nonzero, py::kw_only(), py::arg("as_tuple") = false, nonzero_doc);

  m.def("einsum", [](const py::args& args) {
    EMBER_CHECK_VALUE(args.size() >= 1, "einsum(): must specify the equation string and at least one operand, "
                                        "or at least one operand and its subscripts list");
    std::vector<Tensor> operands;
    std::string equation;
    if (py::isinstance<py::str>(args[0])) {
      equation = args[0].cast<std::string>();
      if (args.size() == 2 && !py::isinstance<Tensor>(args[1])) {
        operands = args[1].cast<std::vector<Tensor>>();
      } else {
        for (size_t i = 1; i < args.size(); ++i) operands.push_back(args[i].cast<Tensor>());
      }
    } else {
      equation = sublist_equation(args, operands);
    }
    return without_gil([&] { return ember::einsum(equation, operands); });
  }, "einsum(equation, *operands): sums of products of the operands' entries as the equation names them "
     "(PyTorch's syntax: subscripts a-zA-Z, ... for the dims not named, -> and the output, or the implicit "
     "output); also einsum(equation, [operands]) and the sublist form einsum(op0, [0, 1], op1, [1, 2], [0, 2]).");

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
  bind_conv3d_ops(m);
  bind_linalg_composites(m);

  cls.def(
      "index_put_",
      [](const py::object& self, const std::vector<Tensor>& indices, const Tensor& values, bool accumulate) {
        self.cast<const Tensor&>().index_put_(indices, values, accumulate);
        return self;
      },
      py::arg("indices"), py::arg("values"), py::arg("accumulate") = false,
      "In place: self[indices] = values, or += with accumulate (where repeated indices add up).");
  // unique: the distinct values ascending (with dim, the distinct slices along dim), then where each entry
  // sits among them and how often each occurs when asked; one tensor alone is not a tuple.
  auto unique = [](const Tensor& input, bool /*sorted: always*/, bool return_inverse, bool return_counts,
                   std::optional<int64_t> dim) -> py::object {
    const auto [values, inverse, counts] = unique_all(input, return_inverse, return_counts, dim);
    if (!return_inverse && !return_counts) return py::cast(values);
    py::list out;
    out.append(values);
    if (return_inverse) out.append(inverse);
    if (return_counts) out.append(counts);
    return py::tuple(out);
  };
  m.def("unique", unique, py::arg("input"), py::arg("sorted") = true, py::arg("return_inverse") = false,
        py::arg("return_counts") = false, py::arg("dim") = py::none(),
        "The distinct values of input (ascending), with their inverse indices and counts when asked.");
  cls.def("unique", unique, py::arg("sorted") = true, py::arg("return_inverse") = false,
          py::arg("return_counts") = false, py::arg("dim") = py::none(),
          "The distinct values (ascending), with their inverse indices and counts when asked.");
  // bernoulli_ with a tensor of probabilities (the table binds the one with a number)
  cls.def(
      "bernoulli_",
      [](const py::object& self, const Tensor& p, Generator* generator) {
        ember::bernoulli_(self.cast<const Tensor&>(), p, generator);
        return self;
      },
      py::arg("p"), py::kw_only(), py::arg("generator") = py::none(),
      "Fills self with 1 where a U[0, 1) draw is below p (a tensor broadcast to self's shape), else 0.");
  // The augmented assignments of the bitwise ops: a &= b is a.bitwise_and_(b), and so on.
  for (const auto& [dunder, method] : {std::pair{"__iand__", "bitwise_and_"},
                                       {"__ior__", "bitwise_or_"},
                                       {"__ixor__", "bitwise_xor_"},
                                       {"__ilshift__", "bitwise_left_shift_"},
                                       {"__irshift__", "bitwise_right_shift_"}})
    cls.attr(dunder) = cls.attr(method);
  // PyTorch's other names of the hand-bound in-place arithmetic (every overload of each).
  for (const auto& [alias, method] : {std::pair{"multiply_", "mul_"},
                                      {"divide_", "div_"},
                                      {"true_divide_", "div_"},
                                      {"subtract_", "sub_"},
                                      {"clip_", "clamp_"}})
    cls.attr(alias) = cls.attr(method);
}

}  // namespace ember::python
