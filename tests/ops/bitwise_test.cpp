// The bitwise ops against an oracle of plain C++ on int64 (PyTorch's shift rules: a count outside
// [0, width) shifts every bit out), their dtype promotion, bool as the logical ops, broadcast and
// strided operands, and errors that name the op and the dtypes.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_error;
using ember::testing::expect_values;

namespace {

template <typename T>
T oracle(const std::string& op, T x, T y) {
  constexpr int64_t bits = sizeof(T) * 8;
  const bool out = static_cast<int64_t>(y) < 0 || static_cast<int64_t>(y) >= bits;
  if (op == "and") return static_cast<T>(x & y);
  if (op == "or") return static_cast<T>(x | y);
  if (op == "xor") return static_cast<T>(x ^ y);
  if (op == "lshift") return out ? T(0) : static_cast<T>(static_cast<std::make_unsigned_t<T>>(x) << y);
  return out ? static_cast<T>(x < 0 ? -1 : 0) : static_cast<T>(x >> y);
}

Tensor apply(const std::string& op, const Tensor& a, const Tensor& b) {
  if (op == "and") return a & b;
  if (op == "or") return a | b;
  if (op == "xor") return a ^ b;
  if (op == "lshift") return a << b;
  return a >> b;
}

template <typename T>
void check_dtype(DType dtype) {
  std::vector<int64_t> values = {0, 1, 2, 3, 5, 7, 8, 31, 32, 33, 63, 64, 100, 127, 255};
  if constexpr (std::is_signed_v<T>)
    for (int64_t v : {int64_t{-1}, int64_t{-2}, int64_t{-8}, int64_t{-100}, static_cast<int64_t>(std::numeric_limits<T>::lowest())})
      values.push_back(v);
  std::vector<int64_t> xs, ys;
  for (int64_t x : values)
    for (int64_t y : values) {
      xs.push_back(static_cast<T>(x));
      ys.push_back(static_cast<T>(y));
    }
  const Tensor a = tensor(xs).to(dtype), b = tensor(ys).to(dtype);
  for (const std::string op : {"and", "or", "xor", "lshift", "rshift"}) {
    const Tensor r = apply(op, a, b);
    ASSERT_EQ(r.dtype(), dtype);
    std::vector<double> want;
    for (size_t i = 0; i < xs.size(); ++i)
      want.push_back(static_cast<double>(oracle<T>(op, static_cast<T>(xs[i]), static_cast<T>(ys[i]))));
    expect_values(r, want);
  }
  std::vector<double> inverted;
  for (int64_t x : xs) inverted.push_back(static_cast<double>(static_cast<T>(~static_cast<T>(x))));
  expect_values(~a, inverted);
}

}  // namespace

TEST(BitwiseTest, EveryOpMatchesPlainCppInEveryIntegerDtype) {
  check_dtype<uint8_t>(kUInt8);
  check_dtype<int32_t>(kInt32);
  check_dtype<int64_t>(kInt64);
}

TEST(BitwiseTest, BoolIsTheLogicalOps) {
  const Tensor p = tensor(std::vector<bool>{true, true, false, false}), q = tensor(std::vector<bool>{true, false, true, false});
  expect_values(p & q, {1, 0, 0, 0});
  expect_values(p | q, {1, 1, 1, 0});
  expect_values(p ^ q, {0, 1, 1, 0});
  expect_values(~p, {0, 0, 1, 1});
  for (const Tensor& r : {p & q, p | q, p ^ q, ~p}) EXPECT_EQ(r.dtype(), kBool);
}

TEST(BitwiseTest, DtypesPromoteAsArithmeticDoes) {
  const Tensor i32 = tensor(std::vector<int64_t>{6}).to(kInt32), i64 = tensor(std::vector<int64_t>{3});
  const Tensor u8 = tensor(std::vector<int64_t>{12}).to(kUInt8), b = tensor(std::vector<bool>{true});
  EXPECT_EQ((i32 & i64).dtype(), kInt64);
  EXPECT_EQ((u8 | b).dtype(), kUInt8);
  EXPECT_EQ((i32 ^ 1).dtype(), kInt32);                // a number keeps the tensor's dtype
  EXPECT_EQ((b & 3).dtype(), kInt64);                  // ... unless of a higher category
  EXPECT_EQ((i32 << 2).item<int32_t>(), 24);
  EXPECT_EQ(bitwise_right_shift(u8, 2).item<uint8_t>(), 3);
}

TEST(BitwiseTest, BroadcastAndStridedOperands) {
  const Tensor a = arange(0, 24, 1, kInt64).reshape({4, 6});
  const Tensor b = tensor(std::vector<int64_t>{1, 2, 4});
  const Tensor strided = a.slice(1, 0, 6, 2);  // [4, 3], stride 2
  const Tensor r = strided & b;
  std::vector<double> want;
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) want.push_back(static_cast<double>((i * 6 + 2 * j) & (int64_t{1} << j)));
  expect_values(r, want);
  expect_values(a.t() >> 1, (a.t().contiguous() >> 1).to_vector<double>());
  EXPECT_EQ((empty({0, 3}, kInt32) | empty({3}, kInt32)).sizes(), IntArrayRef({0, 3}));
}

TEST(BitwiseTest, FloatsAndBoolShiftsAreRefusedByName) {
  const Tensor f = tensor({1.0}), i = tensor(std::vector<int64_t>{1}), b = tensor(std::vector<bool>{true});
  expect_error<TypeError>([&] { (void)(f & i); }, {"bitwise_and", "integer and bool", "float64", "int64"});
  expect_error<TypeError>([&] { (void)(i | 1.5); }, {"bitwise_or", "int64", "float"});
  expect_error<TypeError>([&] { (void)(~f); }, {"bitwise_not", "float64"});
  expect_error<TypeError>([&] { (void)(b << b); }, {"bitwise_left_shift", "integer", "bool"});
}
