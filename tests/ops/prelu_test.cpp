// prelu: values, the weight broadcast along the channel dim, gradients (also at 0, where PyTorch
// takes the weight's side) and the errors.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_close;
using ember::testing::expect_error;
using ember::testing::expect_values;

namespace {
Tensor draw(IntArrayRef shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, kFloat64, &gen);
}
}  // namespace

TEST(PReLUTest, ValuesPerChannelAndShared) {
  Tensor x = tensor(std::vector<double>{-2, -1, 0, 1, 2, -3}, {1, 2, 3});
  expect_values(prelu(x, tensor(std::vector<double>{0.25})), {-0.5, -0.25, 0, 1, 2, -0.75});
  ember::testing::expect_values_near(prelu(x, tensor(std::vector<double>{0.5, 0.1})), {-1, -0.5, 0, 1, 2, -0.3}, 1e-15,
                                     1e-15);
  expect_values(prelu(tensor(std::vector<double>{-4, 4}), tensor(std::vector<double>{0.5})), {-2, 4});  // 1-D input
  expect_values(prelu(tensor(std::vector<double>{-4, 4}).reshape({2}).select(0, 0), full({}, 0.5, kFloat64)), {-2});
  Tensor big = draw({2, 3, 4, 5}, 1), w = draw({3}, 2);
  expect_close(prelu(big, w), where(gt(big, Scalar(0)), big, big * w.reshape({1, 3, 1, 1})), 0, 0, "per channel");
}

TEST(PReLUTest, GradientsMatchFiniteDifferences) {
  auto fn = [](const TensorList& in) { return prelu(in[0], in[1]); };
  gradcheck(fn, {draw({2, 3, 4}, 10).set_requires_grad(), draw({3}, 11).set_requires_grad()});
  gradcheck(fn, {draw({4, 3}, 12).t().set_requires_grad(), draw({1}, 13).set_requires_grad()});
  gradgradcheck(fn, {draw({2, 2, 2}, 14).set_requires_grad(), draw({2}, 15).set_requires_grad()});
  // at 0 the input's gradient is the weight (PyTorch's x > 0 ? g : w g)
  Tensor x = zeros({1, 2}, kFloat64).set_requires_grad(), w = tensor(std::vector<double>{0.3, 0.7}).set_requires_grad();
  prelu(x, w).sum().backward();
  expect_values(x.grad(), {0.3, 0.7});
  expect_values(w.grad(), {0, 0});
}

TEST(PReLUTest, Errors) {
  expect_error([] { prelu(ones({2, 3}), ones({2})); },
               {"prelu: weight [2] must have one element or one per channel (3, dim 1) of input [2, 3]"});
  expect_error([] { prelu(ones({3}), ones({3})); }, {"prelu: weight [3] must have one element or one per channel (1"});
  expect_error<TypeError>([] { prelu(ones({2, 3}), ones({3}, kFloat64)); }, {"prelu: weight has dtype float64"});
  expect_error<TypeError>([] { prelu(ones({2, 3}, kInt64), ones({3}, kInt64)); }, {"prelu", "int64"});
}
