// Which devices multiply 16-bit floats natively (cuda/shared/tensor_math.h); the others must take
// the widened float32 kernels, so a bfloat16 GEMM never asks cuBLAS for what a Turing card lacks.
#include <gtest/gtest.h>

#include "ember/cuda/shared/tensor_math.h"

using ember::cuda::native_16bit_math;

TEST(TensorMathTest, Float16FromVoltaAndBfloat16FromAmpere) {
  EXPECT_FALSE(native_16bit_math(61, false));  // Pascal
  EXPECT_TRUE(native_16bit_math(70, false));   // Volta
  EXPECT_FALSE(native_16bit_math(75, true));   // Turing has no bfloat16 tensor cores
  EXPECT_TRUE(native_16bit_math(75, false));
  EXPECT_TRUE(native_16bit_math(80, true));    // A100
  EXPECT_TRUE(native_16bit_math(90, true));    // H100, H200
  EXPECT_TRUE(native_16bit_math(120, false));
}
