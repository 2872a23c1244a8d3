// nn::init's structured fills (orthogonal_, sparse_, dirac_, eye_) by their defining properties:
// Q^T Q = gain^2 I against an independent float64 product, a Dirac weight as an identity
// convolution, each column's zeros, the generator driving the draws, and the errors' texts.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/ember.h"
#include "support/expect.h"

namespace ember {
namespace {

using testing::expect_error;

// rows x cols in float64, row-major.
std::vector<double> matrix(const Tensor& t) { return t.to(kFloat64).contiguous().to_vector<double>(); }

TEST(InitTest, OrthogonalIsOrthogonalTimesGainInEveryShape) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{3, 5}, {5, 3}, {4, 4}, {4, 2, 3}, {6, 2, 2}, {1, 1}}) {
    for (double gain : {1.0, 2.5}) {
      Generator g(3);
      Tensor w = nn::init::orthogonal_(empty(shape, kFloat64), gain, &g);
      const int64_t rows = shape[0], cols = w.numel() / rows, n = std::min(rows, cols);
      std::vector<double> a = matrix(w);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double dot = 0;  // rows' products when rows <= cols, else the columns'
          for (int64_t k = 0; k < std::max(rows, cols); ++k)
            dot += rows <= cols ? a[i * cols + k] * a[j * cols + k] : a[k * cols + i] * a[k * cols + j];
          EXPECT_NEAR(dot, i == j ? gain * gain : 0.0, 1e-12)
              << "shape " << shape_str(shape) << " (" << i << ", " << j << ")";
        }
      Generator again(3);
      EXPECT_EQ(nn::init::orthogonal_(empty(shape, kFloat64), gain, &again).to_vector<double>(), w.to_vector<double>());
    }
  }
  Tensor weight = empty({4, 6});  // float32, filled in place
  Tensor same = weight;
  nn::init::orthogonal_(weight);
  EXPECT_EQ(same.data_ptr<float>(), weight.data_ptr<float>());
  EXPECT_EQ(nn::init::orthogonal_(empty({0, 3})).numel(), 0);
  expect_error<ValueError>([] { nn::init::orthogonal_(empty({3})); },
                           {"orthogonal_: Only tensors with 2 or more dimensions are supported, got shape [3]"});
}

TEST(InitTest, OrthogonalRecordsNoGraph) {
  Tensor w = zeros({3, 3});
  w.set_requires_grad(true);
  nn::init::orthogonal_(w);
  EXPECT_FALSE(w.grad_fn());
}

TEST(InitTest, DiracIsAnIdentityConvolutionPerGroup) {
  Tensor w = nn::init::dirac_(empty({4, 2, 3, 3}), 2);
  Generator g(1);
  Tensor x = nn::init::normal_(empty({1, 2, 5, 5}), 0, 1, &g);
  // Each group of 2 output channels copies the 2 input channels.
  Tensor out = conv2d(x, w, Tensor(), 1, PaddingRule::Same);
  EXPECT_EQ(slice(out, 1, 0, 2).contiguous().to_vector<float>(), x.to_vector<float>());
  EXPECT_EQ(slice(out, 1, 2, 4).contiguous().to_vector<float>(), x.to_vector<float>());
  Tensor w1 = nn::init::dirac_(empty({3, 2, 3}));  // more outputs than inputs: the third stays zero
  EXPECT_EQ(w1.to_vector<float>(), (std::vector<float>{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}));
  Tensor w3 = nn::init::dirac_(empty({2, 2, 1, 2, 3}));
  EXPECT_EQ(sum(w3).item<float>(), 2.0f);
  EXPECT_EQ(w3.to_vector<float>()[4], 1.0f);  // [0, 0, 0, 1, 1]: the middle of each dim
  expect_error<ValueError>([] { nn::init::dirac_(empty({3, 3})); }, {"Only tensors with 3, 4, or 5 dimensions"});
  expect_error<ValueError>(
      [] {
        nn::init::dirac_(empty({3, 2, 3}), 2);
      },
      {"dirac_: dim 0 (3) must be divisible by groups (2)"});
}

TEST(InitTest, SparseZeroesCeilOfSparsityTimesRowsInEveryColumn) {
  Generator g(5);
  Tensor s = nn::init::sparse_(empty({10, 4}), 0.25, 0.5, &g);
  std::vector<float> v = s.to_vector<float>();
  for (int64_t c = 0; c < 4; ++c) {
    int zeros = 0;
    for (int64_t r = 0; r < 10; ++r) zeros += v[r * 4 + c] == 0.0f;
    EXPECT_EQ(zeros, 3) << "column " << c;  // ceil(0.25 * 10); a normal draw is never exactly 0
  }
  Generator again(5);
  EXPECT_EQ(nn::init::sparse_(empty({10, 4}), 0.25, 0.5, &again).to_vector<float>(), v);
  EXPECT_EQ(sum(eq(nn::init::sparse_(empty({3, 2}), 1.0), 0.0)).item<int64_t>(), 6);
  expect_error<ValueError>([] { nn::init::sparse_(empty({3}), 0.5); }, {"sparse_: Only tensors with 2 dimensions"});
}

TEST(InitTest, EyeFillsRectanglesAndConvertsDtype) {
  EXPECT_EQ(nn::init::eye_(empty({2, 3}, kFloat16)).to(kFloat32).to_vector<float>(),
            (std::vector<float>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(nn::init::eye_(empty({3, 2}, kFloat64)).to_vector<double>(), (std::vector<double>{1, 0, 0, 1, 0, 0}));
  expect_error<ValueError>([] { nn::init::eye_(empty({2, 2, 2})); }, {"eye_: Only tensors with 2 dimensions"});
}

}  // namespace
}  // namespace ember
