// EmbeddingBag against bags reduced by hand (sum, mean, max; offsets with and without the last one;
// per-sample weights; padding_idx; empty bags), the weight's gradient, and the refusals.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember::testing::expect_close;
using ember::testing::expect_error;

namespace {

// The bag reductions by hand: rows of w at idx[start..end) without `skip`.
Tensor by_hand(const Tensor& w, const std::vector<int64_t>& idx, const std::vector<int64_t>& starts,
               const std::string& mode, int64_t skip = -1, const std::vector<double>& scale = {}) {
  std::vector<Tensor> out;
  for (size_t b = 0; b < starts.size(); ++b) {
    const size_t end = b + 1 < starts.size() ? static_cast<size_t>(starts[b + 1]) : idx.size();
    Tensor acc = zeros({w.size(1)}, kFloat64);
    Tensor best;
    int count = 0;
    for (size_t i = static_cast<size_t>(starts[b]); i < end; ++i) {
      if (idx[i] == skip) continue;
      Tensor row = w.select(0, idx[i]) * (scale.empty() ? 1.0 : scale[i]);
      acc = acc + row;
      best = best.defined() ? maximum(best, row) : row;
      ++count;
    }
    if (mode == "max")
      out.push_back(best.defined() ? best : acc);
    else
      out.push_back(mode == "mean" && count ? acc / static_cast<double>(count) : acc);
  }
  return stack(out, 0);
}

}  // namespace

TEST(EmbeddingBagTest, ReducesEachBagAsByHand) {
  manual_seed(2);
  Tensor w = randn({6, 3}, kFloat64);
  const std::vector<int64_t> idx{1, 2, 4, 5, 4, 3, 2, 0};
  const std::vector<int64_t> starts{0, 2, 2, 5};  // the third bag is empty
  Tensor input = tensor(idx), offsets = tensor(starts);
  for (std::string mode : {"sum", "mean", "max"}) {
    SCOPED_TRACE(mode);
    expect_close(F::embedding_bag(input, w, offsets, mode), by_hand(w, idx, starts, mode), 1e-14, 1e-14);
    expect_close(F::embedding_bag(input, w, offsets, mode, Tensor(), false, 4), by_hand(w, idx, starts, mode, 4), 1e-14,
                 1e-14);
  }
  // include_last_offset: the last offset ends the last bag.
  expect_close(F::embedding_bag(input, w, tensor(std::vector<int64_t>{0, 3, 8}), "sum", Tensor(), true),
               by_hand(w, idx, {0, 3}, "sum"), 1e-14, 1e-14);
  const std::vector<double> scale{0.5, 2, 1, -1, 3, 0.25, 1, 2};
  expect_close(F::embedding_bag(input, w, offsets, "sum", tensor(scale)), by_hand(w, idx, starts, "sum", -1, scale),
               1e-14, 1e-14);
  // A 2-D input is one bag per row.
  Tensor rows = tensor(std::vector<int64_t>{1, 2, 3, 4, 4, 0}, {2, 3});
  expect_close(F::embedding_bag(rows, w), by_hand(w, {1, 2, 3, 4, 4, 0}, {0, 3}, "mean"), 1e-14, 1e-14);
}

TEST(EmbeddingBagTest, TheWeightGetsItsGradient) {
  manual_seed(3);
  Tensor w = randn({5, 2}, kFloat64).set_requires_grad();
  Tensor input = tensor(std::vector<int64_t>{0, 1, 1, 3, 4, 2}), offsets = tensor(std::vector<int64_t>{0, 2, 4});
  for (std::string mode : {"sum", "mean", "max"})
    EXPECT_NO_THROW(autograd::gradcheck(
        [&](const autograd::TensorList& t) { return F::embedding_bag(input, t[0], offsets, mode, Tensor(), false, 2); },
        {w}))
        << mode;
}

TEST(EmbeddingBagTest, ModuleKeepsItsOptionsAndRefusesBadInput) {
  manual_seed(4);
  nn::EmbeddingBag bag({10, 4, "max", false, 0});
  expect_close(select(bag.weight(), 0, 0), zeros({4}), 0, 0);
  EXPECT_EQ(bag.extra_repr(), "10, 4, mode='max', padding_idx=0");
  Tensor rows = tensor(std::vector<int64_t>{3, 0, 7, 7}, {2, 2});
  expect_close(bag.forward(rows), F::embedding_bag(rows, bag.weight(), Tensor(), "max", Tensor(), false, 0), 0, 0);
  expect_error<ValueError>([] { nn::EmbeddingBag({3, 2, "median"}); }, {"sum, mean or max", "median"});
  expect_error<NotImplementedError>(
      [&] {
        F::embedding_bag(tensor(std::vector<int64_t>{0}), bag.weight(), tensor(std::vector<int64_t>{0}), "mean",
                         ones({1}));
      },
      {"per_sample_weights", "mode='sum'"});
  expect_error<ValueError>(
      [&] {
        F::embedding_bag(tensor(std::vector<int64_t>{0, 1}), bag.weight());
      },
      {"offsets", "None"});
}
