#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/ops/join.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;
using ember::testing::expect_values;

namespace {

Tensor range(int64_t n, IntArrayRef shape, DType dtype = kFloat32) {
  return arange(n, TensorOptions(dtype)).reshape(shape);
}

Tensor draw(IntArrayRef shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, kFloat64, &gen).set_requires_grad();
}

void expect_equal(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  EXPECT_EQ(a.dtype(), b.dtype());
  EXPECT_EQ(a.to_vector<double>(), b.to_vector<double>());
}

}  // namespace

// ---- cat

TEST(CatTest, JoinsAlongAnyDim) {
  Tensor a = range(6, {2, 3}), b = range(4, {2, 2});
  Tensor c = cat({a, b}, 1);
  EXPECT_EQ(c.sizes(), IntArrayRef({2, 5}));
  expect_values(c, {0, 1, 2, 0, 1, 3, 4, 5, 2, 3});
  expect_values(cat({a, b}, -1), c.to_vector<double>());
  Tensor rows = cat({a, range(3, {1, 3}), a});
  EXPECT_EQ(rows.sizes(), IntArrayRef({5, 3}));
  expect_values(rows, {0, 1, 2, 3, 4, 5, 0, 1, 2, 0, 1, 2, 3, 4, 5});
  Tensor single = cat({a}, 0);
  expect_equal(single, a);
  EXPECT_FALSE(single.is_same(a));
}

TEST(CatTest, PromotesDtypesAcrossInputs) {
  Tensor i = range(2, {2}, kInt64), f = range(2, {2}, kFloat32), i32 = range(2, {2}, kInt32);
  EXPECT_EQ(cat({i, f}).dtype(), kFloat32);
  EXPECT_EQ(cat({i32, i}).dtype(), kInt64);
  EXPECT_EQ(cat({f, range(2, {2}, kFloat64)}).dtype(), kFloat64);
  Tensor flags = tensor(std::vector<bool>{true, false});
  Tensor mixed = cat({flags, i32});
  EXPECT_EQ(mixed.dtype(), kInt32);
  EXPECT_EQ(mixed.to_vector<int32_t>(), (std::vector<int32_t>{1, 0, 0, 1}));
}

