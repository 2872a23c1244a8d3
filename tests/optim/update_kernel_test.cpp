// The optimizers' update kernels (core/kernels/optim.h, the only path Ember's optimizers take)
// against the tensor-op oracle (update_oracle.h) on every setting, dtype and shape (0-d, 7-D,
// empty), and through Optimizer::step on non-contiguous parameters and gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "ember/optim/optim.h"
#include "support/expect.h"
#include "update_oracle.h"

using namespace ember;
using ember::testing::expect_close;

namespace {

const std::vector<std::vector<int64_t>> kShapes = {{}, {5}, {3, 4}, {1, 2, 1, 3, 1, 2, 1}, {0, 3}, {67}};

struct Case {
  std::string name;
  int states;  // state tensors the kernel takes after param and grad
  std::function<void(const std::vector<Tensor>&, int step)> kernel, oracle;
};

// Runs `c` for 6 steps on random data in `dtype` and `shape`: the kernel on one copy, the oracle
// on another, comparing the parameter and every state tensor after each step.
void check(const Case& c, DType dtype, const std::vector<int64_t>& shape) {
  SCOPED_TRACE(c.name + " " + std::string(dtype_name(dtype)) + " " + shape_str(shape));
  Generator gen(11);
  std::vector<Tensor> k, o;
  for (int i = 0; i < 1 + c.states; ++i) {
    // The parameter anywhere; state positive and shrinking with its index, so that RMSprop's
    // centred square_avg - grad_avg^2 (states 1 and 2) stays positive.
    Tensor t = i == 0 ? randn(shape, dtype, &gen) : (rand(shape, dtype, &gen) + 1.0) / double(i * i);
    k.push_back(t.clone());
    o.push_back(t.clone());
  }
  const double rtol = dtype == kFloat32 ? 2e-6 : 1e-13, atol = dtype == kFloat32 ? 1e-6 : 1e-14;
  for (int step = 1; step <= 6; ++step) {
    Tensor g = randn(shape, dtype, &gen);
    std::vector<Tensor> kk{k[0], g}, oo{o[0], g};
    kk.insert(kk.end(), k.begin() + 1, k.end());
    oo.insert(oo.end(), o.begin() + 1, o.end());
    c.kernel(kk, step);
    c.oracle(oo, step);
    for (size_t i = 0; i < k.size(); ++i) expect_close(k[i], o[i], rtol, atol, "tensor " + std::to_string(i));
  }
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (double momentum : {0.0, 0.9})
    for (bool nesterov : {false, true})
      for (double wd : {0.0, 0.01})
        for (bool maximize : {false, true}) {
          if (nesterov && momentum == 0) continue;
          auto args = [=](int step) {
            return SgdStep{0.05, wd, momentum, nesterov ? 0.0 : 0.1, nesterov, maximize, step == 1};
          };
          auto buf = [=](const std::vector<Tensor>& t) { return momentum != 0 ? t[2] : Tensor(); };
          out.push_back({"SGD momentum=" + std::to_string(momentum) + " nesterov=" + std::to_string(nesterov) +
                             " wd=" + std::to_string(wd) + " maximize=" + std::to_string(maximize),
                         1,
                         [=](const std::vector<Tensor>& t, int s) { sgd_step_stub(DeviceType::CPU, t[0], t[1], buf(t), args(s)); },
                         [=](const std::vector<Tensor>& t, int s) { ember::testing::sgd_oracle(t[0], t[1], buf(t), args(s)); }});
        }
  for (bool amsgrad : {false, true})
    for (bool decoupled : {false, true})
      for (bool maximize : {false, true}) {
        auto args = [=](int step) {
          double lr = 0.01, b1 = 0.9, b2 = 0.999, wd = 0.02;
          return AdamStep{b1, b2, 1e-8, wd, amsgrad, maximize, decoupled, lr / (1 - std::pow(b1, step)),
                          std::sqrt(1 - std::pow(b2, step)), 1 - lr * wd};
        };
        auto vmax = [=](const std::vector<Tensor>& t) { return amsgrad ? t[4] : Tensor(); };
        out.push_back({"Adam amsgrad=" + std::to_string(amsgrad) + " decoupled=" + std::to_string(decoupled) +
                           " maximize=" + std::to_string(maximize),
                       3,
                       [=](const std::vector<Tensor>& t, int s) { adam_step_stub(DeviceType::CPU, t[0], t[1], t[2], t[3], vmax(t), args(s)); },
                       [=](const std::vector<Tensor>& t, int s) { ember::testing::adam_oracle(t[0], t[1], t[2], t[3], vmax(t), args(s)); }});
      }
  for (bool centered : {false, true})
    for (double momentum : {0.0, 0.5})
      for (double wd : {0.0, 0.1}) {
        RmspropStep a{0.01, 0.99, 1e-8, wd, momentum, centered, wd != 0};
        auto ga = [=](const std::vector<Tensor>& t) { return centered ? t[3] : Tensor(); };
        auto buf = [=](const std::vector<Tensor>& t) { return momentum > 0 ? t[4] : Tensor(); };
        out.push_back({"RMSprop centered=" + std::to_string(centered) + " momentum=" + std::to_string(momentum) +
                           " wd=" + std::to_string(wd),
                       3,
                       [=](const std::vector<Tensor>& t, int) { rmsprop_step_stub(DeviceType::CPU, t[0], t[1], t[2], ga(t), buf(t), a); },
                       [=](const std::vector<Tensor>& t, int) { ember::testing::rmsprop_oracle(t[0], t[1], t[2], ga(t), buf(t), a); }});
      }
  for (double wd : {0.0, 0.1})
    for (bool maximize : {false, true}) {
      AdagradStep a{0.1 / (1 + 0.01), wd, 1e-10, maximize};
      out.push_back({"Adagrad wd=" + std::to_string(wd) + " maximize=" + std::to_string(maximize), 1,
                     [=](const std::vector<Tensor>& t, int) { adagrad_step_stub(DeviceType::CPU, t[0], t[1], t[2], a); },
                     [=](const std::vector<Tensor>& t, int) { ember::testing::adagrad_oracle(t[0], t[1], t[2], a); }});
    }
  return out;
}

}  // namespace

