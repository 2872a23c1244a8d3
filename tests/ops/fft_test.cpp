// ember::fft (ops/fft.h) and complex arithmetic from C++: the transforms against a direct O(n^2)
// DFT in double precision at lengths with every kind of factor, round trips, multi-dim transforms,
// and the errors. NumPy comparisons over every function and argument: tests/python/test_fft.py.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_error;
using C = std::complex<double>;

namespace {

std::vector<C> random_signal(int64_t n, unsigned seed) {
  std::vector<C> x;
  for (int64_t i = 0; i < n; ++i) x.emplace_back(std::sin(0.7 * i + seed), std::cos(1.3 * i * i + seed));
  return x;
}

std::vector<C> direct_dft(const std::vector<C>& x, bool forward) {
  const auto n = static_cast<int64_t>(x.size());
  std::vector<C> out(x.size());
  for (int64_t k = 0; k < n; ++k)
    for (int64_t j = 0; j < n; ++j)
      out[static_cast<size_t>(k)] +=
          x[static_cast<size_t>(j)] * std::polar(1.0, (forward ? -2 : 2) * std::numbers::pi * double(j * k % n) / n);
  return out;
}

void expect_near(const std::vector<C>& got, const std::vector<C>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_LE(std::abs(got[i] - want[i]), tol) << "at " << i;
}

}  // namespace

TEST(FftTest, MatchesTheDirectTransformAtLengthsWithEveryFactor) {
  for (int64_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 25, 30, 49, 64, 97, 210}) {
    const std::vector<C> x = random_signal(n, static_cast<unsigned>(n));
    const Tensor t = tensor(x);
    expect_near(fft::fft(t).to_vector<C>(), direct_dft(x, true), 1e-10 * n);
    std::vector<C> inverse = direct_dft(x, false);
    for (C& v : inverse) v /= double(n);
    expect_near(fft::ifft(t).to_vector<C>(), inverse, 1e-10);
    // float32 within single-precision rounding of the same
    const std::vector<std::complex<float>> single = fft::fft(t.to(kComplex64)).to_vector<std::complex<float>>();
    const std::vector<C> exact = direct_dft(x, true);
    for (size_t i = 0; i < single.size(); ++i) EXPECT_LT(std::abs(C(single[i]) - exact[i]), 2e-6 * n) << n;
  }
}

TEST(FftTest, RealTransformsRoundTripAndKeepTheHalfSpectrum) {
  for (int64_t n : {1, 2, 5, 8, 11, 12}) {
    std::vector<double> x;
    for (int64_t i = 0; i < n; ++i) x.push_back(std::cos(0.3 * i * i) - 0.5);
    const Tensor t = tensor(x, {1, n});
    const Tensor spec = fft::rfft(t);
    EXPECT_EQ(spec.dtype(), kComplex128);
    EXPECT_EQ(spec.sizes(), IntArrayRef({1, n / 2 + 1}));
    std::vector<C> full(x.begin(), x.end());
    std::vector<C> want = direct_dft(full, true);
    want.resize(static_cast<size_t>(n / 2 + 1));
    expect_near(spec.to_vector<C>(), want, 1e-10 * n);
    const std::vector<double> back = fft::irfft(spec, n).to_vector<double>();
    for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(back[i], x[i], 1e-12);
  }
}

TEST(FftTest, TwoDimensionalTransformIsTheProductOfOneDimensionalOnes) {
  const Tensor x = randn({3, 5, 6}, TensorOptions(kFloat64)).to(kComplex128);
  const Tensor both = fft::fft2(x);
  const Tensor each = fft::fft(fft::fft(x, std::nullopt, -1), std::nullopt, -2);
  EXPECT_TRUE(allclose(view_as_real(both), view_as_real(each), 1e-12, 1e-12));
  const Tensor ortho = fft::fftn(x, std::nullopt, {0, 2}, "ortho");
  const Tensor back = fft::ifftn(ortho, std::nullopt, {0, 2}, "ortho");
  EXPECT_TRUE(allclose(view_as_real(back), view_as_real(x), 1e-12, 1e-12));
}

