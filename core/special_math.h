#pragma once
// The special functions of the elementwise ops (lgamma's gradient digamma, polygamma, erfinv), one
// definition for the CPU kernels (core/cpu/unary_kernel.cpp) and the CUDA ones
// (cuda/shared/elementwise_math.h). They compute in double; float callers round the result.
// Conventions are PyTorch's: digamma(+-0) = -+inf and NaN at the negative integers; polygamma(n >= 1,
// x) = (-1)^(n+1) n! zeta(n + 1, x), infinite (of that sign) at 0 and the negative integers;
// erfinv(+-1) = +-inf and NaN outside [-1, 1].
#include <cmath>
#include <limits>

#include "ember/core/host_device.h"

namespace ember::special {

namespace detail {

inline constexpr double kPi = 3.14159265358979323846;

// B_2k / (2k)! for k = 1..12 (the Euler-Maclaurin tail of the Hurwitz zeta), and B_2k / 2k for
// digamma's asymptotic series.
EMBER_HOST_DEVICE inline double bernoulli_over_factorial(int k) {
  // B_2k: 1/6, -1/30, 1/42, -1/30, 5/66, -691/2730, 7/6, -3617/510, 43867/798, -174611/330,
  // 854513/138, -236364091/2730; divided by (2k)!.
  switch (k) {
    case 1: return 1.0 / 6 / 2;
    case 2: return -1.0 / 30 / 24;
    case 3: return 1.0 / 42 / 720;
    case 4: return -1.0 / 30 / 40320;
    case 5: return 5.0 / 66 / 3628800;
    case 6: return -691.0 / 2730 / 479001600;
    case 7: return 7.0 / 6 / 87178291200.0;
    case 8: return -3617.0 / 510 / 20922789888000.0;
    case 9: return 43867.0 / 798 / 6402373705728000.0;
    case 10: return -174611.0 / 330 / 2432902008176640000.0;
    case 11: return 854513.0 / 138 / 1.1240007277776077e21;
    default: return -236364091.0 / 2730 / 6.204484017332394e23;
  }
}

// The Hurwitz zeta function sum_k (q + k)^-s for an integer s >= 2: the terms below q + k = 10 + s
// summed, the rest by Euler-Maclaurin (at most 12 Bernoulli terms; from there on the terms fall by
// 10x or more each, so the series ends below double's precision).
EMBER_HOST_DEVICE inline double hurwitz_zeta(int s, double q) {
  if (q <= 0 && q == std::floor(q)) return std::numeric_limits<double>::infinity();
  double sum = 0;
  double w = q;
  for (int k = 0; k < 10000 && w < 10 + s; ++k, w += 1) sum += std::pow(w, -s);
  const double ws = std::pow(w, -s);
  sum += w * ws / (s - 1) + 0.5 * ws;
  // Term j: B_2j/(2j)! * s (s+1) ... (s+2j-2) * w^(-s-2j+1).
  double rising = s;         // s (s+1) ... (s+2j-2)
  double power = ws / w;     // w^(-s-2j+1)
  const double inv_w2 = 1 / (w * w);
  for (int j = 1; j <= 12; ++j) {
    const double term = bernoulli_over_factorial(j) * rising * power;
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
    rising *= (s + 2 * j - 1) * (s + 2 * j);
    power *= inv_w2;
  }
  return sum;
}

}  // namespace detail

/// psi(x) = d/dx log Gamma(x): reflection below 0, the recurrence up to 10, then the asymptotic
/// series log x - 1/(2x) - sum B_2k / (2k x^2k).
EMBER_HOST_DEVICE inline double digamma(double x) {
  if (x == 0) return std::copysign(std::numeric_limits<double>::infinity(), -x);
  if (std::isnan(x) || x == std::numeric_limits<double>::infinity()) return x;
  double result = 0;
  if (x < 0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
    // psi(x) = psi(1 - x) - pi / tan(pi x); tan through the distance to the nearest integer keeps
    // pi x exact enough far from 0.
    const double r = x - std::round(x);
    result = -detail::kPi / std::tan(detail::kPi * r);
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double inv2 = 1 / (x * x);
  // B_2k / 2k for k = 1..7.
  const double series =
      inv2 * (1.0 / 12 - inv2 * (1.0 / 120 - inv2 * (1.0 / 252 - inv2 * (1.0 / 240 - inv2 * (1.0 / 132 -
      inv2 * (691.0 / 32760 - inv2 * (1.0 / 12)))))));
  return result + std::log(x) - 0.5 / x - series;
}

/// The n-th derivative of digamma (n >= 0): (-1)^(n+1) n! zeta(n + 1, x) for n >= 1.
EMBER_HOST_DEVICE inline double polygamma(int n, double x) {
  if (n == 0) return digamma(x);
  if (std::isnan(x)) return x;
  if (x == std::numeric_limits<double>::infinity()) return 0;
  if (x == -std::numeric_limits<double>::infinity()) return std::numeric_limits<double>::quiet_NaN();
  double factorial = 1;
  for (int k = 2; k <= n; ++k) factorial *= k;
  const double sign = (n % 2 == 1) ? 1.0 : -1.0;
  return sign * factorial * detail::hurwitz_zeta(n + 1, x);
}

/// The inverse of erf on [-1, 1]: Winitzki's closed form (or the Taylor start near 0) refined by
/// three Halley steps, on erf below 0.5 and on erfc above, where 1 - y is exact and erfc keeps its
/// relative accuracy.
EMBER_HOST_DEVICE inline double erfinv(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1 || y == -1) return std::copysign(std::numeric_limits<double>::infinity(), y);
  if (y == 0) return y;
  const double a = std::fabs(y);
  const double two_over_sqrt_pi = 1.1283791670955126;
  double x;
  if (a < 1e-4) {
    x = a / two_over_sqrt_pi * (1 + detail::kPi / 12 * a * a);
  } else {
    const double k = 0.147;
    const double ln = std::log((1 - a) * (1 + a));
    const double c = 2 / (detail::kPi * k) + ln / 2;
    x = std::sqrt(std::sqrt(c * c - ln / k) - c);
  }
  const bool tail = a > 0.5;
  const double r = 1 - a;  // exact for a >= 0.5
  for (int i = 0; i < 3; ++i) {
    const double d = two_over_sqrt_pi * std::exp(-x * x);
    if (d == 0) break;
    if (tail) {
      const double g = std::erfc(x) - r;  // decreasing in x
      x += g / (d - g * x);
    } else {
      const double f = std::erf(x) - a;
      x -= f / (d + f * x);
    }
  }
  return std::copysign(x, y);
}

}  // namespace ember::special
