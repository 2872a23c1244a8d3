// Losses against PyTorch (tests/fixtures/nn.json), plus their argument checks.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/fixture.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember::testing::expect_close;
using ember::testing::expect_error;

namespace {

const ember::testing::FixtureCase& fixture(const std::string& name) {
  static const auto all = ember::testing::load_fixture("nn.json");
  return all.at(name);
}

F::Reduction reduction_of(const std::string& name) {
  if (name == "sum") return F::Reduction::Sum;
  if (name == "none") return F::Reduction::None;
  return F::Reduction::Mean;
}

void check(const std::string& name, const std::function<Tensor(const Tensor&, const ember::testing::FixtureCase&)>& loss) {
  SCOPED_TRACE(name);
  const auto& c = fixture(name);
  Tensor x = c.tensor("input").clone().set_requires_grad();
  Tensor y = loss(x, c);
  expect_close(y, c.tensor("output"), 1e-5, 1e-6, "output");
  (y * c.tensor("grad_output")).sum().backward();
  expect_close(x.grad(), c.tensor("grad.input"), 1e-5, 1e-6, "grad.input");
}

}  // namespace

TEST(LossTest, CrossEntropyMatchesPyTorchForEveryReductionAndSmoothing) {
  for (std::string reduction : {"mean", "sum", "none"})
    for (std::string smoothing : {"0.0", "0.1"})
      check("cross_entropy_" + reduction + "_" + smoothing, [&](const Tensor& x, const auto& c) {
        return F::cross_entropy(x, c.tensor("target"), -100, reduction_of(reduction), std::stod(smoothing));
      });
}

TEST(LossTest, CrossEntropyOverSpatialDims) {
  check("cross_entropy_spatial", [](const Tensor& x, const auto& c) { return F::cross_entropy(x, c.tensor("target")); });
}

TEST(LossTest, NllLoss) {
  check("nll_loss_mean", [](const Tensor& x, const auto& c) { return F::nll_loss(x, c.tensor("target")); });
}

TEST(LossTest, RegressionLossesMatchPyTorch) {
  for (std::string reduction : {"mean", "sum", "none"}) {
    check("mse_loss_" + reduction, [&](const Tensor& x, const auto& c) {
      return F::mse_loss(x, c.tensor("target"), reduction_of(reduction));
    });
    check("l1_loss_" + reduction, [&](const Tensor& x, const auto& c) {
      return F::l1_loss(x, c.tensor("target"), reduction_of(reduction));
    });
    check("smooth_l1_loss_" + reduction, [&](const Tensor& x, const auto& c) {
      return F::smooth_l1_loss(x, c.tensor("target"), reduction_of(reduction), 0.5);
    });
  }
}

TEST(LossTest, BinaryCrossEntropyWithLogits) {
  check("bce_with_logits", [](const Tensor& x, const auto& c) {
    return F::binary_cross_entropy_with_logits(x, c.tensor("target"));
  });
  check("bce_with_logits_pos_weight", [](const Tensor& x, const auto& c) {
    return F::binary_cross_entropy_with_logits(x, c.tensor("target"), c.tensor("pos_weight"));
  });
}

TEST(LossTest, CrossEntropyChecksTargetShapeAndRange) {
  Tensor logits = zeros({3, 4});
  try {
    F::cross_entropy(logits, tensor<int64_t>({0, 1}));
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "cross_entropy: target of shape [2] does not match input of shape [3, 4] (expected [3])");
  }
  expect_error<IndexError>([&] { F::cross_entropy(logits, tensor<int64_t>({0, 1, 4})); },
                           {"cross_entropy: target 4 (element 2) is out of range for 4 classes; expected a class "
                            "in [0, 4) or ignore_index -100"});
  expect_error<TypeError>([&] { F::cross_entropy(logits, zeros({3})); },
                          {"cross_entropy: target must hold class indices (int64), got float32"});
  expect_error<ValueError>([] { F::mse_loss(zeros({2}), zeros({3})); },
                           {"mse_loss: shapes [2] and [3] cannot be broadcast together"});
}

