#pragma once
// Elementwise math the CPU kernels share, vectorised and the same on packets and single values
// (so a value's result never depends on where it sits in a buffer):
//   sqrt_of: IEEE sqrt, correctly rounded (as std::sqrt and PyTorch);
//   tanh_of, erf_of: float's computed in double lanes and rounded once, std:: for double;
//   gelu_of (and GeluGradOf, the backward's product): gelu_math.h;
//   log_of: Eigen's log, but right for subnormal inputs;
//   pow_of: C's special values, float in double lanes, double on Eigen's packet pow;
//   sigmoid_of: 1 / (1 + exp(-x)), not Eigen's approximate logistic;
//   neg_of: the sign bit flipped (Eigen's packet negation is 0 - x: +0 for +0);
//   exp_of: Eigen's exp (float: the same bits faster where the result is normal, exp_normal_range.h),
//   but exp(x/2)^2 where the result is not a normal number. Eigen's packet exp
//   clamps its input (to -709.78 for double, -88.38 for float, on every instruction set), so
//   exp(-inf) came out as 5.6e-309 in a packet and 0 in a scalar tail: a softmax over a -inf mask
//   gave masked positions weight, and logsumexp over all -inf gave -709 instead of -inf.
// NB: the library builds with EIGEN_FAST_MATH=0 (CMakeLists.txt): Eigen's fast sqrt is an rsqrt
// estimate and a Newton step, 1-2 bits off and NaN for +inf. The same switch also turns off
// Eigen's packet paths of sqrt on AVX-512 and of tanh and erf everywhere, which would leave them
// scalar (5x slower in Adam's update): these functors run the packet functions explicitly.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <type_traits>
#include <unsupported/Eigen/SpecialFunctions>

#include "ember/core/cpu/exp_normal_range.h"
#include "ember/core/cpu/gelu_math.h"

