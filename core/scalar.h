#pragma once
// A number passed to an op (`x * 2`, `clamp(x, 0.0)`): keeps whether it was a bool, an integer or
// a floating value, which decides the result dtype as in PyTorch.
#include <cstdint>
#include <ostream>
#include <type_traits>

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float };

  Scalar() : Scalar(int64_t{0}) {}
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Scalar(T v) {  // NOLINT: implicit from any number
    if constexpr (std::is_same_v<T, bool>) {
      kind_ = Kind::Bool;
      i_ = v;
    } else if constexpr (std::is_integral_v<T>) {
      kind_ = Kind::Int;
      i_ = static_cast<int64_t>(v);
    } else {
      kind_ = Kind::Float;
      d_ = static_cast<double>(v);
    }
  }

  Kind kind() const { return kind_; }
  bool is_floating() const { return kind_ == Kind::Float; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  template <typename T>
  T to() const {
    return kind_ == Kind::Float ? static_cast<T>(d_) : static_cast<T>(i_);
  }
  double to_double() const { return to<double>(); }

 private:
  Kind kind_ = Kind::Int;
  int64_t i_ = 0;
  double d_ = 0;
};

inline std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.is_floating()) return os << s.to<double>();
  if (s.is_bool()) return os << (s.to<int64_t>() ? "true" : "false");
  return os << s.to<int64_t>();
}

}  // namespace ember
