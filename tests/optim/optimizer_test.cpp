// The Optimizer base: groups, hyperparameters, parameter attributes, skipping, zero_grad, and
// state_dict / load_state_dict keyed by parameter name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "ember/ember.h"
#include "ember/nn/nn.h"
#include "ember/ops/join.h"
#include "ember/optim/optim.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::optim;
using ember::testing::expect_error;
using ember::testing::message_of;

namespace {

Tensor param(std::vector<double> values, IntArrayRef shape, DType dtype = kFloat64) {
  Tensor t = tensor(values, shape).to(dtype);
  t.set_requires_grad(true);
  return t;
}

std::vector<double> values(const Tensor& t) { return t.to_vector<double>(); }

// A deterministic gradient for step k of a tensor of n elements.
Tensor grad_for(const Tensor& p, int64_t k, double salt) {
  std::vector<double> v(static_cast<size_t>(p.numel()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = std::sin(0.7 * static_cast<double>(k) + salt + 0.3 * static_cast<double>(i)) *
           (1.0 + 0.1 * static_cast<double>(i));
  return tensor(v, p.sizes()).to(p.dtype());
}

void set_grads(const NamedParameters& params, int64_t k) {
  for (size_t i = 0; i < params.size(); ++i)
    params[i].second.set_grad(grad_for(params[i].second, k, static_cast<double>(i)));
}

// A name-independent salt so a parameter gets the same gradients whatever its position.
void set_grads_by_name(const NamedParameters& params, int64_t k) {
  for (const auto& [n, p] : params) p.set_grad(grad_for(p, k, static_cast<double>(n.size())));
}

struct TinyNet : nn::Module {
  TinyNet() : Module("TinyNet") {
    register_parameter("weight", full({2, 3}, 0.5, kFloat64));
    register_parameter("bias", zeros({2}, kFloat64));
  }
};

}  // namespace

// ---- construction and groups

TEST(OptimizerTest, BuildsFromModuleNamedParameters) {
  TinyNet net;
  SGD opt(net.named_parameters(), {.lr = 0.1, .momentum = 0.9});
  ASSERT_EQ(opt.param_groups().size(), 1u);
  const ParamGroup& g = opt.param_groups()[0];
  EXPECT_EQ(g.params.size(), 2u);
  EXPECT_EQ(g.params[0].first, "weight");
  EXPECT_EQ(g.get("lr"), 0.1);
  EXPECT_EQ(g.get("momentum"), 0.9);
  EXPECT_FALSE(g.options.flag("nesterov"));
  EXPECT_TRUE(opt.state().empty());
  EXPECT_EQ(opt.name(), "SGD");
}

TEST(OptimizerTest, GroupOptionsOverrideDefaults) {
  Tensor a = param({1}, {1}), b = param({1}, {1});
  Adam opt({ParamGroup({{"a", a}}), ParamGroup({{"b", b}}, {{"lr", 0.5}, {"betas", Betas{0.8, 0.9}}})},
           {.lr = 0.01});
  EXPECT_EQ(opt.param_groups()[0].get("lr"), 0.01);
  EXPECT_EQ(opt.param_groups()[1].get("lr"), 0.5);
  EXPECT_EQ(opt.param_groups()[1].options.pair("betas"), (Betas{0.8, 0.9}));
  EXPECT_EQ(opt.param_groups()[0].options.pair("betas"), (Betas{0.9, 0.999}));  // from the defaults
  EXPECT_EQ(opt.defaults().number("lr"), 0.01);
  EXPECT_EQ(message_of([&] { opt.param_groups()[0].get("momentum"); }),
            "parameter group has no hyperparameter 'momentum'");
}

TEST(OptimizerTest, GroupsWithDifferentLearningRates) {
  Tensor a = param({1, 2}, {2}), b = param({1, 2}, {2});
  SGD opt({ParamGroup({{"a", a}}, {{"lr", 0.1}}), ParamGroup({{"b", b}}, {{"lr", 0.01}})});
  a.set_grad(tensor({1.0, -2.0}));
  b.set_grad(tensor({1.0, -2.0}));
  opt.step();
  EXPECT_EQ(values(a), (std::vector<double>{1 - 0.1, 2 + 0.2}));
  EXPECT_EQ(values(b), (std::vector<double>{1 - 0.01, 2 + 0.02}));
}

TEST(OptimizerTest, AddParamGroupFillsDefaultsAndTakesPart) {
  Tensor a = param({1}, {1}), b = param({1}, {1});
  SGD opt(NamedParameters{{"a", a}}, {.lr = 0.1});
  opt.add_param_group(ParamGroup({{"b", b}}, {{"lr", 1.0}}));
  ASSERT_EQ(opt.param_groups().size(), 2u);
  EXPECT_EQ(opt.param_groups()[1].get("momentum"), 0);
  a.set_grad(tensor({1.0}));
  b.set_grad(tensor({1.0}));
  opt.step();
  EXPECT_DOUBLE_EQ(a.item(), 0.9);
  EXPECT_DOUBLE_EQ(b.item(), 0.0);
}

TEST(OptimizerTest, RejectsDuplicateNamesAndTensors) {
  Tensor a = param({1}, {1}), b = param({1}, {1});
  EXPECT_EQ(message_of([&] {
              SGD({{"a", a}, {"a", b}});
            }),
            "SGD: parameter 'a' appears more than once in the optimizer");
  EXPECT_EQ(message_of([&] {
              SGD({{"a", a}, {"b", a}});
            }),
            "SGD: parameter 'b' is the tensor already added as 'a'");
  SGD opt(NamedParameters{{"a", a}});
  EXPECT_EQ(message_of([&] {
              opt.add_param_group(ParamGroup({{"c", a}}));
            }),
            "SGD: parameter 'c' is the tensor already added as 'a'");
  EXPECT_EQ(message_of([&] {
              opt.add_param_group(ParamGroup({{"a", b}}));
            }),
            "SGD: parameter 'a' appears more than once in the optimizer");
  EXPECT_EQ(opt.param_groups().size(), 1u);
}

TEST(OptimizerTest, RejectsNonFloatingAndNonLeafParameters) {
  Tensor i = tensor(std::vector<int64_t>{1, 2});
  EXPECT_EQ(message_of([&] {
              Adam({{"i", i}});
            }),
            "Adam: can only optimize floating-point and complex tensors, 'i' is int64");
  Tensor a = param({1}, {1});
  Tensor y = a * 2.0;
  EXPECT_EQ(message_of([&] { Adam({{"y", y}}); }), "Adam: can't optimize 'y': not a leaf tensor");
  EXPECT_EQ(message_of([&] { Adam({{"", a}}); }), "Adam: parameter names can't be empty");
}

TEST(OptimizerTest, RejectsInvalidHyperparameters) {
  Tensor a = param({1}, {1});
  EXPECT_EQ(message_of([&] { SGD({{"a", a}}, {.lr = -1}); }), "SGD: invalid lr -1");
  EXPECT_EQ(message_of([&] {
              SGD({{"a", a}}, {.lr = 0.1, .nesterov = true});
            }),
            "SGD: Nesterov momentum requires a momentum and zero dampening");
  EXPECT_EQ(message_of([&] { Adam({{"a", a}}, {.betas = {1.0, 0.999}}); }), "Adam: invalid betas (1, 0.999)");
  EXPECT_EQ(message_of([&] { AdamW({{"a", a}}, {.eps = -1e-8}); }), "AdamW: invalid eps -1e-08");
  EXPECT_EQ(message_of([&] {
              RMSprop({{"a", a}}, {.momentum = -0.5});
            }),
            "RMSprop: invalid momentum -0.5");
  EXPECT_EQ(message_of([&] {
              Adagrad({{"a", a}}, {.lr_decay = -1});
            }),
            "Adagrad: invalid lr_decay -1");
  expect_error<ValueError>([&] { SGD({ParamGroup({{"a", a}}, {{"lr", -0.1}})}); }, {"SGD: invalid lr -0.1"});
}

// ---- step

TEST(OptimizerTest, StepSkipsParametersWithoutGradient) {
  Tensor a = param({1, 2}, {2}), b = param({3, 4}, {2});
  Adam opt({{"a", a}, {"b", b}}, {.lr = 0.1});
  a.set_grad(tensor({1.0, 1.0}));
  opt.step();
  EXPECT_EQ(values(b), (std::vector<double>{3, 4}));
  EXPECT_TRUE(opt.state().contains("a"));
  EXPECT_FALSE(opt.state().contains("b"));
  EXPECT_NEAR(values(a)[0], 0.9, 1e-8);  // Adam's first step moves by lr (less eps)
}

TEST(OptimizerTest, StepRunsWithoutRecordingAndRefusesMismatchedGradient) {
  Tensor a = param({1, 2}, {2});
  SGD opt({{"a", a}}, {.lr = 0.1});
  a.set_grad(tensor({1.0, 1.0}));
  opt.step();  // in-place writes to a leaf that requires grad: fine under the optimizer's guard
  EXPECT_TRUE(a.is_leaf());
  EXPECT_TRUE(a.requires_grad());
  a.set_grad(tensor({1.0f, 1.0f}));
  EXPECT_EQ(message_of([&] { opt.step(); }),
            "SGD.step: gradient of 'a' is float32 [2], the parameter float64 [2]");
}

TEST(OptimizerTest, ZeroGradClearsOrZeroes) {
  Tensor a = param({1, 2}, {2});
  SGD opt({{"a", a}});
  a.set_grad(tensor({3.0, 4.0}));
  Tensor g = a.grad();
  opt.zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(a.grad().is_same(g));
  EXPECT_EQ(values(a.grad()), (std::vector<double>{0, 0}));
  opt.zero_grad();
  EXPECT_FALSE(a.grad().defined());
}

TEST(OptimizerTest, TrainsAModuleThroughAutograd) {
  TinyNet net;
  Adam opt(net.named_parameters(), {.lr = 0.05});
  Tensor x = tensor(std::vector<double>{1.0, 2.0, 3.0}, {3, 1});
  Tensor target = tensor(std::vector<double>{1.0, -1.0}, {2, 1});
  auto loss_fn = [&] {
    Tensor w = net.parameter("weight"), b = net.parameter("bias");
    Tensor y = sum(w * x.t(), {1}) + b;  // w @ x for one sample
    Tensor d = y - target.reshape({2});
    return sum(d * d);
  };
  double first = loss_fn().item();
  for (int i = 0; i < 200; ++i) {
    opt.zero_grad();
    Tensor loss = loss_fn();
    loss.backward();
    opt.step();
  }
  EXPECT_LT(loss_fn().item(), first * 1e-3);
}

// ---- parameter attributes

TEST(OptimizerTest, LrScaleAttributeScalesThatParameter) {
  Tensor a = param({1, 1}, {2}), b = param({1, 1}, {2});
  b.attributes()["lr_scale"] = 0.25;
  SGD opt({{"a", a}, {"b", b}}, {.lr = 0.1, .momentum = 0.5});
  for (int k = 0; k < 3; ++k) {
    a.set_grad(tensor({1.0, -1.0}));
    b.set_grad(tensor({1.0, -1.0}));
    opt.step();
  }
  // momentum buffers 1, 1.5, 1.75: total 4.25 grad units
  EXPECT_NEAR(values(a)[0], 1 - 0.1 * 4.25, 1e-12);
  EXPECT_NEAR(values(b)[0], 1 - 0.025 * 4.25, 1e-12);
  EXPECT_NEAR(values(b)[1], 1 + 0.025 * 4.25, 1e-12);
}

TEST(OptimizerTest, WeightDecayAttributeOverridesTheGroup) {
  Tensor w = param({2, 2}, {2}), bias = param({2, 2}, {2});
  bias.attributes()["weight_decay"] = 0.0;  // as for norms and biases
  SGD opt({{"w", w}, {"bias", bias}}, {.lr = 0.1, .weight_decay = 0.5});
  w.set_grad(tensor({1.0, 0.0}));
  bias.set_grad(tensor({1.0, 0.0}));
  opt.step();
  EXPECT_EQ(values(w), (std::vector<double>{2 - 0.1 * (1 + 1), 2 - 0.1 * 1}));
  EXPECT_EQ(values(bias), (std::vector<double>{2 - 0.1, 2}));
}

TEST(OptimizerTest, AdamWDecoupledDecayHonoursAttributes) {
  Tensor w = param({2}, {1}), n = param({2}, {1}), s = param({2}, {1});
  n.attributes()["weight_decay"] = 0.0;
  s.attributes()["lr_scale"] = 0.5;
  AdamW opt({{"w", w}, {"n", n}, {"s", s}}, {.lr = 0.1, .weight_decay = 0.2});
  for (const Tensor& p : {w, n, s}) p.set_grad(tensor({0.0}));  // only the decay moves them
  opt.step();
  EXPECT_DOUBLE_EQ(w.item(), 2 * (1 - 0.1 * 0.2));
  EXPECT_DOUBLE_EQ(n.item(), 2);
  EXPECT_DOUBLE_EQ(s.item(), 2 * (1 - 0.05 * 0.2));
}

TEST(OptimizerTest, NonNumericAttributeIsAnError) {
  Tensor a = param({1}, {1});
  a.attributes()["lr_scale"] = std::string("fast");
  SGD opt({{"a", a}});
  a.set_grad(tensor({1.0}));
  EXPECT_EQ(message_of([&] { opt.step(); }),
            "SGD: attribute 'lr_scale' of parameter 'a' must be a number, got \"fast\"");
}

// ---- state_dict / load_state_dict

TEST(OptimizerStateTest, StateIsKeyedByName) {
  Tensor a = param({1, 2, 3, 4, 5, 6}, {2, 3}), b = param({1, 2, 3, 4}, {4});
  Adam opt({{"enc.weight", a}, {"enc.bias", b}}, {.amsgrad = true});
  set_grads({{"enc.weight", a}, {"enc.bias", b}}, 0);
  opt.step();
  const ParamState& s = opt.state().at("enc.weight");
  EXPECT_EQ(s.size(), 4u);
  EXPECT_EQ(s.at("step").dim(), 0);
  EXPECT_EQ(s.at("step").dtype(), kFloat32);
  EXPECT_EQ(s.at("step").item(), 1);
  EXPECT_EQ(s.at("exp_avg").sizes(), a.sizes());
  EXPECT_TRUE(s.contains("max_exp_avg_sq"));
  OptimizerStateDict sd = opt.state_dict();
  ASSERT_EQ(sd.param_groups.size(), 1u);
  EXPECT_EQ(sd.param_groups[0].params, (std::vector<std::string>{"enc.weight", "enc.bias"}));
  EXPECT_TRUE(sd.param_groups[0].options.flag("amsgrad"));
  EXPECT_TRUE(
      sd.state.at("enc.bias").at("exp_avg").is_same(opt.state().at("enc.bias").at("exp_avg")));
  OptimizerStateDict copy = sd.clone();
  EXPECT_FALSE(
      copy.state.at("enc.bias").at("exp_avg").is_same(sd.state.at("enc.bias").at("exp_avg")));
  EXPECT_EQ(values(copy.state.at("enc.bias").at("exp_avg")),
            values(sd.state.at("enc.bias").at("exp_avg")));
}

TEST(OptimizerStateTest, ReorderedAndNewParametersGetTheirOwnState) {
  Tensor a = param({1, 2, 3, 4, 5, 6}, {2, 3}), b = param({1, 2, 3, 4}, {4}), c = param({0.5}, {1});
  NamedParameters before{{"a", a}, {"b", b}, {"c", c}};
  Adam opt(before, {.lr = 0.01, .amsgrad = true});
  for (int64_t k = 0; k < 3; ++k) {
    set_grads_by_name(before, k);
    opt.step();
  }
  OptimizerStateDict saved = opt.state_dict().clone();

  // Reversed order plus a parameter the checkpoint has never seen.
  Tensor a2 = param(values(a), {2, 3}), b2 = param(values(b), {4}), c2 = param(values(c), {1}),
         fresh = param({0, 0, 0}, {3});
  NamedParameters after{{"fresh", fresh}, {"c", c2}, {"b", b2}, {"a", a2}};
  Adam opt2(after, {.lr = 0.01, .amsgrad = true});
  OptimizerLoadReport report = opt2.load_state_dict(saved);
  EXPECT_EQ(report.missing, std::vector<std::string>{"fresh"});
  EXPECT_TRUE(report.unexpected.empty());
  EXPECT_TRUE(report.moved.empty());
  for (const std::string n : {"a", "b", "c"}) {
    SCOPED_TRACE(n);
    const ParamState& got = opt2.state().at(n);
    const ParamState& want = saved.state.at(n);
    ASSERT_EQ(got.size(), want.size());
    for (const auto& [key, t] : want) {
      EXPECT_EQ(got.at(key).sizes(), t.sizes()) << key;
      EXPECT_EQ(values(got.at(key)), values(t)) << key;
      EXPECT_FALSE(got.at(key).is_same(t)) << key << " must be a copy";
    }
  }
  EXPECT_FALSE(opt2.state().contains("fresh"));

  // One more step on both: every parameter continues exactly, the new one starts at step 1.
  set_grads_by_name(before, 3);
  opt.step();
  set_grads_by_name(after, 3);
  opt2.step();
  EXPECT_EQ(values(a2), values(a));
  EXPECT_EQ(values(b2), values(b));
  EXPECT_EQ(values(c2), values(c));
  EXPECT_EQ(opt2.state().at("a").at("step").item(), 4);
  EXPECT_EQ(opt2.state().at("fresh").at("step").item(), 1);
}

TEST(OptimizerStateTest, LoadCopiesSoTheSourceIsNotAliased) {
  Tensor a = param({1, 2}, {2});
  SGD opt({{"a", a}}, {.lr = 0.1, .momentum = 0.9});
  a.set_grad(tensor({1.0, 1.0}));
  opt.step();
  OptimizerStateDict sd = opt.state_dict();  // references the live buffers
  Tensor a2 = param({1, 2}, {2});
  SGD opt2({{"a", a2}}, {.lr = 0.1, .momentum = 0.9});
  opt2.load_state_dict(sd);
  std::vector<double> before = values(sd.state.at("a").at("momentum_buffer"));
  a2.set_grad(tensor({5.0, 5.0}));
  opt2.step();
  EXPECT_EQ(values(sd.state.at("a").at("momentum_buffer")), before);
}

TEST(OptimizerStateTest, ResumeAtStepFiftyIsBitwiseIdentical) {
  struct Setup {
    const char* name;
    std::function<std::unique_ptr<Optimizer>(NamedParameters)> make;
  };
  std::vector<Setup> setups = {
      {"SGD",
       [](NamedParameters p) {
         return std::make_unique<SGD>(
             std::move(p),
             SGDOptions{.lr = 0.05, .momentum = 0.9, .weight_decay = 1e-3, .nesterov = true});
       }},
      {"Adam",
       [](NamedParameters p) {
         return std::make_unique<Adam>(
             std::move(p), AdamOptions{.lr = 1e-2, .weight_decay = 0.01, .amsgrad = true});
       }},
      {"AdamW",
       [](NamedParameters p) {
         return std::make_unique<AdamW>(std::move(p), AdamWOptions{.lr = 1e-2});
       }},
      {"RMSprop",
       [](NamedParameters p) {
         return std::make_unique<RMSprop>(
             std::move(p), RMSpropOptions{.lr = 1e-2, .momentum = 0.5, .centered = true});
       }},
      {"Adagrad",
       [](NamedParameters p) {
         return std::make_unique<Adagrad>(std::move(p),
                                          AdagradOptions{.lr = 0.1, .lr_decay = 0.01});
       }},
  };
  for (const Setup& s : setups) {
    for (DType dtype : {kFloat32, kFloat64}) {
      SCOPED_TRACE(std::string(s.name) + " " + std::string(dtype_name(dtype)));
      auto fresh_params = [&](const std::vector<std::vector<double>>& v) {
        return NamedParameters{{"w", param(v[0], {3, 5}, dtype)}, {"b", param(v[1], {5}, dtype)}};
      };
      std::vector<std::vector<double>> init{std::vector<double>(15), std::vector<double>(5)};
      for (size_t i = 0; i < 15; ++i) init[0][i] = 0.1 * static_cast<double>(i) - 0.7;
      for (size_t i = 0; i < 5; ++i) init[1][i] = 0.2 * static_cast<double>(i);

      NamedParameters straight = fresh_params(init);
      auto opt = s.make(straight);
      NamedParameters first = fresh_params(init);
      auto opt1 = s.make(first);
      OptimizerStateDict saved;
      for (int64_t k = 0; k < 100; ++k) {
        set_grads_by_name(straight, k);
        opt->step();
        if (k < 50) {
          set_grads_by_name(first, k);
          opt1->step();
          if (k == 49) saved = opt1->state_dict().clone();
        }
      }
      NamedParameters resumed = fresh_params({values(first[0].second), values(first[1].second)});
      std::reverse(resumed.begin(), resumed.end());  // order does not matter, names do
      auto opt2 = s.make(resumed);
      EXPECT_TRUE(opt2->load_state_dict(saved, /*strict=*/true).ok());
      for (int64_t k = 50; k < 100; ++k) {
        set_grads_by_name(resumed, k);
        opt2->step();
      }
      EXPECT_EQ(values(resumed[1].second), values(straight[0].second));
      EXPECT_EQ(values(resumed[0].second), values(straight[1].second));
    }
  }
}

TEST(OptimizerStateTest, HyperparametersRoundTrip) {
  Tensor a = param({1}, {1});
  SGD opt({{"a", a}}, {.lr = 0.1});
  opt.param_groups()[0].options.set("lr", 0.0123);
  opt.param_groups()[0].options.set("initial_lr", 0.1);
  OptimizerStateDict sd = opt.state_dict();
  Tensor a2 = param({1}, {1});
  SGD opt2({{"a", a2}}, {.lr = 0.5});
  opt2.load_state_dict(sd);
  EXPECT_EQ(opt2.param_groups()[0].get("lr"), 0.0123);
  EXPECT_EQ(opt2.param_groups()[0].get("initial_lr"), 0.1);
}

TEST(OptimizerStateTest, StateForVanishedNamesIsReportedOrRefused) {
  Tensor a = param({1, 2}, {2}), b = param({3}, {1});
  Adam opt({{"a", a}, {"old.b", b}});
  set_grads({{"a", a}, {"old.b", b}}, 0);
  opt.step();
  OptimizerStateDict sd = opt.state_dict();

  Tensor a2 = param({1, 2}, {2});
  Adam strict_opt({{"a", a2}});
  EXPECT_EQ(message_of([&] { strict_opt.load_state_dict(sd, /*strict=*/true); }),
            "Adam.load_state_dict: the checkpoint has state for parameters this optimizer does "
            "not have: 'old.b'");
  EXPECT_TRUE(strict_opt.state().empty());  // nothing changed

  Adam lenient({{"a", a2}});
  OptimizerLoadReport r = lenient.load_state_dict(sd);
  EXPECT_EQ(r.unexpected, std::vector<std::string>{"old.b"});
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.str(), "unexpected (state dropped): 'old.b'\n");
  EXPECT_TRUE(lenient.state().contains("a"));
  EXPECT_FALSE(lenient.state().contains("old.b"));
}

TEST(OptimizerStateTest, ShapeMismatchNamesParameterAndBothShapes) {
  Tensor a = param({1, 2, 3, 4, 5, 6}, {2, 3});
  Adam opt({{"fc.weight", a}});
  a.set_grad(ones({2, 3}, kFloat64));
  opt.step();
  OptimizerStateDict sd = opt.state_dict();
  Tensor other = param({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4});
  Adam opt2({{"fc.weight", other}});
  EXPECT_EQ(message_of([&] { opt2.load_state_dict(sd); }),
            "Adam.load_state_dict: shape mismatch for 'fc.weight': checkpoint 'exp_avg' [2, 3], "
            "parameter [2, 4]");
  EXPECT_TRUE(opt2.state().empty());
}

TEST(OptimizerStateTest, GroupsMatchByPositionMembershipByName) {
  Tensor a = param({1}, {1}), b = param({2}, {1}), c = param({3}, {1});
  SGD opt({ParamGroup({{"a", a}}), ParamGroup({{"b", b}}, {{"lr", 0.5}})},
          {.lr = 0.1, .momentum = 0.9});
  a.set_grad(tensor({1.0}));
  b.set_grad(tensor({1.0}));
  opt.step();
  OptimizerStateDict sd = opt.state_dict();

  SGD opt2({ParamGroup({{"a", a}, {"b", b}}), ParamGroup({{"c", c}})},
           {.lr = 0.1, .momentum = 0.9});
  OptimizerLoadReport r = opt2.load_state_dict(sd);
  EXPECT_EQ(r.moved, std::vector<std::string>{"b"});
  EXPECT_EQ(r.missing, std::vector<std::string>{"c"});
  EXPECT_TRUE(opt2.state().contains("b"));           // state follows the name
  EXPECT_EQ(opt2.param_groups()[1].get("lr"), 0.5);  // hyperparameters follow the position

  SGD one_group({{"a", a}});
  EXPECT_EQ(message_of([&] { one_group.load_state_dict(sd); }),
            "SGD.load_state_dict: the checkpoint has 2 parameter groups, the optimizer has 1");
}

TEST(OptimizerStateTest, LoadConvertsStateToTheParameterDtype) {
  Tensor a = param({1, 2}, {2});
  Adam opt({{"a", a}});
  a.set_grad(tensor({1.0, 1.0}));
  opt.step();
  OptimizerStateDict sd = opt.state_dict();
  Tensor a32 = param({1, 2}, {2}, kFloat32);
  Adam opt32({{"a", a32}});
  opt32.load_state_dict(sd);
  EXPECT_EQ(opt32.state().at("a").at("exp_avg").dtype(), kFloat32);
  EXPECT_EQ(opt32.state().at("a").at("step").dtype(), kFloat32);
}

TEST(OptimizerStateTest, StateEntriesALoadLacksStartFresh) {
  Tensor a = param({1, 2}, {2});
  Adam plain({{"a", a}});
  a.set_grad(tensor({1.0, -1.0}));
  plain.step();
  Tensor a2 = param({1, 2}, {2});
  Adam with_amsgrad({{"a", a2}});
  with_amsgrad.load_state_dict(plain.state_dict());
  with_amsgrad.param_groups()[0].options.set("amsgrad", true);  // the loaded groups said false
  a2.set_grad(tensor({1.0, -1.0}));
  with_amsgrad.step();
  const ParamState& s = with_amsgrad.state().at("a");
  EXPECT_EQ(s.at("step").item(), 2);
  EXPECT_TRUE(s.contains("max_exp_avg_sq"));
}

TEST(OptimizerTest, FusedStepDoesNotDependOnAlignmentOrSplit) {
  // Large enough to be split across threads, odd so that lanes end partially; the second copy
  // starts one element into its storage, so its lanes sit at other addresses.
  const int64_t n = 100003;
  Tensor init = randn({n}, kFloat32), grad = randn({n}, kFloat32);
  Tensor aligned = init.clone();
  Tensor shifted = zeros({n + 1}, kFloat32).narrow(0, 1, n);
  shifted.copy_(init);
  Tensor strided = init.clone();
  std::vector<std::unique_ptr<Optimizer>> opts;
  for (const Tensor& p : {aligned, shifted, strided}) {
    p.set_requires_grad(true);
    opts.push_back(std::make_unique<Adam>(NamedParameters{{"p", p}},
                                          AdamOptions{.lr = 1e-2, .weight_decay = 0.1,
                                                      .amsgrad = true}));
  }
  for (int k = 0; k < 3; ++k) {
    Tensor g = grad * static_cast<double>(k + 1);
    aligned.set_grad(g);
    shifted.set_grad(g);
    strided.set_grad(stack({g, g}, 1).select(1, 0));  // the tensor-op path
    for (auto& o : opts) o->step();
  }
  EXPECT_EQ(values(shifted), values(aligned));
  std::vector<double> a = values(aligned), s = values(strided);
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(s[i], a[i], 1e-5 * std::fabs(a[i]) + 1e-6) << i;
}

// ---- typed hyperparameters: a misspelt key or a value of the wrong kind is an error naming both
// the key and the optimizer (a map of numbers silently ignored "momentun" and stored flags as 0/1)

TEST(OptimizerTest, UnknownHyperparameterInAGroupIsAnError) {
  Tensor a = param({1}, {1});
  expect_error<ValueError>([&] { SGD({ParamGroup({{"a", a}}, {{"momentun", 0.9}})}); },
                           {"SGD: unknown hyperparameter 'momentun' in parameter group 0",
                            "SGD takes dampening, lr, master_weights, maximize, momentum, nesterov, weight_decay"});
  SGD ok({{"a", a}});
  expect_error<ValueError>([&] { ok.add_param_group(ParamGroup({{"b", param({1}, {1})}}, {{"beta1", 0.9}})); },
                           {"SGD: unknown hyperparameter 'beta1' in parameter group 1"});
}

TEST(OptimizerTest, HyperparameterOfTheWrongKindIsAnError) {
  Tensor a = param({1}, {1});
  expect_error<TypeError>([&] { SGD({ParamGroup({{"a", a}}, {{"nesterov", 1}})}); },
                          {"SGD: hyperparameter 'nesterov' in parameter group 0 must be a bool, got a number (1)"});
  expect_error<TypeError>([&] { Adam({ParamGroup({{"a", a}}, {{"betas", 0.9}})}); },
                          {"Adam: hyperparameter 'betas' in parameter group 0 must be a pair of numbers"});
  expect_error<TypeError>([&] { Adam({ParamGroup({{"a", a}}, {{"lr", true}})}); },
                          {"Adam: hyperparameter 'lr' in parameter group 0 must be a number, got a bool"});
}

TEST(OptimizerTest, FlagsAreBoolsAndBetasAPair) {
  Tensor a = param({1}, {1});
  Adam adam({{"a", a}}, {.betas = {0.8, 0.95}, .amsgrad = true});
  const Hyperparams& h = adam.param_groups()[0].options;
  EXPECT_TRUE(h.at("amsgrad").is_flag());
  EXPECT_TRUE(h.flag("amsgrad"));
  EXPECT_EQ(h.pair("betas"), (Betas{0.8, 0.95}));
  expect_error<TypeError>([&] { h.number("amsgrad"); }, {"hyperparameter 'amsgrad' is a bool (true), expected a number"});
  // a scheduler's keys are numbers beside the optimizer's own
  adam.param_groups()[0].options.set("initial_lr", 0.1);
  OptimizerStateDict sd = adam.state_dict();
  Adam again({{"a", param({1}, {1})}});
  again.load_state_dict(sd);
  EXPECT_EQ(again.param_groups()[0].get("initial_lr"), 0.1);
  EXPECT_TRUE(again.param_groups()[0].options.flag("amsgrad"));
}

TEST(OptimizerStateTest, LoadedGroupsAreCheckedAndOldFlagsAndBetasRead) {
  Tensor a = param({1}, {1});
  Adam adam({{"a", a}});
  OptimizerStateDict old = adam.state_dict();
  // as checkpoints wrote them before hyperparameters were typed
  Hyperparams legacy{{"lr", 0.01}, {"beta1", 0.5}, {"beta2", 0.9}, {"eps", 1e-8}, {"weight_decay", 0.0},
                     {"amsgrad", 1.0}, {"maximize", 0.0}, {"decoupled_weight_decay", 0.0}};
  old.param_groups[0].options = legacy;
  adam.load_state_dict(old);
  const Hyperparams& h = adam.param_groups()[0].options;
  EXPECT_EQ(h.pair("betas"), (Betas{0.5, 0.9}));
  EXPECT_TRUE(h.flag("amsgrad"));
  EXPECT_FALSE(h.contains("beta1"));
  OptimizerStateDict bad = adam.state_dict();
  bad.param_groups[0].options.set("momentum", 0.9);
  expect_error<ValueError>([&] { adam.load_state_dict(bad); },
                           {"Adam: unknown hyperparameter 'momentum' in the checkpoint's parameter group 0"});
  EXPECT_FALSE(adam.param_groups()[0].options.contains("momentum"));  // nothing changed
}