namespace ember::cpu {

template <typename T>
struct ExactSqrt {
  T operator()(const T& x) const { return std::sqrt(x); }
  template <typename Packet>
  Packet packetOp(const Packet& x) const { return Eigen::internal::psqrt(x); }
};

namespace float_lanes {

template <typename D>
EIGEN_ALWAYS_INLINE D horner(const D& t, const double* c, int n) {
  using namespace Eigen::internal;
  D p = pset1<D>(c[0]);
  for (int i = 1; i < n; ++i) p = pmadd(p, t, pset1<D>(c[i]));
  return p;
}

/// exp(y) for y in [-20, 0] to about 1e-13 relative: exp(y / 32)^32, the inner one a polynomial fitted
/// on [-0.625, 0]. NB: no 2^k is built from integer bits, so the same code runs on every packet type.
template <typename D>
EIGEN_ALWAYS_INLINE D exp_nonpositive(const D& y) {
  using namespace Eigen::internal;
  static constexpr double c[] = {2.022100000000001e-06, 2.3882593750000012e-05, 0.0001977586938476563,
                                 0.001388605216598511, 0.008333257063727829, 0.04166665422470194,
                                 0.16666666551167453, 0.4999999999466281, 0.9999999999990837, 0.9999999999999976};
  D p = horner(pmul(y, pset1<D>(1.0 / 32)), c, 10);
  for (int i = 0; i < 5; ++i) p = pmul(p, p);
  return p;
}

inline constexpr double kErfNear[] = {-1.0469229891896247e-07, 1.530670851934701e-06, -1.4795154493185688e-05,
                                     0.00012046280810409373, -0.0008547935389538353, 0.005223967272425601,
                                     -0.02686616907148015, 0.11283791658828168, -0.3761263890282336,
                                     1.128379167095495};
inline constexpr double kErfcxFar[] = {2.1338585179608849e-07, -6.364905232172396e-07, 9.594225259082355e-07,
                                       -2.671335206075969e-06, 8.860714853201896e-06, -2.4069914819496397e-05,
                                       6.24985286434817e-05, -0.00016176251297137312, 0.0004091094344444904,
                                       -0.0010059073038928353, 0.002403643741183445, -0.0055706940013381286,
                                       0.012489374162300252, -0.0270052975389864, 0.056110493439097735,
                                       -0.11152102016643636, 0.21080636406114323};

/// erfc(a) for lanes with a in [1, 4], to about 1e-12 relative: exp(-a^2) Q(a), Q a fit of erfcx.
template <typename D>
EIGEN_ALWAYS_INLINE D erfc_far_lanes(const D& a) {
  using namespace Eigen::internal;
  const D t = pmul(psub(a, pset1<D>(2.5)), pset1<D>(1.0 / 1.5));
  return pmul(exp_nonpositive(pnegate(pmul(a, a))), horner(t, kErfcxFar, 17));
}

/// erf of float values held in double lanes, within about 1e-12 before the rounding to float. Below
/// |x| = 1: x P(x^2); above: 1 - erfc(|x|) (x^2 of a float is exact in double; past 4 the float result
/// is 1, so |x| is clamped there). Both fits are Chebyshev interpolants (of erf(x)/x on x^2 in [0, 1],
/// and of erfcx in (x - 2.5) / 1.5), converted to powers.
template <typename D>
EIGEN_ALWAYS_INLINE D erf_lanes(const D& x, bool any_near, bool any_far) {
  using namespace Eigen::internal;
  const D ax = pabs(x);
  const D is_number = pcmp_eq(x, x);
  const D near = pcmp_lt(ax, pset1<D>(1.0));
  const D far = pandnot(is_number, near);
  D r = x;  // NaN stays
  if (any_near) r = pselect(near, pmul(x, horner(pmul(x, x), kErfNear, 10)), r);
  if (any_far) {
    const D tail = erfc_far_lanes(pselect(far, pmin(ax, pset1<D>(4.0)), pset1<D>(2.0)));
    r = pselect(far, por(psub(pset1<D>(1.0), tail), pand(x, pset1<D>(-0.0))), r);
  }
  return r;
}

/// tanh of float values held in double lanes, within about 1e-12 before the rounding to float: its
/// odd Taylor polynomial below |x| = 0.1, (1 - e) / (1 + e) with e = exp(-2|x|) above (float's tanh
/// is 1 from |x| = 9.01 on, so |x| is clamped at 10).
template <typename D>
EIGEN_ALWAYS_INLINE D tanh_lanes(const D& x, bool any_small, bool any_large) {
  using namespace Eigen::internal;
  static constexpr double odd_c[] = {62.0 / 2835, -17.0 / 315, 2.0 / 15, -1.0 / 3, 1.0};
  const D ax = pabs(x);
  const D small = pcmp_lt(ax, pset1<D>(0.1));
  const D large = pandnot(pcmp_eq(x, x), small);
  D r = x;  // NaN stays
  if (any_small) r = pselect(small, pmul(x, horner(pmul(x, x), odd_c, 5)), r);
  if (any_large) {
    const D e = exp_nonpositive(pmul(pmin(ax, pset1<D>(10.0)), pset1<D>(-2.0)));
    const D y = pdiv(psub(pset1<D>(1.0), e), padd(pset1<D>(1.0), e));
    r = pselect(large, por(y, pand(x, pset1<D>(-0.0))), r);
  }
  return r;
}

/// A float packet's lanes as two double packets and back, in registers where the instruction set is
/// known (a store and reload of a wide register as narrower halves stalls on every packet).
template <typename Packet, typename D>
struct Widen {
  static constexpr int N = Eigen::internal::unpacket_traits<Packet>::size;
  static void split(const Packet& x, D& lo, D& hi) {
    alignas(64) float f[N];
    alignas(64) double d[N];
    Eigen::internal::pstore(f, x);
    for (int i = 0; i < N; ++i) d[i] = f[i];
    lo = Eigen::internal::pload<D>(d);
    hi = Eigen::internal::pload<D>(d + N / 2);
  }
  static Packet join(const D& lo, const D& hi) {
    alignas(64) float f[N];
    alignas(64) double d[N];
    Eigen::internal::pstore(d, lo);
    Eigen::internal::pstore(d + N / 2, hi);
    for (int i = 0; i < N; ++i) f[i] = static_cast<float>(d[i]);
    return Eigen::internal::pload<Packet>(f);
  }
};
#if defined(EIGEN_VECTORIZE_AVX512)
template <>
struct Widen<Eigen::internal::Packet16f, Eigen::internal::Packet8d> {
  static void split(const __m512& x, __m512d& lo, __m512d& hi) {
    lo = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
    hi = _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1)));
  }
  static __m512 join(const __m512d& lo, const __m512d& hi) {
    const __m512d low = _mm512_castpd256_pd512(_mm256_castps_pd(_mm512_cvtpd_ps(lo)));
    return _mm512_castpd_ps(_mm512_insertf64x4(low, _mm256_castps_pd(_mm512_cvtpd_ps(hi)), 1));
  }
};
#endif
#if defined(EIGEN_VECTORIZE_AVX)
template <>
struct Widen<Eigen::internal::Packet8f, Eigen::internal::Packet4d> {
  static void split(const __m256& x, __m256d& lo, __m256d& hi) {
    lo = _mm256_cvtps_pd(_mm256_castps256_ps128(x));
    hi = _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1));
  }
  static __m256 join(const __m256d& lo, const __m256d& hi) {
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1);
  }
};
#endif
#if defined(EIGEN_VECTORIZE_SSE2)
template <>
struct Widen<Eigen::internal::Packet4f, Eigen::internal::Packet2d> {
  static void split(const __m128& x, __m128d& lo, __m128d& hi) {
    lo = _mm_cvtps_pd(x);
    hi = _mm_cvtps_pd(_mm_movehl_ps(x, x));
  }
  static __m128 join(const __m128d& lo, const __m128d& hi) { return _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi)); }
};
#endif

}  // namespace float_lanes

