#pragma once
// The special functions of the elementwise ops (lgamma's gradient digamma, polygamma, erfinv, the
// modified Bessel functions i0, i0e, i1, i1e, the incomplete gamma functions igamma and igammac),
// one definition for the CPU kernels (core/cpu/unary_kernel.cpp, binary_kernel.cpp) and the CUDA
// ones (core/math/elementwise.h). They compute in double; float callers round the result.
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

namespace detail {

// Clenshaw's sum of the Chebyshev series c at x (Cephes's chbevl: the first term halved). NB:
// unrolled on the device, so that the table's entries are constants, not local memory.
template <int N>
EMBER_HOST_DEVICE inline double chebyshev(double x, const double (&c)[N]) {
  double b0 = c[0], b1 = 0, b2 = 0;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
  for (int i = 1; i < N; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = x * b1 - b2 + c[i];
  }
  return 0.5 * (b0 - b2);
}

// The modified Bessel functions' series for a = |x| (Cephes's i0.c and i1.c, Stephen L. Moshier,
// 3-clause BSD; PyTorch's kernels use them too): exp(-a) i0(a) and exp(-a) i1(a) / a on [0, 8] in
// a / 2 - 2, and exp(-a) sqrt(a) i0(a) and exp(-a) sqrt(a) i1(a) beyond, in 32 / a - 2. The tables
// are locals, not namespace-scope arrays, which device code could not index.
EMBER_HOST_DEVICE inline double i0_near(double a) {
  const double c[] = {
      -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16, 1.71539128555513303061E-15,
      -1.16853328779934516808E-14, 7.67618549860493561688E-14, -4.85644678311192946090E-13, 2.95505266312963983461E-12,
      -1.72682629144155570723E-11, 9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
      -1.30002500998624804212E-8,  6.04699502254191894932E-8,  -2.67079385394061173391E-7,  1.11738753912010371815E-6,
      -4.41673835845875056359E-6,  1.64484480707288970893E-5,  -5.75419501008210370398E-5,  1.88502885095841655729E-4,
      -5.76375574538582365885E-4,  1.63947561694133579842E-3,  -4.32430999505057594430E-3,  1.05464603945949983183E-2,
      -2.37374148058994688156E-2,  4.93052842396707084878E-2,  -9.49010970480476444210E-2,  1.71620901522208775349E-1,
      -3.04682672343198398683E-1,  6.76795274409476084995E-1};
  return chebyshev(a / 2 - 2, c);
}
EMBER_HOST_DEVICE inline double i0_far(double a) {
  const double c[] = {-7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
                      3.46122286769746109310E-17,  -2.82762398051658348494E-16, -3.42548561967721913462E-16,
                      1.77256013305652638360E-15,  3.81168066935262242075E-15,  -9.55484669882830764870E-15,
                      -4.15056934728722208663E-14, 1.54008621752140982691E-14,  3.85277838274214270114E-13,
                      7.18012445138366623367E-13,  -1.79417853150680611778E-12, -1.32158118404477131188E-11,
                      -3.14991652796324136454E-11, 1.18891471078464383424E-11,  4.94060238822496958910E-10,
                      3.39623202570838634515E-9,   2.26666899049817806459E-8,   2.04891858946906374183E-7,
                      2.89137052083475648297E-6,   6.88975834691682398426E-5,   3.36911647825569408990E-3,
                      8.04490411014108831608E-1};
  return chebyshev(32 / a - 2, c);
}
EMBER_HOST_DEVICE inline double i1_near(double a) {
  const double c[] = {
      2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16, -1.10559694773538630805E-15,
      7.60068429473540693410E-15, -5.04218550472791168711E-14, 3.22379336594557470981E-13, -1.98397439776494371520E-12,
      1.17361862988909016308E-11, -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
      9.38153738649577178388E-9,  -4.44505912879632808065E-8,  2.00329475355213526229E-7,  -8.56872026469545474066E-7,
      3.47025130813767847674E-6,  -1.32731636560394358279E-5,  4.78156510755005422638E-5,  -1.61760815825896745588E-4,
      5.12285956168575772895E-4,  -1.51357245063125314899E-3,  4.15642294431288815669E-3,  -1.05640848946261981558E-2,
      2.47264490306265168283E-2,  -5.29459812080949914269E-2,  1.02643658689847095384E-1,  -1.76416518357834055153E-1,
      2.52587186443633654823E-1};
  return chebyshev(a / 2 - 2, c);
}
EMBER_HOST_DEVICE inline double i1_far(double a) {
  const double c[] = {7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17,
                      -3.20952592199342395980E-17, 2.96262899764595013876E-16,  3.30820231092092828324E-16,
                      -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
                      4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
                      -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,
                      3.25260358301548823856E-11,  -1.89749581235054123450E-11, -5.58974346219658380687E-10,
                      -3.83538038596423702205E-9,  -2.63146884688951950684E-8,  -2.51223623787020892529E-7,
                      -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
                      7.78576235018280120474E-1};
  return chebyshev(32 / a - 2, c);
}

}  // namespace detail

