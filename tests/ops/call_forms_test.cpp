// PyTorch's call forms that were Python wrappers and are now op-table overloads with C++ bodies
// (div's rounding modes, round's decimals, any/all over several dims, norm's "fro" and "nuc",
// repeat_interleave with a tensor of counts, tensor_split, broadcast_tensors, meshgrid) and the
// factories logspace and randint_like, through the C++ API: values against PyTorch's (printed by
// torch 2.15), gradients against finite differences, and the errors that name the argument.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/tensors.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using ember::testing::expect_error;
using ember::testing::expect_values;
using ember::testing::seeded_randn;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor f64(std::initializer_list<double> v) { return tensor(std::vector<double>(v)); }
Tensor f32(std::initializer_list<float> v) { return tensor(std::vector<float>(v)); }
Tensor i64(std::initializer_list<int64_t> v) { return tensor(std::vector<int64_t>(v)); }

std::vector<int64_t> sizes_along(const std::vector<Tensor>& parts, int64_t dim) {
  std::vector<int64_t> out;
  for (const Tensor& p : parts) out.push_back(p.size(dim));
  return out;
}

}  // namespace

TEST(CallFormsTest, DivRoundsTowardZeroOrDownAndKeepsIntegersIntegers) {
  const Tensor a = i64({7, -7, 7, -7, 0, 5}), b = i64({2, 2, -2, -2, 3, 5});
  const Tensor trunc = div(a, b, "trunc"), floor = div(a, b, "floor");
  EXPECT_EQ(trunc.dtype(), kInt64);
  EXPECT_EQ(trunc.to_vector<int64_t>(), (std::vector<int64_t>{3, -3, -3, 3, 0, 1}));
  EXPECT_EQ(floor.to_vector<int64_t>(), (std::vector<int64_t>{3, -4, -4, 3, 0, 1}));
  EXPECT_EQ(div(a, Scalar(-2), "trunc").to_vector<int64_t>(), (std::vector<int64_t>{-3, 3, -3, 3, 0, -2}));
  EXPECT_EQ(div(a, b, std::nullopt).dtype(), kFloat32);  // no mode: true division
  // floats: the sign of a zero quotient stays, infinities pass through
  const Tensor t = div(f64({1, -1, 7.5, -kInf}), Scalar(2), "trunc");
  expect_values(t, {0, -0.0, 3, -kInf});
  EXPECT_TRUE(std::signbit(t.to_vector<double>()[1]));
  expect_error<ValueError>([&] { div(a, b, "round"); },
                           {"rounding_mode", "one of None, 'trunc', or 'floor'", "'round'"});
}

TEST(CallFormsTest, DivWithARoundingModeHasAZeroGradient) {
  const Tensor x = seeded_randn({4}, 1).to(kFloat64).requires_grad_(), y = f64({0.5, 2, -3, 4}).requires_grad_();
  for (const char* mode : {"trunc", "floor"}) {
    const Tensor q = div(x, y, mode);
    ASSERT_TRUE(q.requires_grad()) << mode;
    const auto grads = autograd::grad({q.sum()}, {x, y});
    expect_values(grads[0], {0, 0, 0, 0});
    expect_values(grads[1], {0, 0, 0, 0});
  }
}

TEST(CallFormsTest, RoundWithDecimalsRoundsInTheInputsDtype) {
  expect_values(round(f64({1.2345, -2.5551, 1234.5}), 2), {1.23, -2.56, 1234.5});
  expect_values(round(f64({1234.5, 1250, -1351}), -2), {1200, 1200, -1400});  // halves to even
  // float32, as PyTorch: 0.05f * 10 is 0.5, which rounds to the even 0
  EXPECT_EQ(round(f32({0.05f}), 1).to_vector<float>()[0], 0.0f);
  // float16's largest value stays finite: the product is taken in float32, as PyTorch's
  const Tensor big = full({2}, 65504.0, kFloat16);
  EXPECT_EQ(round(big, 1).to(kFloat64).to_vector<double>(), (std::vector<double>{65504, 65504}));
  EXPECT_EQ(round(big, -1).to(kFloat64).to_vector<double>(), (std::vector<double>{65504, 65504}));
  EXPECT_EQ(round(i64({15}), 0).to_vector<int64_t>(), (std::vector<int64_t>{15}));
  expect_error<NotImplementedError>([] { round(i64({15}), -1); }, {"round_cpu", "'Long'"});
}

