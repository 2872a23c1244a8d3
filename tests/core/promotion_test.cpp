// Type promotion against PyTorch's own table (tests/fixtures/promotion.json, written by
// make_promotion_fixture.py with torch): every dtype pair, each operand a dimensioned or a 0-d
// tensor, and every dtype with a Python bool, int and float.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "ember/ember.h"
#include "ember/core/promotion.h"

using namespace ember;

namespace {

nlohmann::json fixture() {
  std::ifstream in(std::string(EMBER_FIXTURES_DIR) + "/promotion.json");
  EXPECT_TRUE(in.good()) << "missing tests/fixtures/promotion.json";
  return nlohmann::json::parse(in);
}

// PyTorch's complex32 (float16 or bfloat16 with a complex 0-d tensor), which Ember has no dtype
// for: Ember gives complex64 (core/promotion.cpp).
bool is_complex32(const nlohmann::json& name) { return name == "complex32" || name == "bcomplex32"; }

DType dtype_of_name(const std::string& name) {
  auto t = dtype_from_name(name);
  EXPECT_TRUE(t.has_value()) << name;
  return t.value_or(kFloat32);
}

Tensor operand(const std::string& dtype, const std::string& rank) {
  return ones(rank == "d" ? DimVector{2} : DimVector{}, dtype_of_name(dtype));
}

Scalar number(const std::string& kind) {
  if (kind == "bool") return Scalar(true);
  if (kind == "int") return Scalar(2);
  return Scalar(2.5);
}

// Storage-only dtypes: result_type is checked for them, arithmetic is not.
bool computes(DType t) {
  return t != kFloat16 && t != kBFloat16 && t != kInt8 && t != kInt16 && !is_complex(t);
}

}  // namespace

TEST(PromotionTest, TensorPairsMatchPyTorch) {
  int checked = 0;
  const nlohmann::json table = fixture();
  for (const auto& row : table["pairs"]) {
    Tensor a = operand(row[0], row[1]), b = operand(row[2], row[3]);
    std::string what = row.dump();
    ++checked;
    if (is_complex32(row[4])) {
      EXPECT_EQ(result_type(a, b), kComplex64) << what;
      continue;
    }
    DType want = dtype_of_name(row[4]);
    EXPECT_EQ(result_type(a, b), want) << what;
    if (computes(a.dtype()) && computes(b.dtype()) && computes(want)) {
      EXPECT_EQ((a + b).dtype(), want) << what;
      EXPECT_EQ((a * b).dtype(), want) << what;
      EXPECT_EQ(maximum(a, b).dtype(), want) << what;
      EXPECT_EQ(where(ones({}, kBool), a, b).dtype(), want) << what;
    }
  }
  EXPECT_EQ(checked, 576);
}

TEST(PromotionTest, TrueDivisionMatchesPyTorch) {
  const nlohmann::json table = fixture();
  for (const auto& row : table["div"]) {
    Tensor a = operand(row[0], row[1]), b = operand(row[2], row[3]);
    if (is_complex32(row[4])) continue;
    DType want = dtype_of_name(row[4]);
    if (computes(a.dtype()) && computes(b.dtype()) && computes(want))
      EXPECT_EQ((a / b).dtype(), want) << row.dump();
  }
}

TEST(PromotionTest, PythonNumbersMatchPyTorch) {
  const nlohmann::json table = fixture();
  for (const auto& row : table["scalars"]) {
    Tensor t = operand(row[0], row[1]);
    Scalar s = number(row[2]);
    DType want = dtype_of_name(row[3]);
    EXPECT_EQ(result_type(t, s), want) << row.dump();
    if (computes(t.dtype()) && computes(want)) EXPECT_EQ((t + s).dtype(), want) << row.dump();
  }
}

// The case a user reported: a float32 batch times a float64 0-d tensor stayed float64.
TEST(PromotionTest, ZeroDimTensorDoesNotPromoteADimensionedOneOfItsCategory) {
  Tensor x = ones({3}, kFloat32), s = full({}, 0.5, kFloat64);
  EXPECT_EQ((x + s).dtype(), kFloat32);
  EXPECT_EQ((s * x).dtype(), kFloat32);
  EXPECT_EQ((ones({3}, kInt32) + s).dtype(), kFloat64);  // a higher category does promote
  EXPECT_EQ((s + full({}, 1.0, kFloat32)).dtype(), kFloat64);  // two 0-d tensors: promote_types
}
