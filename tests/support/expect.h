#pragma once
// Assertions the suites share: values of a tensor, and errors whose message names what went wrong
// (STYLE.md: an error test checks the message).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember::testing {

/// The tensor's values, in row-major order, equal `expected` exactly (compared as doubles).
inline void expect_values(const Tensor& t, const std::vector<double>& expected) {
  std::vector<double> got = t.to_vector<double>();
  ASSERT_EQ(got.size(), expected.size()) << "tensor of shape " << t.sizes();
  for (size_t i = 0; i < got.size(); ++i) EXPECT_DOUBLE_EQ(got[i], expected[i]) << "element " << i;
}

/// f() throws an ember::Error (or a subclass E) whose message contains every one of `parts`.
template <typename E = Error, typename F>
void expect_error(const F& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing '" << (parts.empty() ? "" : parts[0]) << "'";
  } catch (const E& e) {
    for (const auto& p : parts)
      EXPECT_NE(std::string(e.what()).find(p), std::string::npos)
          << "message '" << e.what() << "' lacks '" << p << "'";
  }
}

}  // namespace ember::testing
