#pragma once
// Elementwise math the CPU kernels share, vectorised and the same on packets and single values
// (so a value's result never depends on where it sits in a buffer):
//   sqrt_of: IEEE sqrt, correctly rounded (as std::sqrt and PyTorch);
//   tanh_of, erf_of: Eigen's float approximations (tanh's tail as 1 - 2 / (exp(2|x|) + 1)), std:: for double;
//   log_of: Eigen's log, but right for subnormal inputs;
//   sigmoid_of: 1 / (1 + exp(-x)), not Eigen's approximate logistic;
//   neg_of: the sign bit flipped (Eigen's packet negation is 0 - x: +0 for +0);
//   exp_of: Eigen's exp, but exp(x/2)^2 where the result is not a normal number. Eigen's packet exp
//   clamps its input (to -709.78 for double, -88.38 for float, on every instruction set), so
//   exp(-inf) came out as 5.6e-309 in a packet and 0 in a scalar tail: a softmax over a -inf mask
//   gave masked positions weight, and logsumexp over all -inf gave -709 instead of -inf.
// NB: the library builds with EIGEN_FAST_MATH=0 (CMakeLists.txt): Eigen's fast sqrt is an rsqrt
// estimate and a Newton step, 1-2 bits off and NaN for +inf. The same switch also turns off
// Eigen's packet paths of sqrt on AVX-512 and of tanh and erf everywhere, which would leave them
// scalar (5x slower in Adam's update): these functors run the packet functions explicitly.
#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <unsupported/Eigen/SpecialFunctions>

