#pragma once
// Assertions the suites share: values of a tensor, and errors whose message names what went wrong
// (STYLE.md: an error test checks the message). A failure is reported at the caller's line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <source_location>
#include <sstream>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember::testing {

namespace detail {

using Where = std::source_location;

// NB: a NaN expected needs a NaN and an infinity the same infinity; |a - b| alone would fail for
// inf == inf (inf - inf is NaN) and pass nothing for NaN.
inline bool is_near(double got, double want, double rtol, double atol) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= atol + rtol * std::fabs(want);
}

// One failure for all the differing elements: how many, and the first one.
inline void expect_elements_near(const std::vector<double>& got, const std::vector<double>& want,
                                 double rtol, double atol, const std::string& what,
                                 const Where& where) {
  size_t differing = 0, first = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (!is_near(got[i], want[i], rtol, atol) && differing++ == 0) first = i;
  if (differing == 0) return;
  ADD_FAILURE_AT(where.file_name(), where.line())
      << what << (what.empty() ? "" : ": ") << differing << " of " << got.size()
      << " elements differ; element " << first << " is " << ::testing::PrintToString(got[first])
      << ", expected " << ::testing::PrintToString(want[first]) << " (rtol "
      << (std::ostringstream() << rtol).str() << ", atol " << (std::ostringstream() << atol).str()
      << ")";
}

/// The name of an Ember exception type, as the Python bindings spell it.
template <typename E>
const char* error_name() {
  if constexpr (std::is_same_v<E, ValueError>) return "ValueError";
  else if constexpr (std::is_same_v<E, TypeError>) return "TypeError";
  else if constexpr (std::is_same_v<E, IndexError>) return "IndexError";
  else if constexpr (std::is_same_v<E, KeyError>) return "KeyError";
  else if constexpr (std::is_same_v<E, FileNotFoundError>) return "FileNotFoundError";
  else if constexpr (std::is_same_v<E, NotImplementedError>) return "NotImplementedError";
  else if constexpr (std::is_same_v<E, InternalError>) return "InternalError";
  else return "Error";
}

/// The name of the exception's own type (the subclasses all derive from Error directly).
inline const char* error_name(const Error& e) {
  if (dynamic_cast<const ValueError*>(&e)) return "ValueError";
  if (dynamic_cast<const TypeError*>(&e)) return "TypeError";
  if (dynamic_cast<const IndexError*>(&e)) return "IndexError";
  if (dynamic_cast<const KeyError*>(&e)) return "KeyError";
  if (dynamic_cast<const FileNotFoundError*>(&e)) return "FileNotFoundError";
  if (dynamic_cast<const NotImplementedError*>(&e)) return "NotImplementedError";
  if (dynamic_cast<const InternalError*>(&e)) return "InternalError";
  return typeid(e) == typeid(Error) ? "Error" : typeid(e).name();
}

}  // namespace detail

/// The tensor's values, in row-major order, are within atol + rtol |expected| of `expected`; a NaN
/// expected needs a NaN, an infinity the same infinity.
///   expect_values_near(softmax(x, 0), {0.0900305731703805, 0.244728471054798, 0.665240955774822});
inline void expect_values_near(const Tensor& t, const std::vector<double>& expected,
                               double rtol = 1e-6, double atol = 1e-6,
                               const detail::Where& where = detail::Where::current()) {
  std::vector<double> got = t.to_vector<double>();
  if (got.size() != expected.size()) {
    ADD_FAILURE_AT(where.file_name(), where.line())
        << "tensor of shape " << t.sizes() << " has " << got.size() << " values, expected "
        << expected.size();
    return;
  }
  detail::expect_elements_near(got, expected, rtol, atol, "", where);
}

/// The tensor's values, in row-major order, equal `expected` exactly (compared as doubles; a NaN
/// matches a NaN).
///   expect_values(cat({a, b}, 1), {0, 1, 2, 0, 1, 3, 4, 5, 2, 3});
inline void expect_values(const Tensor& t, const std::vector<double>& expected,
                          const detail::Where& where = detail::Where::current()) {
  expect_values_near(t, expected, 0.0, 0.0, where);
}

