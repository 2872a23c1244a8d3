// The float32 convolutions conv_kernel.cpp routes to oneDNN's direct kernels (direct_wins): an image
// stem, depthwise layers, 3x3 layers over few channels or into small planes, 1x1 layers into tiny
// planes and the input gradient of wide ones. Through the public op and autograd, at 1, 2 and 3 threads: forward and both gradients
// against float64, the same bits when run again, and the same bits as the direct kernels called
// themselves (the route is really taken) for the passes the heuristic gives them.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ember/core/cpu/conv_onednn.h"
#include "ember/core/cpu/conv_taps.h"
#include "ember/ember.h"
#include "support/expect.h"
#include "ember/ops/conv.h"

using namespace ember;
using ember::testing::error_of_scale;
using ember::testing::same_bits;
using cpu::ConvAlgorithm;

namespace {

struct Case {
  const char* what;
  std::vector<int64_t> x, w;
  Conv2dParams p;
  bool forward, input_grad, weight_grad;  // the passes the heuristic routes to the direct kernels
};

const std::vector<Case> kCases = {
    {"ResNet stem", {4, 3, 20, 20}, {16, 3, 7, 7}, {2, 3, 1, 1}, true, false, true},
    {"depthwise stride 2", {3, 24, 9, 9}, {24, 1, 3, 3}, {2, 1, 1, 24}, true, true, true},
    {"depthwise, one sample", {1, 32, 6, 6}, {32, 1, 3, 3}, {1, 1, 1, 32}, true, true, true},
    {"3x3 over 32 channels", {2, 32, 10, 10}, {16, 32, 3, 3}, {1, 1, 1, 1}, true, true, false},
    {"3x3 into 2x2 planes", {3, 128, 4, 4}, {64, 128, 3, 3}, {2, 1, 1, 1}, true, true, false},
    {"1x1 into 2x2 planes", {5, 96, 2, 2}, {576, 96, 1, 1}, {1, 0, 1, 1}, true, true, false},
    {"1x1, wide, into 4x4 planes", {2, 512, 4, 4}, {64, 512, 1, 1}, {1, 0, 1, 1}, false, true, false},
};

Tensor draw(IntArrayRef shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, kFloat32, &gen);
}

struct Passes {
  Tensor out, grad_input, grad_weight;
};

Passes through_autograd(const Case& c, const Tensor& x, const Tensor& w, const Tensor& g) {
  Tensor xr = x.detach().clone().set_requires_grad(), wr = w.detach().clone().set_requires_grad();
  Tensor y = detail::conv2d_4d(xr, wr, Tensor(), c.p);
  y.backward(g.to(y.dtype()));
  return {y.detach(), xr.grad(), wr.grad()};
}

class RestoreThreads {
 public:
  RestoreThreads() : threads_(get_num_threads()) {}
  ~RestoreThreads() { set_num_threads(threads_); }

 private:
  int threads_;
};

}  // namespace

TEST(ConvPathsTest, RoutedShapesMatchFloat64AndTakeTheDirectKernels) {
  RestoreThreads restore;
  uint64_t seed = 1;
  for (const Case& c : kCases) {
    Tensor x = draw(c.x, seed++), w = draw(c.w, seed++);
    Tensor y0 = detail::conv2d_4d(x, w, Tensor(), c.p);
    Tensor g = draw(y0.sizes(), seed++);
    const Passes exact = through_autograd(c, x.to(kFloat64), w.to(kFloat64), g);
    for (int threads : {1, 2, 3}) {
      set_num_threads(threads);
      const std::string what = std::string(c.what) + ", " + std::to_string(threads) + " threads";
      const Passes got = through_autograd(c, x, w, g);
      EXPECT_LE(error_of_scale(got.out, exact.out), 1e-5) << what << ": output";
      EXPECT_LE(error_of_scale(got.grad_input, exact.grad_input), 1e-5) << what << ": input gradient";
      EXPECT_LE(error_of_scale(got.grad_weight, exact.grad_weight), 1e-5) << what << ": weight gradient";
      const Passes again = through_autograd(c, x, w, g);
      EXPECT_TRUE(same_bits(again.out, got.out) && same_bits(again.grad_input, got.grad_input) &&
                  same_bits(again.grad_weight, got.grad_weight))
          << what << ": not the same bits when run again";
      // The direct kernels called themselves give the routed passes' bits.
      Tensor out = ember::empty(got.out.sizes()), gi = ember::empty(c.x), gw = ember::empty(c.w);
      ASSERT_TRUE(cpu::onednn_conv2d(ConvAlgorithm::Direct, out, x, w, Tensor(), c.p)) << what;
      ASSERT_TRUE(cpu::onednn_conv2d_input_grad(ConvAlgorithm::Direct, gi, g, w, c.p)) << what;
      ASSERT_TRUE(cpu::onednn_conv2d_weight_grad(ConvAlgorithm::Direct, gw, g, x, c.p)) << what;
      if (c.forward) EXPECT_TRUE(same_bits(out, got.out)) << what << ": forward not routed";
      if (c.input_grad) EXPECT_TRUE(same_bits(gi, got.grad_input)) << what << ": input gradient not routed";
      if (c.weight_grad) EXPECT_TRUE(same_bits(gw, got.grad_weight)) << what << ": weight gradient not routed";
    }
  }
}

