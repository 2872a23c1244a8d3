// tril, triu, flip, roll, repeat, repeat_interleave, outer, addmm, baddbmm, one_hot, any and all
// (ops/rearrange.h): known values, gradients by finite differences (including non-contiguous
// inputs), and the errors that name the problem. NumPy comparisons over random shapes, dtypes and
// layouts: tests/python/property/test_rearrange_property.py.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::TensorList;
using ember::testing::expect_error;

namespace {

Tensor draw(IntArrayRef shape, uint64_t seed) {
  Generator g(seed);
  return randn(shape, kFloat64, &g).set_requires_grad();
}

}  // namespace

TEST(RearrangeTest, TrianglesFlipRollRepeatKnownValues) {
  Tensor t = arange(6).reshape({2, 3});
  EXPECT_EQ(tril(t).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0, 3, 4, 0}));
  EXPECT_EQ(triu(t, 1).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 0, 0, 5}));
  EXPECT_EQ(tril(t, -1).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0, 3, 0, 0}));
  EXPECT_EQ(flip(t, {1}).to_vector<int64_t>(), (std::vector<int64_t>{2, 1, 0, 5, 4, 3}));
  EXPECT_EQ(roll(t, {1}, {1}).to_vector<int64_t>(), (std::vector<int64_t>{2, 0, 1, 5, 3, 4}));
  EXPECT_EQ(roll(t, {-7}).to_vector<int64_t>(), (std::vector<int64_t>{1, 2, 3, 4, 5, 0}));
  EXPECT_EQ(repeat(arange(2), {2, 2}).sizes(), IntArrayRef({2, 4}));
  EXPECT_EQ(repeat(arange(2), {2, 2}).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(repeat_interleave(t, 2, 1).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}));
  EXPECT_EQ(repeat_interleave(t, 0).numel(), 0);
  EXPECT_EQ(outer(arange(2), arange(3)).to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 0, 0, 1, 2}));
}

TEST(RearrangeTest, AddmmBaddbmmOneHotAnyAll) {
  Tensor s = tensor({1.0, 2.0}), a = ones({2, 3}), b = ones({3, 2});
  EXPECT_EQ(addmm(s, a, b, 0.5, 2).to_vector<double>(), (std::vector<double>{6.5, 7, 6.5, 7}));
  Tensor nan_self = full({2, 2}, std::nan(""));
  EXPECT_EQ(addmm(nan_self, a, b, 0).to_vector<double>(), std::vector<double>(4, 3.0));  // beta 0 ignores self
  EXPECT_EQ(baddbmm(zeros({1}), ones({2, 1, 3}), ones({2, 3, 1})).to_vector<double>(), (std::vector<double>{3, 3}));
  EXPECT_EQ(one_hot(tensor(std::vector<int64_t>{1, 0})).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 0}));
  EXPECT_EQ(one_hot(tensor(std::vector<int64_t>{1}), 3).sizes(), IntArrayRef({1, 3}));
  EXPECT_TRUE(any(tensor({0.0, std::nan("")})).item<bool>());
  EXPECT_FALSE(all(tensor({1.0, 0.0})).item<bool>());
  EXPECT_TRUE(all(zeros({0})).item<bool>());
  EXPECT_FALSE(any(zeros({0})).item<bool>());
  EXPECT_EQ(any(tensor(std::vector<int64_t>{0, 1, 0, 0}, {2, 2}), 1, true).to_vector<bool>(),
            (std::vector<bool>{true, false}));
}

TEST(RearrangeTest, GradientsMatchFiniteDifferences) {
  Tensor m = draw({3, 4}, 1), v = draw({3}, 2), w = draw({4}, 3);
  Tensor strided = draw({4, 3}, 4);  // used transposed: non-contiguous
  gradcheck([](const TensorList& in) { return tril(in[0], 1) + triu(in[0].t().t(), -1); }, {m});
  gradcheck([](const TensorList& in) { return flip(in[0].t(), {0, 1}); }, {strided});
  gradcheck([](const TensorList& in) { return roll(in[0], {2, -1}, {0, 1}); }, {m});
  gradcheck([](const TensorList& in) { return repeat(in[0], {2, 1, 3}); }, {m});
  gradcheck([](const TensorList& in) { return repeat_interleave(in[0].t(), 3, 0); }, {strided});
  gradcheck([](const TensorList& in) { return outer(in[0], in[1]); }, {v, w});
  gradcheck([](const TensorList& in) { return addmm(in[0], in[1], in[2], 0.5, -2); }, {w, draw({3, 2}, 5), draw({2, 4}, 6)});
  gradcheck([](const TensorList& in) { return baddbmm(in[0], in[1], in[2], 2, 0.5); },
            {draw({2, 1}, 7), draw({3, 2, 4}, 8), draw({3, 4, 1}, 9)});
}

TEST(RearrangeTest, ErrorsNameTheProblem) {
  expect_error<ValueError>([] { tril(zeros({3})); }, {"tril: expected a tensor of at least 2 dims, got shape [3]"});
  expect_error<ValueError>([] { flip(zeros({2, 2}), {0, -2}); }, {"flip: dim -2 appears more than once"});
  expect_error<ValueError>([] { roll(zeros({2, 2}), {1, 2}, {0}); }, {"roll: got 2 shifts for 1 dims"});
  expect_error<ValueError>([] { repeat(zeros({2, 2}), {2}); }, {"repeat: 1 repeats for a tensor of 2 dims"});
  expect_error<ValueError>([] { outer(zeros({2, 2}), zeros({2})); }, {"outer: expected two 1-D tensors"});
  expect_error<IndexError>([] { one_hot(tensor(std::vector<int64_t>{-1}), 2); }, {"one_hot: class values must be in [0, 2), got -1"});
  expect_error<TypeError>([] { one_hot(zeros({2})); }, {"one_hot: expected an int64 tensor"});
}
