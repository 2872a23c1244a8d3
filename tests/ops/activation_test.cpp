#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "ember/ops/activation.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;
using ember::testing::expect_values_near;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double gelu_ref(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }
double gelu_tanh_ref(double x) {
  return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

// gradcheck of fn on float64 inputs in [lo, hi]: a plain [3, 4] tensor, the transpose of one
// (non-contiguous), a 0-d tensor, and a sum of the output (the gradient arrives expanded, with
// stride 0, at the activation's node).
void check_grads(const std::function<Tensor(const Tensor&)>& fn, double lo = -3, double hi = 3) {
  Generator gen(11);
  auto draw = [&](IntArrayRef shape) {
    return (rand(shape, kFloat64, &gen) * (hi - lo) + lo).set_requires_grad();
  };
  gradcheck([&](const TensorList& in) { return fn(in[0]); }, {draw({3, 4})});
  gradcheck([&](const TensorList& in) { return fn(in[0].t()); }, {draw({4, 3})});
  gradcheck([&](const TensorList& in) { return fn(in[0]); }, {draw({})});
  gradcheck([&](const TensorList& in) { return fn(in[0]).sum(); }, {draw({2, 5})});
}

// The first derivative from the fused kernel (plain backward) and from the differentiable
// formula (create_graph) agree. `smooth`: the derivative depends on x (not so for relu).
void expect_fused_matches_composite(const std::function<Tensor(const Tensor&)>& fn, bool smooth = true) {
  Tensor x = (randn({64}, kFloat64) * 3.0).set_requires_grad();
  Tensor g = randn({64}, kFloat64);
  Tensor fused = autograd::grad({fn(x)}, {x}, {g})[0];
  Tensor composite = autograd::grad({fn(x)}, {x}, {g}, true, /*create_graph=*/true)[0];
  EXPECT_EQ(composite.requires_grad(), smooth);
  expect_values_near(fused, composite.detach().to_vector<double>(), 1e-12, 1e-12);
}

}  // namespace

TEST(ActivationTest, TanhAndSigmoidValues) {
  std::vector<double> xs = {-20, -1, 0, 0.5, 20};
  std::vector<double> th, sg;
  for (double v : xs) {
    th.push_back(std::tanh(v));
    sg.push_back(1 / (1 + std::exp(-v)));
  }
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor x = tensor(xs).to(dtype);
    expect_values_near(tanh(x), th);
    expect_values_near(sigmoid(x), sg);
    EXPECT_EQ(x.tanh().dtype(), dtype);
    EXPECT_EQ(x.sigmoid().dtype(), dtype);
  }
  // Far tails keep their relative accuracy: sigmoid(-100) = e^-100, not 0.
  expect_values_near(sigmoid(tensor({-100.0})), {std::exp(-100.0)}, 1e-9, 1e-9);
}

TEST(ActivationTest, NanPropagates) {
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor x = tensor({kNaN, 1.0}).to(dtype);
    expect_values_near(tanh(x), {kNaN, std::tanh(1.0)});
    expect_values_near(sigmoid(x), {kNaN, 1 / (1 + std::exp(-1.0))});
    expect_values_near(relu(x), {kNaN, 1.0});
    expect_values_near(gelu(x), {kNaN, gelu_ref(1.0)});
    expect_values_near(leaky_relu(x), {kNaN, 1.0});
  }
}

TEST(ActivationTest, IntegerInputs) {
  Tensor i = tensor<int64_t>({-2, 0, 3});
  EXPECT_EQ(tanh(i).dtype(), kFloat32);
  EXPECT_EQ(sigmoid(i).dtype(), kFloat32);
  Tensor r = relu(i);
  EXPECT_EQ(r.dtype(), kInt64);
  EXPECT_EQ(r.to_vector<int64_t>(), (std::vector<int64_t>{0, 0, 3}));
  EXPECT_EQ(relu(tensor<uint8_t>({0, 7})).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 7}));
}

