#pragma once
// A layer's options struct lists its scalar options in a static fields(), one OptionField each, by
// PyTorch's names: io saves and rebuilds the layer through them, the Python binding makes them
// attributes, and LayerWith prints them.
//
//   struct ELUOptions {
//     double alpha = 1.0;
//     static constexpr auto fields() { return std::make_tuple(field("alpha", &ELUOptions::alpha)); }
//   };

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/core/size2.h"
#include "ember/core/size3.h"

namespace ember::nn {

/// An option's value as Python prints it: "1.0", "0.125", "-inf" (a double's shortest round trip),
/// "3", "True".
std::string python_repr(double v);
inline std::string python_repr(int64_t v) { return std::to_string(v); }
inline std::string python_repr(bool v) { return v ? "True" : "False"; }
/// A tuple of ints as Python prints it: "(1, 2)", "(3,)".
std::string python_repr(const std::vector<int64_t>& v);
inline std::string python_repr(Size2 v) { return python_repr(std::vector<int64_t>{v.h, v.w}); }
inline std::string python_repr(Size3 v) { return python_repr(std::vector<int64_t>{v.d, v.h, v.w}); }
std::string python_repr(const std::vector<double>& v);
inline std::string python_repr(const std::string& v) { return "'" + v + "'"; }
/// A size as PyTorch's pooling and folding layers print the one they were given as an int: one
/// int when every entry is equal, else the tuple; -1 (an adaptive pool's "keep this dim") as None.
std::string compact_repr(int64_t v);
std::string compact_repr(Size2 v);
std::string compact_repr(Size3 v);
template <typename S>
std::string compact_repr(const std::optional<S>& v) {
  return v ? compact_repr(*v) : "None";
}
/// An optional option: "None" when unset.
template <typename T>
std::string python_repr(const std::optional<T>& v) {
  return v ? python_repr(*v) : "None";
}

/// One scalar option of an options struct: its name and where it lives.
template <typename Options, typename T>
struct OptionField {
  const char* name;
  T Options::*member;
};
template <typename Options, typename T>
constexpr OptionField<Options, T> field(const char* name, T Options::*member) {
  return {name, member};
}

}  // namespace ember::nn
