// The discrete Fourier transforms: the op table's three primitives (as PyTorch's _fft_c2c,
// _fft_r2c and _fft_c2r), one kernel call per transformed dim (core/kernels/fft.h), and torch.fft's
// functions composed of them (ops/fft.h) with PyTorch's argument handling: lengths that trim or
// zero-pad, normalisation modes, and the promotion of integer and real inputs.
#include "ember/ops/fft.h"

#include <algorithm>
#include <cmath>

#include "ember/autograd/function_node.h"
#include "ember/autograd/record.h"
#include "ember/core/factory.h"
#include "ember/core/kernels/fft.h"
#include "ember/core/shape.h"
#include "ember/ops/complex.h"
#include "ember/ops/functions.h"

namespace ember {

using autograd::TensorList;
namespace {

// The scale of one dim's transform of length n: normalization 0 none, 1 by 1/sqrt(n), 2 by 1/n (the
// product over the dims is the n-dimensional transform's).
double dim_scale(int64_t normalization, int64_t n) {
  switch (normalization) {
    case 0:
      return 1.0;
    case 1:
      return 1.0 / std::sqrt(static_cast<double>(n));
    case 2:
      return 1.0 / static_cast<double>(n);
    default:
      throw ValueError(detail::str("fft: normalization must be 0, 1 or 2, got ", normalization));
  }
}

// dims wrapped, checked non-empty and unique.
DimVector fft_dims(const Tensor& t, IntArrayRef dims, const char* op) {
  EMBER_CHECK_VALUE(!dims.empty(), op, ": expected at least one dim to transform");
  DimVector out;
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, t.dim(), op);
    EMBER_CHECK_VALUE(std::find(out.begin(), out.end(), w) == out.end(), op, ": dim ", d, " appears twice in ", dims);
    out.push_back(w);
  }
  return out;
}

void check_points(int64_t n, int64_t dim, const char* op) {
  EMBER_CHECK_VALUE(n >= 1, op, ": invalid number of data points (", n, ") along dim ", dim);
}

// One kernel call: the 1-D transform of length n along `dim`, whose output has out_len entries there.
Tensor along(FftKind kind, const Tensor& x, int64_t dim, int64_t n, bool forward, double scale, DType out_dtype,
             int64_t out_len) {
  const Tensor rows = contiguous(movedim(x, {dim}, {-1}));
  DimVector shape = rows.sizes().vec();
  shape.back() = out_len;
  Tensor out = empty(shape, TensorOptions(out_dtype).device(x.device()));
  if (out.numel() > 0) fft_stub(x.device().type, kind, out, rows, n, forward, scale);
  return movedim(out, {-1}, {dim});
}

Tensor c2c_over(const Tensor& x, IntArrayRef dims, int64_t normalization, bool forward, const char* op) {
  Tensor out = x;
  for (int64_t d : dims) {
    const int64_t n = x.size(d);
    check_points(n, d, op);
    out = along(FftKind::C2C, out, d, n, forward, dim_scale(normalization, n), x.dtype(), n);
  }
  return out;
}

}  // namespace

// The gradients are PyTorch's: a complex transform's adjoint is the transform in the other
// direction with the same scale; a one-sided real-to-complex transform's is the inverse complex
// transform of the gradient zero-padded to the full length, real part; a complex-to-real one's is
// the one-sided forward transform with the bins whose mirror images were dropped counted twice.
Tensor impl_fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  EMBER_CHECK_TYPE(is_complex(self.dtype()), "fft_c2c: expected a complex tensor, got ", self.dtype());
  const DimVector dims = fft_dims(self, dim, "fft_c2c");
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    out = contiguous(c2c_over(self, dims, normalization, forward, "fft_c2c"));
  }
  autograd::record_function(
      "FftC2CBackward", out, {self}, {},
      [dims, normalization, forward](const TensorList&, const TensorList& g, const autograd::Node&) {
        return TensorList{fft_c2c(g[0], dims, normalization, !forward)};
      });
  return out;
}

