// float16 and bfloat16 through kernels written for float32 (core/kernels/widen.h): each op computes
// in float32 and rounds its outputs once; in-place ops and strided views write back where they
// should; gradients come back in the parameter's dtype; optimizers step 16-bit parameters with
// float32 math.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ember/ember.h"
#include "ember/optim/optim.h"

using namespace ember;

namespace {

std::vector<float> values(const Tensor& t) { return t.to(kFloat32).contiguous().to_vector<float>(); }

// Values whose float32 results round differently in the two 16-bit dtypes.
Tensor sample(DType d) { return tensor<float>({0.1f, -1.7f, 3.14159f, 100.3f, -0.0f, 7e-3f}).to(d); }

class WidenTest : public ::testing::TestWithParam<DType> {};

}  // namespace

TEST_P(WidenTest, AnOpIsItsFloat32ResultRoundedOnce) {
  const DType d = GetParam();
  Tensor x = sample(d), xf = x.to(kFloat32);
  EXPECT_EQ(values(exp(x)), values(exp(xf).to(d)));
  EXPECT_EQ(values(x * x), values((xf * xf).to(d)));
  EXPECT_EQ(values(softmax(x, 0)), values(softmax(xf, 0).to(d)));
  // a reduction accumulates in float32 and rounds the total once
  Tensor many = full({1000}, 0.1, d);
  EXPECT_EQ(values(sum(many)), values(sum(many.to(kFloat32)).to(d)));
  // several outputs of one kernel: layer_norm's output and statistics
  Tensor rows = x.view({2, 3}), w = tensor<float>({0.5f, 2.0f, -1.0f}).to(d), b = ones({3}, d);
  EXPECT_EQ(values(layer_norm(rows, {3}, w, b)),
            values(layer_norm(rows.to(kFloat32), {3}, w.to(kFloat32), b.to(kFloat32)).to(d)));
}

TEST_P(WidenTest, LargeElementwiseOpsConvertAChunkAtATimeWithTheSameBits) {
  // widened_elementwise: contiguous operands past two chunks (kWidenChunk) go chunk by chunk over
  // the threads; the last chunk is partial. Each result must be the float32 one rounded once.
  const DType d = GetParam();
  Generator gen(5);
  const int64_t n = 123 * 201;  // three chunks and 147 elements
  Tensor x = randn({n}, kFloat32, &gen).to(d), y = randn({n}, kFloat32, &gen).to(d);
  Tensor xf = x.to(kFloat32), yf = y.to(kFloat32);
  EXPECT_EQ(values(exp(x)), values(exp(xf).to(d)));
  EXPECT_EQ(values(x * y), values((xf * yf).to(d)));
  EXPECT_EQ(values(gelu(x)), values(gelu(xf).to(d)));
  EXPECT_EQ(values(x.view({123, -1}) + y.view({123, -1}).select(0, 0)), values((xf.view({123, -1}) + yf.view({123, -1}).select(0, 0)).to(d)));
  // in place: the input is the output's memory
  Tensor z = x.clone();
  z.mul_(y);
  EXPECT_EQ(values(z), values((xf * yf).to(d)));
  // an activation's fused backward
  Tensor xg = x.clone().set_requires_grad(), g = y;
  Tensor xgf = xf.clone().set_requires_grad();
  relu(xg).backward(g);
  relu(xgf).backward(yf);
  EXPECT_EQ(values(xg.grad()), values(xgf.grad().to(d)));
}

TEST_P(WidenTest, InPlaceOpsAndStridedViewsWriteBack) {
  const DType d = GetParam();
  Tensor x = sample(d);
  std::vector<float> before = values(x);
  x.add_(x);  // out and in are one memory: one float32 copy, written back once
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(values(x)[i], 2 * before[i]);
  Tensor m = arange(6, kFloat32).to(d).view({2, 3});
  m.t().mul_(tensor<float>({1.0f, 10.0f}).to(d));  // a transposed view of m, broadcast operand
  EXPECT_EQ(values(m), (std::vector<float>{0, 1, 2, 30, 40, 50}));
  Tensor col = m.select(1, 1);  // a strided input
  EXPECT_EQ(values(col * 2), (std::vector<float>{2, 80}));
}

TEST_P(WidenTest, GradientsComeBackInTheParametersDtype) {
  const DType d = GetParam();
  Tensor w = tensor<float>({0.5f, -1.25f, 2.0f}).to(d).requires_grad_();
  Tensor x = tensor<float>({1.0f, 2.0f, 3.0f});  // float32: the product is float32
  Tensor loss = (w * x).sin().sum();
  EXPECT_EQ(loss.dtype(), kFloat32);
  loss.backward();
  ASSERT_TRUE(w.grad().defined());
  EXPECT_EQ(w.grad().dtype(), d);
  Tensor wf = w.detach().to(kFloat32);
  EXPECT_EQ(values(w.grad()), values((cos(wf * x) * x).to(d)));
}