/// lanes(v) (float values in a double packet, to a double packet) over a float packet's lanes, each
/// result rounded once to float: the two halves in registers, or (a packet Widen does not split) one lane
/// at a time through a double packet.
template <typename Packet, typename Lanes>
EIGEN_ALWAYS_INLINE Packet on_double_lanes(const Packet& x, const Lanes& lanes) {
  using namespace Eigen::internal;
  using D = typename packet_traits<double>::type;
  if constexpr (unpacket_traits<D>::size * 2 == unpacket_traits<Packet>::size) {
    using W = float_lanes::Widen<Packet, D>;
    D lo, hi;
    W::split(x, lo, hi);
    return W::join(lanes(lo), lanes(hi));
  } else {
    constexpr int N = unpacket_traits<Packet>::size;
    alignas(64) float f[N];
    pstore(f, x);
    for (int i = 0; i < N; ++i) f[i] = static_cast<float>(pfirst(lanes(pset1<D>(f[i]))));
    return pload<Packet>(f);
  }
}

/// float tanh and erf, computed on double lanes and rounded once: within half an ulp but for ties
/// closer than about 1e-12 (PyTorch's are within 0.57 and 1.0 ulp; Eigen's float approximations,
/// used before, 3 and 5 ulp, which a cancellation downstream (log(1 - erf(x)), erfinv(erf(x)), acos of
/// tanh) turned into visibly wrong results). The price: 1.1 (tanh) and 1.4 ns (erf) an element on one
/// AVX-512 thread, where Eigen's took 0.3 and PyTorch's take 0.33 and 0.51.
template <bool IsErf, typename Packet>
EIGEN_ALWAYS_INLINE Packet tanh_or_erf_float_packet(const Packet& x) {
  using namespace Eigen::internal;
  using D = typename packet_traits<double>::type;
  // NB: each of the two forms runs only where some lane needs it, decided on the float packet
  // (Eigen's predux_any of a double packet is a chain of horizontal adds).
  const Packet ax = pabs(x);
  const Packet split_at = pset1<Packet>(IsErf ? 1.0f : 0.1f);
  const bool any_low = predux_any(pcmp_lt(ax, split_at)), any_high = predux_any(pcmp_le(split_at, ax));
  return on_double_lanes(x, [&](const D& v) {
    return IsErf ? float_lanes::erf_lanes(v, any_low, any_high) : float_lanes::tanh_lanes(v, any_low, any_high);
  });
}

/// The functions float computes on double lanes (tanh_or_erf_float_packet), one functor; double
/// takes std::tanh and std::erf.
enum class OnDoubleLanes { Tanh, Erf };

