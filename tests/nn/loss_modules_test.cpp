// Every loss (functional form and module) against PyTorch (tests/fixtures/loss.json: values and
// gradients for each reduction), second derivatives against finite differences, and the modules'
// options, weight buffers and refusals.
#include <gtest/gtest.h>

#include <functional>
#include <map>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/fixture.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember::testing::expect_close;
using ember::testing::expect_error;
using Inputs = std::map<std::string, Tensor>;
using LossFn = std::function<Tensor(const Inputs&, F::Reduction)>;

namespace {

const std::map<std::string, ember::testing::FixtureCase>& fixtures() {
  static const auto all = ember::testing::load_fixture("loss.json");
  return all;
}

// Each fixture family's call of Ember's functional form, with the options the fixture script used.
const std::map<std::string, LossFn>& families() {
  static const std::map<std::string, LossFn> all = {
      {"bce", [](const Inputs& in,
                 F::Reduction r) { return F::binary_cross_entropy(in.at("input"), in.at("target"), Tensor(), r); }},
      {"bce_weight",
       [](const Inputs& in, F::Reduction r) {
         return F::binary_cross_entropy(in.at("input"), in.at("target"), in.at("weight"), r);
       }},
      {"huber",
       [](const Inputs& in, F::Reduction r) { return F::huber_loss(in.at("input"), in.at("target"), r, 0.5); }},
      {"kl_div", [](const Inputs& in, F::Reduction r) { return F::kl_div(in.at("input"), in.at("target"), r); }},
      {"kl_div_log_target",
       [](const Inputs& in, F::Reduction r) { return F::kl_div(in.at("input"), in.at("target"), r, true); }},
      {"poisson_nll",
       [](const Inputs& in, F::Reduction r) {
         return F::poisson_nll_loss(in.at("input"), in.at("target"), true, false, 1e-8, r);
       }},
      {"poisson_nll_full",
       [](const Inputs& in, F::Reduction r) {
         return F::poisson_nll_loss(in.at("input"), in.at("target"), false, true, 1e-8, r);
       }},
      {"gaussian_nll",
       [](const Inputs& in, F::Reduction r) {
         return F::gaussian_nll_loss(in.at("input"), in.at("target"), in.at("var"), true, 1e-6, r);
       }},
      {"margin_ranking",
       [](const Inputs& in, F::Reduction r) {
         return F::margin_ranking_loss(in.at("input1"), in.at("input2"), in.at("target"), 0.2, r);
       }},
      {"hinge_embedding",
       [](const Inputs& in, F::Reduction r) {
         return F::hinge_embedding_loss(in.at("input"), in.at("target"), 0.7, r);
       }},
      {"soft_margin",
       [](const Inputs& in, F::Reduction r) { return F::soft_margin_loss(in.at("input"), in.at("target"), r); }},
      {"multilabel_soft_margin",
       [](const Inputs& in, F::Reduction r) {
         return F::multilabel_soft_margin_loss(in.at("input"), in.at("target"), in.at("weight"), r);
       }},
      {"cosine_embedding",
       [](const Inputs& in, F::Reduction r) {
         return F::cosine_embedding_loss(in.at("input1"), in.at("input2"), in.at("target"), 0.1, r);
       }},
      {"triplet",
       [](const Inputs& in, F::Reduction r) {
         return F::triplet_margin_loss(in.at("anchor"), in.at("positive"), in.at("negative"), 2.0, 2.0, 1e-6, true, r);
       }},
      {"triplet_p1",
       [](const Inputs& in, F::Reduction r) {
         return F::triplet_margin_loss(in.at("anchor"), in.at("positive"), in.at("negative"), 1.5, 1.0, 1e-6, false, r);
       }},
      {"multi_margin",
       [](const Inputs& in, F::Reduction r) {
         return F::multi_margin_loss(in.at("input"), in.at("target"), 1, 0.9, in.at("weight"), r);
       }},
      {"multi_margin_p2",
       [](const Inputs& in, F::Reduction r) {
         return F::multi_margin_loss(in.at("input"), in.at("target"), 2, 1.0, Tensor(), r);
       }},
      {"multilabel_margin",
       [](const Inputs& in, F::Reduction r) { return F::multilabel_margin_loss(in.at("input"), in.at("target"), r); }},
      {"ctc",
       [](const Inputs& in, F::Reduction r) {
         return F::ctc_loss(in.at("log_probs"), in.at("targets"), in.at("input_lengths"), in.at("target_lengths"), 0,
                            r);
       }},
      {"ctc_blank4_concatenated",
       [](const Inputs& in, F::Reduction r) {
         return F::ctc_loss(in.at("log_probs"), in.at("targets"), in.at("input_lengths"), in.at("target_lengths"), 4, r,
                            true);
       }},
  };
  return all;
}

}  // namespace