/// i0e(x) = exp(-|x|) i0(x), the exponentially scaled modified Bessel function of the first kind of
/// order 0 (even; 0 at +-inf).
EMBER_HOST_DEVICE inline double bessel_i0e(double x) {
  const double a = std::fabs(x);
  return a <= 8 ? detail::i0_near(a) : detail::i0_far(a) / std::sqrt(a);
}

/// i0(x), even: exp(|x|) times the series, in PyTorch's order of operations, so that it overflows
/// where PyTorch's double does (from |x| = 709.8) and is NaN at +-inf.
EMBER_HOST_DEVICE inline double bessel_i0(double x) {
  const double a = std::fabs(x);
  return a <= 8 ? std::exp(a) * detail::i0_near(a) : std::exp(a) * detail::i0_far(a) / std::sqrt(a);
}

/// i1e(x) = exp(-|x|) i1(x), odd (+0 at -0, as PyTorch's).
EMBER_HOST_DEVICE inline double bessel_i1e(double x) {
  const double a = std::fabs(x);
  const double z = a <= 8 ? detail::i1_near(a) * a : detail::i1_far(a) / std::sqrt(a);
  return x < 0 ? -z : z;
}

/// i1(x), odd: as i0, exp(|x|) times the series (NaN at +-inf, as PyTorch's).
EMBER_HOST_DEVICE inline double bessel_i1(double x) {
  const double a = std::fabs(x);
  const double z = a <= 8 ? detail::i1_near(a) * a * std::exp(a) : std::exp(a) * detail::i1_far(a) / std::sqrt(a);
  return x < 0 ? -z : z;
}

namespace detail {

// P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n)) for 0 < x < a + 1, where
// every term is positive and the series converges in O(sqrt(a)) terms near x = a (Numerical
// Recipes' gser).
EMBER_HOST_DEVICE inline double gammainc_series(double a, double x) {
  double term = 1, total = 1;
  for (int n = 1; n < 100000 && term > 1e-17 * total; ++n) {
    term *= x / (a + n);
    total += term;
  }
  return std::exp(a * std::log(x) - x - std::lgamma(a + 1)) * total;
}

// Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...)) for
// x >= a + 1, by the modified Lentz method (Numerical Recipes' gcf).
EMBER_HOST_DEVICE inline double gammaincc_fraction(double a, double x) {
  constexpr double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) <= 1e-16) break;
  }
  return std::exp(a * std::log(x) - x - std::lgamma(a)) * h;
}

}  // namespace detail

/// The regularised incomplete gamma functions P(a, x) (upper: Q(a, x) = 1 - P(a, x)): the series
/// of P below x = a + 1, the continued fraction of Q above, the other one as 1 minus it; relative
/// accuracy about 1e-13 for a up to 1e4. Edge values are PyTorch's (Cephes's): NaN for a < 0 or
/// x < 0 and for a = x = 0 or a = x = inf, P(0, x > 0) = 1, P(a, 0) = 0, P(inf, x != inf) = 0,
/// P(a, inf) = 1, tried in that order (so P(NaN, 0) = 0).
EMBER_HOST_DEVICE inline double gammainc(double a, double x, bool upper) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  double p = std::numeric_limits<double>::quiet_NaN();
  // NB: the edges in PyTorch's order, which decides a NaN in the other argument: P(NaN, 0) = 0,
  // P(NaN, inf) = 1, P(inf, NaN) = 0.
  if (x < 0 || a < 0) {
  } else if (a == 0) {
    if (x > 0) p = 1;
  } else if (x == 0) {
    p = 0;
  } else if (a == inf) {
    if (x != inf) p = 0;
  } else if (x == inf) {
    p = 1;
  } else if (a > 0 && x > 0) {
    if (x < a + 1) {
      p = detail::gammainc_series(a, x);
    } else {
      const double q = detail::gammaincc_fraction(a, x);
      return upper ? q : 1 - q;
    }
  }
  return upper ? 1 - p : p;
}

}  // namespace ember::special