TEST(FftTest, ComplexArithmeticOfTheSpectrum) {
  const Tensor a = tensor(std::vector<C>{{1, 2}, {-3, 0.5}});
  const Tensor b = tensor(std::vector<C>{{0, 1}, {2, -2}});
  expect_near((a * b).to_vector<C>(), {C(1, 2) * C(0, 1), C(-3, 0.5) * C(2, -2)}, 1e-15);
  expect_near((a / b).to_vector<C>(), {C(1, 2) / C(0, 1), C(-3, 0.5) / C(2, -2)}, 1e-15);
  expect_near((a - b).to_vector<C>(), {C(1, 1), C(-5, 2.5)}, 0);
  expect_near(a.conj().to_vector<C>(), {C(1, -2), C(-3, -0.5)}, 0);
  EXPECT_EQ(a.abs().dtype(), kFloat64);
  EXPECT_NEAR(a.abs().to_vector<double>()[0], std::sqrt(5.0), 1e-15);
  expect_near(a.sum().to_vector<C>(), {C(-2, 2.5)}, 0);
}

TEST(FftTest, BadArgumentsAreNamed) {
  expect_error<ValueError>([] { fft::fft(ones({4}), std::nullopt, -1, "sideways"); }, {"invalid normalization mode"});
  expect_error<ValueError>([] { fft::fft(ones({4}), 0); }, {"invalid number of data points (0)"});
  expect_error<TypeError>([] { fft::rfft(ones({4}, TensorOptions(kComplex64))); }, {"rfft expects a real input"});
  expect_error<ValueError>([] { fft_c2r(ones({4}, TensorOptions(kComplex64)), {0}, 0, 4); },
                           {"needs 3 bins there, got 4"});
}

// L = sum_k Re X_k over the bins rfft keeps: dL/dx_j = sum_k cos(2 pi j k / n), by hand.
TEST(FftTest, GradientsOfRealInputsMatchTheSumOfCosines) {
  for (int64_t n : {1, 2, 5, 8}) {
    Tensor x = arange(0, static_cast<double>(n), 1, TensorOptions(kFloat64)).requires_grad_();
    real(fft::rfft(x)).sum().backward();
    std::vector<double> expected(static_cast<size_t>(n), 0.0);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t k = 0; k <= n / 2; ++k)
        expected[static_cast<size_t>(j)] += std::cos(2 * std::numbers::pi * j * k / n);
    const std::vector<double> got = x.grad().to_vector<double>();
    ASSERT_EQ(got.size(), expected.size());
    for (size_t j = 0; j < got.size(); ++j) EXPECT_NEAR(got[j], expected[j], 1e-12) << "n = " << n << ", j = " << j;
  }
}

// The C++ spelling of a spectrogram and its inverse (ops/spectral.h): the signal comes back.
TEST(FftTest, StftRoundTripsThroughIstft) {
  manual_seed(0);
  const Tensor x = randn({2, 50}, TensorOptions(kFloat64));
  const Tensor w = hann_window(16, true, TensorOptions(kFloat64));
  const Tensor spec = stft(x, 16, 4, std::nullopt, w, true, "reflect", false, std::nullopt, true);
  EXPECT_EQ(spec.sizes(), IntArrayRef({2, 9, 13}));
  EXPECT_EQ(spec.dtype(), kComplex128);
  const Tensor back = istft(spec, 16, 4, std::nullopt, w, true, false, std::nullopt, 50);
  EXPECT_TRUE(allclose(back, x, 1e-12, 1e-12));
  // Gradients reach the signal through both transforms: d/dx of sum(istft(stft(x))) is 1 everywhere.
  const Tensor leaf = x.clone().requires_grad_();
  istft(stft(leaf, 16, 4, std::nullopt, w, true, "reflect", false, std::nullopt, true), 16, 4, std::nullopt, w, true,
        false, std::nullopt, 50)
      .sum()
      .backward();
  EXPECT_TRUE(allclose(leaf.grad(), ones_like(x), 1e-12, 1e-12));
}
