// CPU kernels for discrete Fourier transforms (core/kernels/fft.h) on Eigen's FFT module (a
// mixed-radix kissfft that ships with Eigen: radix 2, 3, 4 and 5 butterflies, a generic O(p^2) one
// for other prime factors; twiddles computed in double). Rows are split over threads, each task with
// its own Eigen::FFT (it caches plans and scratch buffers, so one object is not shared).
#include <complex>
#include <unsupported/Eigen/FFT>

#include "ember/core/cpu/parallel.h"
#include "ember/core/kernels/fft.h"

namespace ember::cpu {
namespace {

// Each row of `in` ([rows, in_len]) transformed into its row of `out` by transform(fft, y, x), then
// scaled; Out and In are each R or std::complex<R>.
template <typename R, typename Out, typename In, typename Transform>
void transform_rows(const Tensor& out, const Tensor& in, int64_t n, double scale, const Transform& transform) {
  const int64_t in_len = in.size(-1), out_len = out.size(-1);
  const int64_t rows = in_len == 0 ? 0 : in.numel() / in_len;
  const R s = static_cast<R>(scale);
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(n, 1));
  parallel_for(0, rows, grain, [&](int64_t lo, int64_t hi) {
    Eigen::FFT<R> fft;
    fft.SetFlag(Eigen::FFT<R>::Unscaled);
    fft.SetFlag(Eigen::FFT<R>::HalfSpectrum);
    for (int64_t r = lo; r < hi; ++r) {
      const In* x = static_cast<const In*>(in.data_ptr()) + r * in_len;
      Out* y = static_cast<Out*>(out.data_ptr()) + r * out_len;
      if (n == 1)  // NB: kissfft has no plan for one point (it crashes); the transform is the identity
        y[0] = convert<Out>(x[0]);
      else
        transform(fft, y, x);
      if (s != R(1))
        for (int64_t k = 0; k < out_len; ++k) y[k] *= s;
    }
  });
}

template <typename R>
void fft_rows(FftKind kind, const Tensor& out, const Tensor& in, int64_t n, bool forward, double scale) {
  using C = std::complex<R>;
  switch (kind) {
    case FftKind::R2C:
      return transform_rows<R, C, R>(out, in, n, scale, [n](auto& fft, C* y, const R* x) { fft.fwd(y, x, n); });
    case FftKind::C2R:
      return transform_rows<R, R, C>(out, in, n, scale, [n](auto& fft, R* y, const C* x) { fft.inv(y, x, n); });
    case FftKind::C2C:
      return transform_rows<R, C, C>(out, in, n, scale, [n, forward](auto& fft, C* y, const C* x) {
        if (forward)
          fft.fwd(y, x, n);
        else
          fft.inv(y, x, n);
      });
  }
}

void cpu_fft(FftKind kind, const Tensor& out, const Tensor& in, int64_t n, bool forward, double scale) {
  const DType complex = kind == FftKind::C2R ? in.dtype() : out.dtype();
  if (complex == kComplex64)
    fft_rows<float>(kind, out, in, n, forward, scale);
  else if (complex == kComplex128)
    fft_rows<double>(kind, out, in, n, forward, scale);
  else
    EMBER_INTERNAL_ASSERT(false, "fft kernel with a ", complex, " spectrum");
}

}  // namespace

EMBER_REGISTER_KERNEL(fft_stub, DeviceType::CPU, &cpu_fft);

}  // namespace ember::cpu