TEST(CatTest, SkipsLegacyEmptyVectors) {
  Tensor a = range(6, {2, 3});
  Tensor c = cat({zeros({0}), a, zeros({0}, kFloat64)}, 1);
  EXPECT_EQ(c.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(c.dtype(), kFloat64);  // the skipped tensors still take part in promotion
  expect_values(c, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(cat({zeros({0}), zeros({0})}).sizes(), IntArrayRef({0}));
  EXPECT_EQ(cat({zeros({0, 3}), a}).sizes(), IntArrayRef({2, 3}));  // [0, 3] is not skipped
}

TEST(CatTest, NonContiguousAndConvertedInputs) {
  Tensor a = range(6, {3, 2}).t();  // [2, 3], strides [1, 2]: [[0, 2, 4], [1, 3, 5]]
  Tensor b = range(4, {2, 2}, kInt64);
  Tensor c = cat({a, b, a.slice(1, 0, 3, 2)}, 1);
  EXPECT_EQ(c.sizes(), IntArrayRef({2, 7}));
  expect_values(c, {0, 2, 4, 0, 1, 0, 4, 1, 3, 5, 2, 3, 1, 5});
}

TEST(CatTest, LargeInputsMatchReference) {
  Tensor a = randn({300, 200}), b = randn({300, 57});
  Tensor c = cat({a, b}, 1);
  std::vector<float> av = a.to_vector<float>(), bv = b.to_vector<float>(), cv = c.to_vector<float>();
  for (size_t r = 0; r < 300; ++r) {
    for (size_t j = 0; j < 200; ++j) ASSERT_EQ(cv[r * 257 + j], av[r * 200 + j]);
    for (size_t j = 0; j < 57; ++j) ASSERT_EQ(cv[r * 257 + 200 + j], bv[r * 57 + j]);
  }
}

TEST(CatTest, ErrorsNameTensorIndexAndShapes) {
  Tensor a = zeros({2, 3});
  try {
    cat({a, a, zeros({3, 3})}, 1);
    FAIL() << "expected a ValueError";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "cat: tensor 2 has shape [3, 3] but tensor 0 has shape [2, 3]; sizes "
                           "must match except in dimension 1");
  }
  expect_error([&] { cat({a, zeros({2, 3, 1})}); }, {"cat: tensor 1 has shape [2, 3, 1] but tensor 0 has shape [2, 3]"});
  expect_error([] { cat({}); }, {"cat: expected a non-empty list of tensors"});
  expect_error([&] { cat({a, scalar_tensor(1.0)}); },
               {"cat: zero-dimensional tensor (at position 1) cannot be concatenated"});
  expect_error([&] { cat({a}, 2); }, {"cat", "dimension 2"});
}

TEST(CatTest, GradientsAreSlicesInEachInputsDtype) {
  Tensor a = ones({2, 2}).set_requires_grad();
  Tensor b = ones({2, 1}, kFloat64).set_requires_grad();
  Tensor w = tensor<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  (cat({a, b}, 1) * w).sum().backward();
  EXPECT_EQ(a.grad().dtype(), kFloat32);
  expect_values(a.grad(), {1, 2, 4, 5});
  EXPECT_EQ(b.grad().dtype(), kFloat64);
  expect_values(b.grad(), {3, 6});
}

TEST(CatTest, Gradcheck) {
  auto three = [](const TensorList& in) { return cat({in[0], in[1], in[2]}, 1); };
  gradcheck(three, {draw({2, 1}, 1), draw({2, 3}, 2), draw({2, 2}, 3)});
  gradcheck([](const TensorList& in) { return cat({in[0].t(), in[1]}, 0); },
            {draw({3, 2}, 1), draw({1, 3}, 2)});
  gradcheck([](const TensorList& in) { return cat({in[0], in[1]}, -1); }, {draw({0}, 1), draw({3}, 2)});
  gradgradcheck([](const TensorList& in) {
    Tensor y = cat({in[0], in[1]}, 0);
    return y * y;
  }, {draw({1, 2}, 1), draw({2, 2}, 2)});
}

// ---- stack

TEST(StackTest, JoinsAlongANewDim) {
  Tensor a = range(6, {2, 3}), b = range(6, {2, 3}) + 10;
  Tensor s0 = stack({a, b});
  EXPECT_EQ(s0.sizes(), IntArrayRef({2, 2, 3}));
  expect_values(s0, {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15});
  Tensor s1 = stack({a, b}, 1);
  EXPECT_EQ(s1.sizes(), IntArrayRef({2, 2, 3}));
  expect_values(s1, {0, 1, 2, 10, 11, 12, 3, 4, 5, 13, 14, 15});
  Tensor last = stack({a, b}, -1);
  EXPECT_EQ(last.sizes(), IntArrayRef({2, 3, 2}));
  expect_values(last, {0, 10, 1, 11, 2, 12, 3, 13, 4, 14, 5, 15});
  Tensor scalars = stack({scalar_tensor(1.0), scalar_tensor(2, kInt64)});
  EXPECT_EQ(scalars.sizes(), IntArrayRef({2}));
  EXPECT_EQ(scalars.dtype(), kFloat32);
}

TEST(StackTest, ErrorsNameTensorIndexAndShapes) {
  expect_error([] { stack({zeros({2, 3}), zeros({3, 2})}); },
               {"stack: tensor 1 has shape [3, 2] but tensor 0 has shape [2, 3]; all tensors must "
                "have the same shape"});
  expect_error([] { stack({}); }, {"stack: expected a non-empty list of tensors"});
  expect_error([] { stack({zeros({2})}, 2); }, {"stack", "dimension 2"});
}

TEST(StackTest, Gradcheck) {
  gradcheck([](const TensorList& in) { return stack({in[0], in[1].t()}, 1); },
            {draw({2, 3}, 1), draw({3, 2}, 2)});
  gradcheck([](const TensorList& in) { return stack({in[0], in[1]}); }, {draw({}, 1), draw({}, 2)});
}

// ---- split and chunk

TEST(SplitTest, PiecesAreViewsWithASmallerLastPiece) {
  Tensor x = range(10, {5, 2});
  std::vector<Tensor> parts = split(x, 2);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(parts[2].sizes(), IntArrayRef({1, 2}));
  expect_values(parts[1], {4, 5, 6, 7});
  expect_values(parts[2], {8, 9});
  parts[1].fill_(-1.0);  // views: writes reach x
  expect_values(x, {0, 1, 2, 3, -1, -1, -1, -1, 8, 9});
  std::vector<Tensor> cols = x.split(1, -1);
  ASSERT_EQ(cols.size(), 2u);
  expect_values(cols[1], {1, 3, -1, -1, 9});
  EXPECT_EQ(split(x, 7).size(), 1u);
  EXPECT_EQ(split(zeros({0, 2}), 0).size(), 1u);
}

TEST(SplitTest, WithSizes) {
  Tensor x = range(12, {2, 6});
  std::vector<Tensor> parts = split(x, {1, 0, 3, 2}, 1);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[1].sizes(), IntArrayRef({2, 0}));
  expect_values(parts[2], {1, 2, 3, 7, 8, 9});
  expect_values(split_with_sizes(x, {2}, 0)[0], x.to_vector<double>());
  expect_error([&] { split_with_sizes(x, {2, 2}, 1); },
               {"split_with_sizes: split sizes [2, 2] add up to 4 but dimension 1 of the input [2, 6] has size 6"});
  expect_error([&] { split_with_sizes(x, {7, -1}, 1); },
               {"split_with_sizes: split sizes must be non-negative, got [7, -1]"});
}

TEST(SplitTest, Errors) {
  expect_error([] { split(scalar_tensor(1.0), 1); }, {"split: expects at least a 1-dimensional tensor"});
  expect_error([] { split(zeros({3}), -1); }, {"split: split_size must be non-negative, got -1"});
  expect_error([] { split(zeros({3}), 0); },
               {"split: split_size can only be 0 if dimension 0 has size 0, but it has size 3"});
}

