// Every op of ops/ under the name PyTorch uses, both as ember.<name>(input, ...) and as the method
// Tensor.<name>(...). Ops that can run long (matmul, convolution, pooling) release the GIL.
#include "bindings.h"

#include <pybind11/stl.h>

#include <string>

#include "ember/ops/ops.h"

namespace ember::python {
namespace {

using Gil = py::call_guard<py::gil_scoped_release>;

// Defines `name` as a module function (first argument `input`) and as a Tensor method.
template <typename F, typename... Extra>
void def_both(py::module_& m, py::class_<Tensor>& cls, const char* name, F f, const Extra&... extra) {
  m.def(name, f, py::arg("input"), extra...);
  cls.def(name, f, extra...);
}

// stride=2 or stride=(2, 1), as PyTorch takes them.
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

Tensor undefined_if_none(const std::optional<Tensor>& t) { return t.value_or(Tensor()); }

// (values, indices) as PyTorch's torch.return_types: a named tuple.
py::object values_indices(const char* name, std::tuple<Tensor, Tensor> r) {
  static py::object cls = py::module_::import("collections").attr("namedtuple")(
      "return_types", py::make_tuple("values", "indices"));
  (void)name;
  return cls(std::get<0>(r), std::get<1>(r));
}

// var/std: var(dim, unbiased, keepdim) or var(dim, correction=0, keepdim=...), as in PyTorch.
int64_t correction_of(std::optional<bool> unbiased, std::optional<int64_t> correction) {
  if (correction) return *correction;
  return unbiased.value_or(true) ? 1 : 0;
}

}  // namespace

void bind_ops(py::module_& m) {
  auto cls = tensor_class(m);

  // ---- elementwise, one tensor
#define EMBER_UNARY(name) def_both(m, cls, #name, [](const Tensor& t) { return ember::name(t); });
  EMBER_UNARY(neg)
  EMBER_UNARY(exp)
  EMBER_UNARY(log)
  EMBER_UNARY(sqrt)
  EMBER_UNARY(rsqrt)
  EMBER_UNARY(abs)
  EMBER_UNARY(sign)
  EMBER_UNARY(erf)
  EMBER_UNARY(tanh)
  EMBER_UNARY(sigmoid)
  EMBER_UNARY(relu)
  EMBER_UNARY(logical_not)
#undef EMBER_UNARY
  def_both(m, cls, "negative", [](const Tensor& t) { return ember::neg(t); });
  def_both(m, cls, "clamp", [](const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
    return ember::clamp(t, min, max);
  }, py::arg("min") = py::none(), py::arg("max") = py::none());
  def_both(m, cls, "clip", [](const Tensor& t, std::optional<Scalar> min, std::optional<Scalar> max) {
    return ember::clamp(t, min, max);
  }, py::arg("min") = py::none(), py::arg("max") = py::none());
  m.def("gelu", [](const Tensor& t, const std::string& approximate) { return gelu(t, approximate); },
        py::arg("input"), py::arg("approximate") = "none");
  m.def("leaky_relu", [](const Tensor& t, double slope) { return leaky_relu(t, slope); },
        py::arg("input"), py::arg("negative_slope") = 0.01);

  // ---- elementwise, two operands (a tensor or a Python number as `other`)
#define EMBER_BINARY(pyname, call)                                                                \
  def_both(m, cls, pyname, [](const Tensor& a, const Tensor& b) { return call; }, py::arg("other")); \
  def_both(m, cls, pyname, [](const Tensor& a, Scalar b) { return call; }, py::arg("other"));
  EMBER_BINARY("mul", ember::mul(a, b))
  EMBER_BINARY("multiply", ember::mul(a, b))
  EMBER_BINARY("div", ember::div(a, b))
  EMBER_BINARY("divide", ember::div(a, b))
  EMBER_BINARY("true_divide", ember::div(a, b))
  EMBER_BINARY("pow", a.pow(b))
  EMBER_BINARY("eq", ember::eq(a, b))
  EMBER_BINARY("ne", ember::ne(a, b))
  EMBER_BINARY("lt", ember::lt(a, b))
  EMBER_BINARY("le", ember::le(a, b))
  EMBER_BINARY("gt", ember::gt(a, b))
  EMBER_BINARY("ge", ember::ge(a, b))
#undef EMBER_BINARY
  m.def("pow", [](Scalar a, const Tensor& b) { return ember::pow(a, b); }, py::arg("self"),
        py::arg("exponent"));
  for (const char* name : {"add", "sub", "subtract"}) {
    bool add = std::string(name) == "add";
    def_both(m, cls, name, [add](const Tensor& a, const Tensor& b, Scalar alpha) {
      return add ? ember::add(a, b, alpha) : ember::sub(a, b, alpha);
    }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1, "a + alpha * b (a - alpha * b for sub)");
    def_both(m, cls, name, [add](const Tensor& a, Scalar b, Scalar alpha) {
      Tensor bt = wrap_scalar(b, a);
      return add ? ember::add(a, bt, alpha) : ember::sub(a, bt, alpha);
    }, py::arg("other"), py::kw_only(), py::arg("alpha") = 1);
  }
  def_both(m, cls, "maximum", [](const Tensor& a, const Tensor& b) { return ember::maximum(a, b); },
           py::arg("other"));
  def_both(m, cls, "minimum", [](const Tensor& a, const Tensor& b) { return ember::minimum(a, b); },
           py::arg("other"));
  def_both(m, cls, "logical_and", [](const Tensor& a, const Tensor& b) { return logical_and(a, b); },
           py::arg("other"));
  def_both(m, cls, "logical_or", [](const Tensor& a, const Tensor& b) { return logical_or(a, b); },
           py::arg("other"));
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

  // ---- reductions
  def_both(m, cls, "sum", [](const Tensor& t, const py::object& dim, bool keepdim, std::optional<DType> dtype) {
    return ember::sum(dtype ? t.to(*dtype) : t, dims_arg(dim), keepdim);
  }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none(),
           "Sum over dim (an int or a tuple; every dim when None).");
  def_both(m, cls, "mean", [](const Tensor& t, const py::object& dim, bool keepdim, std::optional<DType> dtype) {
    return ember::mean(dtype ? t.to(*dtype) : t, dims_arg(dim), keepdim);
  }, py::arg("dim") = py::none(), py::arg("keepdim") = false, py::kw_only(), py::arg("dtype") = py::none());
  def_both(m, cls, "amax", [](const Tensor& t, const py::object& dim, bool keepdim) {
    return ember::amax(t, dims_arg(dim), keepdim);
  }, py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
  def_both(m, cls, "amin", [](const Tensor& t, const py::object& dim, bool keepdim) {
    return ember::amin(t, dims_arg(dim), keepdim);
  }, py::arg("dim") = py::tuple(), py::arg("keepdim") = false);
  for (bool is_max : {true, false}) {
    const char* name = is_max ? "max" : "min";
    def_both(m, cls, name, [is_max](const Tensor& t) { return is_max ? ember::max(t) : ember::min(t); });
    // NB: the tensor overload first: a one-element int tensor has __index__, so the dim overload
    // would take max(t, ember.tensor(2)) as a dim instead of the elementwise maximum.
    def_both(m, cls, name, [is_max](const Tensor& t, const Tensor& other) {
      return is_max ? ember::maximum(t, other) : ember::minimum(t, other);
    }, py::arg("other"));
    def_both(m, cls, name, [is_max, name](const Tensor& t, int64_t dim, bool keepdim) {
      return values_indices(name, is_max ? ember::max(t, dim, keepdim) : ember::min(t, dim, keepdim));
    }, py::arg("dim"), py::arg("keepdim") = false, "(values, indices) along dim, as a named tuple.");
  }
  def_both(m, cls, "argmax", [](const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
    return ember::argmax(t, dim, keepdim);
  }, py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_both(m, cls, "argmin", [](const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
    return ember::argmin(t, dim, keepdim);
  }, py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_both(m, cls, "var", [](const Tensor& t, const py::object& dim, std::optional<bool> unbiased,
                             bool keepdim, std::optional<int64_t> correction) {
    return ember::var(t, dims_arg(dim), correction_of(unbiased, correction), keepdim);
  }, py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false,
           py::kw_only(), py::arg("correction") = py::none());
  def_both(m, cls, "std", [](const Tensor& t, const py::object& dim, std::optional<bool> unbiased,
                             bool keepdim, std::optional<int64_t> correction) {
    return ember::std(t, dims_arg(dim), correction_of(unbiased, correction), keepdim);
  }, py::arg("dim") = py::none(), py::arg("unbiased") = py::none(), py::arg("keepdim") = false,
           py::kw_only(), py::arg("correction") = py::none());
  def_both(m, cls, "logsumexp", [](const Tensor& t, const py::object& dim, bool keepdim) {
    return ember::logsumexp(t, dims_arg(dim), keepdim);
  }, py::arg("dim"), py::arg("keepdim") = false);
  def_both(m, cls, "norm", [](const Tensor& t, double p, const py::object& dim, bool keepdim) {
    return ember::norm(t, p, dims_arg(dim), keepdim);
  }, py::arg("p") = 2.0, py::arg("dim") = py::none(), py::arg("keepdim") = false);
  def_both(m, cls, "softmax", [](const Tensor& t, int64_t dim) { return ember::softmax(t, dim); },
           py::arg("dim"));
  def_both(m, cls, "log_softmax", [](const Tensor& t, int64_t dim) { return ember::log_softmax(t, dim); },
           py::arg("dim"));

  // ---- matrix products (no GIL: they may run long)
  def_both(m, cls, "matmul", [](const Tensor& a, const Tensor& b) { return ember::matmul(a, b); },
           py::arg("other"), Gil());
  def_both(m, cls, "mm", [](const Tensor& a, const Tensor& b) {
    EMBER_CHECK_VALUE(a.dim() == 2 && b.dim() == 2, "mm: expected 2-D tensors, got ", a.sizes(), " and ", b.sizes());
    return ember::matmul(a, b);
  }, py::arg("mat2"), Gil());
  def_both(m, cls, "bmm", [](const Tensor& a, const Tensor& b) {
    EMBER_CHECK_VALUE(a.dim() == 3 && b.dim() == 3, "bmm: expected 3-D tensors, got ", a.sizes(), " and ", b.sizes());
    return ember::matmul(a, b);
  }, py::arg("mat2"), Gil());

  // ---- shapes and views
  cls.def("reshape", [](const Tensor& t, const py::args& shape) { return t.reshape(size_args(shape)); },
          "reshape(2, -1) or reshape((2, -1)): a view when the layout allows, else a copy.");
  m.def("reshape", [](const Tensor& t, const std::vector<int64_t>& shape) { return t.reshape(shape); },
        py::arg("input"), py::arg("shape"));
  cls.def("view", [](const Tensor& t, const py::args& shape) { return t.view(size_args(shape)); },
          "view(2, -1): same storage with a new shape (fails if that needs a copy).");
  cls.def("view_as", [](const Tensor& t, const Tensor& other) { return t.view(other.sizes()); }, py::arg("other"));
  cls.def("reshape_as", [](const Tensor& t, const Tensor& other) { return t.reshape(other.sizes()); },
          py::arg("other"));
  def_both(m, cls, "flatten", [](const Tensor& t, int64_t start, int64_t end) { return t.flatten(start, end); },
           py::arg("start_dim") = 0, py::arg("end_dim") = -1);
  cls.def("permute", [](const Tensor& t, const py::args& dims) { return t.permute(size_args(dims)); });
  m.def("permute", [](const Tensor& t, const std::vector<int64_t>& dims) { return t.permute(dims); },
        py::arg("input"), py::arg("dims"));
  def_both(m, cls, "transpose", [](const Tensor& t, int64_t d0, int64_t d1) { return t.transpose(d0, d1); },
           py::arg("dim0"), py::arg("dim1"));
  def_both(m, cls, "swapaxes", [](const Tensor& t, int64_t d0, int64_t d1) { return t.transpose(d0, d1); },
           py::arg("axis0"), py::arg("axis1"));
  def_both(m, cls, "t", [](const Tensor& t) { return t.t(); });
  def_both(m, cls, "squeeze", [](const Tensor& t, std::optional<int64_t> dim) {
    return dim ? t.squeeze(*dim) : t.squeeze();
  }, py::arg("dim") = py::none());
  def_both(m, cls, "unsqueeze", [](const Tensor& t, int64_t dim) { return t.unsqueeze(dim); }, py::arg("dim"));
  cls.def("expand", [](const Tensor& t, const py::args& sizes) { return t.expand(size_args(sizes)); },
          "expand(3, -1): broadcast size-1 dims without copying.");
  cls.def("expand_as", [](const Tensor& t, const Tensor& other) { return t.expand_as(other); }, py::arg("other"));
  m.def("broadcast_to", [](const Tensor& t, const std::vector<int64_t>& shape) { return t.expand(shape); },
        py::arg("input"), py::arg("size"));
  def_both(m, cls, "narrow", [](const Tensor& t, int64_t dim, int64_t start, int64_t length) {
    return t.narrow(dim, start, length);
  }, py::arg("dim"), py::arg("start"), py::arg("length"));
  def_both(m, cls, "select", [](const Tensor& t, int64_t dim, int64_t index) { return t.select(dim, index); },
           py::arg("dim"), py::arg("index"));
  def_both(m, cls, "unbind", [](const Tensor& t, int64_t dim) {
    py::tuple out(static_cast<size_t>(t.size(dim)));
    for (int64_t i = 0; i < t.size(dim); ++i) out[static_cast<size_t>(i)] = py::cast(t.select(dim, i));
    return out;
  }, py::arg("dim") = 0);
  def_both(m, cls, "split", [](const Tensor& t, const py::object& size, int64_t dim) {
    if (PyIndex_Check(size.ptr())) return ember::split(t, size.cast<int64_t>(), dim);
    return ember::split_with_sizes(t, size.cast<std::vector<int64_t>>(), dim);
  }, py::arg("split_size_or_sections"), py::arg("dim") = 0, "Views of size split_size (or the given sizes).");
  def_both(m, cls, "chunk", [](const Tensor& t, int64_t chunks, int64_t dim) { return ember::chunk(t, chunks, dim); },
           py::arg("chunks"), py::arg("dim") = 0);
  m.def("cat", [](const std::vector<Tensor>& ts, int64_t dim) { return ember::cat(ts, dim); },
        py::arg("tensors"), py::arg("dim") = 0);
  m.def("concat", [](const std::vector<Tensor>& ts, int64_t dim) { return ember::cat(ts, dim); },
        py::arg("tensors"), py::arg("dim") = 0);
  m.def("stack", [](const std::vector<Tensor>& ts, int64_t dim) { return ember::stack(ts, dim); },
        py::arg("tensors"), py::arg("dim") = 0);

  // ---- indexing along a dim
  def_both(m, cls, "index_select", [](const Tensor& t, int64_t dim, const Tensor& index) {
    return ember::index_select(t, dim, index);
  }, py::arg("dim"), py::arg("index"));
  def_both(m, cls, "gather", [](const Tensor& t, int64_t dim, const Tensor& index) {
    return ember::gather(t, dim, index);
  }, py::arg("dim"), py::arg("index"));
  def_both(m, cls, "scatter_add", [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& src) {
    return ember::scatter_add(t, dim, index, src);
  }, py::arg("dim"), py::arg("index"), py::arg("src"));
  def_both(m, cls, "index_add", [](const Tensor& t, int64_t dim, const Tensor& index, const Tensor& source) {
    return ember::index_add(t, dim, index, source);
  }, py::arg("dim"), py::arg("index"), py::arg("source"));
  def_both(m, cls, "masked_fill", [](const Tensor& t, const Tensor& mask, const py::object& value) {
    Scalar v = py::isinstance<Tensor>(value) ? Scalar(value.cast<Tensor>().item<double>()) : value.cast<Scalar>();
    return ember::masked_fill(t, mask, v);
  }, py::arg("mask"), py::arg("value"));
  m.def("embedding", [](const Tensor& weight, const Tensor& indices, std::optional<int64_t> padding_idx) {
    return ember::embedding(weight, indices, padding_idx);
  }, py::arg("weight"), py::arg("input"), py::arg("padding_idx") = py::none(),
        "Rows of weight [V, D] for integer indices of any shape.");

  // ---- layers as functions (torch.nn.functional's signatures)
  m.def("conv2d", [](const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                     const py::object& stride, const py::object& padding, const py::object& dilation,
                     int64_t groups) {
    Size2 s = size2(stride), p = size2(padding), d = size2(dilation);
    py::gil_scoped_release nogil;
    return ember::conv2d(input, weight, undefined_if_none(bias), s, p, d, groups);
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
        py::arg("padding") = 0, py::arg("dilation") = 1, py::arg("groups") = 1);
  m.def("max_pool2d", [](const Tensor& input, const py::object& kernel, const py::object& stride,
                         const py::object& padding, const py::object& dilation, bool ceil_mode,
                         bool return_indices) -> py::object {
    Size2 k = size2(kernel), p = size2(padding), d = size2(dilation);
    std::optional<Size2> s = optional_size2(stride);
    std::tuple<Tensor, Tensor> r;
    {
      py::gil_scoped_release nogil;
      r = ember::max_pool2d_with_indices(input, k, s, p, d, ceil_mode);
    }
    if (return_indices) return py::make_tuple(std::get<0>(r), std::get<1>(r));
    return py::cast(std::get<0>(r));
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
        py::arg("dilation") = 1, py::arg("ceil_mode") = false, py::arg("return_indices") = false);
  m.def("avg_pool2d", [](const Tensor& input, const py::object& kernel, const py::object& stride,
                         const py::object& padding, bool ceil_mode, bool count_include_pad,
                         std::optional<int64_t> divisor_override) {
    Size2 k = size2(kernel), p = size2(padding);
    std::optional<Size2> s = optional_size2(stride);
    py::gil_scoped_release nogil;
    return ember::avg_pool2d(input, k, s, p, ceil_mode, count_include_pad, divisor_override);
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
        py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
        py::arg("divisor_override") = py::none());
  m.def("adaptive_avg_pool2d", [](const Tensor& input, const py::object& output_size) {
    Size2 o = size2(output_size);
    py::gil_scoped_release nogil;
    return ember::adaptive_avg_pool2d(input, o);
  }, py::arg("input"), py::arg("output_size"));
  m.def("batch_norm", [](const Tensor& input, const std::optional<Tensor>& running_mean,
                         const std::optional<Tensor>& running_var, const std::optional<Tensor>& weight,
                         const std::optional<Tensor>& bias, bool training, double momentum, double eps) {
    return ember::batch_norm(input, undefined_if_none(running_mean), undefined_if_none(running_var),
                             undefined_if_none(weight), undefined_if_none(bias), training, momentum, eps);
  }, py::arg("input"), py::arg("running_mean"), py::arg("running_var"), py::arg("weight") = py::none(),
        py::arg("bias") = py::none(), py::arg("training") = false, py::arg("momentum") = 0.1,
        py::arg("eps") = 1e-5);
  m.def("layer_norm", [](const Tensor& input, const std::vector<int64_t>& normalized_shape,
                         const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, double eps) {
    return ember::layer_norm(input, normalized_shape, undefined_if_none(weight), undefined_if_none(bias), eps);
  }, py::arg("input"), py::arg("normalized_shape"), py::arg("weight") = py::none(),
        py::arg("bias") = py::none(), py::arg("eps") = 1e-5);
  m.def("dropout", [](const Tensor& input, double p, bool training, Generator* generator) {
    return ember::dropout(input, p, training, generator);
  }, py::arg("input"), py::arg("p") = 0.5, py::arg("training") = true, py::kw_only(),
        py::arg("generator") = py::none());
}

}  // namespace ember::python
