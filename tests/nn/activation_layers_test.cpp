// The activation layers and their functional forms: first and second derivatives against finite
// differences (away from the kinks), PyTorch's gradients where autograd's way would give NaN, the
// 16-bit inputs computed in float32, printing as PyTorch's, and the refusals.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember::testing::expect_close;
using ember::testing::expect_error;

namespace {

// Inputs in float64 kept 0.1 away from every kink (0, +-0.5, +-3, the thresholds used below).
Tensor smooth_inputs(DimVector shape) {
  manual_seed(7);
  Tensor x = randn(shape, kFloat64) * 2.0;
  Tensor step = lt(abs(x - round(x * 2.0) / 2.0), 0.1).to(kFloat64) * 0.13;
  return (x + step).set_requires_grad();
}

}  // namespace

TEST(ActivationLayersTest, FirstAndSecondDerivativesMatchFiniteDifferences) {
  Tensor x = smooth_inputs({3, 4});
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> cases = {
      {"silu", [](const Tensor& t) { return F::silu(t); }},
      {"mish", [](const Tensor& t) { return F::mish(t); }},
      {"elu", [](const Tensor& t) { return F::elu(t, 0.7); }},
      {"celu", [](const Tensor& t) { return F::celu(t, 1.3); }},
      {"selu", [](const Tensor& t) { return F::selu(t); }},
      {"softplus", [](const Tensor& t) { return F::softplus(t, 2.0, 3.0); }},
      {"hardswish", [](const Tensor& t) { return F::hardswish(t); }},
      {"softsign", [](const Tensor& t) { return F::softsign(t); }},
      {"softmin", [](const Tensor& t) { return F::softmin(t, 1); }},
      {"glu", [](const Tensor& t) { return F::glu(t, 1); }},
      {"tanhshrink", [](const Tensor& t) { return F::tanhshrink(t); }},
      {"softshrink", [](const Tensor& t) { return F::softshrink(t, 0.4); }},
      {"logsigmoid", [](const Tensor& t) { return F::logsigmoid(t); }},
      {"rrelu eval", [](const Tensor& t) { return F::rrelu(t); }},
  };
  for (const auto& [name, fn] : cases) {
    SCOPED_TRACE(name);
    auto f = [&fn](const autograd::TensorList& t) { return fn(t[0]); };
    EXPECT_NO_THROW(autograd::gradcheck(f, {x}));
    EXPECT_NO_THROW(autograd::gradgradcheck(f, {x}));
  }
}

TEST(ActivationLayersTest, GradientsArePyTorchsWhereTheCompositionWouldGiveNaN) {
  Tensor x = tensor(std::vector<float>{-1000.0f, 1000.0f, -90.0f}).set_requires_grad();
  sum(F::silu(x)).backward();
  expect_close(x.grad(), tensor(std::vector<float>{0.0f, 1.0f, 0.0f}), 0, 1e-30, "silu");
  Tensor y = tensor(std::vector<double>{-200.0, 200.0}).set_requires_grad();
  sum(F::mish(y)).backward();
  expect_close(y.grad(), tensor(std::vector<double>{0.0, 1.0}), 0, 1e-80, "mish");
  Tensor z = tensor(std::vector<double>{-4.0, -3.0, 0.0, 3.0, 4.0}).set_requires_grad();
  sum(F::hardswish(z)).backward();
  expect_close(z.grad(), tensor(std::vector<double>{0.0, 0.0, 0.5, 1.0, 1.0}), 0, 0, "hardswish");
  // rrelu at 0: the slope, as PyTorch's leaky_relu (the test script run against torch found 1 here)
  Tensor r = tensor(std::vector<double>{-0.0, 0.0, 1.0}).set_requires_grad();
  sum(F::rrelu(r)).backward();
  const double slope = (1.0 / 8 + 1.0 / 3) / 2;
  expect_close(r.grad(), tensor(std::vector<double>{slope, slope, 1.0}), 0, 0, "rrelu");
}

TEST(ActivationLayersTest, SixteenBitInputsComputeInFloat32) {
  Tensor x = tensor(std::vector<float>{-2.5f, -0.3f, 0.7f, 4.0f}).to(kBFloat16);
  for (auto fn : {+[](const Tensor& t) { return F::silu(t); }, +[](const Tensor& t) { return F::elu(t); },
                  +[](const Tensor& t) { return F::mish(t); }, +[](const Tensor& t) { return F::logsigmoid(t); }}) {
    Tensor y = fn(x);
    EXPECT_EQ(y.dtype(), kBFloat16);
    expect_close(y, fn(x.to(kFloat32)).to(kBFloat16), 0, 0);
  }
}

TEST(ActivationLayersTest, LayersForwardTheirOptionsAndPrintAsPyTorch) {
  Tensor x = smooth_inputs({2, 6}).detach();
  expect_close(nn::ELU({0.5}).forward(x), F::elu(x, 0.5), 0, 0);
  expect_close(nn::Softplus({2.0, 1.0}).forward(x), F::softplus(x, 2.0, 1.0), 0, 0);
  expect_close(nn::Hardtanh({-0.5, 2.0}).forward(x), hardtanh(x, -0.5, 2.0), 0, 0);
  expect_close(nn::Threshold({0.1, 20.0}).forward(x), F::threshold(x, 0.1, 20.0), 0, 0);
  expect_close(nn::GLU().forward(x), F::glu(x, -1), 0, 0);
  expect_close(nn::LogSoftmax({0}).forward(x), log_softmax(x, 0), 0, 0);
  expect_close(nn::Softmin({1}).forward(x), softmax(neg(x), 1), 0, 0);
  expect_close(nn::ReLU6().forward(x * 5.0), clamp(x * 5.0, Scalar(0.0), Scalar(6.0)), 0, 0);
  nn::RReLU rrelu;
  rrelu.eval();
  expect_close(rrelu.forward(x), where(ge(x, 0), x, x * ((1.0 / 8 + 1.0 / 3) / 2)), 0, 0);
  rrelu.train();
  Tensor slopes = rrelu.forward(full({1000}, -1.0, kFloat64)) * -1.0;
  EXPECT_GE(amin(slopes).item<double>(), 1.0 / 8);
  EXPECT_LE(amax(slopes).item<double>(), 1.0 / 3);

  EXPECT_EQ(nn::ELU().extra_repr(), "alpha=1.0");
  EXPECT_EQ(nn::Softplus().extra_repr(), "beta=1.0, threshold=20.0");
  EXPECT_EQ(nn::RReLU().extra_repr(), "lower=0.125, upper=0.3333333333333333");
  EXPECT_EQ(nn::Softshrink({0.25}).extra_repr(), "0.25");
  EXPECT_EQ(nn::LogSoftmax({1}).extra_repr(), "dim=1");
  EXPECT_EQ(nn::SiLU().extra_repr(), "");
}

TEST(ActivationLayersTest, RefusalsNameTheProblem) {
  expect_error<TypeError>([] { F::elu(tensor(std::vector<int64_t>{1, 2})); }, {"elu", "int64"});
  expect_error<ValueError>([] { F::celu(zeros({2}), 0.0); }, {"celu", "alpha"});
  expect_error<Error>([] { F::glu(zeros({2, 3}), 1); }, {"glu", "even", "size 3"});
  expect_error<ValueError>([] { nn::Softshrink({-1.0}); }, {"lambda", "-1"});
  expect_error<ValueError>([] { nn::Softmax2d().forward(zeros({2, 3})); }, {"Softmax2d", "3D or 4D", "2D"});
}