namespace {

// conv2d, its input gradient and its weight gradient by their definitions, in double: the oracle
// that shares no code with the kernels.
Passes naive(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& g, const Conv2dParams& p) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3), O = w.size(0), kH = w.size(2),
                kW = w.size(3), oH = g.size(2), oW = g.size(3), G = p.groups, Cg = C / G, Og = O / G;
  const std::vector<double> xv = x.to(kFloat64).to_vector<double>(), wv = w.to(kFloat64).to_vector<double>(),
                            gv = g.to(kFloat64).to_vector<double>();
  std::vector<double> out(static_cast<size_t>(N * O * oH * oW)), gx(xv.size()), gw(wv.size());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t oh = 0; oh < oH; ++oh)
        for (int64_t ow = 0; ow < oW; ++ow) {
          const size_t at = static_cast<size_t>(((n * O + o) * oH + oh) * oW + ow);
          double sum = b.defined() ? b.to(kFloat64).to_vector<double>()[static_cast<size_t>(o)] : 0.0;
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t i = 0; i < kH; ++i)
              for (int64_t j = 0; j < kW; ++j) {
                const int64_t ih = oh * p.stride.h - p.padding.h + i * p.dilation.h,
                              iw = ow * p.stride.w - p.padding.w + j * p.dilation.w;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                const size_t xi = static_cast<size_t>(((n * C + o / Og * Cg + c) * H + ih) * W + iw);
                const size_t wi = static_cast<size_t>(((o * Cg + c) * kH + i) * kW + j);
                sum += xv[xi] * wv[wi];
                gx[xi] += gv[at] * wv[wi];
                gw[wi] += gv[at] * xv[xi];
              }
          out[at] = sum;
        }
  return {ember::tensor(out, g.sizes()), ember::tensor(gx, x.sizes()), ember::tensor(gw, w.sizes())};
}

}  // namespace