TEST(LossModulesTest, EveryFixtureCaseMatchesPyTorchInValueAndGradient) {
  int checked = 0;
  for (const auto& [name, c] : fixtures()) {
    SCOPED_TRACE(name);
    const size_t cut = name.rfind('_');
    const std::string family = name.substr(0, cut), reduction = name.substr(cut + 1);
    ASSERT_TRUE(families().contains(family)) << "no Ember call for fixture family " << family;
    Inputs in;
    std::vector<std::string> graded;
    for (const auto& [key, t] : c.tensors) {
      if (key.rfind("in.", 0) != 0) continue;
      const std::string input = key.substr(3);
      in[input] = c.tensors.contains("grad." + input) ? t.clone().set_requires_grad() : t;
      if (c.tensors.contains("grad." + input)) graded.push_back(input);
    }
    Tensor loss = families().at(family)(in, F::reduction_from_string(reduction));
    expect_close(loss, c.tensor("output"), 1e-10, 1e-12, "output");
    sum(loss * c.tensor("grad_output")).backward();
    for (const std::string& input : graded)
      expect_close(in[input].grad(), c.tensor("grad." + input), 1e-9, 1e-12, input);
    ++checked;
  }
  EXPECT_EQ(checked, 61);
}

TEST(LossModulesTest, SecondDerivativesMatchFiniteDifferences) {
  manual_seed(3);
  Tensor x = randn({3, 4}, kFloat64).set_requires_grad(), y = randn({3, 4}, kFloat64).set_requires_grad();
  Tensor p = (rand({3, 4}, kFloat64) * 0.8 + 0.1).set_requires_grad();
  Tensor sign = tensor(std::vector<double>{1, -1, 1}, {3});
  Tensor labels = tensor(std::vector<int64_t>{0, 3, 2}, {3});
  const std::vector<std::pair<const char*, autograd::TensorFunction>> cases = {
      {"logsigmoid", [](const autograd::TensorList& t) { return F::logsigmoid(t[0]); }},
      {"kl_div", [&](const autograd::TensorList& t) { return F::kl_div(log_softmax(t[0], 1), softmax(t[1], 1)); }},
      {"poisson_nll", [](const autograd::TensorList& t) { return F::poisson_nll_loss(t[0], abs(t[1])); }},
      {"cosine_embedding",
       [&](const autograd::TensorList& t) { return F::cosine_embedding_loss(t[0], t[1], sign, 0.1); }},
      {"soft_margin", [&](const autograd::TensorList& t) { return F::soft_margin_loss(select(t[0], 1, 0), sign); }},
      {"triplet",
       [](const autograd::TensorList& t) { return F::triplet_margin_loss(t[0], t[1], t[0] * 0.5 + 1.0, 3.0); }},
      {"multilabel_soft_margin",
       [](const autograd::TensorList& t) { return F::multilabel_soft_margin_loss(t[0], sigmoid(t[1])); }},
      {"multilabel_margin",
       [](const autograd::TensorList& t) {
         return F::multilabel_margin_loss(t[0] * t[0],
                                          tensor(std::vector<int64_t>{1, 2, -1, 0, 3, -1, 0, 0, 0, 1, 2, 3}, {3, 4}));
       }},
      {"pdist", [](const autograd::TensorList& t) { return F::pdist(t[0], 3.0); }},
  };
  for (const auto& [name, fn] : cases) {
    SCOPED_TRACE(name);
    EXPECT_NO_THROW(autograd::gradcheck(fn, {x, y}));
    EXPECT_NO_THROW(autograd::gradgradcheck(fn, {x, y}));
  }
  // The losses whose gradient is PyTorch's formula (a node of their own): first derivatives.
  EXPECT_NO_THROW(autograd::gradcheck([](const autograd::TensorList& t) { return F::binary_cross_entropy(t[0], t[1]); },
                                      {p, p.detach().flip({1}).set_requires_grad()}));
  EXPECT_NO_THROW(autograd::gradcheck(
      [](const autograd::TensorList& t) { return F::huber_loss(t[0], t[1], F::Reduction::Sum, 0.4); }, {x, y}));
  EXPECT_NO_THROW(autograd::gradcheck(
      [&](const autograd::TensorList& t) { return F::multi_margin_loss(t[0], labels, 2, 0.7); }, {x}));
}

