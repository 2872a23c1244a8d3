// float32 convolutions that suit Winograd's algorithm: oneDNN's F(4x4, 3x3) where the machine has
// AVX-512 (core/cpu/conv_onednn.h), Ember's own F(2x2, 3x3) elsewhere (core/cpu/conv_winograd.h).
// Forward and both gradients against the same convolution in float64 and against the im2col path
// (set_conv_winograd(false)), over batch sizes that split unevenly over threads, layers cut over
// threads by channels, paddings 0 to 2, odd planes, bias, channel counts at and past the thresholds,
// and thread counts; the Winograd path must really be the one taken, and operands with an inf, a NaN
// or magnitudes whose transforms could overflow must give im2col's (PyTorch's) answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#include "ember/ember.h"
#include "support/expect.h"
#include "ember/core/kernels/conv.h"
#include "ember/ops/conv.h"

using namespace ember;
using ember::testing::error_of_scale;
using ember::testing::same_bits;

namespace {

struct Case {
  std::vector<int64_t> x_shape, w_shape;
  int64_t padding;
  bool bias;
};

const std::vector<Case> kCases = {
    {{1, 64, 8, 8}, {64, 64, 3, 3}, 1, true},      // the smallest that qualifies: 64 channels, 64 positions
    {{2, 64, 8, 8}, {64, 64, 3, 3}, 1, false},
    {{3, 64, 9, 12}, {128, 64, 3, 3}, 1, true},    // 3 samples: chunks of 1 and 2
    {{5, 128, 10, 10}, {64, 128, 3, 3}, 0, true},  // no padding: 8x8 out
    {{4, 64, 16, 16}, {80, 64, 3, 3}, 1, false},   // 80 output channels: a multiple of 16, not of 64
    {{0, 64, 8, 8}, {64, 64, 3, 3}, 1, true},      // empty batch
    {{4, 64, 12, 12}, {64, 64, 3, 3}, 2, false},   // padding 2, which oneDNN refuses: im2col
    // Too few positions per sample for a cut of the batch: at 2 and 3 threads the channels are cut
    // (2 or 3 chunks of output channels, 2 of input channels for the input gradient).
    {{32, 128, 4, 4}, {128, 128, 3, 3}, 1, true},
    {{40, 128, 6, 6}, {192, 128, 3, 3}, 0, true},
    // Ember's own (AVX2): odd planes (a last tile column and row half outside), paddings 0 and 2
    // (the input gradient's forward then padded 2 and 0), 128 channels (the weight gradient's too),
    // chunks of whole tile rows split over threads.
    {{2, 64, 17, 15}, {64, 64, 3, 3}, 1, true},
    {{3, 128, 16, 16}, {128, 128, 3, 3}, 1, false},
    {{2, 128, 18, 18}, {144, 128, 3, 3}, 0, true},
    {{2, 128, 13, 13}, {128, 128, 3, 3}, 2, false},
    {{2, 64, 29, 31}, {96, 64, 3, 3}, 1, true},
    {{1, 64, 30, 28}, {64, 64, 3, 3}, 1, false},
};

Tensor draw(IntArrayRef shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, kFloat32, &gen);
}

struct Result {
  Tensor out, grad_input, grad_weight, grad_bias;
};

Result run(const Case& c, const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& g) {
  Tensor xi = x.detach().clone().set_requires_grad(), wi = w.detach().clone().set_requires_grad();
  Tensor bi = c.bias ? b.detach().clone().set_requires_grad() : Tensor();
  Tensor y = conv2d(xi, wi, bi, 1, c.padding);
  y.backward(g.to(y.dtype()));
  return {y.detach(), xi.grad(), wi.grad(), c.bias ? bi.grad() : Tensor()};
}

void expect_near(const Result& got, const Result& want, double tol, const std::string& what) {
  EXPECT_LE(error_of_scale(got.out, want.out), tol) << what << ": output";
  EXPECT_LE(error_of_scale(got.grad_input, want.grad_input), tol) << what << ": input gradient";
  EXPECT_LE(error_of_scale(got.grad_weight, want.grad_weight), tol) << what << ": weight gradient";
  if (want.grad_bias.defined())
    EXPECT_LE(error_of_scale(got.grad_bias, want.grad_bias), tol) << what << ": bias gradient";
}

