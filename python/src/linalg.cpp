// ember._C.linalg's pinv, matrix_rank, lstsq, matrix_power, norms and cond (ops/linalg_composite.h)
// with PyTorch's Python signatures: tolerances as numbers or tensors, the older rcond / tol /
// hermitian arguments, lstsq's driver and named result, norm orders as numbers or names. The
// factorisations beside them are the op table's (ops/ops.toml's "linalg." names).
#include <pybind11/stl.h>

#include "bindings.h"
#include "ember/core/factory.h"
#include "ember/ops/ops.h"

namespace ember::python {
namespace {

using namespace pybind11::literals;

// A tolerance given as a number or a tensor (None: unset).
std::optional<Tensor> tolerance(const py::object& v, const Tensor& A) {
  if (v.is_none()) return std::nullopt;
  if (py::isinstance<Tensor>(v)) return v.cast<Tensor>();
  return full({}, v.cast<double>(), TensorOptions(A.dtype()).device(A.device()));
}

}  // namespace

void bind_linalg_composites(py::module_& c) {
  py::module_ m = py::hasattr(c, "linalg") ? c.attr("linalg").cast<py::module_>() : c.def_submodule("linalg");
  m.def(
      "pinv",
      [](const Tensor& A, py::object rcond, bool hermitian, py::object atol, py::object rtol) {
        if (!rcond.is_none()) rtol = rcond;  // PyTorch's older positional argument is rtol
        LinalgTolerance tol{tolerance(atol, A), tolerance(rtol, A)};
        return without_gil([&] { return linalg_pinv(A, tol, hermitian); });
      },
      "A"_a, "rcond"_a = py::none(), "hermitian"_a = false, "atol"_a = py::none(), "rtol"_a = py::none(),
      "The Moore-Penrose pseudo-inverse of each matrix of A (torch.linalg.pinv).");
  m.def(
      "matrix_rank",
      [](const Tensor& A, py::object tol, bool hermitian, py::object atol, py::object rtol) {
        if (!tol.is_none()) atol = tol, rtol = py::float_(0.0);  // the older tol is atol with rtol 0
        LinalgTolerance t{tolerance(atol, A), tolerance(rtol, A)};
        return without_gil([&] { return linalg_matrix_rank(A, t, hermitian); });
      },
      "A"_a, "tol"_a = py::none(), "hermitian"_a = false, "atol"_a = py::none(), "rtol"_a = py::none(),
      "How many singular values of each matrix are above the tolerance (torch.linalg.matrix_rank).");
  m.def(
      "lstsq",
      [](const Tensor& A, const Tensor& B, std::optional<double> rcond, std::optional<std::string> driver) {
        LstsqResult r = without_gil([&] { return linalg_lstsq(A, B, rcond, driver.value_or("gelsy")); });
        return named_tuple("linalg_lstsq", {"solution", "residuals", "rank", "singular_values"},
                           std::make_tuple(r.solution, r.residuals, r.rank, r.singular_values));
      },
      "A"_a, "B"_a, "rcond"_a = py::none(), "driver"_a = py::none(),
      "(solution, residuals, rank, singular_values) of the least-squares problem (torch.linalg.lstsq).");
  m.def(
      "matrix_power",
      [](const Tensor& A, py::object n) {
        if (!PyLong_Check(n.ptr()))
          throw TypeError(detail::str("linalg.matrix_power: n must be an int, got ",
                                      std::string(py::str(py::type::of(n).attr("__name__")))));
        const int64_t k = n.cast<int64_t>();
        return without_gil([&] { return linalg_matrix_power(A, k); });
      },
      "A"_a, "n"_a, "A^n by repeated squaring (torch.linalg.matrix_power).");
  // ord is a number (inf included) or a name ("fro", "nuc"); dim None, an int or a sequence.
  m.def(
      "vector_norm",
      [](const Tensor& x, double ord, const py::object& dim, bool keepdim, std::optional<DType> dtype) {
        return linalg_vector_norm(x, ord, dims_arg(dim), keepdim, dtype);
      },
      "x"_a, "ord"_a = 2.0, "dim"_a = py::none(), "keepdim"_a = false, py::kw_only(), "dtype"_a = py::none(),
      "(sum |x|^ord)^(1/ord) over dim (torch.linalg.vector_norm).");
  m.def(
      "matrix_norm",
      [](const Tensor& A, const py::object& ord, const py::object& dim, bool keepdim, std::optional<DType> dtype) {
        const std::vector<int64_t> dims = dims_arg(dim);
        if (py::isinstance<py::str>(ord)) return linalg_matrix_norm(A, ord.cast<std::string>(), dims, keepdim, dtype);
        return linalg_matrix_norm(A, ord.cast<double>(), dims, keepdim, dtype);
      },
      "A"_a, "ord"_a = "fro", "dim"_a = py::make_tuple(-2, -1), "keepdim"_a = false, py::kw_only(),
      "dtype"_a = py::none(), "The matrix norm over the two dims (torch.linalg.matrix_norm).");
  m.def(
      "norm",
      [](const Tensor& A, const py::object& ord, const py::object& dim, bool keepdim, std::optional<DType> dtype) {
        std::optional<std::vector<int64_t>> dims;
        if (!dim.is_none()) dims = dims_arg(dim);
        if (py::isinstance<py::str>(ord)) return linalg_norm(A, ord.cast<std::string>(), dims, keepdim, dtype);
        return linalg_norm(A, ord.is_none() ? std::nullopt : std::optional<double>(ord.cast<double>()), dims, keepdim,
                           dtype);
      },
      "A"_a, "ord"_a = py::none(), "dim"_a = py::none(), "keepdim"_a = false, py::kw_only(), "dtype"_a = py::none(),
      "A vector norm over one dim, a matrix norm over two (torch.linalg.norm).");
  m.def(
      "cond",
      [](const Tensor& A, const py::object& p) {
        if (py::isinstance<py::str>(p)) return linalg_cond(A, p.cast<std::string>());
        return linalg_cond(A, p.is_none() ? std::nullopt : std::optional<double>(p.cast<double>()));
      },
      "A"_a, "p"_a = py::none(), "The condition number of each matrix (torch.linalg.cond).");
}

}  // namespace ember::python
