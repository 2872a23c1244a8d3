#pragma once
// A CUDA kernel whose float16/bfloat16 path needs tensor cores (cuBLAS GemmEx, cuDNN tensor-op
// convolutions): native_or_widened<kernel> runs `kernel` itself where the device multiplies the
// second argument's 16-bit dtype natively (cuda/shared/tensor_math.h), else on float32 copies with
// the result (argument 0) rounded once (core/kernels/widen.h).
#include "ember/core/kernels/widen.h"
#include "ember/cuda/runtime.h"
#include "ember/cuda/shared/tensor_math.h"

namespace ember::cuda {

namespace detail {
template <auto kernel>
struct NativeOrWidened;
template <typename... Rest, void (*kernel)(const Tensor&, const Tensor&, Rest...)>
struct NativeOrWidened<kernel> {
  static void fn(const Tensor& out, const Tensor& in, Rest... rest) {
    const DType t = in.dtype();
    if (is_16bit_float(t) && out.numel() > 0 &&
        !native_16bit_math(compute_capability(out.device().index), t == kBFloat16))
      return widened<kernel, 0>(out, in, rest...);
    kernel(out, in, rest...);
  }
};
}  // namespace detail

template <auto kernel>
inline constexpr auto native_or_widened = detail::NativeOrWidened<kernel>::fn;

}  // namespace ember::cuda
