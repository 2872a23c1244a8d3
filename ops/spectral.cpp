// Short-time Fourier transforms, composed of table ops so that autograd differentiates them as
// PyTorch's: frames by unfold, windowed, one batched transform (fft_r2c or fft_c2c); the inverse
// transforms each frame back, windows it again and overlap-adds the frames with index_add,
// dividing by the overlap-added squared window. And the window functions.
#include "ember/ops/spectral.h"

#include <cmath>
#include <functional>
#include <numbers>
#include <vector>

#include "ember/core/factory.h"
#include "ember/ops/functions.h"

namespace ember {
namespace {

Tensor window(const char* name, int64_t n, bool periodic, TensorOptions options,
              const std::function<double(double)>& f) {
  EMBER_CHECK_VALUE(n >= 0, name, ": requires a non-negative window length, got window_length=", n);
  const DType dtype = options.dtype();
  EMBER_CHECK_TYPE(is_floating(dtype), name, ": expects a floating point dtype, got ", dtype);
  std::vector<double> values(static_cast<size_t>(n), 1.0);
  const double denominator = static_cast<double>(periodic ? n : n - 1);
  if (n > 1)
    for (int64_t k = 0; k < n; ++k) values[static_cast<size_t>(k)] = f(static_cast<double>(k) / denominator);
  Tensor w = tensor(values, {n}, TensorOptions(kFloat64)).to(dtype).to(options.device());
  if (options.requires_grad()) w.set_requires_grad(true);
  return w;
}

// The window of win_length entries (ones when undefined) centred in n_fft entries, as PyTorch pads it.
Tensor padded_window(const Tensor& w, int64_t n_fft, int64_t win_length, const Tensor& like, const char* op) {
  EMBER_CHECK_VALUE(win_length > 0 && win_length <= n_fft, op,
                    ": expected 0 < win_length <= n_fft, but got win_length=", win_length, " and n_fft=", n_fft);
  if (w.defined())
    EMBER_CHECK_VALUE(w.dim() == 1 && w.size(0) == win_length, op,
                      ": expected a 1-D window tensor of size equal to win_length=", win_length,
                      ", but got window with size ", w.sizes());
  if (!w.defined() && win_length == n_fft) return Tensor();  // rectangular: no multiply
  const Tensor full =
      w.defined() ? w : ones({win_length}, TensorOptions(real_dtype(like.dtype())).device(like.device()));
  if (win_length == n_fft) return full;
  const int64_t left = (n_fft - win_length) / 2;
  return pad(full, {left, n_fft - win_length - left});
}

// pad() of the last dim, for a complex signal too (part by part).
Tensor pad_signal(const Tensor& x, int64_t left, int64_t right, std::string_view mode) {
  if (!is_complex(x.dtype())) return pad(x, {left, right}, mode);
  return complex(pad(contiguous(real(x)), {left, right}, mode), pad(contiguous(imag(x)), {left, right}, mode));
}

// Sums frames [B, F, n] into [B, length] at offsets f * hop (complex frames part by part).
Tensor overlap_add(const Tensor& frames, int64_t hop, int64_t length) {
  const int64_t batch = frames.size(0), count = frames.size(1), n = frames.size(2);
  const TensorOptions index_options = TensorOptions(kInt64).device(frames.device());
  const Tensor index =
      reshape(add(unsqueeze(mul(arange(count, index_options), hop), 1), arange(n, index_options)), {-1});
  if (is_complex(frames.dtype())) {
    const Tensor pairs = reshape(view_as_real(frames), {batch, count * n, 2});
    const Tensor sum = index_add(zeros({batch, length, 2}, pairs.options()), 1, index, pairs);
    return view_as_complex(contiguous(sum));
  }
  return index_add(zeros({batch, length}, frames.options()), 1, index, reshape(frames, {batch, count * n}));
}

}  // namespace

Tensor hann_window(int64_t n, bool periodic, TensorOptions options) {
  return hamming_window(n, periodic, 0.5, 0.5, options);
}

Tensor hamming_window(int64_t n, bool periodic, double alpha, double beta, TensorOptions options) {
  return window("hamming_window", n, periodic, options,
                [=](double x) { return alpha - beta * std::cos(2 * std::numbers::pi * x); });
}

Tensor blackman_window(int64_t n, bool periodic, TensorOptions options) {
  return window("blackman_window", n, periodic, options, [](double x) {
    return 0.42 - 0.5 * std::cos(2 * std::numbers::pi * x) + 0.08 * std::cos(4 * std::numbers::pi * x);
  });
}

Tensor bartlett_window(int64_t n, bool periodic, TensorOptions options) {
  return window("bartlett_window", n, periodic, options, [](double x) { return 1 - std::abs(2 * x - 1); });
}

Tensor impl_stft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length,
                 std::optional<int64_t> win_length, const Tensor& window, bool center, std::string_view pad_mode,
                 bool normalized, std::optional<bool> onesided, std::optional<bool> return_complex) {
  const bool complex_in = is_complex(self.dtype()) || (window.defined() && is_complex(window.dtype()));
  EMBER_CHECK_VALUE(return_complex.has_value() || complex_in,
                    "stft requires the return_complex parameter be given for real inputs (return_complex=True "
                    "returns the complex spectrum)");
  EMBER_CHECK_VALUE(self.dim() == 1 || self.dim() == 2,
                    "stft: expected a 1-D signal or a 2-D batch of signals, got shape ", self.sizes());
  EMBER_CHECK_TYPE(is_floating(self.dtype()) || is_complex(self.dtype()),
                   "stft: expected a floating point or complex signal, got ", self.dtype());
  const int64_t hop = hop_length.value_or(n_fft / 4), win = win_length.value_or(n_fft);
  EMBER_CHECK_VALUE(hop > 0, "stft: expected hop_length > 0, but got hop_length=", hop);
  Tensor x = self.dim() == 1 ? unsqueeze(self, 0) : self;
  if (center) x = pad_signal(x, n_fft / 2, n_fft / 2, pad_mode);
  EMBER_CHECK_VALUE(n_fft > 0 && n_fft <= x.size(-1), "stft: expected 0 < n_fft <= ", x.size(-1),
                    " (the padded signal's length), but got n_fft=", n_fft);
  const Tensor w = padded_window(window, n_fft, win, x, "stft");
  const bool half = onesided.value_or(!complex_in);
  EMBER_CHECK_VALUE(!(half && complex_in), "stft: cannot have onesided output if the window or input is complex");
  Tensor frames = unfold(x, -1, n_fft, hop);  // [B, frames, n_fft]
  if (w.defined()) frames = mul(frames, w);
  const int64_t norm = normalized ? 1 : 0;
  const std::vector<int64_t> last{-1};
  Tensor spec = is_complex(frames.dtype()) ? fft_c2c(frames, last, norm, true) : fft_r2c(frames, last, norm, half);
  spec = transpose(spec, -1, -2);  // [B, freq, frames]
  if (self.dim() == 1) spec = squeeze(spec, 0);
  return return_complex.value_or(true) ? spec : view_as_real(spec);
}

