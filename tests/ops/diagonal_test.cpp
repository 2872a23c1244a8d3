// diagonal, diag_embed and diag (ops/diagonal.h), masked_select and argwhere
// (ops/advanced_index.h): known values, views, gradients by finite differences, errors. NumPy
// comparisons over random shapes and layouts: tests/python/property/test_diagonal_property.py.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;

namespace {

Tensor draw(IntArrayRef shape, uint64_t seed) {
  Generator g(seed);
  return randn(shape, kFloat64, &g).set_requires_grad();
}

}  // namespace

TEST(DiagonalTest, DiagonalIsAViewOfTheOffsetEntries) {
  Tensor m = arange(12).reshape({3, 4});
  EXPECT_EQ(diagonal(m).to_vector<int64_t>(), (std::vector<int64_t>{0, 5, 10}));
  EXPECT_EQ(diagonal(m, 1).to_vector<int64_t>(), (std::vector<int64_t>{1, 6, 11}));
  EXPECT_EQ(diagonal(m, -1).to_vector<int64_t>(), (std::vector<int64_t>{4, 9}));
  EXPECT_EQ(diagonal(m, 4).numel(), 0);
  EXPECT_EQ(diagonal(m, -7).numel(), 0);
  Tensor d = diagonal(m, 1);
  EXPECT_TRUE(d.storage().get() == m.storage().get());
  Tensor cube = arange(24).reshape({2, 3, 4});
  Tensor c = diagonal(cube, 0, 2, 0);  // dims 2 and 0 removed, the diagonal last: [3, 2]
  EXPECT_EQ(c.sizes(), IntArrayRef({3, 2}));
  EXPECT_EQ(c.to_vector<int64_t>(), (std::vector<int64_t>{0, 13, 4, 17, 8, 21}));
}

TEST(DiagonalTest, DiagEmbedAndDiag) {
  Tensor v = tensor({1.0, 2.0});
  EXPECT_EQ(diag(v).to_vector<double>(), (std::vector<double>{1, 0, 0, 2}));
  EXPECT_EQ(diag(v, 1).sizes(), IntArrayRef({3, 3}));
  EXPECT_EQ(diag(v, 1).to_vector<double>(), (std::vector<double>{0, 1, 0, 0, 0, 2, 0, 0, 0}));
  EXPECT_EQ(diag(v, -1).to_vector<double>(), (std::vector<double>{0, 0, 0, 1, 0, 0, 0, 2, 0}));
  Tensor m = arange(6).reshape({2, 3});
  EXPECT_EQ(diag(m, 1).to_vector<int64_t>(), (std::vector<int64_t>{1, 5}));
  EXPECT_FALSE(diag(m).storage().get() == m.storage().get());  // a copy, as PyTorch's
  Tensor e = diag_embed(arange(6).reshape({2, 3}), 1, 0, 2);
  EXPECT_EQ(e.sizes(), IntArrayRef({4, 2, 4}));
  EXPECT_EQ(e.select(1, 1).to_vector<int64_t>(), (std::vector<int64_t>{0, 3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 5, 0, 0, 0, 0}));
}

TEST(DiagonalTest, GradientsAreEachOthers) {
  Tensor m = draw({3, 4}, 1), cube = draw({2, 3, 3}, 2), v = draw({3}, 3);
  gradcheck([](const TensorList& in) { return diagonal(in[0], 1); }, {m});
  gradcheck([](const TensorList& in) { return diagonal(in[0].t(), -1) * 2.0; }, {m});
  gradcheck([](const TensorList& in) { return diagonal(in[0], 0, -1, 0); }, {cube});
  gradcheck([](const TensorList& in) { return diag_embed(in[0], -2, 1, 0); }, {cube});
  gradcheck([](const TensorList& in) { return diag(in[0], 2); }, {v});
  gradcheck([](const TensorList& in) { return diag(in[0], -1); }, {m});
  gradgradcheck([](const TensorList& in) { return diagonal(in[0], 1) * diagonal(in[0], 1); }, {m});
  gradgradcheck([](const TensorList& in) { return diag_embed(in[0] * in[0]); }, {v});
}

TEST(DiagonalTest, MaskedSelectAndArgwhere) {
  Tensor x = arange(6).reshape({2, 3});
  Tensor mask = tensor(std::vector<bool>{true, false, true}, {3}, TensorOptions(kBool));
  EXPECT_EQ(masked_select(x, mask).to_vector<int64_t>(), (std::vector<int64_t>{0, 2, 3, 5}));
  Tensor column = tensor(std::vector<bool>{false, true}, {2, 1}, TensorOptions(kBool));
  EXPECT_EQ(masked_select(arange(3), column).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(masked_select(scalar_tensor(4.0), scalar_tensor(true, kBool)).sizes(), IntArrayRef({1}));
  EXPECT_EQ(argwhere(tensor(std::vector<double>{0.0, 3.0, 0.0, 1.0}, {2, 2})).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(argwhere(scalar_tensor(2.0)).sizes(), IntArrayRef({1, 0}));
  Tensor w = draw({2, 3}, 4);
  gradcheck([&](const TensorList& in) { return masked_select(in[0], mask); }, {w});
  gradcheck([&](const TensorList& in) { return masked_select(in[0].t(), column.t()); }, {w});
}

TEST(DiagonalTest, ErrorsNameTheDims) {
  expect_error<ValueError>([] { diagonal(zeros({2, 2}), 0, 1, -1); }, {"diagonal: dim1 and dim2 must be different dims, got 1 and -1"});
  expect_error<IndexError>([] { diagonal(zeros({2})); }, {"diagonal: dimension 1 out of range"});
  expect_error<ValueError>([] { diag(zeros({2, 2, 2})); }, {"diag: expected a 1-D or 2-D tensor, got shape [2, 2, 2]"});
  expect_error<IndexError>([] { diag_embed(scalar_tensor(1.0)); }, {"diag_embed: dimension -2 out of range"});
  expect_error<ValueError>([] { diag_embed(zeros({2}), 0, 0, -2); }, {"diag_embed: dim1 and dim2 must be different"});
  expect_error<TypeError>([] { masked_select(zeros({2}), ones({2})); }, {"masked_select: expected a bool mask, got float32"});
  expect_error<ValueError>([] { masked_select(zeros({3}), ones({2}, kBool)); }, {"masked_select", "[3]", "[2]"});
}
