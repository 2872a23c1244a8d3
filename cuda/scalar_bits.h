#pragma once
// A Scalar as the bits of one element of a dtype, converted as the CPU's fill and masked_fill
// convert it (core/cpu/copy_kernel.cpp): bool is value != 0, floating values convert from double,
// integral ones from int64. The CUDA fill kernels then store bits, and need no dtype of their own.
// A Scalar is real, so a complex element's imaginary part is 0: for complex128 (16 bytes) the bits
// are its real part's, and the kernels store zeros in the upper 8 bytes (put_bits).
#include <cstdint>
#include <cstring>

#include "ember/core/dtype.h"
#include "ember/core/scalar.h"

namespace ember::cuda {

inline uint64_t scalar_bits(const Scalar& value, DType dtype) {
  return visit_dtype(dtype, [&]<typename T>(type_tag<T>) {
    T v;
    if constexpr (std::is_same_v<T, bool>)
      v = value.to<double>() != 0;
    else
      v = value.is_floating() ? convert<T>(value.to<double>()) : convert<T>(value.to<int64_t>());
    uint64_t bits = 0;
    // NB: std::complex<double> holds its real part first; its imaginary part is 0.
    std::memcpy(&bits, &v, sizeof(T) < sizeof(bits) ? sizeof(T) : sizeof(bits));
    return bits;
  });
}

}  // namespace ember::cuda
