#pragma once
// The op codes of the complex kernels (core/kernels/complex.h), apart from the tensor headers so
// that the CUDA launchers (cuda/kernels/launch.h) can name them.
#include <cstdint>

namespace ember {

enum class ComplexBinaryOp : uint8_t {
  Mul,    // out = a * b         (a, b, out complex)
  Div,    // out = a / b         (a, b, out complex)
  Make,   // out = a + i b       (a, b real, out complex)
  Polar,  // out = a e^(i b)     (a, b real, out complex)
};

enum class ComplexUnaryOp : uint8_t {
  Exp,
  Log,
  Sqrt,
  Reciprocal,  // complex -> complex, principal branches (as std::complex, PyTorch)
  Abs,
  Angle,  // complex -> its real dtype: |z| (no overflow for large parts), arg z
};

}  // namespace ember