TEST(CallFormsTest, AnyAndAllOverSeveralDims) {
  const Tensor x = i64({0, 1, 0, 0, 0, 0}).reshape({2, 3});
  EXPECT_TRUE(any(x, IntArrayRef{0, 1}).item<bool>());
  EXPECT_FALSE(all(x + 1 - 1, IntArrayRef{0, 1}).item<bool>());
  EXPECT_EQ(any(x, std::optional<IntArrayRef>(), true).sizes(), IntArrayRef({1, 1}));
  EXPECT_EQ(any(x, IntArrayRef{1, 0}, true).sizes(), IntArrayRef({1, 1}));
  // an empty list reduces nothing (PyTorch's any.dims): each entry's truth
  const Tensor each = any(x, IntArrayRef{});
  EXPECT_EQ(each.dtype(), kBool);
  EXPECT_EQ(each.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(all(ones({2, 3}), IntArrayRef{-1}).to_vector<bool>(), (std::vector<bool>{true, true}));
  expect_error<Error>([&] { any(x, IntArrayRef{0, 0}); }, {"dim 0 appears twice in [0, 0]"});
}

TEST(CallFormsTest, NormFrobeniusAndNuclear) {
  const Tensor a = f64({3, 0, 4, 0, 0, 0}).reshape({2, 3});
  expect_values(norm(a, "fro"), {5});
  expect_values(norm(a, "fro", {1}), {5, 0});
  expect_values(norm(a, "fro", {0}, true), {3, 0, 4});
  const Tensor m = seeded_randn({3, 2, 2}, 7).to(kFloat64);
  expect_values(norm(m, "nuc"), linalg_matrix_norm(m, "nuc").to_vector<double>());
  EXPECT_EQ(norm(f32({3, 4}), 2.0, {}, false, kFloat64).dtype(), kFloat64);
  EXPECT_EQ(norm(f32({3, 4}), "fro", {}, false, kFloat64).dtype(), kFloat64);
  expect_error<Error>([&] { norm(a, "foo"); }, {"Order foo not supported"});
  expect_error<Error>([&] { norm(ones({2, 2, 2}), "fro", {0, 1, 2}); }, {"dim must be a 2-tuple", "[0, 1, 2]"});
  const Tensor x = seeded_randn({2, 3}, 2).to(kFloat64).requires_grad_();
  gradcheck([](const autograd::TensorList& in) { return norm(in[0], "fro"); }, {x});
}

TEST(CallFormsTest, RepeatInterleaveWithATensorOfCounts) {
  EXPECT_EQ(repeat_interleave(i64({1, 2})).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1}));
  // NB: (counts, output_size) needs the optional spelled out: (t, 3) is t with every entry repeated 3 times
  EXPECT_EQ(repeat_interleave(i64({0, 3}), std::optional<int64_t>(3)).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 1, 1}));
  const Tensor x = f64({1, 2, 3, 4}).reshape({2, 2});
  expect_values(repeat_interleave(x, i64({1, 2}), 0), {1, 2, 3, 4, 3, 4});
  expect_values(repeat_interleave(x, i64({2, 0}), 1), {1, 1, 3, 3});
  expect_values(repeat_interleave(x, i64({2})), {1, 1, 2, 2, 3, 3, 4, 4});  // one count for all
  expect_error<Error>(
      [] {
        repeat_interleave(i64({1, 2}), std::optional<int64_t>(4));
      },
      {"allocated size does not match required size"});
  expect_error<Error>([] { repeat_interleave(i64({1, -1})); }, {"repeats can not be negative"});
  expect_error<Error>([] { repeat_interleave(scalar_tensor(2, kInt64)); }, {"only accept 1D vector as repeat"});
  expect_error<TypeError>([&] { repeat_interleave(x, f64({1, 2}), 0); }, {"Long or Int"});
  expect_error<Error>([&] { repeat_interleave(x, i64({1, 2, 3}), 0); }, {"repeats.size(0) = 3", "input.size(0) = 2"});
  expect_error<Error>(
      [] {
        repeat_interleave(i64({1, 2}), 2, std::nullopt, 5);
      },
      {"Invalid output_size, expected 4 but got 5"});
  // the gradient sums each entry's copies
  const Tensor w = seeded_randn({3, 2}, 3).to(kFloat64).requires_grad_();
  gradcheck([](const autograd::TensorList& in) { return repeat_interleave(in[0], i64({2, 0, 1}), 0); }, {w});
}