/// `actual` has the shape of `expected` and its values are near them as in expect_values_near;
/// `what` names the tensor in the failure.
///   expect_close(y, reference_conv(x, w), 1e-12, 1e-12, "forward");
inline void expect_close(const Tensor& actual, const Tensor& expected, double rtol, double atol,
                         const std::string& what = "",
                         const detail::Where& where = detail::Where::current()) {
  if (!actual.defined()) {
    ADD_FAILURE_AT(where.file_name(), where.line())
        << what << (what.empty() ? "" : ": ") << "undefined tensor";
    return;
  }
  if (actual.sizes() != expected.sizes()) {
    ADD_FAILURE_AT(where.file_name(), where.line())
        << what << (what.empty() ? "" : ": ") << "shape " << actual.sizes() << ", expected shape "
        << expected.sizes();
    return;
  }
  detail::expect_elements_near(actual.to_vector<double>(), expected.to_vector<double>(), rtol, atol,
                               what, where);
}

/// max |actual - expected| over max |expected| (the plain difference where `expected` is all
/// zeros): the error measure that suits sums of many products of either sign (convolutions, matrix
/// products), whose rounding scales with the largest term, not with each element.
///   EXPECT_LE(error_of_scale(conv2d(x, w), exact), 1e-5);
inline double error_of_scale(const Tensor& actual, const Tensor& expected) {
  const std::vector<double> a = actual.to_vector<double>(), b = expected.to_vector<double>();
  double err = 0, scale = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    err = std::max(err, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
  }
  return scale == 0 ? err : err / scale;
}

/// The same dtype, shape and values, bit for bit but for NaN payloads: a path taken again, or
/// another that must compute the very same sums.
inline bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || !a.sizes().equals(b.sizes())) return false;
  const std::vector<double> x = a.to_vector<double>(), y = b.to_vector<double>();
  for (size_t i = 0; i < x.size(); ++i)
    if (!(x[i] == y[i] && std::signbit(x[i]) == std::signbit(y[i])) && !(std::isnan(x[i]) && std::isnan(y[i])))
      return false;
  return true;
}

/// f() throws an ember::Error of type E (or a subclass of E) whose message contains every one of
/// `parts`; pick the parts that name the op, the argument and the shapes or dtypes.
///   expect_error<ValueError>([&] { matmul(a, b); }, {"matmul", "[2, 3]", "[4, 5]"});
template <typename E = Error, typename F>
void expect_error(const F& f, const std::vector<std::string>& parts,
                  const detail::Where& where = detail::Where::current()) {
  static_assert(std::is_base_of_v<Error, E>, "expect_error checks ember::Error and its subclasses");
  if (parts.empty())
    ADD_FAILURE_AT(where.file_name(), where.line()) << "expect_error needs a part of the message";
  try {
    f();
  } catch (const Error& e) {
    const std::string message = e.what();
    if (dynamic_cast<const E*>(&e) == nullptr)
      ADD_FAILURE_AT(where.file_name(), where.line())
          << "expected " << detail::error_name<E>() << ", got " << detail::error_name(e) << ": '"
          << message << "'";
    for (const auto& p : parts)
      if (message.find(p) == std::string::npos)
        ADD_FAILURE_AT(where.file_name(), where.line())
            << "message '" << message << "' lacks '" << p << "'";
    return;
  } catch (const std::exception& e) {
    ADD_FAILURE_AT(where.file_name(), where.line())
        << "expected " << detail::error_name<E>() << ", got a non-Ember exception: '"
        << e.what() << "'";
    return;
  }
  ADD_FAILURE_AT(where.file_name(), where.line())
      << "expected " << detail::error_name<E>() << " containing '"
      << (parts.empty() ? "" : parts[0]) << "', but nothing was thrown";
}

/// The message of the ember::Error that f() throws, or "(no error)"; for a test that compares the
/// whole message.
///   EXPECT_EQ(message_of([&] { m.register_buffer("", t); }), "Custom: buffer name can't be empty");
template <typename F>
std::string message_of(const F& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace ember::testing