TEST(ActivationTest, ReluAndLeakyReluValues) {
  Tensor x = tensor({-2.0f, -0.0f, 0.5f, 3.0f});
  expect_values_near(relu(x), {0, 0, 0.5, 3});
  expect_values_near(x.relu(), {0, 0, 0.5, 3});
  expect_values_near(leaky_relu(x), {-0.02, 0, 0.5, 3});
  expect_values_near(leaky_relu(x, 0.2), {-0.4, 0, 0.5, 3});
}

TEST(ActivationTest, HardtanhClampsAndPassesItsGradientStrictlyBetweenTheBounds) {
  const double inf = std::numeric_limits<double>::infinity();
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor x = tensor({-inf, -3.0, -0.5, -0.25, 0.0, 1.0, 2.0, 7.0, inf, kNaN}).to(dtype).set_requires_grad();
    Tensor y = hardtanh(x, -0.5, 2.0);
    EXPECT_EQ(y.dtype(), dtype);
    expect_values_near(y, {-0.5, -0.5, -0.5, -0.25, 0, 1, 2, 2, 2, kNaN});
    y.backward(full({10}, 3.0, dtype));
    // 0 at and past the bounds; a NaN passes the gradient (PyTorch's hardtanh_backward)
    expect_values_near(x.grad(), {0, 0, 0, 3, 3, 3, 0, 0, 0, 3});
  }
  expect_values_near(hardtanh(tensor({-2.0, 0.5, 2.0})), {-1, 0.5, 1});  // the defaults: [-1, 1]
  // relu6 as users write it; one bound equal to the other is allowed
  expect_values_near(hardtanh(tensor({-1.0, 3.0, 9.0}), 0, 6), {0, 3, 6});
  expect_values_near(hardtanh(tensor({-1.0, 3.0}), 2, 2), {2, 2});
}

TEST(ActivationTest, HardtanhKeepsIntegersAndRefusesBadInput) {
  // PyTorch's rule: the bounds are truncated to the integer type and do not promote it
  Tensor r = hardtanh(tensor<int64_t>({-3, 0, 5}), -1.5, 2.7);
  EXPECT_EQ(r.dtype(), kInt64);
  EXPECT_EQ(r.to_vector<int64_t>(), (std::vector<int64_t>{-1, 0, 2}));
  EXPECT_EQ(hardtanh(tensor<uint8_t>({0, 9}), 0, 6).to_vector<uint8_t>(), (std::vector<uint8_t>{0, 6}));
  expect_error([] { hardtanh(tensor<uint8_t>({1})); }, {"hardtanh", "unsigned", "negative"});
  expect_error([] { hardtanh(tensor(std::vector<bool>{true})); }, {"hardtanh", "Bool"});
  expect_error([] { hardtanh(ones({2}), 1, 0); }, {"hardtanh", "min_val (1)", "max_val (0)"});
  expect_error([] { hardtanh(ones({2}, kComplex64)); }, {"hardtanh", "complex64"});
}

TEST(ActivationTest, GeluExactAndTanhApproximation) {
  std::vector<double> xs = {-3, -1, 0, 0.5, 1, 4};
  std::vector<double> exact, approx;
  for (double v : xs) {
    exact.push_back(gelu_ref(v));
    approx.push_back(gelu_tanh_ref(v));
  }
  for (DType dtype : {kFloat32, kFloat64}) {
    Tensor x = tensor(xs).to(dtype);
    expect_values_near(gelu(x), exact);
    expect_values_near(gelu(x, "tanh"), approx);
  }
  // PyTorch: gelu(1) = 0.8413447, gelu(1, approximate='tanh') = 0.8411920.
  expect_values_near(gelu(tensor({1.0})), {0.8413447460685429});
  expect_values_near(gelu(tensor({1.0}), "tanh"), {0.8411919906082768});
}

