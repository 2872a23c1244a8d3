#pragma once
// Free-form named attributes a tensor carries (PyTorch lets any tensor hold Python attributes):
// layers and users mark parameters with e.g. "lr_scale" = 0.1 or "weight_decay" = 0.0, optimizers
// honour the standard keys, and checkpoints round-trip all of them. Kept in name order.
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <variant>

namespace ember {

using AttrValue = std::variant<bool, int64_t, double, std::string>;
using Attributes = std::map<std::string, AttrValue>;

/// The value as a double if it is a number (bool, int or float), else nullopt.
std::optional<double> attr_as_double(const AttrValue& value);
std::ostream& operator<<(std::ostream& os, const AttrValue& value);

}  // namespace ember