Tensor impl_fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  EMBER_CHECK_TYPE(self.dtype() == kFloat32 || self.dtype() == kFloat64,
                   "fft_r2c: expected a float32 or float64 tensor, got ", self.dtype());
  const DimVector dims = fft_dims(self, dim, "fft_r2c");
  const DType complex = *complex_dtype(self.dtype());
  const int64_t last = dims.back(), n = self.size(last);
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    if (!onesided) {
      // NB: all n bins of each transformed dim: the complex transform of the real input (the half
      // spectrum's mirror image would need every dim's negative frequencies too).
      out = contiguous(c2c_over(self.to(complex), dims, normalization, true, "fft_r2c"));
    } else {
      check_points(n, last, "fft_r2c");
      const Tensor half = along(FftKind::R2C, self, last, n, true, dim_scale(normalization, n), complex, n / 2 + 1);
      out = contiguous(c2c_over(half, IntArrayRef(dims.data(), dims.size() - 1), normalization, true, "fft_r2c"));
    }
  }
  autograd::record_function(
      "FftR2CBackward", out, {self}, {},
      [dims, normalization, onesided, last, n](const TensorList&, const TensorList& g, const autograd::Node&) {
        Tensor full = g[0];
        if (onesided && n > g[0].size(last)) {
          DimVector pad_shape = g[0].sizes().vec();
          pad_shape[last] = n - g[0].size(last);
          full = cat({g[0], zeros(pad_shape, TensorOptions(g[0].dtype()).device(g[0].device()))}, last);
        }
        return TensorList{real(fft_c2c(full, dims, normalization, false))};
      });
  return out;
}

Tensor impl_fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  EMBER_CHECK_TYPE(is_complex(self.dtype()), "fft_c2r: expected a complex tensor, got ", self.dtype());
  const DimVector dims = fft_dims(self, dim, "fft_c2r");
  const int64_t last = dims.back();
  check_points(last_dim_size, last, "fft_c2r");
  EMBER_CHECK_VALUE(self.size(last) == last_dim_size / 2 + 1, "fft_c2r: a real result of ", last_dim_size,
                    " points along dim ", last, " needs ", last_dim_size / 2 + 1, " bins there, got ", self.size(last));
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    const Tensor rest = c2c_over(self, IntArrayRef(dims.data(), dims.size() - 1), normalization, false, "fft_c2r");
    out = contiguous(along(FftKind::C2R, rest, last, last_dim_size, false, dim_scale(normalization, last_dim_size),
                           real_dtype(self.dtype()), last_dim_size));
  }
  autograd::record_function(
      "FftC2RBackward", out, {self}, {},
      [dims, normalization, last](const TensorList&, const TensorList& g, const autograd::Node&) {
        const Tensor half = fft_r2c(g[0], dims, normalization, true);
        // Bins 1 .. n - (n/2 + 1) stand for themselves and their dropped mirror images.
        const int64_t bins = half.size(last), doubled = g[0].size(last) - bins;
        if (doubled <= 0) return TensorList{half};
        std::vector<double> weight(static_cast<size_t>(bins), 1.0);
        std::fill(weight.begin() + 1, weight.begin() + 1 + doubled, 2.0);
        DimVector shape(static_cast<size_t>(half.dim()), 1);
        shape[last] = bins;
        const Tensor w = tensor(weight, shape, TensorOptions(kFloat64)).to(real_dtype(half.dtype())).to(half.device());
        return TensorList{mul(half, w)};
      });
  return out;
}