Tensor impl_istft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length,
                  std::optional<int64_t> win_length, const Tensor& window, bool center, bool normalized,
                  std::optional<bool> onesided, std::optional<int64_t> length, bool return_complex) {
  EMBER_CHECK_TYPE(is_complex(self.dtype()),
                   "istft requires a complex-valued input tensor matching the output from "
                   "stft with return_complex=True, got ",
                   self.dtype());
  EMBER_CHECK_VALUE(self.dim() == 2 || self.dim() == 3,
                    "istft: expected a tensor of 2 or 3 dims ([batch,] freq, frames), "
                    "got shape ",
                    self.sizes());
  const int64_t hop = hop_length.value_or(n_fft / 4), win = win_length.value_or(n_fft);
  EMBER_CHECK_VALUE(n_fft > 0, "istft: expected n_fft > 0, got ", n_fft);
  EMBER_CHECK_VALUE(hop > 0 && hop <= win, "istft: expected 0 < hop_length <= win_length, got hop_length=", hop,
                    " and win_length=", win);
  const Tensor spec = self.dim() == 2 ? unsqueeze(self, 0) : self;
  const int64_t bins = spec.size(1), count = spec.size(2);
  EMBER_CHECK_VALUE(count > 0, "istft: the input has no frames (shape ", self.sizes(), ")");
  const bool half = onesided.value_or(bins != n_fft);
  EMBER_CHECK_VALUE(!half || bins == n_fft / 2 + 1,
                    "istft: expected the frequency dim of the input to be n_fft / 2 + 1 = ", n_fft / 2 + 1,
                    " when onesided=True, but got ", bins);
  EMBER_CHECK_VALUE(half || bins == n_fft, "istft: expected the frequency dim of the input to be n_fft = ", n_fft,
                    " when onesided=False, but got ", bins);
  EMBER_CHECK_VALUE(!(half && return_complex), "istft: cannot have onesided output if the window or input is complex");
  EMBER_CHECK_VALUE(return_complex || !window.defined() || !is_complex(window.dtype()),
                    "istft: complex windows are incompatible with return_complex=False");
  const int64_t norm = normalized ? 1 : 2;
  const std::vector<int64_t> last{-1};
  Tensor frames = transpose(spec, 1, 2);  // [B, frames, bins]
  if (return_complex) {
    frames = fft_c2c(frames, last, norm, false);
  } else {
    if (!half) frames = narrow(frames, -1, 0, n_fft / 2 + 1);
    frames = fft_c2r(frames, last, norm, n_fft);
  }
  const Tensor w = padded_window(window, n_fft, win, frames, "istft");
  if (w.defined()) frames = mul(frames, w);
  const int64_t produced = n_fft + hop * (count - 1);
  Tensor y = overlap_add(frames, hop, produced);
  const Tensor square =
      w.defined() ? mul(w, w) : ones({n_fft}, TensorOptions(real_dtype(frames.dtype())).device(frames.device()));
  Tensor envelope = squeeze(overlap_add(unsqueeze(expand(square, {count, n_fft}), 0), hop, produced), 0);
  const int64_t start = center ? n_fft / 2 : 0;
  const int64_t end = length ? start + *length : center ? produced - n_fft / 2 : produced;
  const int64_t stop = std::min(end, produced);
  EMBER_CHECK_VALUE(stop >= start, "istft: the signal of ", produced, " samples is shorter than the ", start,
                    " the centring trims");
  y = narrow(y, 1, start, stop - start);
  envelope = narrow(envelope, 0, start, stop - start);
  if (envelope.numel() > 0) {
    const double lowest = abs(envelope).min().item<double>();
    EMBER_CHECK_VALUE(lowest > 1e-11, "istft: window overlap add min: ", lowest,
                      " (the squared window, overlap-added at hop_length=", hop,
                      ", vanishes somewhere: the NOLA condition fails)");
  }
  y = div(y, envelope);
  if (end > produced) y = pad_signal(y, 0, end - produced, "constant");
  return self.dim() == 2 ? squeeze(y, 0) : y;
}

}  // namespace ember