TEST_P(WidenTest, SgdStepsA16BitParameterWithFloat32Math) {
  const DType d = GetParam();
  Tensor p = tensor<float>({1.0f, -2.0f, 0.3f}).to(d).requires_grad_();
  Tensor g = tensor<float>({0.1f, 0.25f, -3.0f}).to(d);
  p.set_grad(g);
  optim::SGD sgd({{"p", p}}, {.lr = 0.01});
  Tensor want = (p.detach().to(kFloat32) - 0.01 * g.to(kFloat32)).to(d);
  sgd.step();
  EXPECT_EQ(p.dtype(), d);
  EXPECT_EQ(values(p), values(want));
}

// The conversions of the copy kernel (vectorised over contiguous runs, bit operations for bfloat16,
// F16C for float16) give the bits of the scalar Half and BFloat16 conversions (Eigen's), contiguous
// and strided: every 16-bit pattern to float32, and float32 ties, overflow, subnormals and NaN to
// 16 bits.
TEST_P(WidenTest, ConversionsMatchTheScalarOnesBitForBit) {
  const DType d = GetParam();
  const auto widen_one = [d](uint16_t bits) {
    Half h;
    BFloat16 b;
    h.bits = b.bits = bits;
    return d == kFloat16 ? static_cast<float>(h) : static_cast<float>(b);
  };
  const auto narrow_one = [d](float v) { return d == kFloat16 ? Half(v).bits : BFloat16(v).bits; };
  Tensor raw = empty({65536}, kInt16);
  int16_t* p = raw.data_ptr<int16_t>();
  for (int i = 0; i < 65536; ++i) p[i] = static_cast<int16_t>(static_cast<uint16_t>(i));
  Tensor all = make_tensor(raw.storage(), d, {65536}, {1}, 0);
  Tensor strided = empty({65536, 2}, kFloat32).select(1, 0);
  copy_data(strided, all);
  for (const Tensor& wide : {all.to(kFloat32), strided.contiguous()}) {
    std::vector<float> got = wide.to_vector<float>();
    for (int i = 0; i < 65536; ++i) {
      const float want = widen_one(static_cast<uint16_t>(i));
      if (std::isnan(want) && std::isnan(got[i])) continue;  // NB: F16C quiets a signalling NaN, Eigen keeps it
      ASSERT_EQ(std::memcmp(&got[i], &want, 4), 0) << "pattern " << i << ": " << got[i] << " against " << want;
    }
  }

  std::vector<float> f;
  for (float v : {0.0f, 1.0f, 65504.0f, 65519.99f, 65520.0f, 3.4028235e38f, 1e-45f, 1.2e-38f, 6e-8f, 3e-8f,
                  2.9802322e-08f, 1.00390625f, 1.01171875f, 1.0009765625f, 1.0029296875f})
    f.push_back(v), f.push_back(-v);
  f.push_back(std::numeric_limits<float>::infinity());
  f.push_back(std::numeric_limits<float>::quiet_NaN());
  f.push_back(-std::numeric_limits<float>::quiet_NaN());
  for (int i = 0; i < 4096; ++i) f.push_back(std::ldexp(static_cast<float>(i) / 4096.0f + 1.0f, i % 300 - 150));
  const int64_t n = static_cast<int64_t>(f.size());
  Tensor src = tensor<float>(f);
  Tensor contiguous = src.to(d), gaps = empty({n, 2}, d).select(1, 0);
  copy_data(gaps, src);
  for (int64_t i = 0; i < n; ++i) {
    uint16_t a, b;
    std::memcpy(&a, static_cast<const char*>(contiguous.data_ptr()) + i * 2, 2);
    std::memcpy(&b, static_cast<const char*>(gaps.data_ptr()) + i * 4, 2);  // NB: every other element
    const uint16_t want = narrow_one(f[static_cast<size_t>(i)]);
    EXPECT_EQ(a, want) << "float32 " << f[static_cast<size_t>(i)];
    EXPECT_EQ(b, want) << "float32 " << f[static_cast<size_t>(i)] << " (strided)";
  }
}

INSTANTIATE_TEST_SUITE_P(HalfAndBFloat16, WidenTest, ::testing::Values(kFloat16, kBFloat16),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