namespace fft {
namespace {

// PyTorch's fft_norm_mode for a transform in the given direction.
int64_t normalization(Norm norm, bool forward, const char* op) {
  if (!norm || *norm == "backward") return forward ? 0 : 2;
  if (*norm == "forward") return forward ? 2 : 0;
  if (*norm == "ortho") return 1;
  throw ValueError(
      detail::str(op, ": invalid normalization mode \"", *norm, "\"; expected \"backward\", \"forward\" or \"ortho\""));
}

// Integers and bool become the default float dtype; complex inputs are refused where a real one is
// needed, real ones made complex where a complex one is.
Tensor promote(const Tensor& x, bool want_complex, bool allow_complex, const char* op) {
  Tensor t = x;
  if (!is_floating(t.dtype()) && !is_complex(t.dtype())) t = t.to(default_dtype());
  EMBER_CHECK_TYPE(t.dtype() != kFloat16 && t.dtype() != kBFloat16, op, ": ", t.dtype(),
                   " transforms are not supported; convert to float32 first");
  EMBER_CHECK_TYPE(allow_complex || !is_complex(t.dtype()), op, " expects a real input tensor, but got ", t.dtype());
  if (want_complex && !is_complex(t.dtype())) t = t.to(*complex_dtype(t.dtype()));
  return t;
}

// x trimmed or zero-padded to n entries along dim.
Tensor resize(const Tensor& x, int64_t dim, int64_t n, const char* op) {
  check_points(n, dim, op);
  const int64_t have = x.size(dim);
  if (n == have) return x;
  if (n < have) return narrow(x, dim, 0, n);
  DimVector shape = x.sizes().vec();
  shape[static_cast<size_t>(dim)] = n - have;
  return cat({x, zeros(shape, TensorOptions(x.dtype()).device(x.device()))}, dim);
}

// The dims and lengths of an n-dimensional transform (PyTorch's canonicalize_fft_shape_and_dim_args):
// no dims and no s: every dim; s alone: the last s.size() dims; s[i] == -1 keeps that dim's size.
std::pair<DimVector, DimVector> shape_and_dims(const Tensor& x, const Lengths& s, const std::vector<int64_t>& dim,
                                               const char* op) {
  DimVector dims;
  if (!dim.empty()) {
    dims = fft_dims(x, dim, op);
  } else {
    const int64_t k = s ? static_cast<int64_t>(s->size()) : x.dim();
    EMBER_CHECK_VALUE(k <= x.dim(), op, ": got ", k, " lengths for a tensor of ", x.dim(), " dims");
    for (int64_t d = x.dim() - k; d < x.dim(); ++d) dims.push_back(d);
  }
  EMBER_CHECK_VALUE(!s || s->size() == dims.size(), op, ": s and dim must have the same length, got ", s->size(),
                    " and ", dims.size());
  DimVector lengths;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t want = s ? (*s)[i] : -1;
    lengths.push_back(want == -1 ? x.size(dims[i]) : want);
  }
  return {dims, lengths};
}

Tensor c2c_n(const Tensor& x, const Lengths& s, const std::vector<int64_t>& dim, Norm norm, bool forward,
             const char* op) {
  Tensor t = promote(x, true, true, op);
  auto [dims, lengths] = shape_and_dims(t, s, dim, op);
  if (dims.empty()) return t.clone();
  for (size_t i = 0; i < dims.size(); ++i) t = resize(t, dims[i], lengths[i], op);
  return fft_c2c(t, dims, normalization(norm, forward, op), forward);
}

Tensor r2c_n(const Tensor& x, const Lengths& s, const std::vector<int64_t>& dim, Norm norm, const char* op) {
  Tensor t = promote(x, false, false, op);
  auto [dims, lengths] = shape_and_dims(t, s, dim, op);
  EMBER_CHECK_VALUE(!dims.empty(), op, ": must transform at least one dim");
  for (size_t i = 0; i < dims.size(); ++i) t = resize(t, dims[i], lengths[i], op);
  return fft_r2c(t, dims, normalization(norm, true, op), true);
}

Tensor c2r_n(const Tensor& x, const Lengths& s, const std::vector<int64_t>& dim, Norm norm, const char* op) {
  Tensor t = promote(x, true, true, op);
  auto [dims, lengths] = shape_and_dims(t, s, dim, op);
  EMBER_CHECK_VALUE(!dims.empty(), op, ": must transform at least one dim");
  // The last dim's real length: s's, or 2 (m - 1) from its m bins.
  const int64_t last = dims.back();
  const int64_t n = s && (*s).back() != -1 ? (*s).back() : 2 * (t.size(last) - 1);
  check_points(n, last, op);
  lengths.back() = n / 2 + 1;
  for (size_t i = 0; i < dims.size(); ++i) t = resize(t, dims[i], lengths[i], op);
  return fft_c2r(t, dims, normalization(norm, false, op), n);
}

Lengths one(std::optional<int64_t> n) { return n ? Lengths(std::vector<int64_t>{*n}) : std::nullopt; }

}  // namespace

Tensor fft(const Tensor& x, std::optional<int64_t> n, int64_t dim, Norm norm) {
  return c2c_n(x, one(n), {dim}, norm, true, "fft");
}
Tensor ifft(const Tensor& x, std::optional<int64_t> n, int64_t dim, Norm norm) {
  return c2c_n(x, one(n), {dim}, norm, false, "ifft");
}
Tensor rfft(const Tensor& x, std::optional<int64_t> n, int64_t dim, Norm norm) {
  return r2c_n(x, one(n), {dim}, norm, "rfft");
}
Tensor irfft(const Tensor& x, std::optional<int64_t> n, int64_t dim, Norm norm) {
  return c2r_n(x, one(n), {dim}, norm, "irfft");
}