template <typename T, OnDoubleLanes Op>
struct RoundedOnce {
  using FloatPacket = typename Eigen::internal::packet_traits<float>::type;
  T operator()(const T& x) const {
    if constexpr (!std::is_same_v<T, float>) {
      if constexpr (Op == OnDoubleLanes::Tanh) return std::tanh(x);
      else return std::erf(x);
    } else {  // NB: one lane of the packet form, so that a value's result never depends on where it sits
      return Eigen::internal::pfirst(packetOp(Eigen::internal::pset1<FloatPacket>(x)));
    }
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    return tanh_or_erf_float_packet<Op == OnDoubleLanes::Erf>(x);
  }
};

template <typename T>
struct FullRangeExp {
  // The smallest x whose exp is a normal number, log(numeric_limits<T>::min()). Below it exp(x/2)^2:
  // the subnormal result PyTorch gives (FLT_MIN's log comes back to FLT_MIN's neighbour, not 0), and 0
  // for -inf, where Eigen's packet exp clamps its input and would give 5.6e-309. A constant: this runs
  // once per packet.
  static constexpr T cutoff() {
    if constexpr (std::is_same_v<T, float>) return -87.33654475f;
    else return -708.3964185322641;
  }
  T operator()(const T& x) const {
    using namespace Eigen::internal;
    return pfirst(packetOp(pset1<typename packet_traits<T>::type>(x)));
  }
  // NB: float takes Eigen's generic packet exp (1.3 ulp; PyTorch's 0.56), not the AVX-512 one that
  // pexp dispatches to: that one is up to 4.5 ulp off at large |x| and gives inf from 127.5 log 2 =
  // 88.38 on, where exp is still finite up to 88.72 (a Poisson loss of a log-rate of 88.4 was inf).
  template <typename Packet>
  static Packet exp_packet(const Packet& x) {
    using namespace Eigen::internal;
    if constexpr (std::is_same_v<typename unpacket_traits<Packet>::type, float>)
      return pexp_float(x);
    else
      return pexp(x);
  }
  template <typename Packet>
  EIGEN_ALWAYS_INLINE Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;
    if constexpr (std::is_same_v<typename unpacket_traits<Packet>::type, float>) {
      // NB: the same bits as exp_packet there (exp_normal_range.h); a NaN lane fails both tests
      const Packet normal = pand(pcmp_le(pset1<Packet>(cutoff()), x), pcmp_le(x, pset1<Packet>(88.0f)));
      if (!predux_any(pcmp_eq(normal, pzero(x)))) return exp_normal_range(x);
    }
    const Packet y = exp_packet(x);
    const Packet low = pcmp_lt(x, pset1<Packet>(cutoff()));
    if (!predux_any(low)) return y;
    const Packet half = exp_packet(pmul(x, pset1<Packet>(T(0.5))));
    return pselect(low, pmul(half, half), y);
  }
};

template <typename T>
struct SignFlip {
  // -x as its sign bit flipped, as PyTorch's neg: Eigen 3.4's packet negation is 0 - x, which gives
  // +0 for +0 (its scalar tail -0), and x * -1 keeps a NaN's sign.
  T operator()(const T& x) const { return -x; }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;
    return pxor(x, pset1<Packet>(T(-0.0)));
  }
};

/// max(x, lo) and min(x, hi) as x < lo ? lo : x and x > hi ? hi : x, as PyTorch's clamp and relu:
/// x itself where it equals the bound (relu(-0) is -0) and NaN kept. NB: Eigen's pmax/pmin give the
/// bound's +0 for -0 in a packet and x's -0 in a scalar tail.
template <typename T, bool Below>
struct ClampTo {
  T bound;
  T operator()(const T& x) const { return (Below ? x < bound : x > bound) ? bound : x; }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;
    const Packet b = pset1<Packet>(bound);
    return pselect(Below ? pcmp_lt(x, b) : pcmp_lt(b, x), b, x);
  }
};

