// The CUDA copy kernel's float16 and bfloat16 conversions (cuda/shared/half_bits.h) against
// ember::Half and ember::BFloat16: every 16-bit pattern to float, and floats of every magnitude
// (subnormal, halfway between two values, overflowing) to 16 bits, rounding to nearest even.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

#include "ember/core/dtype.h"
#include "ember/cuda/shared/half_bits.h"

using namespace ember;

TEST(HalfBitsTest, EverySixteenBitPatternConvertsToTheSameFloat) {
  for (uint32_t b = 0; b < 65536; ++b) {
    Half h;
    h.bits = static_cast<uint16_t>(b);
    BFloat16 bf;
    bf.bits = static_cast<uint16_t>(b);
    const float want_h = static_cast<float>(h), want_b = static_cast<float>(bf);
    const float got_h = cuda::half_bits_to_float(static_cast<uint16_t>(b));
    const float got_b = cuda::bfloat16_bits_to_float(static_cast<uint16_t>(b));
    if (std::isnan(want_h))
      ASSERT_TRUE(std::isnan(got_h)) << b;
    else
      ASSERT_EQ(std::bit_cast<uint32_t>(got_h), std::bit_cast<uint32_t>(want_h)) << b;
    if (std::isnan(want_b))
      ASSERT_TRUE(std::isnan(got_b)) << b;
    else
      ASSERT_EQ(std::bit_cast<uint32_t>(got_b), std::bit_cast<uint32_t>(want_b)) << b;
  }
}

TEST(HalfBitsTest, FloatsRoundToTheSameSixteenBitsAsHalfAndBFloat16) {
  std::mt19937 rng(5);
  std::vector<float> xs = {0.0f, -0.0f, 1.0f, 65504.0f, 65519.99f, 65520.0f, 1e-8f, 5.96e-8f, 2.98e-8f, 2.99e-8f,
                           6.1e-5f, -3.0e38f, 3.4e38f, std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::denorm_min()};
  for (int i = 0; i < 400000; ++i) xs.push_back(std::bit_cast<float>(static_cast<uint32_t>(rng())));
  // Exactly halfway between two float16 values: ties go to the even one.
  for (uint32_t b = 0; b < 0x7c00; b += 97)
    xs.push_back(std::bit_cast<float>(std::bit_cast<uint32_t>(cuda::half_bits_to_float(static_cast<uint16_t>(b))) + 0x1000u));
  for (float x : xs) {
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(cuda::half_bits_to_float(cuda::float_to_half_bits(x))));
      EXPECT_TRUE(std::isnan(cuda::bfloat16_bits_to_float(cuda::float_to_bfloat16_bits(x))));
      continue;
    }
    ASSERT_EQ(cuda::float_to_half_bits(x), Half(x).bits) << x;
    ASSERT_EQ(cuda::float_to_bfloat16_bits(x), BFloat16(x).bits) << x;
  }
}