// hfft is irfft of the conjugate with the forward transform's normalisation; ihfft the conjugate
// of rfft with the inverse's (PyTorch's).
Tensor hfft(const Tensor& x, std::optional<int64_t> n, int64_t dim, Norm norm) {
  const Tensor t = promote(x, true, true, "hfft");
  const int64_t d = wrap_dim(dim, t.dim(), "hfft");
  const int64_t points = n ? *n : 2 * (t.size(d) - 1);
  check_points(points, d, "hfft");
  const Tensor half = resize(t, d, points / 2 + 1, "hfft");
  return fft_c2r(conj(half), {d}, normalization(norm, true, "hfft"), points);
}
Tensor ihfft(const Tensor& x, std::optional<int64_t> n, int64_t dim, Norm norm) {
  Tensor t = promote(x, false, false, "ihfft");
  const int64_t d = wrap_dim(dim, t.dim(), "ihfft");
  if (n) t = resize(t, d, *n, "ihfft");
  return conj(fft_r2c(t, {d}, normalization(norm, false, "ihfft"), true));
}

Tensor fftn(const Tensor& x, Lengths s, std::vector<int64_t> dim, Norm norm) {
  return c2c_n(x, s, dim, norm, true, "fftn");
}
Tensor ifftn(const Tensor& x, Lengths s, std::vector<int64_t> dim, Norm norm) {
  return c2c_n(x, s, dim, norm, false, "ifftn");
}
Tensor rfftn(const Tensor& x, Lengths s, std::vector<int64_t> dim, Norm norm) {
  return r2c_n(x, s, dim, norm, "rfftn");
}
Tensor irfftn(const Tensor& x, Lengths s, std::vector<int64_t> dim, Norm norm) {
  return c2r_n(x, s, dim, norm, "irfftn");
}
Tensor fft2(const Tensor& x, Lengths s, std::vector<int64_t> dim, Norm norm) {
  return c2c_n(x, s, dim, norm, true, "fft2");
}
Tensor ifft2(const Tensor& x, Lengths s, std::vector<int64_t> dim, Norm norm) {
  return c2c_n(x, s, dim, norm, false, "ifft2");
}
Tensor rfft2(const Tensor& x, Lengths s, std::vector<int64_t> dim, Norm norm) {
  return r2c_n(x, s, dim, norm, "rfft2");
}
Tensor irfft2(const Tensor& x, Lengths s, std::vector<int64_t> dim, Norm norm) {
  return c2r_n(x, s, dim, norm, "irfft2");
}

Tensor fftfreq(int64_t n, double d, TensorOptions options) {
  EMBER_CHECK_VALUE(n >= 0, "fftfreq: n must be non-negative, got ", n);
  // [0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / (d n), PyTorch's order of operations.
  Tensor k = arange(n, TensorOptions(kInt64).device(options.device()));
  k = where(ge(k, (n + 1) / 2), sub(k, n), k);
  return mul(k.to(options.dtype()), 1.0 / (static_cast<double>(n) * d));
}

Tensor rfftfreq(int64_t n, double d, TensorOptions options) {
  EMBER_CHECK_VALUE(n >= 0, "rfftfreq: n must be non-negative, got ", n);
  const Tensor k = arange(n / 2 + 1, TensorOptions(options.dtype()).device(options.device()));
  return mul(k, 1.0 / (static_cast<double>(n) * d));
}

namespace {
Tensor shift(const Tensor& x, std::vector<int64_t> dim, bool inverse, const char* op) {
  DimVector dims, shifts;
  if (dim.empty())
    for (int64_t d = 0; d < x.dim(); ++d) dims.push_back(d);
  else
    for (int64_t d : dim) dims.push_back(wrap_dim(d, x.dim(), op));
  for (int64_t d : dims) shifts.push_back(inverse ? (x.size(d) + 1) / 2 : x.size(d) / 2);
  if (dims.empty()) return x.clone();
  return roll(x, shifts, dims);
}
}  // namespace

Tensor fftshift(const Tensor& x, std::vector<int64_t> dim) { return shift(x, std::move(dim), false, "fftshift"); }
Tensor ifftshift(const Tensor& x, std::vector<int64_t> dim) { return shift(x, std::move(dim), true, "ifftshift"); }

}  // namespace fft
}  // namespace ember