// Strided 1x1 convolutions (gathered, then stride 1) and 1x1 ones into one position per sample or
// into small planes (one GEMM over the batch's pixels), in float32 and float64, against the definition.
TEST(ConvPathsTest, StridedAndSmallPlaneUnitConvolutionsMatchTheDefinition) {
  RestoreThreads restore;
  struct Unit {
    std::vector<int64_t> x, w;
    Size2 stride;
    bool bias;
  };
  const std::vector<Unit> units = {
      {{3, 16, 8, 8}, {24, 16, 1, 1}, 2, true},    // even size: the last row and column unread
      {{4, 32, 2, 2}, {64, 32, 1, 1}, 2, false},   // into one position
      {{2, 8, 7, 9}, {5, 8, 1, 1}, {2, 3}, true},  // odd sizes, unequal strides
      {{5, 40, 1, 1}, {12, 40, 1, 1}, 1, true},    // one position, stride 1
      {{1, 6, 4, 4}, {3, 6, 1, 1}, 2, false},      // one sample
      {{0, 6, 4, 4}, {3, 6, 1, 1}, 2, true},       // no samples
      // the batch's pixels as the rows of one product (C * O >= 2^17, planes of up to 16 positions)
      {{3, 512, 2, 2}, {256, 512, 1, 1}, 1, true},    // 2x2 planes
      {{2, 256, 4, 4}, {1024, 256, 1, 1}, 1, false},  // 4x4 planes
      {{3, 512, 5, 3}, {512, 512, 1, 1}, 2, true},    // strided, gathered into 3x2 planes
  };
  uint64_t seed = 100;
  for (const Unit& u : units)
    for (DType dtype : {kFloat32, kFloat64})
      for (int threads : {1, 2}) {
        set_num_threads(threads);
        const Conv2dParams p{u.stride, 0, 1, 1};
        Tensor x = draw(u.x, seed++).to(dtype), w = draw(u.w, seed++).to(dtype);
        Tensor b = u.bias ? draw({u.w[0]}, seed++).to(dtype) : Tensor();
        Tensor y0 = detail::conv2d_4d(x, w, b, p);
        Tensor g = draw(y0.sizes(), seed++).to(dtype);
        Tensor xr = x.detach().clone().set_requires_grad(), wr = w.detach().clone().set_requires_grad();
        Tensor y = detail::conv2d_4d(xr, wr, b, p);
        y.backward(g);
        const Passes want = naive(x, w, b, g, p);
        const double tol = dtype == kFloat32 ? 1e-5 : 1e-12;
        const std::string what = "x " + detail::str(IntArrayRef(u.x)) + ", " + std::string(dtype_name(dtype)) + ", " +
                                 std::to_string(threads) + " threads";
        EXPECT_LE(error_of_scale(y.detach(), want.out), tol) << what << ": output";
        EXPECT_LE(error_of_scale(xr.grad(), want.grad_input), tol) << what << ": input gradient";
        EXPECT_LE(error_of_scale(wr.grad(), want.grad_weight), tol) << what << ": weight gradient";
      }
}

// Depthwise convolutions (the direct kernels forward and for the input gradient, the weight gradient
// by its definition into small planes and in float64) against the definition: strides, paddings,
// dilation, non-square kernels, one sample, planes of one position.
TEST(ConvPathsTest, DepthwiseMatchesTheDefinition) {
  RestoreThreads restore;
  struct Depthwise {
    std::vector<int64_t> x;
    int64_t k_h, k_w;
    Conv2dParams p;
  };
  const std::vector<Depthwise> cases = {
      {{4, 12, 4, 4}, 3, 3, {2, 1, 1, 12}},   // into 2x2 planes
      {{3, 8, 2, 2}, 3, 3, {2, 1, 1, 8}},     // into one position
      {{2, 6, 9, 7}, 3, 3, {1, 1, 1, 6}},     // 63 positions
      {{1, 5, 8, 8}, 5, 3, {{1, 2}, {2, 1}, 1, 5}},
      {{2, 4, 9, 9}, 3, 3, {1, 2, 2, 4}},     // dilation 2: im2col forward, the definition backward
  };
  uint64_t seed = 300;
  for (const Depthwise& d : cases)
    for (DType dtype : {kFloat32, kFloat64})
      for (int threads : {1, 2}) {
        set_num_threads(threads);
        Tensor x = draw(d.x, seed++).to(dtype), w = draw({d.x[1], 1, d.k_h, d.k_w}, seed++).to(dtype);
        Tensor g = draw(detail::conv2d_4d(x, w, Tensor(), d.p).sizes(), seed++).to(dtype);
        Tensor xr = x.detach().clone().set_requires_grad(), wr = w.detach().clone().set_requires_grad();
        Tensor y = detail::conv2d_4d(xr, wr, Tensor(), d.p);
        y.backward(g);
        const Passes want = naive(x, w, Tensor(), g, d.p);
        const double tol = dtype == kFloat32 ? 1e-5 : 1e-12;
        const std::string what = "x " + detail::str(IntArrayRef(d.x)) + ", " + std::string(dtype_name(dtype)) + ", " +
                                 std::to_string(threads) + " threads";
        EXPECT_LE(error_of_scale(y.detach(), want.out), tol) << what << ": output";
        EXPECT_LE(error_of_scale(xr.grad(), want.grad_input), tol) << what << ": input gradient";
        EXPECT_LE(error_of_scale(wr.grad(), want.grad_weight), tol) << what << ": weight gradient";
      }
}

