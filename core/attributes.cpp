#include "ember/core/attributes.h"

namespace ember {

std::optional<double> attr_as_double(const AttrValue& value) {
  if (auto* b = std::get_if<bool>(&value)) return *b ? 1.0 : 0.0;
  if (auto* i = std::get_if<int64_t>(&value)) return static_cast<double>(*i);
  if (auto* d = std::get_if<double>(&value)) return *d;
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& os, const AttrValue& value) {
  std::visit([&](const auto& v) {
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>)
      os << '"' << v << '"';
    else if constexpr (std::is_same_v<std::decay_t<decltype(v)>, bool>)
      os << (v ? "true" : "false");
    else
      os << v;
  }, value);
  return os;
}

}  // namespace ember
