#pragma once
// Which 16-bit floats a GPU multiplies natively: cuBLAS and cuDNN run float16 GEMMs and
// convolutions on tensor cores from compute capability 7.0 (Volta) and bfloat16 from 8.0 (Ampere),
// accumulating in float32. Older devices get the float32 kernels on widened copies, rounded once:
// slower, never a different kind of result. Host code, tested in tests/cuda.
namespace ember::cuda {

/// capability: major * 10 + minor; bfloat16 when `bf16`, else float16.
inline constexpr bool native_16bit_math(int capability, bool bf16) { return capability >= (bf16 ? 80 : 70); }

}  // namespace ember::cuda
