// master_weights: a 16-bit parameter steps through a float32 master copy. The oracle is the same
// optimizer on a float32 copy of the parameter fed the same (widened) gradients: the master must
// equal it bit for bit, and the parameter must be it rounded once.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/optim/optim.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::optim;

namespace {

Tensor leaf(const std::vector<double>& v, DType dtype) {
  return tensor(v, {static_cast<int64_t>(v.size())}).to(dtype).set_requires_grad();
}

// Gradients of step k, already representable in `dtype` (so both runs see the same values).
Tensor grad_for(int64_t n, int64_t k, DType dtype) {
  std::vector<double> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = std::sin(0.9 * static_cast<double>(k) + 0.4 * static_cast<double>(i)) * (1 + 0.25 * static_cast<double>(i));
  return tensor(v, {n}).to(dtype);
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.sizes() == b.sizes() && a.to_vector<double>() == b.to_vector<double>();
}

using MakeOptimizer = std::function<std::unique_ptr<Optimizer>(NamedParameters, bool master)>;

struct Case {
  std::string name;
  MakeOptimizer make;
};

std::vector<Case> cases() {
  return {
      {"SGD", [](NamedParameters p, bool m) {
         return std::make_unique<SGD>(std::move(p), SGDOptions{.lr = 1e-3, .momentum = 0.9, .weight_decay = 0.01,
                                                               .nesterov = true, .master_weights = m});
       }},
      {"Adam", [](NamedParameters p, bool m) {
         return std::make_unique<Adam>(std::move(p), AdamOptions{.lr = 1e-3, .amsgrad = true, .master_weights = m});
       }},
      {"AdamW", [](NamedParameters p, bool m) {
         return std::make_unique<AdamW>(std::move(p), AdamWOptions{.lr = 1e-3, .weight_decay = 0.1, .master_weights = m});
       }},
      {"RMSprop", [](NamedParameters p, bool m) {
         return std::make_unique<RMSprop>(std::move(p), RMSpropOptions{.lr = 1e-3, .momentum = 0.5, .centered = true,
                                                                       .master_weights = m});
       }},
      {"Adagrad", [](NamedParameters p, bool m) {
         return std::make_unique<Adagrad>(std::move(p), AdagradOptions{.lr = 1e-3, .master_weights = m});
       }},
      {"Adadelta", [](NamedParameters p, bool m) {
         return std::make_unique<Adadelta>(std::move(p), AdadeltaOptions{.lr = 0.1, .master_weights = m});
       }},
      {"Adamax", [](NamedParameters p, bool m) {
         return std::make_unique<Adamax>(std::move(p), AdamaxOptions{.lr = 1e-3, .master_weights = m});
       }},
      {"NAdam", [](NamedParameters p, bool m) {
         return std::make_unique<NAdam>(std::move(p), NAdamOptions{.lr = 1e-3, .master_weights = m});
       }},
      {"RAdam", [](NamedParameters p, bool m) {
         return std::make_unique<RAdam>(std::move(p), RAdamOptions{.lr = 1e-3, .master_weights = m});
       }},
  };
}

const std::vector<double> kInit{1.0, -2.5, 0.375, 3.0, -0.0078125, 100.0};

}  // namespace

TEST(MasterWeights, EveryOptimizerStepsTheFloat32MasterAsAFloat32ParameterWouldStep) {
  for (DType dtype : {kBFloat16, kFloat16}) {
    for (const Case& c : cases()) {
      SCOPED_TRACE(c.name + " " + std::string(dtype_name(dtype)));
      Tensor p16 = leaf(kInit, dtype);
      Tensor p32 = leaf(kInit, kFloat32);
      auto low = c.make({{"w", p16}}, true);
      auto ref = c.make({{"w", p32}}, false);
      for (int64_t k = 0; k < 40; ++k) {
        Tensor g = grad_for(p16.numel(), k, dtype);
        p16.set_grad(g);
        p32.set_grad(g.to(kFloat32));
        low->step();
        ref->step();
      }
      const ParamState& s = low->state().at("w");
      ASSERT_TRUE(s.contains("master"));
      EXPECT_TRUE(same_bits(s.at("master"), p32.detach()));
      EXPECT_TRUE(same_bits(p16.detach(), p32.detach().to(dtype)));
      for (const auto& [key, t] : s)
        if (key != "step") EXPECT_EQ(t.dtype(), kFloat32) << key;
      EXPECT_EQ(p16.dtype(), dtype);
    }
  }
}

