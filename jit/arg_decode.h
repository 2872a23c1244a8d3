#pragma once
// An op's arguments read back from tracing::Args as the C++ types its function takes, one reader
// per table type (ops/codegen.py's DECODE). The program loader has already checked each Arg
// against the op's schema (jit/program.cpp), so a reader meeting another alternative is a bug: an
// internal error naming both.
#include <optional>
#include <string_view>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/generator.h"
#include "ember/core/size2.h"
#include "ember/core/tracing.h"

namespace ember::jit::detail {

using tracing::Arg;
using Args = std::vector<Arg>;

/// The alternative T of `a`; an internal error when it holds another.
template <typename T>
const T& held(const Arg& a) {
  const T* v = std::get_if<T>(&a);
  EMBER_CHECK(v != nullptr, "jit: an argument holds alternative ", a.index(), " where another was expected");
  return *v;
}

inline Tensor tensor(const Arg& a) { return std::holds_alternative<std::monostate>(a) ? Tensor() : held<Tensor>(a); }
inline const std::vector<Tensor>& tensors(const Arg& a) { return held<std::vector<Tensor>>(a); }
inline Scalar scalar(const Arg& a) {
  if (const auto* i = std::get_if<int64_t>(&a)) return *i;
  if (const auto* d = std::get_if<double>(&a)) return *d;
  if (const auto* b = std::get_if<bool>(&a)) return *b;
  return held<Scalar>(a);
}
inline int64_t integer(const Arg& a) { return held<int64_t>(a); }
inline double real(const Arg& a) {
  if (const auto* i = std::get_if<int64_t>(&a)) return static_cast<double>(*i);
  return held<double>(a);
}
inline bool boolean(const Arg& a) { return held<bool>(a); }
inline std::string_view str(const Arg& a) { return held<std::string>(a); }
inline IntArrayRef ints(const Arg& a) {
  if (std::holds_alternative<std::monostate>(a)) return {};
  return held<std::vector<int64_t>>(a);
}
inline Size2 size2(const Arg& a) {
  const std::vector<int64_t>& v = held<std::vector<int64_t>>(a);
  EMBER_CHECK(v.size() == 2, "jit: a pair of ints holds ", v.size());
  return Size2(v[0], v[1]);
}
inline DType dtype(const Arg& a) { return held<DType>(a); }
inline Device device(const Arg& a) { return held<Device>(a); }
inline Generator* generator(const Arg&) { return nullptr; }

inline bool none(const Arg& a) { return std::holds_alternative<std::monostate>(a); }
inline std::optional<Scalar> opt_scalar(const Arg& a) { return none(a) ? std::nullopt : std::optional(scalar(a)); }
inline std::optional<int64_t> opt_integer(const Arg& a) { return none(a) ? std::nullopt : std::optional(integer(a)); }
inline std::optional<IntArrayRef> opt_ints(const Arg& a) { return none(a) ? std::nullopt : std::optional(ints(a)); }
inline std::optional<Size2> opt_size2(const Arg& a) { return none(a) ? std::nullopt : std::optional(size2(a)); }
inline std::optional<double> opt_real(const Arg& a) { return none(a) ? std::nullopt : std::optional(real(a)); }
inline std::optional<bool> opt_boolean(const Arg& a) { return none(a) ? std::nullopt : std::optional(boolean(a)); }
inline std::optional<std::string_view> opt_str(const Arg& a) { return none(a) ? std::nullopt : std::optional(str(a)); }
inline std::optional<DType> opt_dtype(const Arg& a) { return none(a) ? std::nullopt : std::optional(dtype(a)); }

}  // namespace ember::jit::detail
