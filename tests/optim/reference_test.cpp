// Every optimizer setting against torch.optim (tests/fixtures/make_optim_fixtures.py): 100 steps on
// the same parameters and gradients, on the fused CPU kernels (contiguous tensors) and on the
// tensor-op path (non-contiguous gradients), in float64 and float32.
#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "ember/ember.h"
#include "ember/ops/join.h"
#include "ember/optim/optim.h"
#include "support/expect.h"
#include "support/fixture.h"

using namespace ember;
using namespace ember::optim;
using ember::testing::FixtureCase;

namespace {

const std::map<std::string, FixtureCase>& fixture() {
  static const auto cases = ember::testing::load_fixture("optim.json");
  return cases;
}

// The fixture's hyperparameters (numbers under Ember's old names: beta1/beta2, flags as 0/1) as the
// typed hyperparameters of `kind`.
Hyperparams typed(const std::string& kind, const std::map<std::string, double>& scalars) {
  static const std::set<std::string> flags{"nesterov", "maximize", "amsgrad", "centered", "decoupled_weight_decay"};
  Hyperparams h;
  for (const auto& [key, value] : scalars) {
    if (key == "beta1" || key == "beta2") continue;
    if (flags.contains(key)) h.set(key, value != 0);
    else h.set(key, value);
  }
  if (scalars.contains("beta1") || scalars.contains("beta2"))  // either may be left at its default
    h.set("betas", Betas{scalars.contains("beta1") ? scalars.at("beta1") : 0.9,
                         scalars.contains("beta2") ? scalars.at("beta2") : 0.999});
  if (kind == "AdamW") h.erase("decoupled_weight_decay");  // AdamW's own, not a group's
  return h;
}

std::unique_ptr<Optimizer> make_optimizer(const std::string& kind, NamedParameters params,
                                          const std::map<std::string, double>& scalars) {
  std::vector<ParamGroup> groups{ParamGroup(std::move(params), typed(kind, scalars))};
  if (kind == "SGD") return std::make_unique<SGD>(groups);
  if (kind == "Adam") return std::make_unique<Adam>(groups);
  if (kind == "AdamW") return std::make_unique<AdamW>(groups);
  if (kind == "RMSprop") return std::make_unique<RMSprop>(groups);
  if (kind == "Adagrad") return std::make_unique<Adagrad>(groups);
  if (kind == "Adadelta") return std::make_unique<Adadelta>(groups);
  if (kind == "Adamax") return std::make_unique<Adamax>(groups);
  if (kind == "NAdam") return std::make_unique<NAdam>(groups);
  if (kind == "RAdam") return std::make_unique<RAdam>(groups);
  ADD_FAILURE() << "unknown optimizer " << kind;
  return nullptr;
}

// The same values in a non-contiguous layout (taken through a dense copy by the update kernels).
Tensor strided_copy(const Tensor& t) {
  if (t.dim() == 2) return t.t().contiguous().t();
  return stack({t, t}, 1).select(1, 0);
}

// Runs one fixture case, comparing the parameters at every recorded step.
void run_case(const std::string& name, const FixtureCase& c, bool strided) {
  const FixtureCase& init = fixture().at("init");
  DType dtype = c.strings.at("dtype") == "float32" ? kFloat32 : kFloat64;
  double rtol = dtype == kFloat32 ? 1e-5 : 1e-6;
  double atol = dtype == kFloat32 ? 1e-6 : 1e-12;
  Tensor w = init.tensor("w").to(dtype).clone(), b = init.tensor("b").to(dtype).clone();
  w.set_requires_grad(true);
  b.set_requires_grad(true);
  auto opt = make_optimizer(c.strings.at("optimizer"), {{"w", w}, {"b", b}}, c.scalars);
  ASSERT_TRUE(opt);
  Tensor gw = init.tensor("gw").to(dtype), gb = init.tensor("gb").to(dtype);
  for (int64_t t = 0; t < 100; ++t) {
    Tensor g1 = gw.select(0, t).contiguous(), g2 = gb.select(0, t).contiguous();
    w.set_grad(strided ? strided_copy(g1) : g1);
    b.set_grad(strided ? strided_copy(g2) : g2);
    opt->step();
    std::string k = std::to_string(t + 1);
    if (c.tensors.contains("w_" + k)) {
      std::string what = name + (strided ? " (strided)" : "") + " step " + k;
      ember::testing::expect_close(w, c.tensor("w_" + k), rtol, atol, what + " w");
      ember::testing::expect_close(b, c.tensor("b_" + k), rtol, atol, what + " b");
    }
  }
}

void run_all(const std::string& prefix, bool strided) {
  int checked = 0;
  for (const auto& [name, c] : fixture()) {
    if (name.rfind(prefix, 0) != 0) continue;
    SCOPED_TRACE(name);
    run_case(name, c, strided);
    ++checked;
  }
  EXPECT_GE(checked, 6) << "too few fixture cases for " << prefix;
}

}  // namespace

TEST(OptimReferenceTest, SGDMatchesTorch) { run_all("sgd_", false); }
TEST(OptimReferenceTest, AdamMatchesTorch) { run_all("adam_", false); }
TEST(OptimReferenceTest, AdamWMatchesTorch) { run_all("adamw_", false); }
TEST(OptimReferenceTest, RMSpropMatchesTorch) { run_all("rmsprop_", false); }
TEST(OptimReferenceTest, AdagradMatchesTorch) { run_all("adagrad_", false); }

TEST(OptimReferenceTest, SGDTensorOpPathMatchesTorch) { run_all("sgd_", true); }
TEST(OptimReferenceTest, AdamTensorOpPathMatchesTorch) { run_all("adam_", true); }
TEST(OptimReferenceTest, AdamWTensorOpPathMatchesTorch) { run_all("adamw_", true); }
TEST(OptimReferenceTest, RMSpropTensorOpPathMatchesTorch) { run_all("rmsprop_", true); }
TEST(OptimReferenceTest, AdagradTensorOpPathMatchesTorch) { run_all("adagrad_", true); }
TEST(OptimReferenceTest, AdadeltaMatchesTorch) { run_all("adadelta_", false); }
TEST(OptimReferenceTest, AdamaxMatchesTorch) { run_all("adamax_", false); }
TEST(OptimReferenceTest, NAdamMatchesTorch) { run_all("nadam_", false); }
TEST(OptimReferenceTest, RAdamMatchesTorch) { run_all("radam_", false); }
TEST(OptimReferenceTest, AdadeltaOnStridedGradientsMatchesTorch) { run_all("adadelta_", true); }
TEST(OptimReferenceTest, AdamaxOnStridedGradientsMatchesTorch) { run_all("adamax_", true); }
TEST(OptimReferenceTest, NAdamOnStridedGradientsMatchesTorch) { run_all("nadam_", true); }
TEST(OptimReferenceTest, RAdamOnStridedGradientsMatchesTorch) { run_all("radam_", true); }