TEST(ChunkTest, FollowsPyTorchSizing) {
  auto sizes = [](const std::vector<Tensor>& parts, int64_t dim) {
    std::vector<int64_t> out;
    for (const Tensor& p : parts) out.push_back(p.size(dim));
    return out;
  };
  Tensor five = zeros({5});
  EXPECT_EQ(sizes(chunk(five, 4), 0), (std::vector<int64_t>{2, 2, 1}));
  EXPECT_EQ(sizes(chunk(zeros({6}), 4), 0), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(sizes(chunk(five, 2), 0), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(sizes(chunk(five, 9), 0), (std::vector<int64_t>{1, 1, 1, 1, 1}));
  EXPECT_EQ(sizes(zeros({2, 0}).chunk(3, 1), 1), (std::vector<int64_t>{0, 0, 0}));
  EXPECT_EQ(sizes(range(12, {3, 4}).chunk(2, -1), 1), (std::vector<int64_t>{2, 2}));
  expect_error([&] { chunk(five, 0); }, {"chunk: chunks must be positive, got 0"});
  expect_error([] { chunk(scalar_tensor(1.0), 2); }, {"chunk: expects at least a 1-dimensional tensor"});
}

TEST(JoinTest, RoundTrips) {
  Tensor x = randn({4, 6, 5});
  expect_equal(cat(split(x, 4, 1), 1), x);
  expect_equal(cat(split(x, {1, 3}, 0), 0), x);
  expect_equal(cat(chunk(x.transpose(0, 2), 3, -1), -1), x.transpose(0, 2).contiguous());
  std::vector<Tensor> slices;
  for (int64_t i = 0; i < 6; ++i) slices.push_back(x.select(1, i));
  expect_equal(stack(slices, 1), x);
}

TEST(SplitTest, GradientOfUnusedPiecesIsZero) {
  Tensor x = ones({5}).set_requires_grad();
  std::vector<Tensor> parts = split(x, 2);
  (parts[1] * 3.0).sum().backward();
  expect_values(x.grad(), {0, 0, 3, 3, 0});
}

TEST(SplitTest, Gradcheck) {
  gradcheck([](const TensorList& in) {
    std::vector<Tensor> p = split(in[0], 2, 1);
    return p[0] * p[1] + p[2].sum();
  }, {draw({2, 5}, 1)});
  gradcheck([](const TensorList& in) {
    std::vector<Tensor> p = split(in[0].t(), {2, 1}, 0);
    return p[1] * 2.0;
  }, {draw({2, 3}, 2)});
  gradcheck([](const TensorList& in) {
    std::vector<Tensor> p = chunk(in[0], 3, -1);
    return cat({p[2], p[0]}, -1);
  }, {draw({2, 7}, 3)});
  gradgradcheck([](const TensorList& in) {
    std::vector<Tensor> p = chunk(in[0], 2, 0);
    return p[0] * p[1];
  }, {draw({4, 2}, 4)});
}

// ---- many inputs: past every inline capacity (regression: a container that lost its elements
// when it grew gave uninitialised memory for more than 8 inputs, and "CatBackward returned 2
// gradients for 8 inputs" in backward)

TEST(CatTest, ManyInputsKeepEveryValueAndGradient) {
  for (int64_t n : {1, 5, 6, 7, 8, 9, 16, 40}) {
    std::vector<Tensor> parts;
    for (int64_t i = 0; i < n; ++i) parts.push_back(full({2, 1 + i % 3}, static_cast<double>(i), kFloat64).set_requires_grad());
    Tensor joined = cat(parts, 1);
    std::vector<double> row;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < 1 + i % 3; ++k) row.push_back(static_cast<double>(i));
    std::vector<double> expected = row;
    expected.insert(expected.end(), row.begin(), row.end());
    expect_values(joined, expected);
    // d sum(w * cat) / d part_i = the slice of w it filled
    Tensor w = arange(joined.numel(), kFloat64).reshape(joined.sizes());
    (joined * w).sum().backward();
    int64_t offset = 0;
    for (int64_t i = 0; i < n; ++i) {
      ASSERT_TRUE(parts[i].grad().defined()) << "input " << i << " of " << n;
      expect_values(parts[i].grad(), narrow(w, 1, offset, parts[i].size(1)).to_vector<double>());
      offset += parts[i].size(1);
    }
  }
}

TEST(StackTest, ManyInputsKeepEveryValueAndGradient) {
  for (int64_t n : {1, 7, 8, 9, 16, 40}) {
    std::vector<Tensor> rows;
    for (int64_t i = 0; i < n; ++i) rows.push_back(full({3}, static_cast<double>(i), kFloat64).set_requires_grad());
    Tensor batch = stack(rows, 0);
    EXPECT_EQ(batch.sizes(), IntArrayRef({n, 3}));
    for (int64_t i = 0; i < n; ++i) expect_values(batch.select(0, i), {double(i), double(i), double(i)});
    Tensor w = arange(3 * n, kFloat64).reshape({n, 3});
    (batch * w).sum().backward();
    for (int64_t i = 0; i < n; ++i) expect_values(rows[i].grad(), w.select(0, i).to_vector<double>());
  }
}