TEST(CallFormsTest, TensorSplitBySectionsAndIndices) {
  const Tensor a = arange(7);
  EXPECT_EQ(sizes_along(tensor_split(a, 3), 0), (std::vector<int64_t>{3, 2, 2}));
  EXPECT_EQ(sizes_along(tensor_split(a, 9), 0), (std::vector<int64_t>{1, 1, 1, 1, 1, 1, 1, 0, 0}));
  // PyTorch's slices: a negative index counts from the end, each is clamped, an end before its start is empty
  EXPECT_EQ(sizes_along(tensor_split(a, IntArrayRef{-2}), 0), (std::vector<int64_t>{5, 2}));
  EXPECT_EQ(sizes_along(tensor_split(a, IntArrayRef{5, 2}), 0), (std::vector<int64_t>{5, 0, 5}));
  EXPECT_EQ(sizes_along(tensor_split(a, IntArrayRef{9, 3}), 0), (std::vector<int64_t>{7, 0, 4}));
  EXPECT_EQ(sizes_along(tensor_split(a, IntArrayRef{-9, 3}), 0), (std::vector<int64_t>{0, 3, 4}));
  EXPECT_EQ(tensor_split(a, IntArrayRef{5, 2})[2].to_vector<int64_t>(), (std::vector<int64_t>{2, 3, 4, 5, 6}));
  EXPECT_EQ(sizes_along(tensor_split(a, scalar_tensor(3, kInt64)), 0), (std::vector<int64_t>{3, 2, 2}));
  EXPECT_EQ(sizes_along(tensor_split(a, i64({1, 5})), 0), (std::vector<int64_t>{1, 4, 2}));
  const Tensor m = zeros({2, 5});
  const auto parts = tensor_split(m, 2, -1);
  EXPECT_EQ(sizes_along(parts, 1), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(parts[1].storage(), m.storage());  // views
  expect_error<Error>([] { tensor_split(scalar_tensor(1.0), 2); }, {"at least a 1-dimensional tensor"});
  expect_error<Error>([&] { tensor_split(a, 0); }, {"number of sections must be larger than 0, got 0"});
  expect_error<TypeError>([&] { tensor_split(a, f32({1})); }, {"ScalarType Long", "Float"});
}

TEST(CallFormsTest, BroadcastTensorsAndMeshgrid) {
  const auto b = broadcast_tensors({zeros({3, 1}), ones({4}), scalar_tensor(2.0)});
  for (const Tensor& t : b) EXPECT_EQ(t.sizes(), IntArrayRef({3, 4}));
  expect_error<Error>([] { broadcast_tensors({zeros({3}), zeros({4})}); }, {"broadcast_tensors", "[3]", "[4]"});
  const Tensor x = arange(2), y = arange(3) * 10;
  const auto ij = meshgrid({x, y});
  EXPECT_EQ(ij[0].sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(ij[1].to_vector<int64_t>(), (std::vector<int64_t>{0, 10, 20, 0, 10, 20}));
  const auto xy = meshgrid({x, y}, "xy");  // NumPy's default: the first two dims swapped
  EXPECT_EQ(xy[0].sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(xy[0].to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(meshgrid({scalar_tensor(1, kInt64), x}, "xy")[0].sizes(), IntArrayRef({2, 1}));
  expect_error<Error>([&] { meshgrid({x, y}, "yx"); }, {"indexing must be one of \"xy\" or \"ij\"", "yx"});
  expect_error<Error>([] { meshgrid({zeros({2, 2})}); }, {"Expected 0D or 1D tensor", "[2, 2]", "position 0"});
}

TEST(CallFormsTest, LogspaceAndRandintLike) {
  expect_values(logspace(0, 2, 3), {1, 10, 100});
  expect_values(logspace(0, 2, 3, 2.0), {1, 2, 4});
  expect_values(logspace(2, 3, 1), {100});
  EXPECT_EQ(logspace(0, 1, 0).numel(), 0);
  // the last value is exactly base^end, the first base^start
  const std::vector<double> v = logspace(-3, 5, 17, 10.0, kFloat64).to_vector<double>();
  EXPECT_EQ(v.front(), 1e-3);
  EXPECT_EQ(v.back(), 1e5);
  EXPECT_EQ(logspace(0, 3, 4, 2.0, kInt64).to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 4, 8}));
  expect_error<ValueError>([] { logspace(0, 1, -1); }, {"logspace", "non-negative", "-1"});
  const Tensor like = randint_like(zeros({50}, kFloat64), 3, 6);
  EXPECT_EQ(like.dtype(), kFloat64);
  EXPECT_EQ(like.sizes(), IntArrayRef({50}));
  for (double d : like.to_vector<double>()) EXPECT_TRUE(d == 3 || d == 4 || d == 5) << d;
}