class WinogradFlag {  // restores the flag and the thread count a test changes
 public:
  WinogradFlag() : saved_(conv_winograd()), threads_(get_num_threads()) {}
  ~WinogradFlag() {
    set_conv_winograd(saved_);
    set_num_threads(threads_);
  }

 private:
  bool saved_;
  int threads_;
};

}  // namespace

TEST(ConvWinogradTest, MatchesFloat64AndIm2colAtEveryThreadCount) {
  WinogradFlag restore;
  uint64_t seed = 1;
  for (const Case& c : kCases) {
    Tensor x = draw(c.x_shape, seed++), w = draw(c.w_shape, seed++) * 0.05, b = draw({c.w_shape[0]}, seed++);
    const int64_t out_h = c.x_shape[2] + 2 * c.padding - 2, out_w = c.x_shape[3] + 2 * c.padding - 2;
    Tensor g = draw({c.x_shape[0], c.w_shape[0], out_h, out_w}, seed++);
    const Result exact = run(c, x.to(kFloat64), w.to(kFloat64), b.to(kFloat64), g);
    set_conv_winograd(false);
    set_num_threads(1);
    const Result im2col = run(c, x, w, b, g);
    set_conv_winograd(true);
    for (int threads : {1, 2, 3}) {
      set_num_threads(threads);
      const Result wino = run(c, x, w, b, g);
      const std::string what = "x " + detail::str(IntArrayRef(c.x_shape)) + ", " + std::to_string(threads) + " threads";
      // F(4x4, 3x3) rounds to about 2e-6 of the scale; the direct sum to 3e-7.
      expect_near(wino, exact, 1e-5, what + " vs float64");
      expect_near(wino, im2col, 1e-5, what + " vs im2col");
      const Result again = run(c, x, w, b, g);  // bit for bit at the same thread count
      EXPECT_TRUE(same_bits(again.out, wino.out) && same_bits(again.grad_input, wino.grad_input) &&
                  same_bits(again.grad_weight, wino.grad_weight))
          << what;
    }
  }
}

TEST(ConvWinogradTest, TakenOnEveryMachineAndOffWhenDisabled) {
  WinogradFlag restore;
  set_num_threads(2);
  // oneDNN's Winograd kernels need AVX-512; DNNL_MAX_CPU_ISA=AVX2 (how the AVX2 figures are
  // approximated) hides it, and Ember's own then takes 28x28 planes with 64 channels.
  std::string isa = std::getenv("DNNL_MAX_CPU_ISA") ? std::getenv("DNNL_MAX_CPU_ISA") : "ALL";
  std::transform(isa.begin(), isa.end(), isa.begin(), [](unsigned char ch) { return std::toupper(ch); });
  const bool onednn = __builtin_cpu_supports("avx512f") && (isa == "ALL" || isa.find("AVX512") != std::string::npos);
  const Case c = onednn ? Case{{16, 64, 8, 8}, {64, 64, 3, 3}, 1, true}  // 512 positions per thread
                        : Case{{2, 64, 28, 28}, {64, 64, 3, 3}, 1, true};
  const auto& xs = c.x_shape;
  Tensor x = draw(xs, 50), w = draw(c.w_shape, 51), b = draw({c.w_shape[0]}, 52);
  Tensor g = draw({xs[0], c.w_shape[0], xs[2], xs[3]}, 53);
  set_conv_winograd(false);
  EXPECT_FALSE(conv_winograd());
  const Result im2col = run(c, x, w, b, g);
  set_conv_winograd(true);
  const Result wino = run(c, x, w, b, g);
  // The algorithms round differently: identical bits would mean Winograd was not used.
  EXPECT_FALSE(same_bits(wino.out, im2col.out));
  EXPECT_FALSE(same_bits(wino.grad_input, im2col.grad_input));
  EXPECT_FALSE(same_bits(wino.grad_weight, im2col.grad_weight));
}