// The direct kernels leave padding out of their sums; with an infinite weight (forward) or a NaN
// output gradient (weight gradient) beside a padded border, the answer is im2col's and PyTorch's,
// 0 * inf = NaN, as float64 (which never takes the direct kernels) gives it. Found by the random
// programs of tests/difffuzz: a stem's -inf weight tap on the bottom padding gave 0, not NaN.
TEST(ConvPathsTest, NonFiniteFactorsMeetThePaddingAsZerosOnEveryPath) {
  RestoreThreads restore;
  const Conv2dParams p{1, 1, 1, 1};
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    Tensor x = draw({2, 3, 6, 6}, 400), w = draw({4, 3, 3, 3}, 401);
    w.select(0, 1).select(0, 2).select(0, 2).fill_(-INFINITY);  // the bottom-right tap of filter 1
    Tensor g = draw({2, 4, 6, 6}, 402);
    g.select(0, 0).select(0, 3).select(0, 0).select(0, 0).fill_(NAN);  // a corner output, reading padding
    std::vector<Tensor> outs, grads;
    for (DType dtype : {kFloat32, kFloat64}) {
      Tensor xr = x.to(dtype).detach().clone().set_requires_grad();
      Tensor wr = w.to(dtype).detach().clone().set_requires_grad();
      Tensor y = detail::conv2d_4d(xr, wr, Tensor(), p);
      outs.push_back(y.detach().to(kFloat64));
      y.backward(g.to(dtype));
      grads.push_back(wr.grad().to(kFloat64));
    }
    const std::vector<double> y32 = outs[0].to_vector<double>(), y64 = outs[1].to_vector<double>();
    const std::vector<double> g32 = grads[0].to_vector<double>(), g64 = grads[1].to_vector<double>();
    int64_t nans = 0;
    for (size_t i = 0; i < y64.size(); ++i) {
      ASSERT_EQ(std::isnan(y32[i]), std::isnan(y64[i])) << "output " << i << ", " << threads << " threads";
      ASSERT_EQ(std::isinf(y32[i]), std::isinf(y64[i])) << "output " << i;
      nans += std::isnan(y64[i]);
    }
    EXPECT_GT(nans, 0);  // the tap meets the padding on the bottom row and right column
    for (size_t i = 0; i < g64.size(); ++i)
      ASSERT_EQ(std::isnan(g32[i]), std::isnan(g64[i])) << "weight gradient " << i << ", " << threads << " threads";
  }
}

