// oneDNN's direct convolutions (core/cpu/conv_onednn.h). This project's
// machines have no bfloat16 instructions, so the bfloat16 path's code is
// checked through float32, which takes the same path (plans, chunks, reorders,
// strided channel chunks, groups, trimmed inputs) on any machine, against
// float64. Its bfloat16 handling (operand types, the float32 weight-gradient
// sum rounded once) is checked against float64 where the machine has the
// instructions, and on AVX-512 machines without them through oneDNN's
// emulation, which tests may allow; oneDNN has no bfloat16 convolution on AVX2.
#include "ember/core/cpu/conv_onednn.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"
#include "ember/ops/conv.h"

using namespace ember;
using ember::testing::error_of_scale;
using ember::testing::same_bits;
using cpu::ConvAlgorithm;

namespace {

struct Case {
  std::vector<int64_t> x, w;
  Conv2dParams p;
  bool bias;
};

// Strides, paddings, dilations, groups, non-square kernels and images; batches
// that split over threads by samples, single samples split by output (or input)
// channels, and ones that cannot split.
const std::vector<Case> kCases = {
    {{1, 3, 9, 9}, {4, 3, 3, 3}, {1, 1, 1, 1}, true},
    {{2, 3, 32, 32}, {64, 3, 7, 7}, {2, 3, 1, 1}, true},    // torchvision's ResNet stem
    {{3, 64, 8, 8}, {128, 64, 1, 1}, {2, 0, 1, 1}, false},  // its downsampling 1x1
    {{2, 8, 10, 10}, {8, 8, 3, 3}, {1, 2, 2, 1}, true},     // dilation 2
    {{2, 16, 7, 7}, {16, 1, 3, 3}, {1, 1, 1, 16}, true},    // depthwise
    {{3, 8, 6, 5}, {12, 4, 3, 2}, {{2, 1}, {1, 0}, 1, 2}, false},
    {{1, 32, 5, 9}, {32, 32, 3, 3}, {1, 1, 1, 1}, true},  // one sample: cut by channels
    {{1, 5, 6, 6}, {7, 5, 3, 3}, {1, 0, 1, 1}, false},    // one sample, 7 channels: one chunk
    {{5, 4, 4, 4}, {6, 4, 4, 4}, {1, 0, 1, 1}, true},     // 1x1 output
    {{2, 6, 8, 9}, {5, 6, 3, 3}, {2, 0, 1, 1}, true},     // the last row and column unread
};

Tensor draw(IntArrayRef shape, uint64_t seed) {
  Generator gen(seed);
  return randn(shape, kFloat32, &gen);
}

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t pad, int64_t d) {
  return (in + 2 * pad - d * (k - 1) - 1) / s + 1;
}

std::vector<int64_t> out_shape(const Case& c) {
  return {c.x[0], c.w[0], out_size(c.x[2], c.w[2], c.p.stride.h, c.p.padding.h, c.p.dilation.h),
          out_size(c.x[3], c.w[3], c.p.stride.w, c.p.padding.w, c.p.dilation.w)};
}

// The three passes by the direct algorithm, each into a tensor of the operands'
// dtype; false where any was declined.
struct Passes {
  Tensor out, grad_input, grad_weight;
};
bool direct(const Case& c, const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& g, Passes& r) {
  const TensorOptions o(x.dtype());
  r.out = full(out_shape(c), -7.0, o);
  r.grad_input = full(c.x, -7.0, o);
  r.grad_weight = full(c.w, -7.0, o);
  return cpu::onednn_conv2d(ConvAlgorithm::Direct, r.out, x, w, b, c.p) &&
         cpu::onednn_conv2d_input_grad(ConvAlgorithm::Direct, r.grad_input, g, w, c.p) &&
         cpu::onednn_conv2d_weight_grad(ConvAlgorithm::Direct, r.grad_weight, g, x, c.p);
}

// The same passes in float64 from the same values, through the im2col kernels.
Passes exact(const Case& c, const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& g) {
  Tensor x64 = x.to(kFloat64), w64 = w.to(kFloat64), g64 = g.to(kFloat64);
  return {detail::conv2d_4d(x64, w64, b.defined() ? b.to(kFloat64) : Tensor(), c.p),
          detail::conv2d_input_backward(g64, w64, c.x, c.p), detail::conv2d_weight_backward(g64, x64, c.w, c.p)};
}

std::string describe(const Case& c, int threads) {
  return "x " + detail::str(IntArrayRef(c.x)) + ", w " + detail::str(IntArrayRef(c.w)) + ", " +
         std::to_string(threads) + " threads";
}

class Restore {  // the thread count and the any-kernel switch a test changes
 public:
  Restore() : threads_(get_num_threads()) {}
  ~Restore() {
    set_num_threads(threads_);
    cpu::set_onednn_conv_any_kernel(false);
  }

 private:
  int threads_;
};

}  // namespace

TEST(OnednnConvTest, Float32TakesTheDirectPathAndMatchesFloat64) {
  Restore restore;
  ASSERT_TRUE(cpu::onednn_conv_native(kFloat32));
  uint64_t seed = 1;
  for (const Case& c : kCases) {
    Tensor x = draw(c.x, seed++), w = draw(c.w, seed++), b = c.bias ? draw({c.w[0]}, seed++) : Tensor();
    Tensor g = draw(out_shape(c), seed++);
    const Passes want = exact(c, x, w, b, g);
    for (int threads : {1, 2, 3}) {
      set_num_threads(threads);
      Passes got;
      ASSERT_TRUE(direct(c, x, w, b, g, got)) << describe(c, threads);
      // Sums of up to a few thousand float32 products: 1e-5 of the scale is 50
      // times their rounding.
      EXPECT_LE(error_of_scale(got.out, want.out), 1e-5) << describe(c, threads) << ": output";
      EXPECT_LE(error_of_scale(got.grad_input, want.grad_input), 1e-5) << describe(c, threads) << ": input gradient";
      EXPECT_LE(error_of_scale(got.grad_weight, want.grad_weight), 1e-5) << describe(c, threads) << ": weight gradient";
    }
  }
}

