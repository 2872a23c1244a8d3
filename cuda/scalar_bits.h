#pragma once
// A Scalar as the bits of one element of a dtype, converted as the CPU's fill and masked_fill
// convert it (core/cpu/copy_kernel.cpp): bool is value != 0, floating values convert from double,
// integral ones from int64. The CUDA fill kernels then store bits, and need no dtype of their own.
#include <cstdint>
#include <cstring>

#include "ember/core/dtype.h"
#include "ember/core/error.h"
#include "ember/core/scalar.h"

namespace ember::cuda {

inline uint64_t scalar_bits(const Scalar& value, DType dtype) {
  return visit_dtype(dtype, [&]<typename T>(type_tag<T>) -> uint64_t {
    if constexpr (sizeof(T) > sizeof(uint64_t)) {  // complex128: a storage type, never filled here
      EMBER_CHECK_AS(NotImplementedError, false, "fill on CUDA: ", dtype_name(dtype),
                     " elements are wider than the 8-byte fill kernels take");
      return 0;
    } else {
      T v;
      if constexpr (std::is_same_v<T, bool>)
        v = value.to<double>() != 0;
      else
        v = value.is_floating() ? convert<T>(value.to<double>()) : convert<T>(value.to<int64_t>());
      uint64_t bits = 0;
      std::memcpy(&bits, &v, sizeof(T));
      return bits;
    }
  });
}

}  // namespace ember::cuda
