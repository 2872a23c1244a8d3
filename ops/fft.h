#pragma once
// Discrete Fourier transforms, torch.fft's functions (and libtorch's torch::fft):
//
//   Tensor spectrum = ember::fft::rfft(signal);              // the n/2+1 non-negative frequencies
//   Tensor back = ember::fft::irfft(spectrum, signal.size(-1));
//   Tensor image_spectrum = ember::fft::fft2(image);         // over the last two dims
//
// `n` (or `s`, one length per dim) trims or zero-pads the input along the transformed dims first;
// `norm` is "backward" (the default: the inverse transforms divide by n), "forward" (the forward
// ones do) or "ortho" (both divide by sqrt(n)). Real inputs of the complex transforms and integer
// inputs are promoted as PyTorch's: integers to the default float dtype, reals to complex. All are
// composed of the op table's fft_c2c, fft_r2c and fft_c2r (ops/fft.cpp).
#include <optional>
#include <string_view>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::fft {

using Norm = std::optional<std::string_view>;
using Lengths = std::optional<std::vector<int64_t>>;

Tensor fft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t dim = -1, Norm norm = std::nullopt);
Tensor ifft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t dim = -1, Norm norm = std::nullopt);
/// The forward transform of a real signal: its n/2+1 non-negative frequencies.
Tensor rfft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t dim = -1, Norm norm = std::nullopt);
/// The real signal of n samples (default 2 (m - 1) from m bins) whose rfft is x.
Tensor irfft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t dim = -1, Norm norm = std::nullopt);
/// The forward transform of a Hermitian-symmetric signal given by its first half (a real result).
Tensor hfft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t dim = -1, Norm norm = std::nullopt);
/// The inverse of hfft: the n/2+1 bins of the inverse transform of a real signal.
Tensor ihfft(const Tensor& x, std::optional<int64_t> n = std::nullopt, int64_t dim = -1, Norm norm = std::nullopt);

/// Over several dims: `dim` empty means every dim (the last s.size() when s is given).
Tensor fftn(const Tensor& x, Lengths s = std::nullopt, std::vector<int64_t> dim = {}, Norm norm = std::nullopt);
Tensor ifftn(const Tensor& x, Lengths s = std::nullopt, std::vector<int64_t> dim = {}, Norm norm = std::nullopt);
Tensor rfftn(const Tensor& x, Lengths s = std::nullopt, std::vector<int64_t> dim = {}, Norm norm = std::nullopt);
Tensor irfftn(const Tensor& x, Lengths s = std::nullopt, std::vector<int64_t> dim = {}, Norm norm = std::nullopt);
Tensor fft2(const Tensor& x, Lengths s = std::nullopt, std::vector<int64_t> dim = {-2, -1}, Norm norm = std::nullopt);
Tensor ifft2(const Tensor& x, Lengths s = std::nullopt, std::vector<int64_t> dim = {-2, -1}, Norm norm = std::nullopt);
Tensor rfft2(const Tensor& x, Lengths s = std::nullopt, std::vector<int64_t> dim = {-2, -1}, Norm norm = std::nullopt);
Tensor irfft2(const Tensor& x, Lengths s = std::nullopt, std::vector<int64_t> dim = {-2, -1}, Norm norm = std::nullopt);

/// The sample frequencies of an n-point transform with sample spacing d: [0, 1, ..., -1] / (d n).
Tensor fftfreq(int64_t n, double d = 1.0, TensorOptions options = TensorOptions(default_dtype()));
/// The n/2+1 non-negative ones, for rfft.
Tensor rfftfreq(int64_t n, double d = 1.0, TensorOptions options = TensorOptions(default_dtype()));
/// Moves the zero frequency to the centre of `dim` (every dim when empty); ifftshift undoes it.
Tensor fftshift(const Tensor& x, std::vector<int64_t> dim = {});
Tensor ifftshift(const Tensor& x, std::vector<int64_t> dim = {});

}  // namespace ember::fft
