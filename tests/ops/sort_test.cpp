// argsort, sort, topk, kthvalue and cumsum (ops/sort.h): known values with NaN and ties, every dim,
// gradients by finite differences, errors. NumPy comparisons over random shapes, dtypes and
// layouts: tests/python/property/test_sort_property.py.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::TensorList;
using ember::testing::expect_error;

TEST(SortTest, NanSortsLastAndTiesKeepTheirOrder) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = tensor({3.0, nan, 1.0, 3.0, -2.0});
  EXPECT_EQ(argsort(x).to_vector<int64_t>(), (std::vector<int64_t>{4, 2, 0, 3, 1}));
  EXPECT_EQ(argsort(x, 0, true).to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 3, 2, 4}));
  auto [values, indices] = sort(tensor(std::vector<int64_t>{5, 1, 5, 0}, {2, 2}), 0);
  EXPECT_EQ(values.to_vector<int64_t>(), (std::vector<int64_t>{5, 0, 5, 1}));
  EXPECT_EQ(indices.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 1, 0}));
  auto [top, where] = topk(tensor({1.0, 4.0, 2.0, 8.0}), 2);
  EXPECT_EQ(top.to_vector<double>(), (std::vector<double>{8, 4}));
  EXPECT_EQ(where.to_vector<int64_t>(), (std::vector<int64_t>{3, 1}));
  auto [low, low_at] = topk(tensor({1.0, 4.0, 2.0, 8.0}), 3, -1, false);
  EXPECT_EQ(low.to_vector<double>(), (std::vector<double>{1, 2, 4}));
  auto [kth, kth_at] = kthvalue(tensor({7.0, 3.0, 5.0}), 2);
  EXPECT_EQ(kth.item(), 5.0);
  EXPECT_EQ(kth_at.item<int64_t>(), 2);
  EXPECT_EQ(cumsum(tensor(std::vector<int64_t>{1, 2, 3, 4}, {2, 2}), 1).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 3, 3, 7}));
  EXPECT_EQ(cumsum(tensor(std::vector<int32_t>{1, 2}), 0).dtype(), kInt64);
  EXPECT_EQ(cumsum(tensor(std::vector<uint8_t>{200, 100}), 0).to_vector<int64_t>(), (std::vector<int64_t>{200, 300}));
}

TEST(SortTest, GradientsFlowBackToWhereEachValueCameFrom) {
  Generator g(3);
  Tensor x = (rand({3, 4}, kFloat64, &g) + arange(12, TensorOptions(kFloat64)).reshape({3, 4})).set_requires_grad();
  gradcheck([](const TensorList& in) { return std::get<0>(sort(in[0].t(), 0, true)); }, {x});
  gradcheck([](const TensorList& in) { return std::get<0>(topk(in[0], 2, 1)); }, {x});
  gradcheck([](const TensorList& in) { return std::get<0>(kthvalue(in[0], 2, 0, true)); }, {x});
  gradcheck([](const TensorList& in) { return cumsum(in[0].t(), 1); }, {x});
  gradcheck([](const TensorList& in) { return cumsum(in[0], 0, kFloat64); }, {x});
}

TEST(SortTest, ErrorsNameKAndTheSize) {
  expect_error<IndexError>([] { topk(zeros({3}), 4); }, {"topk: k = 4 is out of range for a dim of size 3"});
  expect_error<IndexError>([] { kthvalue(zeros({2, 3}), 3, 0); }, {"kthvalue: k = 3 is out of range for a dim of size 2"});
  expect_error<TypeError>([] { argsort(zeros({3}, kInt16)); }, {"argsort", "int16"});
  expect_error<IndexError>([] { cumsum(zeros({3}), 1); }, {"cumsum"});
}
