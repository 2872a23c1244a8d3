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
#include <string>
#include <vector>

namespace ember::nn {

/// An option's value as Python prints it: "1.0", "0.125", "-inf" (a double's shortest round trip),
/// "3", "True".
std::string python_repr(double v);
inline std::string python_repr(int64_t v) { return std::to_string(v); }
inline std::string python_repr(bool v) { return v ? "True" : "False"; }
/// A tuple of ints as Python prints it: "(1, 2)", "(3,)".
std::string python_repr(const std::vector<int64_t>& v);

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
