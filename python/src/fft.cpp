// ember._C.fft: torch.fft's functions (ops/fft.h) with PyTorch's Python signatures: n / s and dim
// as ints or sequences (None: the default), norm as a string, fftfreq's dtype and device.
#include <pybind11/stl.h>

#include "bindings.h"
#include "ember/core/device.h"
#include "ember/ops/ops.h"

namespace ember::python {
namespace {

using namespace pybind11::literals;
using OneDim = Tensor (*)(const Tensor&, std::optional<int64_t>, int64_t, fft::Norm);
using ManyDims = Tensor (*)(const Tensor&, fft::Lengths, std::vector<int64_t>, fft::Norm);

void def_one(py::module_& m, const char* name, OneDim f, const char* doc) {
  m.def(
      name,
      [f](const Tensor& input, std::optional<int64_t> n, int64_t dim, std::optional<std::string> norm) {
        return without_gil([&] { return f(input, n, dim, optional_view(norm)); });
      },
      "input"_a, "n"_a = py::none(), "dim"_a = -1, "norm"_a = py::none(), doc);
}

// dim=None means every dim for the n-dimensional forms (or the last len(s)), (-2, -1) for the 2-D
// ones; C++ takes an empty list for "none given".
void def_many(py::module_& m, const char* name, ManyDims f, bool two_d, const char* doc) {
  m.def(
      name,
      [f, two_d](const Tensor& input, py::object s, py::object dim, std::optional<std::string> norm) {
        const fft::Lengths lengths = s.is_none() ? fft::Lengths() : fft::Lengths(dims_arg(s));
        std::vector<int64_t> dims = dim.is_none() ? std::vector<int64_t>{} : dims_arg(dim);
        if (two_d && dim.is_none()) dims = {-2, -1};
        if (!dim.is_none() && dims.empty()) return input.clone();  // no dims to transform
        return without_gil([&] { return f(input, lengths, dims, optional_view(norm)); });
      },
      "input"_a, "s"_a = py::none(), "dim"_a = two_d ? py::object(py::make_tuple(-2, -1)) : py::object(py::none()),
      "norm"_a = py::none(), doc);
}

}  // namespace

void bind_fft(py::module_& c) {
  py::module_ m = c.def_submodule("fft", "ember.fft's C++ half: discrete Fourier transforms (ops/fft.h)");
  def_one(m, "fft", &fft::fft, "The 1-D discrete Fourier transform along dim (torch.fft.fft).");
  def_one(m, "ifft", &fft::ifft, "The inverse of fft (torch.fft.ifft).");
  def_one(m, "rfft", &fft::rfft, "The n/2+1 non-negative frequencies of a real signal's transform (torch.fft.rfft).");
  def_one(m, "irfft", &fft::irfft,
          "The real signal whose rfft is input; n defaults to 2 (bins - 1) (torch.fft.irfft).");
  def_one(m, "hfft", &fft::hfft, "The transform of a Hermitian signal given by its first half (torch.fft.hfft).");
  def_one(m, "ihfft", &fft::ihfft,
          "The inverse of hfft: half the inverse transform of a real signal (torch.fft.ihfft).");
  def_many(m, "fftn", &fft::fftn, false, "The n-dimensional transform over dim (torch.fft.fftn).");
  def_many(m, "ifftn", &fft::ifftn, false, "The inverse of fftn (torch.fft.ifftn).");
  def_many(m, "rfftn", &fft::rfftn, false, "fftn of a real input, the last dim's half spectrum (torch.fft.rfftn).");
  def_many(m, "irfftn", &fft::irfftn, false, "The inverse of rfftn (torch.fft.irfftn).");
  def_many(m, "fft2", &fft::fft2, true, "fftn over the last two dims (torch.fft.fft2).");
  def_many(m, "ifft2", &fft::ifft2, true, "The inverse of fft2 (torch.fft.ifft2).");
  def_many(m, "rfft2", &fft::rfft2, true, "rfftn over the last two dims (torch.fft.rfft2).");
  def_many(m, "irfft2", &fft::irfft2, true, "The inverse of rfft2 (torch.fft.irfft2).");
  for (const bool half : {false, true}) {
    m.def(
        half ? "rfftfreq" : "fftfreq",
        [half](int64_t n, double d, std::optional<DType> dtype, std::optional<Device> device, bool requires_grad) {
          TensorOptions options(dtype.value_or(default_dtype()));
          options = options.device(device ? *device : default_device().value_or(Device()));
          Tensor f = half ? fft::rfftfreq(n, d, options) : fft::fftfreq(n, d, options);
          if (requires_grad) f.set_requires_grad(true);
          return f;
        },
        "n"_a, "d"_a = 1.0, py::kw_only(), "dtype"_a = py::none(), "device"_a = py::none(), "requires_grad"_a = false,
        half ? "The sample frequencies of rfft's bins: [0, 1, ..., n/2] / (d n) (torch.fft.rfftfreq)."
             : "The sample frequencies of an n-point transform: [0, 1, ..., -1] / (d n) (torch.fft.fftfreq).");
  }
  m.def(
      "fftshift", [](const Tensor& input, py::object dim) { return fft::fftshift(input, dims_arg(dim)); }, "input"_a,
      "dim"_a = py::none(), "Rolls the zero frequency to the centre of each dim (every dim by default).");
  m.def(
      "ifftshift", [](const Tensor& input, py::object dim) { return fft::ifftshift(input, dims_arg(dim)); }, "input"_a,
      "dim"_a = py::none(), "The inverse of fftshift.");
}

}  // namespace ember::python