// Convolutions into tiny planes as sums of per-tap products over the batch (core/cpu/conv_taps.h):
// into one position every pass, into 2 to 4 positions the weight gradient; centre taps, stride 2,
// a 5x5 kernel, dilation, a 1x2 plane, uneven batch shares, a small batch whose padding leaves a
// ninth of the products, and one the rule leaves to the other routes. Against the definition, at 1
// to 3 threads, the same bits again, and the same bits as the path called itself where it is taken.
TEST(ConvPathsTest, TinyPlanesAsTapSumsMatchTheDefinition) {
  RestoreThreads restore;
  struct Tiny {
    const char* what;
    std::vector<int64_t> x, w;
    Conv2dParams p;
    bool bias, product, weight_grad;  // the passes the path takes
  };
  const std::vector<Tiny> cases = {
      {"3x3 on 1x1, batch 16", {16, 32, 1, 1}, {24, 32, 3, 3}, {1, 1, 1, 1}, true, true, true},
      {"3x3 on 1x1, batch 4", {4, 16, 1, 1}, {8, 16, 3, 3}, {1, 1, 1, 1}, false, true, true},
      {"3x3 stride 2 into 1x1", {16, 16, 2, 2}, {20, 16, 3, 3}, {2, 1, 1, 1}, true, true, true},
      {"5x5 on 1x1, batch 17", {17, 8, 1, 1}, {5, 8, 5, 5}, {1, 2, 1, 1}, true, true, true},
      {"3x3 into 2x2", {16, 8, 2, 2}, {12, 8, 3, 3}, {1, 1, 1, 1}, false, false, true},
      {"3x3 into 1x2", {16, 8, 1, 2}, {6, 8, 3, 3}, {1, 1, 1, 1}, true, false, true},
      {"dilation 2 into 2x2", {16, 8, 2, 2}, {4, 8, 3, 3}, {1, 2, 2, 1}, false, false, true},
      {"3x3 into 2x2, batch 8", {8, 8, 2, 2}, {4, 8, 3, 3}, {1, 1, 1, 1}, false, false, false},
  };
  uint64_t seed = 500;
  for (const Tiny& c : cases) {
    Tensor x = draw(c.x, seed++), w = draw(c.w, seed++), b = c.bias ? draw({c.w[0]}, seed++) : Tensor();
    Tensor g = draw(detail::conv2d_4d(x, w, b, c.p).sizes(), seed++);
    const Passes want = naive(x, w, b, g, c.p);
    for (int threads : {1, 2, 3}) {
      set_num_threads(threads);
      const std::string what = std::string(c.what) + ", " + std::to_string(threads) + " threads";
      Tensor xr = x.detach().clone().set_requires_grad(), wr = w.detach().clone().set_requires_grad();
      Tensor y = detail::conv2d_4d(xr, wr, b, c.p);
      y.backward(g);
      EXPECT_LE(error_of_scale(y.detach(), want.out), 1e-5) << what << ": output";
      EXPECT_LE(error_of_scale(xr.grad(), want.grad_input), 1e-5) << what << ": input gradient";
      EXPECT_LE(error_of_scale(wr.grad(), want.grad_weight), 1e-5) << what << ": weight gradient";
      Tensor out = ember::empty(y.sizes()), gi = ember::empty(c.x), gw = ember::empty(c.w);
      EXPECT_EQ(cpu::taps_conv2d(out, x, w, b, c.p), c.product) << what;
      EXPECT_EQ(cpu::taps_conv2d_input_grad(gi, g, w, c.p), c.product) << what;
      EXPECT_EQ(cpu::taps_conv2d_weight_grad(gw, g, x, c.p), c.weight_grad) << what;
      if (c.product) EXPECT_TRUE(same_bits(out, y.detach()) && same_bits(gi, xr.grad())) << what << ": not routed";
      if (c.weight_grad) EXPECT_TRUE(same_bits(gw, wr.grad())) << what << ": not routed";
      Tensor again = detail::conv2d_4d(x, w, b, c.p);
      EXPECT_TRUE(same_bits(again, y.detach())) << what << ": not the same bits when run again";
    }
  }
}

// The tap sums leave the padding out; an inf weight in a tap that reads only padding, or a NaN
// output gradient, must still give the definition's NaN (0 * inf, im2col's and float64's), so those
// go to the other routes.
TEST(ConvPathsTest, TinyPlanesKeepNaNsFromThePadding) {
  RestoreThreads restore;
  const Conv2dParams p{1, 1, 1, 1};
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    Tensor x = draw({16, 8, 1, 1}, 600), w = draw({4, 8, 3, 3}, 601), g = draw({16, 4, 1, 1}, 602);
    w.select(0, 2).select(0, 5).select(0, 0).select(0, 0).fill_(INFINITY);  // filter 2's corner tap
    g.select(0, 7).select(0, 1).fill_(NAN);                                // sample 7, filter 1
    Tensor wr = w.detach().clone().set_requires_grad();
    Tensor y = detail::conv2d_4d(x, wr, Tensor(), p);
    y.backward(g);
    const std::vector<double> out = y.detach().to(kFloat64).to_vector<double>();
    const std::vector<double> gw = wr.grad().to(kFloat64).to_vector<double>();
    for (int64_t n = 0; n < 16; ++n)
      for (int64_t o = 0; o < 4; ++o)
        EXPECT_EQ(std::isnan(out[static_cast<size_t>(n * 4 + o)]), o == 2) << "output " << n << ", " << o;
    for (int64_t o = 0; o < 4; ++o)  // every tap of filter 1, padding's included: NaN * 0
      for (int64_t i = 0; i < 8 * 9; ++i)
        EXPECT_EQ(std::isnan(gw[static_cast<size_t>(o * 72 + i)]), o == 1) << "weight gradient " << o << ", " << i;
  }
}