template <typename T>
struct SubnormalLog {
  // Eigen's packet log raises its input to the smallest normal number first, so log(1e-45) came
  // out as -87.34 (log(1.2e-38)) in a packet and -103.28 in a scalar tail. A subnormal x is scaled
  // by 2^k (exact) into the normal range and k log 2 taken off again.
  static constexpr int k() { return std::is_same_v<T, float> ? 24 : 54; }
  // NB: one lane of the packet form: std::log differs from Eigen's plog by an ulp now and then, and a
  // value's log must not depend on where it sits (x / x of such logs left a rounding residual or not)
  T operator()(const T& x) const {
    using namespace Eigen::internal;
    return pfirst(packetOp(pset1<typename packet_traits<T>::type>(x)));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;
    const Packet sub = pcmp_lt(pabs(x), pset1<Packet>(std::numeric_limits<T>::min()));
    const Packet scaled = pselect(sub, pmul(x, pset1<Packet>(T(1ull << k()))), x);
    const T shift = static_cast<T>(k() * 0.693147180559945309417232121458176568);
    return psub(plog(scaled), pand(sub, pset1<Packet>(shift)));
  }
};

}  // namespace ember::cpu

template <typename T>
struct Eigen::internal::functor_traits<ember::cpu::SubnormalLog<T>> {
  enum { Cost = 25 * NumTraits<T>::MulCost, PacketAccess = std::is_floating_point_v<T> };
};
template <typename T, bool Below>
struct Eigen::internal::functor_traits<ember::cpu::ClampTo<T, Below>> {
  enum { Cost = 2 * NumTraits<T>::AddCost, PacketAccess = std::is_floating_point_v<T> };
};
template <typename T>
struct Eigen::internal::functor_traits<ember::cpu::SignFlip<T>> {
  enum { Cost = NumTraits<T>::AddCost, PacketAccess = std::is_floating_point_v<T> };
};
template <typename T>
struct Eigen::internal::functor_traits<ember::cpu::FullRangeExp<T>> {
  enum { Cost = 20 * NumTraits<T>::MulCost, PacketAccess = std::is_floating_point_v<T> };
};
template <typename T>
struct Eigen::internal::functor_traits<ember::cpu::ExactSqrt<T>> {
  enum { Cost = 10 * NumTraits<T>::MulCost, PacketAccess = std::is_floating_point_v<T> };
};
template <typename T, ember::cpu::OnDoubleLanes Op>
struct Eigen::internal::functor_traits<ember::cpu::RoundedOnce<T, Op>> {
  enum { Cost = 60 * NumTraits<T>::MulCost, PacketAccess = std::is_same_v<T, float> };
};

