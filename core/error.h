#pragma once
// Ember's exceptions and check macros. Messages name the op, the argument and the offending
// shapes or dtypes; the Python bindings map each subclass to the built-in exception of the same name.
#include <cerrno>
#include <sstream>
#include <stdexcept>
#include <string>

namespace ember {

/// Base of every exception Ember throws (maps to Python's RuntimeError).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// A bad value, e.g. a shape mismatch (Python ValueError).
class ValueError : public Error {
 public:
  using Error::Error;
};
/// A bad dtype or kind of argument (Python TypeError).
class TypeError : public Error {
 public:
  using Error::Error;
};
/// A dimension or index out of range (Python IndexError).
class IndexError : public Error {
 public:
  using Error::Error;
};
/// A missing key, e.g. in a state dict (Python KeyError).
class KeyError : public Error {
 public:
  using Error::Error;
};
/// A failed system call on a file (Python OSError, with errno and filename set, so Python picks
/// the subclass: PermissionError for EACCES, ...). `error` is the errno (0 when none applies).
class OSError : public Error {
 public:
  explicit OSError(const std::string& what, int error = 0, std::string filename = {})
      : Error(what), error_(error), filename_(std::move(filename)) {}
  int error() const { return error_; }
  const std::string& filename() const { return filename_; }

 private:
  int error_;
  std::string filename_;
};
/// A file that does not exist: a checkpoint or data set path (Python FileNotFoundError).
class FileNotFoundError : public OSError {
 public:
  explicit FileNotFoundError(const std::string& what, std::string filename = {})
      : OSError(what, ENOENT, std::move(filename)) {}
};
/// A feature or device that is not implemented (Python NotImplementedError).
class NotImplementedError : public Error {
 public:
  using Error::Error;
};
/// A matrix a factorisation cannot handle: singular, not positive-definite, not finite, or one
/// whose iteration did not converge (Python ember.linalg.LinAlgError, a RuntimeError).
class LinAlgError : public Error {
 public:
  using Error::Error;
};
/// A broken internal invariant: a bug in Ember, not in the caller's code.
class InternalError : public Error {
 public:
  using Error::Error;
};

namespace detail {
/// Concatenates its arguments with operator<<; only called on the failure path.
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

}  // namespace ember

#define EMBER_CHECK_AS(Exc, cond, ...)                  \
  do {                                                  \
    if (!(cond)) [[unlikely]]                           \
      throw Exc(::ember::detail::str(__VA_ARGS__));     \
  } while (0)

/// EMBER_CHECK(cond, "op: message ", value, ...) throws ember::Error when cond is false.
#define EMBER_CHECK(cond, ...) EMBER_CHECK_AS(::ember::Error, cond, __VA_ARGS__)
#define EMBER_CHECK_VALUE(cond, ...) EMBER_CHECK_AS(::ember::ValueError, cond, __VA_ARGS__)
#define EMBER_CHECK_TYPE(cond, ...) EMBER_CHECK_AS(::ember::TypeError, cond, __VA_ARGS__)
#define EMBER_CHECK_INDEX(cond, ...) EMBER_CHECK_AS(::ember::IndexError, cond, __VA_ARGS__)
#define EMBER_CHECK_KEY(cond, ...) EMBER_CHECK_AS(::ember::KeyError, cond, __VA_ARGS__)
/// An invariant of Ember itself; failing it is a bug, reported with the source location.
#define EMBER_INTERNAL_ASSERT(cond, ...)                                                        \
  EMBER_CHECK_AS(::ember::InternalError, cond, "internal error at ", __FILE__, ":", __LINE__, \
                 ": ", #cond, " ", ##__VA_ARGS__)