TEST(ActivationTest, LongInputsTakeTheVectorisedPath) {
  Tensor x = linspace(-6, 6, 10007);
  std::vector<float> in = x.to_vector<float>();
  std::vector<float> t = tanh(x).to_vector<float>(), s = sigmoid(x).to_vector<float>();
  std::vector<float> g = gelu(x).to_vector<float>(), gt = gelu(x, "tanh").to_vector<float>();
  for (size_t k = 0; k < in.size(); ++k) {
    double v = in[k];
    ASSERT_NEAR(t[k], std::tanh(v), 2e-6) << v;
    ASSERT_NEAR(s[k], 1 / (1 + std::exp(-v)), 2e-6) << v;
    ASSERT_NEAR(g[k], gelu_ref(v), 2e-6 * (1 + std::fabs(v))) << v;
    ASSERT_NEAR(gt[k], gelu_tanh_ref(v), 2e-6 * (1 + std::fabs(v))) << v;
  }
}

TEST(ActivationTest, ErrorsNameTheOpAndArgument) {
  expect_error([] { relu(tensor(std::vector<bool>{true})); }, {"relu", "bool"});
  expect_error([] { gelu(tensor<int64_t>({1})); }, {"gelu", "int64"});
  expect_error([] { leaky_relu(tensor<int32_t>({1})); }, {"leaky_relu", "int32"});
  expect_error([] { gelu(ones({2}), "fast"); }, {"gelu", "approximate", "'fast'"});
  expect_error([] { tanh(ones({2}, kComplex64)); }, {"tanh", "complex64"});
}

TEST(ActivationTest, Gradcheck) {
  check_grads([](const Tensor& x) { return tanh(x); });
  check_grads([](const Tensor& x) { return sigmoid(x); });
  check_grads([](const Tensor& x) { return gelu(x); });
  check_grads([](const Tensor& x) { return gelu(x, "tanh"); });
  // relu and leaky_relu away from their kink at 0.
  check_grads([](const Tensor& x) { return relu(x + sign(x) * 0.1); });
  check_grads([](const Tensor& x) { return leaky_relu(x + sign(x) * 0.1, 0.3); });
  check_grads([](const Tensor& x) { return hardtanh(x, -0.45, 0.55); });
}

TEST(ActivationTest, ReluGradientAtZeroIsZero) {
  Tensor x = tensor({-1.0, 0.0, 2.0}).set_requires_grad();
  relu(x).sum().backward();
  expect_values_near(x.grad(), {0, 0, 1});
}

TEST(ActivationTest, FusedGradientMatchesTheDifferentiableFormula) {
  expect_fused_matches_composite([](const Tensor& x) { return tanh(x); });
  expect_fused_matches_composite([](const Tensor& x) { return sigmoid(x); });
  expect_fused_matches_composite([](const Tensor& x) { return relu(x); }, false);
  expect_fused_matches_composite([](const Tensor& x) { return leaky_relu(x, 0.1); }, false);
  expect_fused_matches_composite([](const Tensor& x) { return hardtanh(x, -0.5, 0.75); }, false);
  expect_fused_matches_composite([](const Tensor& x) { return gelu(x); });
  expect_fused_matches_composite([](const Tensor& x) { return gelu(x, "tanh"); });
}

TEST(ActivationTest, Gradgradcheck) {
  Tensor x = (randn({2, 3}, kFloat64) * 2.0).set_requires_grad();
  gradgradcheck([](const TensorList& in) { return tanh(in[0]); }, {x});
  gradgradcheck([](const TensorList& in) { return sigmoid(in[0]); }, {x});
  gradgradcheck([](const TensorList& in) { return gelu(in[0]); }, {x});
  gradgradcheck([](const TensorList& in) { return gelu(in[0], "tanh"); }, {x});
  Tensor away = (x.detach() + sign(x.detach()) * 0.1).set_requires_grad();
  gradgradcheck([](const TensorList& in) { return relu(in[0]) * in[0]; }, {away});
  gradgradcheck([](const TensorList& in) { return leaky_relu(in[0], 0.2) * in[0]; }, {away});
  gradgradcheck([](const TensorList& in) { return hardtanh(in[0], -1, 1.5) * in[0]; }, {away});
}

TEST(ActivationTest, SavedOutputModifiedInPlaceIsAnError) {
  Tensor x = ones({2}).set_requires_grad();
  Tensor y = tanh(x * 1.0);
  y.mul_(2.0);
  expect_error([&] { y.sum().backward(); }, {"modified by an in-place operation", "TanhBackward"});
}
