#pragma once
// The kernel contract of discrete Fourier transforms (ops/fft.cpp). The op moves the transformed dim
// last and makes the input contiguous, so a kernel sees rows and transforms along one dim; a
// transform over several dims is one kernel call per dim.
#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

enum class FftKind : uint8_t {
  C2C,  // complex [rows, n] -> complex [rows, n]
  R2C,  // real [rows, n] -> complex [rows, n/2 + 1]: the forward transform's non-redundant half
  C2R,  // complex [rows, n/2 + 1] -> real [rows, n]: the inverse transform of a Hermitian spectrum,
        // the imaginary parts of bin 0 (and of bin n/2 for even n) ignored, as they must be 0
};
/// Kernel: out = scale * DFT of each row of the contiguous `in` into the contiguous `out`, of
/// length n: sum_j x_j e^(-2 pi i jk/n) when forward (C2C, R2C), e^(+2 pi i jk/n) otherwise (C2C,
/// C2R); both of one precision (complex64 with float32, complex128 with float64); n >= 1.
using FftFn = void (*)(FftKind kind, const Tensor& out, const Tensor& in, int64_t n, bool forward, double scale);
EMBER_DECLARE_STUB(fft_stub, FftFn);

}  // namespace ember
