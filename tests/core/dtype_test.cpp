#include <gtest/gtest.h>

#include "ember/ember.h"

using namespace ember;

TEST(DTypeTest, NamesRoundTrip) {
  for (int i = 0; i < kNumDTypes; ++i) {
    auto t = static_cast<DType>(i);
    EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
  }
  EXPECT_EQ(dtype_from_name("BF16"), kBFloat16);
  EXPECT_EQ(dtype_from_name("nope"), std::nullopt);
}

TEST(DTypeTest, PromotionFollowsPyTorch) {
  EXPECT_EQ(promote_types(kInt64, kFloat32), kFloat32);
  EXPECT_EQ(promote_types(kFloat32, kFloat64), kFloat64);
  EXPECT_EQ(promote_types(kInt32, kInt64), kInt64);
  EXPECT_EQ(promote_types(kBool, kUInt8), kUInt8);
  EXPECT_EQ(promote_types(kFloat16, kBFloat16), kFloat32);
  EXPECT_EQ(promote_types(kUInt8, kFloat16), kFloat16);
}

TEST(DTypeTest, HalfAndBFloat16ConvertThroughTo) {
  Tensor f = tensor<float>({1.5f, -2.25f, 65504.f, 1e-3f});
  Tensor h = f.to(kFloat16);
  EXPECT_EQ(h.dtype(), kFloat16);
  EXPECT_EQ(h.itemsize(), 2u);
  std::vector<float> back = h.to(kFloat32).to_vector<float>();
  EXPECT_EQ(back[0], 1.5f);
  EXPECT_EQ(back[1], -2.25f);
  EXPECT_EQ(back[2], 65504.f);
  EXPECT_NEAR(back[3], 1e-3f, 1e-6f);
  Tensor bf = f.to(kBFloat16);
  std::vector<float> bback = bf.to(kFloat32).to_vector<float>();
  EXPECT_EQ(bback[0], 1.5f);
  EXPECT_NEAR(bback[3], 1e-3f, 1e-5f);
  // bfloat16 keeps float32's range
  EXPECT_EQ(tensor<float>({1e30f}).to(kBFloat16).to(kFloat32).item<float>() > 9e29f, true);
}

TEST(DTypeTest, ArithmeticOnHalfIsATypeErrorNamingTheDtype) {
  Tensor h = ones({2}).to(kFloat16);
  try {
    (void)(h + h);
    FAIL();
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("float16"), std::string::npos) << e.what();
  }
}

TEST(DTypeTest, ConversionsBetweenIntegersFloatsAndBool) {
  Tensor f = tensor<float>({-1.7f, 0.0f, 2.9f});
  EXPECT_EQ(f.to(kInt64).to_vector<int64_t>(), (std::vector<int64_t>{-1, 0, 2}));
  EXPECT_EQ(f.to(kBool).to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(tensor<int64_t>({3, 0}).to(kFloat64).to_vector<double>(), (std::vector<double>{3, 0}));
}
