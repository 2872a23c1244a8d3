#pragma once
// gelu(x) = x Phi(x) and its slope Phi(x) + x phi(x), for the CPU kernels: float in float lanes,
// double on std::erfc. float's errors against long double over every 997th float bit pattern
// (tests/ops/gelu_accuracy_test.cpp): gelu within 6.5 ulp, 1.8 for |x| < 0.75 and for x > 0; the
// slope within 7.4 ulp, and within 1.1 * 2^-24 absolute near its zero at x = -0.7518 (a build
// without FMA: 2.0 and 8.0 ulp for the second and third).
//
// Why not x (1 + erf(x / sqrt 2)) / 2 as PyTorch: 1 + erf cancels in the lower tail, to 0 below -8.3
// even in double, and a log or a division downstream turns that into NaN (python/README.md). Why not
// double lanes rounded once, as before: that took 3.5 ns an element on an AVX2 core, five times
// PyTorch's, and a GPT step spent 14% of its time there (now 1.3 ns forward and 1.8 backward;
// PyTorch's 0.8 and 1.8, measured through Python on 2^19 elements).
//
// The forms, a = |x|, Q(a) = Phi(-a) = erfc(a / sqrt 2) / 2:
//   |x| < 0.75: Phi(x) = 1/2 + x P(x^2) and slope = 1/2 + x S(x^2), both fitted (no cancellation);
//   otherwise Q(a) = E t h(t), E = exp(-a^2 / 2), t = 1 / (1 + a / 4), h a fit on a in [0, 14.75];
//   gelu is x Q for x < 0 and x (1 - Q) above; the slope is D or 1 - D, D = E (t h - a / sqrt(2 pi)).
//   a^2 is split into an exact sum so that E keeps its relative accuracy, and past a = 13 E is
//   applied as two halves so that a subnormal result keeps its bits.
#include <Eigen/Core>
#include <cmath>
#include <numbers>
#include <type_traits>

#include "ember/core/cpu/exp_normal_range.h"

