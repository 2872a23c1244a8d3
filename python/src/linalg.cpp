// torch.linalg's pinv, matrix_rank, lstsq and matrix_power (ops/linalg_composite.h) with PyTorch's
// Python signatures: tolerances as numbers or tensors, the older rcond / tol / hermitian
// arguments, lstsq's driver and named result.
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

void bind_linalg_composites(py::module_& m) {
  m.def(
      "_linalg_pinv",
      [](const Tensor& A, py::object rcond, bool hermitian, py::object atol, py::object rtol) {
        if (!rcond.is_none()) rtol = rcond;  // PyTorch's older positional argument is rtol
        LinalgTolerance tol{tolerance(atol, A), tolerance(rtol, A)};
        return without_gil([&] { return linalg_pinv(A, tol, hermitian); });
      },
      "A"_a, "rcond"_a = py::none(), "hermitian"_a = false, "atol"_a = py::none(), "rtol"_a = py::none(),
      "The Moore-Penrose pseudo-inverse of each matrix of A (torch.linalg.pinv).");
  m.def(
      "_linalg_matrix_rank",
      [](const Tensor& A, py::object tol, bool hermitian, py::object atol, py::object rtol) {
        if (!tol.is_none()) atol = tol, rtol = py::float_(0.0);  // the older tol is atol with rtol 0
        LinalgTolerance t{tolerance(atol, A), tolerance(rtol, A)};
        return without_gil([&] { return linalg_matrix_rank(A, t, hermitian); });
      },
      "A"_a, "tol"_a = py::none(), "hermitian"_a = false, "atol"_a = py::none(), "rtol"_a = py::none(),
      "How many singular values of each matrix are above the tolerance (torch.linalg.matrix_rank).");
  m.def(
      "_linalg_lstsq",
      [](const Tensor& A, const Tensor& B, std::optional<double> rcond, std::optional<std::string> driver) {
        LstsqResult r = without_gil([&] { return linalg_lstsq(A, B, rcond, driver.value_or("gelsy")); });
        return py::make_tuple(r.solution, r.residuals, r.rank, r.singular_values);
      },
      "A"_a, "B"_a, "rcond"_a = py::none(), "driver"_a = py::none(),
      "(solution, residuals, rank, singular_values) of the least-squares problem (torch.linalg.lstsq).");
  m.def(
      "_linalg_matrix_power",
      [](const Tensor& A, py::object n) {
        if (!PyLong_Check(n.ptr()))
          throw TypeError(detail::str("linalg.matrix_power: n must be an int, got ",
                                      std::string(py::str(py::type::of(n).attr("__name__")))));
        const int64_t k = n.cast<int64_t>();
        return without_gil([&] { return linalg_matrix_power(A, k); });
      },
      "A"_a, "n"_a, "A^n by repeated squaring (torch.linalg.matrix_power).");
}

}  // namespace ember::python