// Regression: with every target ignored the mean's gradient was NaN everywhere (0 * 1/0); PyTorch
// gives a NaN loss and a zero gradient, and so must a batch made only of padding.
TEST(LossTest, MeanOverOnlyIgnoredTargetsIsNanWithZeroGradient) {
  for (double smoothing : {0.0, 0.1}) {
    Tensor logits = randn({3, 5}, kFloat64).set_requires_grad();
    Tensor target = full({3}, -100, kInt64);
    Tensor loss = F::cross_entropy(logits, target, -100, F::Reduction::Mean, smoothing);
    EXPECT_TRUE(std::isnan(loss.item())) << "smoothing " << smoothing;
    loss.backward();
    for (double g : logits.grad().to_vector<double>()) EXPECT_EQ(g, 0.0) << "smoothing " << smoothing;
  }
  Tensor log_probs = randn({2, 4}, kFloat64).set_requires_grad();
  Tensor nll = F::nll_loss(log_probs, tensor<int64_t>({7, 7}), 7);
  EXPECT_TRUE(std::isnan(nll.item()));
  nll.backward();
  for (double g : log_probs.grad().to_vector<double>()) EXPECT_EQ(g, 0.0);
  // one counted target: the mean is over it alone, as before
  Tensor x = randn({2, 4}, kFloat64).set_requires_grad();
  Tensor one = F::cross_entropy(x, tensor<int64_t>({1, -100}));
  EXPECT_NEAR(one.item(), F::cross_entropy(x.slice(0, 0, 1), tensor<int64_t>({1})).item(), 1e-12);
}

// Class weights with label smoothing and ignore_index, class-probability targets, unbatched inputs
// and BCE's weight, against PyTorch (tests/fixtures/functional.json, make_functional_fixtures.py),
// in float64 and float32, every reduction.
TEST(LossTest, WeightsSmoothingAndProbabilityTargetsMatchPyTorch) {
  static const auto cases = ember::testing::load_fixture("functional.json");
  int checked = 0;
  for (const auto& [name, c] : cases) {
    if (name.rfind("loss_", 0) != 0) continue;
    SCOPED_TRACE(name);
    const std::string loss = c.strings.at("loss");
    const F::Reduction reduction = reduction_of(c.strings.at("reduction"));
    const bool is_float64 = c.tensor("input").dtype() == kFloat64;
    const double rtol = is_float64 ? 1e-10 : 1e-5, atol = is_float64 ? 1e-12 : 1e-6;
    Tensor weight = c.tensors.count("weight") ? c.tensor("weight") : Tensor();
    Tensor x = c.tensor("input").clone().set_requires_grad();
    Tensor y;
    if (loss == "cross_entropy") {
      y = F::cross_entropy(x, c.tensor("target"), static_cast<int64_t>(c.scalar("ignore_index")), reduction,
                           c.scalar("label_smoothing"), weight);
    } else if (loss == "nll_loss") {
      y = F::nll_loss(x, c.tensor("target"), static_cast<int64_t>(c.scalar("ignore_index")), reduction, weight);
    } else {
      y = F::binary_cross_entropy_with_logits(x, c.tensor("target"), c.tensors.count("pos_weight") ? c.tensor("pos_weight") : Tensor(),
                                              reduction, weight);
    }
    expect_close(y, c.tensor("output"), rtol, atol, "output");
    (y * c.tensor("grad_output")).sum().backward();
    expect_close(x.grad(), c.tensor("grad.input"), rtol, atol, "grad.input");
    ++checked;
  }
  EXPECT_GT(checked, 70);
}

TEST(LossTest, ClassWeightsAndProbabilityTargetsCheckTheirShapes) {
  Tensor logits = zeros({4, 3});
  expect_error<ValueError>([&] { F::cross_entropy(logits, tensor<int64_t>({0, 1, 2, 0}), -100, F::Reduction::Mean, 0.0, ones({2})); },
                           {"cross_entropy: weight tensor should be defined either for all 3 classes or no classes but "
                            "got weight tensor of shape: [2]"});
  expect_error<ValueError>([&] { F::cross_entropy(logits, zeros({4, 3}), 1); },
                           {"cross_entropy: ignore_index is not supported for floating point target, got 1"});
  expect_error<TypeError>([&] { F::cross_entropy(logits, zeros({4, 3}, kInt64)); },
                          {"cross_entropy: Expected floating point type for target with class probabilities, got int64"});
  expect_error<ValueError>([&] { F::cross_entropy(zeros({3}), tensor<int64_t>({0, 1})); },
                           {"cross_entropy: target of shape [2] does not match input of shape [3] (expected a 0-d class index)"});
  expect_error<ValueError>([&] { F::cross_entropy(logits, tensor<int64_t>({0, 1, 2, 0}), -100, F::Reduction::Mean, 1.5); },
                           {"cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: 1.5"});
}