TEST(MasterWeights, UpdatesBelowHalfAnUlpAccumulateInsteadOfRoundingAway) {
  // 1.0 in bfloat16 has an ulp of 2^-7; steps of 1e-3 round away one at a time.
  auto run = [](bool master) {
    Tensor p = leaf({1.0}, kBFloat16);
    SGD sgd({{"w", p}}, {.lr = 1e-3, .master_weights = master});
    for (int k = 0; k < 100; ++k) {
      p.set_grad(ones({1}, kBFloat16));
      sgd.step();
    }
    return p.detach().to(kFloat64).item<double>();
  };
  EXPECT_EQ(run(false), 1.0);
  EXPECT_NEAR(run(true), 0.9, 2e-3);  // 1 - 100 * 1e-3, to bfloat16's resolution near 0.9
}

TEST(MasterWeights, Float32ParametersAndGroupsWithoutTheFlagKeepNoMaster) {
  Tensor a = leaf(kInit, kFloat32);
  Tensor b = leaf(kInit, kBFloat16);
  Adam adam({ParamGroup({{"a", a}}), ParamGroup({{"b", b}}, {{"master_weights", false}})},
            {.lr = 1e-2, .master_weights = true});
  a.set_grad(grad_for(a.numel(), 0, kFloat32));
  b.set_grad(grad_for(b.numel(), 0, kBFloat16));
  adam.step();
  EXPECT_FALSE(adam.state().at("a").contains("master"));
  EXPECT_FALSE(adam.state().at("b").contains("master"));
  EXPECT_EQ(adam.state().at("b").at("exp_avg").dtype(), kBFloat16);
  EXPECT_TRUE(adam.param_groups()[0].options.flag("master_weights"));
}

TEST(MasterWeights, AParameterWrittenElsewhereRestartsItsMaster) {
  Tensor p = leaf(kInit, kBFloat16);
  SGD sgd({{"w", p}}, {.lr = 1e-3, .master_weights = true});
  p.set_grad(ones({p.numel()}, kBFloat16));
  sgd.step();
  {
    NoGradGuard no_grad;
    p.fill_(2.0);  // as model.load_state_dict or an in-place edit would
  }
  sgd.step();
  const Tensor& master = sgd.state().at("w").at("master");
  for (double v : master.to_vector<double>()) EXPECT_FLOAT_EQ(v, 2.0f - 1e-3f);
  // A write that leaves the parameter equal to its rounded master keeps the master's precision.
  Tensor before = sgd.state().at("w").at("master").clone();
  {
    NoGradGuard no_grad;
    p.copy_(p.detach().clone());
  }
  sgd.step();
  for (double v : sgd.state().at("w").at("master").to_vector<double>())
    EXPECT_FLOAT_EQ(v, (2.0f - 1e-3f) - 1e-3f);
  EXPECT_FALSE(same_bits(before, sgd.state().at("w").at("master")));
}

TEST(MasterWeights, StateDictRoundTripContinuesBitForBit) {
  auto make = [](Tensor& p) {
    p = leaf(kInit, kBFloat16);
    return std::make_unique<AdamW>(NamedParameters{{"w", p}}, AdamWOptions{.lr = 1e-3, .master_weights = true});
  };
  Tensor whole, first, second;
  auto a = make(whole);
  auto b = make(first);
  for (int64_t k = 0; k < 10; ++k) {
    for (Tensor* p : {&whole, &first}) p->set_grad(grad_for(p->numel(), k, kBFloat16));
    a->step();
    b->step();
  }
  OptimizerStateDict saved = b->state_dict().clone();
  auto c = make(second);
  {
    NoGradGuard no_grad;
    second.copy_(first.detach());
  }
  c->load_state_dict(saved, /*strict=*/true);
  EXPECT_EQ(c->state().at("w").at("master").dtype(), kFloat32);
  EXPECT_EQ(c->state().at("w").at("exp_avg").dtype(), kFloat32);
  for (int64_t k = 10; k < 20; ++k) {
    for (Tensor* p : {&whole, &second}) p->set_grad(grad_for(p->numel(), k, kBFloat16));
    a->step();
    c->step();
  }
  EXPECT_TRUE(same_bits(whole.detach(), second.detach()));
  EXPECT_TRUE(same_bits(a->state().at("w").at("master"), c->state().at("w").at("master")));
}

TEST(MasterWeights, SwitchedOnMidRunWidensTheStateAndOffDropsTheMaster) {
  Tensor p = leaf(kInit, kBFloat16);
  Adam adam({{"w", p}}, {.lr = 1e-3});
  p.set_grad(grad_for(p.numel(), 0, kBFloat16));
  adam.step();
  EXPECT_EQ(adam.state().at("w").at("exp_avg").dtype(), kBFloat16);
  adam.param_groups()[0].options.set("master_weights", true);
  adam.step();
  EXPECT_EQ(adam.state().at("w").at("exp_avg").dtype(), kFloat32);
  EXPECT_TRUE(adam.state().at("w").contains("master"));
  adam.param_groups()[0].options.set("master_weights", false);
  adam.step();
  EXPECT_FALSE(adam.state().at("w").contains("master"));
  EXPECT_EQ(p.dtype(), kBFloat16);
}