TEST(ConvWinogradTest, NonFiniteOrHugeOperandsGiveIm2colsAnswers) {
  WinogradFlag restore;
  // A transform mixes a tile's values: an inf would meet its own negative (NaN) where the direct sum
  // gives inf, and values near the float range could overflow in the transforms' sums alone.
  const Case c{{2, 64, 28, 28}, {64, 64, 3, 3}, 1, true};
  // Each case and the passes that read the operand it changes (output, input and weight gradient).
  struct Odd {
    const char* what;
    bool out, grad_input, grad_weight;
  };
  uint64_t seed = 200;
  for (const Odd& odd : {Odd{"inf in x", true, false, true}, Odd{"NaN in x", true, false, true},
                         Odd{"-inf in w", true, true, false}, Odd{"inf in the gradient", false, true, true},
                         Odd{"x of 1e36", true, false, true}}) {
    Tensor x = draw(c.x_shape, seed++), w = draw(c.w_shape, seed++) * 0.05, b = draw({64}, seed++);
    Tensor g = draw({2, 64, 28, 28}, seed++);
    const std::string kind = odd.what;
    auto put = [](Tensor& t, int64_t at, float value) { t.data_ptr<float>()[at] = value; };
    if (kind == "inf in x") put(x, ((0 * 64 + 5) * 28 + 7) * 28 + 7, INFINITY);
    if (kind == "NaN in x") put(x, ((1 * 64 + 0) * 28 + 0) * 28 + 27, NAN);
    if (kind == "-inf in w") put(w, ((3 * 64 + 2) * 3 + 1) * 3 + 1, -INFINITY);
    if (kind == "inf in the gradient") put(g, ((1 * 64 + 9) * 28 + 27) * 28 + 0, INFINITY);
    if (kind == "x of 1e36") x = x * 1e36;
    set_conv_winograd(false);
    const Result im2col = run(c, x, w, b, g);
    set_conv_winograd(true);
    const Result wino = run(c, x, w, b, g);
    if (odd.out) EXPECT_TRUE(same_bits(wino.out, im2col.out)) << odd.what << ": output";
    if (odd.grad_input) EXPECT_TRUE(same_bits(wino.grad_input, im2col.grad_input)) << odd.what << ": input gradient";
    if (odd.grad_weight)
      EXPECT_TRUE(same_bits(wino.grad_weight, im2col.grad_weight)) << odd.what << ": weight gradient";
  }
}

TEST(ConvWinogradTest, ShapesOutsideItsRangeKeepIm2colBits) {
  WinogradFlag restore;
  // Each misses one condition of both (oneDNN's and Ember's): too few channels, stride 2, 5x5 kernel,
  // dilation, groups, float64, too few positions, a channel count that is not a multiple of 16 into
  // a small plane; the last Ember's alone: padding 3.
  struct Other {
    std::vector<int64_t> x, w;
    int64_t stride, padding, dilation, groups;
    DType dtype;
  };
  const std::vector<Other> others = {
      {{2, 32, 8, 8}, {64, 32, 3, 3}, 1, 1, 1, 1, kFloat32},  {{2, 64, 16, 16}, {64, 64, 3, 3}, 2, 1, 1, 1, kFloat32},
      {{2, 64, 12, 12}, {64, 64, 5, 5}, 1, 2, 1, 1, kFloat32}, {{2, 64, 12, 12}, {64, 64, 3, 3}, 1, 2, 2, 1, kFloat32},
      {{2, 128, 8, 8}, {128, 64, 3, 3}, 1, 1, 1, 2, kFloat32}, {{2, 64, 8, 8}, {64, 64, 3, 3}, 1, 1, 1, 1, kFloat64},
      {{2, 64, 7, 7}, {64, 64, 3, 3}, 1, 1, 1, 1, kFloat32},  {{2, 72, 8, 8}, {64, 72, 3, 3}, 1, 1, 1, 1, kFloat32},
      {{2, 64, 14, 14}, {64, 64, 3, 3}, 1, 3, 1, 1, kFloat32},
  };
  uint64_t seed = 100;
  for (const Other& o : others) {
    Tensor x = draw(o.x, seed++).to(o.dtype), w = draw(o.w, seed++).to(o.dtype);
    set_conv_winograd(true);
    Tensor on = conv2d(x, w, Tensor(), o.stride, o.padding, o.dilation, o.groups);
    set_conv_winograd(false);
    Tensor off = conv2d(x, w, Tensor(), o.stride, o.padding, o.dilation, o.groups);
    EXPECT_TRUE(same_bits(on, off)) << "x " << IntArrayRef(o.x) << ", w " << IntArrayRef(o.w);
  }
}