TEST(LossModulesTest, PaperExamplesGivePyTorchsDocumentedValues) {
  Tensor x = tensor(std::vector<double>{0.1, 0.2, 0.4, 0.8}, {1, 4});
  // torch.nn.MultiLabelMarginLoss's and MultiMarginLoss's documented examples.
  expect_close(F::multilabel_margin_loss(x, tensor(std::vector<int64_t>{3, 0, -1, 1}, {1, 4})),
               scalar_tensor(0.85, kFloat64), 1e-12, 1e-12);
  expect_close(F::multi_margin_loss(x, tensor(std::vector<int64_t>{3}, {1})), scalar_tensor(0.325, kFloat64), 1e-12,
               1e-12);
}

TEST(LossModulesTest, ModulesForwardTheirOptionsAndHoldWeightsAsBuffers) {
  manual_seed(5);
  Tensor logits = randn({4, 3}), labels = tensor(std::vector<int64_t>{0, 2, 1, 1}, {4}), w = rand({3});
  nn::CrossEntropyLoss ce({.weight = w, .ignore_index = 1, .reduction = F::Reduction::Sum, .label_smoothing = 0.2});
  expect_close(ce.forward(logits, labels), F::cross_entropy(logits, labels, 1, F::Reduction::Sum, 0.2, w), 0, 0);
  EXPECT_TRUE(ce.weight().is_same(w));
  auto state = ce.state_dict();
  EXPECT_EQ(state.size(), 1u);
  EXPECT_TRUE(state.contains("weight"));
  EXPECT_FALSE(nn::MSELoss().weight().defined());
  EXPECT_EQ(nn::MSELoss().state_dict().size(), 0u);

  nn::BCEWithLogitsLoss bce({.pos_weight = full({3}, 2.0)});
  Tensor t = rand({4, 3});
  expect_close(bce.forward(logits, t), F::binary_cross_entropy_with_logits(logits, t, full({3}, 2.0)), 0, 0);
  EXPECT_EQ(bce.state_dict().size(), 1u);

  nn::TripletMarginWithDistanceLoss custom(
      {.distance_function = [](const Tensor& a, const Tensor& b) { return sum(abs(a - b), {-1}); }, .margin = 0.5});
  Tensor a = randn({4, 3}), p = randn({4, 3}), n = randn({4, 3});
  expect_close(custom.forward(a, p, n), mean(clamp(sum(abs(a - p), {-1}) + 0.5 - sum(abs(a - n), {-1}), Scalar(0.0))),
               1e-6, 1e-7);
  // A loss inside a Module tree is a child like any other; options are mutable after construction.
  nn::HuberLoss huber;
  huber.options().delta = 0.25;
  expect_close(huber.forward(logits, t), F::huber_loss(logits, t, F::Reduction::Mean, 0.25), 0, 0);
}

TEST(LossModulesTest, RefusalsNameTheProblem) {
  nn::MSELoss mse;
  expect_error<TypeError>([&] { static_cast<nn::Module&>(mse).forward(zeros({2})); }, {"MSELoss", "not one tensor"});
  expect_error<ValueError>([] { F::reduction_from_string("avg", "mse_loss"); }, {"mse_loss", "avg"});
  expect_error<ValueError>([] { F::mse_loss(zeros({2}), zeros({2}), F::Reduction::BatchMean); }, {"batchmean"});
  expect_error<ValueError>([] { nn::MultiMarginLoss({.p = 3}); }, {"p == 1 and p == 2", "3"});
  expect_error<ValueError>([] { nn::TripletMarginLoss({.margin = 0.0}); }, {"margin must be greater than 0"});
  expect_error<ValueError>([] { F::binary_cross_entropy(full({2}, 0.5), full({3}, 0.5)); }, {"[3]", "[2]"});
  expect_error<Error>([] { F::binary_cross_entropy(full({2}, 1.5), full({2}, 0.5)); }, {"between 0 and 1"});
  expect_error<ValueError>(
      [] {
        F::gaussian_nll_loss(zeros({2, 3}), zeros({2, 3}), ones({3}));
      },
      {"var is of incorrect size", "[2, 3]", "[3]"});
  expect_error<ValueError>(
      [] {
        F::gaussian_nll_loss(zeros({2, 3}), zeros({2, 3}), full({2, 3}, -1.0));
      },
      {"negative"});
  expect_error<IndexError>(
      [] {
        F::multi_margin_loss(zeros({2, 3}), tensor(std::vector<int64_t>{0, 3}, {2}));
      },
      {"target out of range"});
  expect_error<Error>(
      [] {
        F::ctc_loss(zeros({5, 2, 4}), zeros({2, 3}, kInt64), std::vector<int64_t>{5, 6}, std::vector<int64_t>{1, 1});
      },
      {"input_lengths", "[0, 5]", "6"});
  expect_error<Error>(
      [] {
        F::ctc_loss(zeros({5, 2, 4}), zeros({2, 3}, kInt64), std::vector<int64_t>{5, 5}, std::vector<int64_t>{1, 1}, 4);
      },
      {"blank", "4"});
}