// cross_entropy over [N, C] logits runs one fused op (detail::log_softmax_nll: no [N, C]
// log-probabilities, a one-pass gradient); it must give what log_softmax then nll_loss give, in
// value and gradient, for every reduction, with class weights and ignored rows, at boundary values
// (inf, -inf, NaN logits, a huge row), and first and second derivatives by finite differences.
TEST(LossTest, FusedCrossEntropyRowsEqualLogSoftmaxThenNll) {
  const double inf = INFINITY, nan = NAN;
  Generator gen(7);
  Tensor weight = rand({6}, kFloat64, &gen) + 0.5;
  Tensor target = tensor<int64_t>({0, 5, -100, 3, 2, 1, 5});
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor base = randn({7, 6}, kFloat64, &gen) * 4.0;
    base.index_put_({tensor<int64_t>({1}), tensor<int64_t>({2})}, tensor<double>({-inf}));  // another class at -inf
    base.index_put_({tensor<int64_t>({3}), tensor<int64_t>({3})}, tensor<double>({-inf}));  // the target at -inf
    base.index_put_({tensor<int64_t>({4})}, tensor<double>({3e4}));                         // a huge, flat row
    base.index_put_({tensor<int64_t>({5}), tensor<int64_t>({0})}, tensor<double>({nan}));   // NaN in a counted row
    base.index_put_({tensor<int64_t>({2}), tensor<int64_t>({4})}, tensor<double>({nan}));   // NaN in the ignored row
    for (bool weighted : {false, true}) {
      for (F::Reduction reduction : {F::Reduction::None, F::Reduction::Sum, F::Reduction::Mean}) {
        SCOPED_TRACE(::testing::Message() << dtype << " weighted " << weighted << " reduction " << int(reduction));
        Tensor w = weighted ? weight.to(dtype) : Tensor();
        Tensor fused_x = base.to(dtype).set_requires_grad(), plain_x = base.to(dtype).set_requires_grad();
        Tensor fused = F::cross_entropy(fused_x, target, -100, reduction, 0.0, w);
        Tensor plain = F::nll_loss(log_softmax(plain_x, 1), target, -100, reduction, w);
        expect_close(fused, plain, 0, 0, "loss");  // the same operations in the same order: the same bits
        Tensor g = reduction == F::Reduction::None ? randn({7}, dtype, &gen) : ones({}, dtype);
        (fused * g).sum().backward();
        (plain * g).sum().backward();
        // NB: composite and fused differ in one rounding at most: exp(y) * g - g against -g - exp(y) * -g
        expect_close(fused_x.grad(), plain_x.grad(), dtype == kFloat32 ? 1e-6 : 1e-15, 0, "grad");
      }
    }
  }
  // finite logits: derivatives of both orders by central differences
  Tensor t = tensor<int64_t>({2, 0, 3, -100, 1});
  auto fn = [&](const autograd::TensorList& in) {
    return F::cross_entropy(in[0], t, -100, F::Reduction::None, 0.0, in[1]);
  };
  autograd::gradcheck(fn, {randn({5, 4}, kFloat64, &gen).set_requires_grad(), (rand({4}, kFloat64, &gen) + 0.5)});
  autograd::gradgradcheck(fn, {randn({5, 4}, kFloat64, &gen).set_requires_grad(), (rand({4}, kFloat64, &gen) + 0.5)});
  // the fused op is what runs: one node, not log_softmax's and a gather's
  Tensor rows = detail::log_softmax_nll(randn({3, 4}).set_requires_grad(), tensor<int64_t>({0, 1, 3}));
  ASSERT_TRUE(rows.grad_fn() != nullptr);
  EXPECT_STREQ(rows.grad_fn()->name(), "LogSoftmaxNllBackward");
  // no rows, and a row's loss on its own
  Tensor none = F::cross_entropy(empty({0, 4}).set_requires_grad(), empty({0}, kInt64), -100, F::Reduction::Sum);
  EXPECT_EQ(none.item(), 0.0);
  Tensor one = F::cross_entropy(tensor<float>({0.f, 1.f, 2.f}).reshape({1, 3}), tensor<int64_t>({2}));
  EXPECT_NEAR(one.item(), std::log(1 + std::exp(-1.0) + std::exp(-2.0)), 1e-7);
}
