#include "ember/nn/option_field.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ember::nn {

std::string python_repr(double v) {
  // Python's repr: the shortest digits that round-trip, fixed notation for exponents in [-4, 16),
  // else scientific with a two-digit exponent at least (0.0001, 1e-05, 1.5e+16).
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, end);
  const size_t e_at = sci.find('e');
  std::string mantissa = sci.substr(0, e_at), sign;
  const int exponent = std::stoi(sci.substr(e_at + 1));
  if (mantissa[0] == '-') sign = "-", mantissa.erase(0, 1);
  std::string digits = mantissa;
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  if (exponent < -4 || exponent >= 16) {
    std::string exp = std::to_string(std::abs(exponent));
    if (exp.size() < 2) exp = "0" + exp;
    return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + exp;
  }
  if (exponent < 0) return sign + "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  const auto whole = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= whole) return sign + digits + std::string(whole - digits.size(), '0') + ".0";
  return sign + digits.substr(0, whole) + "." + digits.substr(whole);
}

std::string python_repr(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

std::string compact_repr(int64_t v) { return v == -1 ? "None" : std::to_string(v); }
std::string compact_repr(Size2 v) {
  return v.h == v.w ? compact_repr(v.h) : "(" + compact_repr(v.h) + ", " + compact_repr(v.w) + ")";
}
std::string compact_repr(Size3 v) {
  if (v.d == v.h && v.h == v.w) return compact_repr(v.d);
  return "(" + compact_repr(v.d) + ", " + compact_repr(v.h) + ", " + compact_repr(v.w) + ")";
}

std::string python_repr(const std::vector<double>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + python_repr(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

}  // namespace ember::nn