namespace ember::cpu {

namespace gelu_lanes {

/// lo with a * a = hi + lo exactly, hi = fl(a * a): one fused multiply-add, or Veltkamp's split
/// where the build has no FMA (pmadd is then a product and a sum, rounded twice).
template <typename Packet>
EIGEN_ALWAYS_INLINE Packet square_residual(const Packet& a, const Packet& hi) {
  using namespace Eigen::internal;
#ifdef EIGEN_VECTORIZE_FMA
  return pmadd(a, a, pnegate(hi));
#else
  const Packet big = pmul(a, pset1<Packet>(4097.0f));
  const Packet ah = psub(big, psub(big, a)), al = psub(a, ah);
  return padd(pmadd(al, al, pmul(pmul(ah, al), pset1<Packet>(2.0f))), psub(pmul(ah, ah), hi));
#endif
}

// h(t), t = 1 / (1 + a / 4): erfcx(a / sqrt 2) / (2 t), a Chebyshev fit (relative 2.3e-10) on
// a in [0, 14.75], in powers of t, t^0 first.
inline constexpr float kTail[] = {0.09973360598087311f,  0.09978432208299637f, 0.09297379106283188f,
                                  0.08430977165699005f,  0.05078345164656639f, 0.07481326907873154f,
                                  -0.023911280557513237f, 0.038109734654426575f, 0.020174972712993622f,
                                  -0.07132609933614731f, 0.04295669496059418f, -0.008402237668633461f};
inline constexpr float kInvSqrt2Pi = 0.3989422804014327f;  // phi(0) = 1 / sqrt(2 pi)
// (Phi(x) - 1/2) / x and (Phi(x) + x phi(x) - 1/2) / x in powers of x^2 on |x| < 0.75, highest first.
inline constexpr float kNearGelu[] = {-8.387866728298832e-06f, 0.00011477760563138872f, -0.0011871375609189272f,
                                      0.00997353158891201f,    -0.06649038195610046f,   0.3989422917366028f};
inline constexpr float kNearSlope[] = {-9.86248705885373e-05f, 0.0011451879981905222f, -0.009495957754552364f,
                                       0.059840988367795944f,  -0.26596149802207947f,  0.7978845834732056f};

template <bool Slope, typename Packet>
EIGEN_ALWAYS_INLINE Packet gelu_packet(const Packet& x) {
  using namespace Eigen::internal;
  const Packet a = pabs(x);
  const Packet ac = pmin(a, pset1<Packet>(15.0f));  // past 15 the result is 0 (or x, or NaN at inf)
  const Packet t = pdiv(pset1<Packet>(1.0f), pmadd(ac, pset1<Packet>(0.25f), pset1<Packet>(1.0f)));
  // NB: Estrin's scheme, not Horner's: the chain of eleven dependent FMAs bounded the throughput
  const auto c = [](int i) { return pset1<Packet>(kTail[i]); };
  const Packet t2 = pmul(t, t), t4 = pmul(t2, t2), t8 = pmul(t4, t4);
  const Packet h03 = pmadd(pmadd(c(3), t, c(2)), t2, pmadd(c(1), t, c(0)));
  const Packet h47 = pmadd(pmadd(c(7), t, c(6)), t2, pmadd(c(5), t, c(4)));
  const Packet h811 = pmadd(pmadd(c(11), t, c(10)), t2, pmadd(c(9), t, c(8)));
  const Packet h = pmadd(h811, t8, pmadd(h47, t4, h03));
  // Q / exp(-a^2 / 2) for gelu; for the slope (Q - a phi(a)) / exp(-a^2 / 2)
  const Packet scaled = Slope ? pmadd(t, h, pnegate(pmul(a, pset1<Packet>(kInvSqrt2Pi)))) : pmul(t, h);
  const Packet hi = pmul(ac, ac), lo = square_residual(ac, hi);
  // v exp(-a^2 / 2), exp(-hi / 2) (1 - lo / 2) to first order in the tiny lo. NB: each lane's form
  // is its own (a value's result must not depend on its neighbours); the deep one runs only where
  // some lane needs it.
  const Packet deep = pcmp_lt(pset1<Packet>(13.0f), ac);
  const Packet e = exp_normal_range(pmul(pmin(hi, pset1<Packet>(169.0f)), pset1<Packet>(-0.5f)));
  const Packet full = pmadd(e, pmul(lo, pset1<Packet>(-0.5f)), e);
  const bool any_deep = predux_any(deep);
  Packet half = full;  // exp(-a^2 / 4), read only where some lane is deep
  if (any_deep) {
    const Packet e4 = exp_normal_range(pmul(hi, pset1<Packet>(-0.25f)));
    half = pmadd(e4, pmul(lo, pset1<Packet>(-0.25f)), e4);
  }
  // NB: the select runs whether or not a lane is deep. Without it the compiler fused v * full with
  // the subtraction below into one rounding in packets without a deep lane only, and a value's
  // result changed by an ulp with its neighbours (AVX-512, gelu(1.1896873)).
  const auto times_exp = [&](const Packet& v) {
    const Packet shallow = pmul(v, full);
    Packet two_halves = shallow;
    if (any_deep) {
      const Packet past = pcmp_lt(pset1<Packet>(15.0f), a);
      two_halves = pselect(past, pmul(v, pzero(v)), pmul(pmul(v, half), half));
    }
    return pselect(deep, two_halves, shallow);
  };
  const Packet negative = pcmp_lt(x, pzero(x));
  const Packet one = pset1<Packet>(1.0f);
  Packet r;
  if constexpr (Slope) {
    const Packet q = times_exp(scaled);
    r = pselect(negative, q, psub(one, q));
  } else {
    r = pselect(negative, times_exp(pmul(x, scaled)), pmul(x, psub(one, times_exp(scaled))));
  }
  // NB: computed for every packet: a branch on whether some lane is near 0 mispredicts on real data
  const float* near_c = Slope ? kNearSlope : kNearGelu;
  const Packet x2 = pmul(x, x);
  Packet p = pset1<Packet>(near_c[0]);
  for (int i = 1; i < 6; ++i) p = pmadd(p, x2, pset1<Packet>(near_c[i]));
  const Packet near = pmadd(x, p, pset1<Packet>(0.5f));
  return pselect(pcmp_lt(a, pset1<Packet>(0.75f)), Slope ? near : pmul(x, near), r);
}

}  // namespace gelu_lanes

/// gelu (Slope false) or its derivative, elementwise; packets for float only.
template <typename T, bool Slope>
struct GeluOf {
  using FloatPacket = typename Eigen::internal::packet_traits<float>::type;
  T operator()(const T& x) const {
    if constexpr (std::is_same_v<T, float>) {
      // NB: one lane of the packet form, so that a value's result never depends on where it sits
      return Eigen::internal::pfirst(packetOp(Eigen::internal::pset1<FloatPacket>(x)));
    } else {
      // NB: Phi(x) as erfc(-x / sqrt 2) / 2: 1 + erf cancels in the lower tail
      const T cdf = T(0.5) * std::erfc(-x * T(std::numbers::sqrt2 / 2));
      if constexpr (!Slope) return x * cdf;
      return cdf + x * T(std::numbers::inv_sqrtpi * std::numbers::sqrt2 / 2) * std::exp(T(-0.5) * x * x);
    }
  }
  template <typename Packet>
  EIGEN_ALWAYS_INLINE Packet packetOp(const Packet& x) const {
    return gelu_lanes::gelu_packet<Slope>(x);
  }
};

/// g * gelu'(x): the backward's product as one functor, so that the slope's packet code is inlined
/// into the loop (as g * gelu_slope_of(x) it stayed a call per packet: 11% of the backward).
template <typename T>
struct GeluGradOf {
  T operator()(const T& g, const T& x) const { return g * GeluOf<T, true>()(x); }
  template <typename Packet>
  EIGEN_ALWAYS_INLINE Packet packetOp(const Packet& g, const Packet& x) const {
    return Eigen::internal::pmul(g, gelu_lanes::gelu_packet<true>(x));
  }
};

}  // namespace ember::cpu

template <typename T, bool Slope>
struct Eigen::internal::functor_traits<ember::cpu::GeluOf<T, Slope>> {
  enum { Cost = 40 * NumTraits<T>::MulCost, PacketAccess = std::is_same_v<T, float> };
};
template <typename T>
struct Eigen::internal::functor_traits<ember::cpu::GeluGradOf<T>> {
  enum { Cost = 41 * NumTraits<T>::MulCost, PacketAccess = std::is_same_v<T, float> };
};
