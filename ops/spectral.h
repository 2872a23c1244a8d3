#pragma once
// Window functions for spectral analysis (torch.hann_window and its kin). The short-time
// transforms themselves, stft and istft, are table ops (ember/ops/functions.h; ops/spectral.cpp):
//
//   Tensor w = ember::hann_window(512);
//   Tensor spec = ember::stft(audio, 512, 128, std::nullopt, w, true, "reflect", false, std::nullopt, true);
//   Tensor back = ember::istft(spec, 512, 128, std::nullopt, w, true, false, std::nullopt, audio.size(-1));
//
// A periodic window (the default, what stft wants) is the first n points of the symmetric window of
// n + 1; values are computed in float64 and rounded to the options' dtype (the default dtype).
#include "ember/core/tensor.h"

namespace ember {

/// 0.5 - 0.5 cos(2 pi k / N): N = n if periodic, else n - 1.
Tensor hann_window(int64_t n, bool periodic = true, TensorOptions options = {});
/// alpha - beta cos(2 pi k / N).
Tensor hamming_window(int64_t n, bool periodic = true, double alpha = 0.54, double beta = 0.46,
                      TensorOptions options = {});
/// 0.42 - 0.5 cos(2 pi k / N) + 0.08 cos(4 pi k / N).
Tensor blackman_window(int64_t n, bool periodic = true, TensorOptions options = {});
/// 1 - |2 k / N - 1|.
Tensor bartlett_window(int64_t n, bool periodic = true, TensorOptions options = {});

}  // namespace ember