namespace ember::cpu {

/// a * b of an integral type, wrapping around as PyTorch's integer products do (and not undefined
/// behaviour, as a signed overflow is in C++): computed in uint64_t, whose product is taken modulo
/// 2^64, then narrowed (modulo 2^bits since C++20).
template <typename T>
T wrapping_mul(T a, T b) {
  static_assert(std::is_integral_v<T>);
  return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

template <typename T>
struct ExactSqrt {
  T operator()(const T& x) const { return std::sqrt(x); }
  template <typename Packet>
  Packet packetOp(const Packet& x) const { return Eigen::internal::psqrt(x); }
};

/// float tanh: Eigen's rational approximation below |x| = 4, and 1 - 2 / (exp(2|x|) + 1) with x's
/// sign above. NB: the approximation is clamped at |x| = 7.9 and comes out exactly 1 from 8 on, where
/// tanh is 1 - 2.3e-7 (PyTorch: 0.99999976): 1 - y^2, tanh's derivative, was 0 there, and acos(tanh(x))'s
/// gradient NaN. The tail form is within an ulp (1 - y is small, so its error is too).
template <typename Packet>
Packet tanh_float_packet(const Packet& x) {
  using namespace Eigen::internal;
  const Packet y = generic_fast_tanh_float(x);
  const Packet ax = pabs(x);
  const Packet tail = pcmp_le(pset1<Packet>(4.0f), ax);
  if (!predux_any(tail)) return y;
  const Packet one = pset1<Packet>(1.0f);
  const Packet t = psub(one, pdiv(pset1<Packet>(2.0f), padd(pexp(padd(ax, ax)), one)));
  return pselect(tail, por(t, pand(x, pset1<Packet>(-0.0f))), y);
}

/// float erf: Eigen's rational approximation, and 2x / sqrt(pi) below |x| = 1e-20, where the
/// approximation's first product underflows (erf(-1e-45) came out -0, PyTorch's -1.4e-45).
template <typename Packet>
Packet erf_float_packet(const Packet& x) {
  using namespace Eigen::internal;
  const Packet tiny = pcmp_lt(pabs(x), pset1<Packet>(1e-20f));
  return pselect(tiny, pmul(x, pset1<Packet>(1.12837916709551257f)), generic_fast_erf_float(x));
}

template <typename T, bool IsErf>
struct TanhOrErf {
  using FloatPacket = typename Eigen::internal::packet_traits<float>::type;
  T operator()(const T& x) const {
    if constexpr (!std::is_same_v<T, float>)
      return IsErf ? std::erf(x) : std::tanh(x);
    else  // NB: one lane of the packet form, so that a value's result never depends on where it sits
      return Eigen::internal::pfirst(packetOp(Eigen::internal::pset1<FloatPacket>(x)));
  }
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    if constexpr (IsErf)
      return erf_float_packet(x);
    else
      return tanh_float_packet(x);
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
  template <typename Packet>
  Packet packetOp(const Packet& x) const {
    using namespace Eigen::internal;
    const Packet y = pexp(x);
    const Packet low = pcmp_lt(x, pset1<Packet>(cutoff()));
    if (!predux_any(low)) return y;
    const Packet half = pexp(pmul(x, pset1<Packet>(T(0.5))));
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
  T operator()(const T& x) const { return std::log(x); }
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
template <typename T, bool IsErf>
struct Eigen::internal::functor_traits<ember::cpu::TanhOrErf<T, IsErf>> {
  enum { Cost = 30 * NumTraits<T>::MulCost, PacketAccess = std::is_same_v<T, float> };
};

namespace ember::cpu {

/// x^p with C's values. float: exp(p log x) in double packets, which rounds to within half an ulp or so
/// (Eigen's float pow is up to 12 ulp off, which sin(pi x) of a large x amplifies; PyTorch's is 0.6);
/// double: Eigen's pow. Bases that are not positive and finite, a base of 1, and exponents of 0 or not
/// finite are taken by std::pow: C's signs (Eigen's packet pow gave pow(-0, -3) +inf and pow(-inf, -3) +0)
/// and special values (pow(1, NaN) is 1, pow(-2, 3) is -8).
template <typename X, typename P>
Eigen::Array<typename X::Scalar, Eigen::Dynamic, 1> pow_of(const X& x, const P& p) {
  using T = typename X::Scalar;
  Eigen::Array<T, Eigen::Dynamic, 1> r;
  if constexpr (std::is_same_v<T, float>) {
    Eigen::Array<double, Eigen::Dynamic, 1> xd = x.template cast<double>();
    if constexpr (std::is_arithmetic_v<P>)
      r = (xd.abs().log() * static_cast<double>(p)).exp().template cast<float>();
    else
      r = (xd.abs().log() * p.template cast<double>()).exp().template cast<float>();
  } else {
    r = x.pow(p);
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

template <typename X>
auto sqrt_of(const X& x) { return x.unaryExpr(ExactSqrt<typename X::Scalar>()); }
template <typename X>
auto tanh_of(const X& x) { return x.unaryExpr(TanhOrErf<typename X::Scalar, false>()); }
template <typename X>
auto erf_of(const X& x) { return x.unaryExpr(TanhOrErf<typename X::Scalar, true>()); }
template <typename X>
auto neg_of(const X& x) { return x.unaryExpr(SignFlip<typename X::Scalar>()); }
template <typename X>
auto clamp_below(const X& x, typename X::Scalar lo) { return x.unaryExpr(ClampTo<typename X::Scalar, true>{lo}); }
template <typename X>
auto clamp_above(const X& x, typename X::Scalar hi) { return x.unaryExpr(ClampTo<typename X::Scalar, false>{hi}); }
template <typename X>
auto exp_of(const X& x) { return x.unaryExpr(FullRangeExp<typename X::Scalar>()); }
template <typename X>
auto log_of(const X& x) { return x.unaryExpr(SubnormalLog<typename X::Scalar>()); }
/// 1 / (1 + exp(-x)), as PyTorch and the CUDA kernels compute it. NB: not Eigen's logistic(), whose
/// float version is a rational approximation that is exactly 1 above 15.7 and exp(x) below -9
/// (7.5e-5 relative error at -9.5): a binary cross-entropy of such a probability was off by 80.
template <typename X>
auto sigmoid_of(const X& x) {
  using T = typename X::Scalar;
  return (T(1) + (-x).exp()).inverse();
}

}  // namespace ember::cpu
