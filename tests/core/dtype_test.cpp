#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

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

// int8 and int16 are storage types as float16 is: they load, save, convert and move (views, cat,
// indexing), and arithmetic and comparisons ask for a conversion first.
TEST(DTypeTest, Int8AndInt16ConvertAndMove) {
  EXPECT_EQ(itemsize(kInt8), 1u);
  EXPECT_EQ(itemsize(kInt16), 2u);
  EXPECT_EQ(dtype_from_name("I8"), kInt8);
  EXPECT_EQ(dtype_from_name("int16"), kInt16);
  EXPECT_EQ(promote_types(kUInt8, kInt8), kInt16);  // neither holds the other's range
  EXPECT_EQ(promote_types(kInt8, kUInt8), kInt16);
  EXPECT_EQ(promote_types(kInt8, kInt16), kInt16);
  EXPECT_EQ(promote_types(kInt16, kFloat16), kFloat16);

  Tensor i8 = tensor<int8_t>({-128, 127, -1, 0});
  EXPECT_EQ(i8.dtype(), kInt8);
  EXPECT_EQ(i8.to(kInt64).to_vector<int64_t>(), (std::vector<int64_t>{-128, 127, -1, 0}));
  EXPECT_EQ(i8.to(kFloat32).to_vector<float>(), (std::vector<float>{-128, 127, -1, 0}));
  EXPECT_EQ(tensor<int64_t>({300, -32769}).to(kInt16).to_vector<int16_t>(), (std::vector<int16_t>{300, 32767}))
      << "int64 -> int16 wraps modulo 2^16, as PyTorch's conversion does";
  Tensor i16 = tensor<int16_t>({1, -2, 3, -4, 5, -6}).reshape({2, 3});
  EXPECT_EQ(i16.t().contiguous().to_vector<int16_t>(), (std::vector<int16_t>{1, -4, -2, 5, 3, -6}));
  EXPECT_EQ(cat({i16, i16}, 0).sizes(), (DimVector{4, 3}));
  EXPECT_EQ(index_select(i16, 1, tensor<int64_t>({2, 0})).to_vector<int16_t>(),
            (std::vector<int16_t>{3, 1, -6, -4}));
  EXPECT_EQ(gt(i8.to(kInt32), 0).to_vector<bool>(), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(full({2}, 7, kInt8).to_vector<int8_t>(), (std::vector<int8_t>{7, 7}));
  EXPECT_EQ(i8.select(0, 1).item<int64_t>(), 127);
  ember::testing::expect_error<TypeError>([&] { (void)(i8 + i8); },
                                          {"int8 is a storage type here; convert with to(int32)"});
  Tensor total = sum(i16);  // a sum of integers accumulates in int64, as in PyTorch
  EXPECT_EQ(total.dtype(), kInt64);
  EXPECT_EQ(total.item<int64_t>(), -3);
  ember::testing::expect_error<TypeError>([&] { (void)(i16 * 2); }, {"int16 is a storage type here"});
  ember::testing::expect_error<TypeError>([&] { (void)gt(i8, 0); }, {"gt: dtype int8 is a storage type here"});
}