namespace ember::cpu {

template <typename X>
auto sqrt_of(const X& x) { return x.unaryExpr(ExactSqrt<typename X::Scalar>()); }
template <typename X>
auto tanh_of(const X& x) { return x.unaryExpr(RoundedOnce<typename X::Scalar, OnDoubleLanes::Tanh>()); }
template <typename X>
auto erf_of(const X& x) { return x.unaryExpr(RoundedOnce<typename X::Scalar, OnDoubleLanes::Erf>()); }
template <typename X>
auto gelu_of(const X& x) { return x.unaryExpr(GeluOf<typename X::Scalar, false>()); }
template <typename X>
auto neg_of(const X& x) {
  return x.unaryExpr(SignFlip<typename X::Scalar>());
}
template <typename X>
auto clamp_below(const X& x, typename X::Scalar lo) { return x.unaryExpr(ClampTo<typename X::Scalar, true>{lo}); }
template <typename X>
auto clamp_above(const X& x, typename X::Scalar hi) { return x.unaryExpr(ClampTo<typename X::Scalar, false>{hi}); }
template <typename X>
auto exp_of(const X& x) { return x.unaryExpr(FullRangeExp<typename X::Scalar>()); }
template <typename X>
auto log_of(const X& x) { return x.unaryExpr(SubnormalLog<typename X::Scalar>()); }

/// out[j] = exp(x[j] - shift) for j < n (out may be x): exp_of's bits, in whole packets, the last
/// one padded. Eigen's loop over a mapped run peels scalars up to the first aligned element and ends
/// in scalars, each a whole packet's work here, which dominated rows of a few dozen (causal
/// attention's, 1 to 64 long: 28% of its forward).
template <typename T>
void exp_shifted(const T* x, T* out, int64_t n, T shift) {
  using namespace Eigen::internal;
  using Packet = typename packet_traits<T>::type;
  constexpr int64_t P = unpacket_traits<Packet>::size;
  const FullRangeExp<T> exp;
  const Packet s = pset1<Packet>(shift);
  int64_t j = 0;
  for (; j + P <= n; j += P) pstoreu(out + j, exp.packetOp(psub(ploadu<Packet>(x + j), s)));
  if (j == n) return;
  alignas(64) T pad[P] = {};
  std::copy(x + j, x + n, pad);
  pstore(pad, exp.packetOp(psub(pload<Packet>(pad), s)));
  std::copy(pad, pad + (n - j), out + j);
}
/// 1 / (1 + exp(-x)), as PyTorch and the CUDA kernels compute it. NB: not Eigen's logistic(), whose
/// float version is a rational approximation that is exactly 1 above 15.7 and exp(x) below -9
/// (7.5e-5 relative error at -9.5): a binary cross-entropy of such a probability was off by 80.
template <typename X>
auto sigmoid_of(const X& x) {
  using T = typename X::Scalar;
  return (T(1) + exp_of(-x)).inverse();
}

/// x^p with C's values. float: exp(p log x) in double lanes, which rounds to within half an ulp or so
/// (Eigen's float pow is up to 12 ulp off, which sin(pi x) of a large x amplifies; PyTorch's is 0.6);
/// double: Eigen's packet pow, one lane of it for a single value (std::pow differs by an ulp now and
/// then: 2 ** x must not depend on where x sits). Bases that are not positive and finite, a base of 1,
/// and exponents of 0 or not finite are taken by std::pow: C's signs (Eigen's packet pow gave
/// pow(-0, -3) +inf and pow(-inf, -3) +0) and special values (pow(1, NaN) is 1, pow(-2, 3) is -8).
template <typename T>
struct PacketPow {
  // NB: as Eigen's own pow: packets only where the instruction set rounds them (not on SSE2 alone)
  static constexpr bool kPackets = Eigen::internal::functor_traits<Eigen::internal::scalar_pow_op<T, T>>::PacketAccess;
  T operator()(const T& x, const T& p) const {
    using namespace Eigen::internal;
    using Packet = typename packet_traits<T>::type;
    if constexpr (kPackets)
      return pfirst(packetOp(pset1<Packet>(x), pset1<Packet>(p)));
    else
      return std::pow(x, p);
  }
  template <typename Packet>
  Packet packetOp(const Packet& x, const Packet& p) const { return Eigen::internal::generic_pow(x, p); }
};

}  // namespace ember::cpu

template <typename T>
struct Eigen::internal::functor_traits<ember::cpu::PacketPow<T>> {
  enum { Cost = 50 * NumTraits<T>::MulCost, PacketAccess = ember::cpu::PacketPow<T>::kPackets };
};

namespace ember::cpu {

template <typename X, typename P>
Eigen::Array<typename X::Scalar, Eigen::Dynamic, 1> pow_of(const X& x, const P& p) {
  using T = typename X::Scalar;
  using Column = Eigen::Array<T, Eigen::Dynamic, 1>;
  Column r;
  if constexpr (std::is_same_v<T, float>) {
    Eigen::Array<double, Eigen::Dynamic, 1> xd = x.template cast<double>();
    if constexpr (std::is_arithmetic_v<P>)
      r = exp_of(log_of(xd.abs()) * static_cast<double>(p)).template cast<float>();
    else
      r = exp_of(log_of(xd.abs()) * p.template cast<double>()).template cast<float>();
  } else if constexpr (std::is_arithmetic_v<P>) {
    r = x.binaryExpr(Column::Constant(x.size(), static_cast<T>(p)), PacketPow<T>());
  } else {
    r = x.binaryExpr(p, PacketPow<T>());
  }
  for (Eigen::Index i = 0; i < r.size(); ++i) {
    const T b = x(i);
    T e;
    if constexpr (std::is_arithmetic_v<P>)
      e = static_cast<T>(p);
    else
      e = p(i);
    if (!(b > T(0)) || std::isinf(b) || b == T(1) || e == T(0) || !std::isfinite(e)) r(i) = std::pow(b, e);
  }
  return r;
}

}  // namespace ember::cpu