TEST(UpdateKernelTest, EveryKernelMatchesTheTensorOpOracle) {
  std::vector<Case> all = cases();
  EXPECT_EQ(all.size(), 12u + 8u + 8u + 4u);
  for (const Case& c : all)
    for (DType dtype : {kFloat32, kFloat64})
      for (const auto& shape : kShapes) check(c, dtype, shape);
}

// A parameter or gradient the kernels cannot take as it is goes through a dense copy: the result
// is bitwise the one a dense parameter gets.
TEST(UpdateKernelTest, NonContiguousParametersAndGradientsTakeTheSamePath) {
  for (const char* kind : {"SGD", "Adam", "RMSprop", "Adagrad"}) {
    SCOPED_TRACE(kind);
    Generator gen(3);
    Tensor base = randn({4, 6}, kFloat64, &gen);
    Tensor dense = base.clone().set_requires_grad();
    Tensor strided = base.t().contiguous().t().set_requires_grad();  // same values, column-major
    ASSERT_FALSE(strided.is_contiguous());
    auto make = [&](const Tensor& p) -> std::unique_ptr<optim::Optimizer> {
      optim::NamedParameters ps{{"w", p}};
      std::string k = kind;
      if (k == "SGD") return std::make_unique<optim::SGD>(ps, optim::SGDOptions{.lr = 0.1, .momentum = 0.9});
      if (k == "Adam") return std::make_unique<optim::Adam>(ps, optim::AdamOptions{.lr = 0.01});
      if (k == "RMSprop") return std::make_unique<optim::RMSprop>(ps, optim::RMSpropOptions{.lr = 0.01, .centered = true});
      return std::make_unique<optim::Adagrad>(ps, optim::AdagradOptions{.lr = 0.1});
    };
    auto a = make(dense), b = make(strided);
    for (int step = 0; step < 4; ++step) {
      Tensor g = randn({4, 6}, kFloat64, &gen);
      dense.set_grad(g);
      strided.set_grad(g.t().contiguous().t());  // a non-contiguous gradient too
      a->step();
      b->step();
      EXPECT_EQ(dense.to_vector<double>(), strided.to_vector<double>()) << "step " << step;
    }
    EXPECT_FALSE(strided.is_contiguous());  // written back in place, not replaced
  }
}