// The bfloat16 operands are the float32 ones rounded; the oracle is float64 of
// those values. Each result is one rounding of a float32 sum: within a bfloat16
// half-ulp (2^-9 relative) of the exact value plus the float32 sum's error, so
// within 2^-8 of the scale.
void expect_bfloat16_passes(bool any_kernel) {
  Restore restore;
  cpu::set_onednn_conv_any_kernel(any_kernel);
  uint64_t seed = 20;
  for (const Case& c : kCases) {
    Tensor x = draw(c.x, seed++).to(kBFloat16), w = draw(c.w, seed++).to(kBFloat16);
    Tensor b = c.bias ? draw({c.w[0]}, seed++).to(kBFloat16) : Tensor();
    Tensor g = draw(out_shape(c), seed++).to(kBFloat16);
    const Passes want = exact(c, x, w, b, g);
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      Passes got;
      ASSERT_TRUE(direct(c, x, w, b, g, got)) << describe(c, threads);
      EXPECT_EQ(got.out.dtype(), kBFloat16);
      EXPECT_LE(error_of_scale(got.out, want.out), 1.0 / 256) << describe(c, threads) << ": output";
      EXPECT_LE(error_of_scale(got.grad_input, want.grad_input), 1.0 / 256)
          << describe(c, threads) << ": input gradient";
      // Summed over the batch in float32 and rounded once: a per-chunk rounding
      // would show at 2 threads.
      EXPECT_LE(error_of_scale(got.grad_weight, want.grad_weight), 1.0 / 256)
          << describe(c, threads) << ": weight gradient";
      // The public op takes the same path: the registered kernel, through
      // autograd, bit for bit.
      Tensor xr = x.detach().clone().set_requires_grad(), wr = w.detach().clone().set_requires_grad();
      Tensor y = detail::conv2d_4d(xr, wr, b, c.p);
      y.backward(g);
      EXPECT_TRUE(same_bits(y.detach(), got.out)) << describe(c, threads);
      EXPECT_TRUE(same_bits(xr.grad(), got.grad_input)) << describe(c, threads);
      EXPECT_TRUE(same_bits(wr.grad(), got.grad_weight)) << describe(c, threads);
    }
  }
}

TEST(OnednnConvTest, Bfloat16ThroughEmulatedKernelsRoundsOnce) {
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "oneDNN has no bfloat16 convolution without AVX-512";
  expect_bfloat16_passes(/*any_kernel=*/true);
}

TEST(OnednnConvTest, Bfloat16RunsNativelyWhereTheMachineHasTheInstructions) {
  if (!cpu::onednn_conv_native(kBFloat16)) {
    // No AVX512_BF16: the direct path declines, and conv2d widens to float32
    // instead.
    const Case& c = kCases[0];
    Tensor x = draw(c.x, 1).to(kBFloat16), w = draw(c.w, 2).to(kBFloat16), out = empty(out_shape(c), kBFloat16);
    EXPECT_FALSE(cpu::onednn_conv2d(ConvAlgorithm::Direct, out, x, w, Tensor(), c.p));
    Tensor widened = detail::conv2d_4d(x.to(kFloat32), w.to(kFloat32), Tensor(), c.p).to(kBFloat16);
    EXPECT_TRUE(same_bits(detail::conv2d_4d(x, w, Tensor(), c.p), widened));
    GTEST_SKIP() << "this CPU has no AVX512_BF16: bfloat16 convolutions are "
                    "widened to float32";
  }
  expect_bfloat16_passes(/*any_kernel=*/false);
}

TEST(OnednnConvTest, DeclinesWhatItCannotTake) {
  Restore restore;
  cpu::set_onednn_conv_any_kernel(true);
  const Conv2dParams p{1, 1, 1, 1};
  Tensor w = draw({4, 3, 3, 3}, 2), x = draw({1, 3, 5, 5}, 1);
  // float16: oneDNN has no CPU kernel in this version.
  EXPECT_FALSE(cpu::onednn_conv2d(ConvAlgorithm::Direct, empty({1, 4, 5, 5}, kFloat16), x.to(kFloat16), w.to(kFloat16),
                                  Tensor(), p));
  // Mixed dtypes, a bias of another dtype, and an empty batch (im2col's own
  // case).
  EXPECT_FALSE(
      cpu::onednn_conv2d(ConvAlgorithm::Direct, empty({1, 4, 5, 5}, kFloat32), x, w.to(kBFloat16), Tensor(), p));
  EXPECT_FALSE(cpu::onednn_conv2d(ConvAlgorithm::Direct, empty({1, 4, 5, 5}, kFloat32), x, w, zeros({4}, kFloat64), p));
  EXPECT_FALSE(cpu::onednn_conv2d(ConvAlgorithm::Direct, empty({0, 4, 5, 5}, kFloat32), empty({0, 3, 5, 5}, kFloat32),
                                  w, Tensor(), p));
  // float64 is im2col's.
  EXPECT_FALSE(cpu::onednn_conv2d(ConvAlgorithm::Direct, empty({1, 4, 5, 5}, kFloat64), x.to(kFloat64), w.to(kFloat64),
                                  Tensor(), p));
}
