#pragma once
// The hook through which ember::jit records a forward as a program and ember::profiler times it:
// every op of the table (its generated wrapper, ops/codegen.py), the in-place Tensor methods and
// the nn functions that own a backward call record() when a recorder is installed on this thread.
// Only the outermost call records: the ops an op runs inside are its own business, and replaying
// the op replays them. A profiler also hears when each op begins, the named ranges around it (a
// backward node, profiler::RecordFunction) and every allocation and free on the thread.
//
//   if (tracing::recording()) [[unlikely]]
//     return tracing::record<Tensor>("neg", [&] { return impl_neg(self); }, {tracing::arg(self)});
//
// Without a recorder anywhere in the process, recording() is one relaxed load of a global counter.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "ember/core/scalar.h"
#include "ember/core/size2.h"
#include "ember/core/tensor.h"

namespace ember {
class Generator;
}

namespace ember::tracing {

/// One argument or result of a recorded op: None (an undefined tensor, an empty optional, no
/// generator), a tensor, a list of tensors, or a constant.
using Arg = std::variant<std::monostate, Tensor, std::vector<Tensor>, Scalar, int64_t, double, bool, std::string,
                         std::vector<int64_t>, DType, Device>;

/// What jit and the profiler install: told of each outermost op as it returns.
class Recorder {
 public:
  virtual ~Recorder() = default;
  /// An outermost op starts; record() follows when it returns, failed() when it throws.
  virtual void begin(std::string_view op) { (void)op; }
  /// `op` (a table op's full name, "Tensor.copy_", "nn.linear", ...) ran on `args` and gave
  /// `outputs`; `inplace`: the in-place method of a table op (its result is args[0]).
  virtual void record(std::string_view op, bool inplace, std::vector<Arg> args, std::vector<Arg> outputs) = 0;
  virtual void failed(std::string_view op) { (void)op; }
  /// A tensor's value became a host number or a bool here (item(), a branch on a tensor): the
  /// program cannot follow where it leads.
  virtual void note_data_dependence(std::string_view what) { (void)what; }
  /// An op was given a generator other than the default one.
  virtual void note_own_generator() {}
  /// A named Range opens or closes on this thread (ranges nest; ops run inside them).
  virtual void enter_range(std::string_view name) { (void)name; }
  virtual void exit_range() {}
  /// `bytes` of memory on `device` were allocated (> 0) or freed (< 0) on this thread, inside an op
  /// or not.
  virtual void note_memory(int64_t bytes, Device device) noexcept {
    (void)bytes;
    (void)device;
  }
};

namespace detail {
/// Recorders installed on any thread: the cheap test every op makes first.
extern std::atomic<int> installed;
/// This thread's recorder when no recorded op is running on it, else nullptr.
Recorder* current();
/// Marks the ops run in its lifetime as inside a recorded op (not recorded themselves).
class Nested {
 public:
  Nested();
  ~Nested();
  Nested(const Nested&) = delete;
  Nested& operator=(const Nested&) = delete;
};
}  // namespace detail

/// True when this thread records and no recorded op is running on it.
inline bool recording() {
  return detail::installed.load(std::memory_order_relaxed) != 0 && detail::current() != nullptr;
}

/// Installs `recorder` on this thread for the scope's lifetime (scopes nest: the innermost records).
class Scope {
 public:
  explicit Scope(Recorder& recorder);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Recorder* previous_;
  int previous_depth_;
};

/// A named span of this thread's work (a profiler's user range, a backward node) that the installed
/// recorder hears open and close; nothing when none is installed or an op is running.
class Range {
 public:
  explicit Range(std::string_view name);
  ~Range();
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;

 private:
  Recorder* recorder_;
};

/// Runs `body` with no recorder on this thread (a tracer's own bookkeeping, a check run).
class Paused {
 public:
  Paused();
  ~Paused();
  Paused(const Paused&) = delete;
  Paused& operator=(const Paused&) = delete;

 private:
  Recorder* previous_;
};

// ---- an op's arguments as Args
inline Arg arg(const Tensor& t) { return t.defined() ? Arg(t) : Arg(); }
inline Arg arg(const std::vector<Tensor>& ts) { return ts; }
inline Arg arg(Scalar s) { return s; }
inline Arg arg(int64_t v) { return v; }
inline Arg arg(int v) { return int64_t{v}; }
inline Arg arg(double v) { return v; }
inline Arg arg(bool v) { return v; }
inline Arg arg(std::string_view v) { return std::string(v); }
inline Arg arg(const char* v) { return std::string(v); }
inline Arg arg(IntArrayRef v) { return std::vector<int64_t>(v.begin(), v.end()); }
inline Arg arg(const std::vector<int64_t>& v) { return v; }
inline Arg arg(Size2 v) { return std::vector<int64_t>{v.h, v.w}; }
inline Arg arg(DType v) { return v; }
inline Arg arg(Device v) { return v; }
/// A generator other than the default cannot be named in a program: the recorder hears of it (jit
/// raises a ValueError).
Arg arg(Generator* generator);
template <typename T>
Arg arg(const std::optional<T>& v) {
  return v ? arg(*v) : Arg();
}

/// The results of an op as Args: a tensor, a list of tensors, a bool, or a tuple of them.
inline std::vector<Arg> outputs_of(const Tensor& t) { return {arg(t)}; }
inline std::vector<Arg> outputs_of(const std::vector<Tensor>& ts) { return {ts}; }
inline std::vector<Arg> outputs_of(bool b) { return {b}; }
template <typename... Ts>
std::vector<Arg> outputs_of(const std::tuple<Ts...>& t) {
  return std::apply([](const auto&... parts) { return std::vector<Arg>{Arg(parts)...}; }, t);
}

/// run() with the ops inside it unrecorded, then the op recorded with its results.
template <typename R, typename F>
R record(std::string_view op, F&& run, std::vector<Arg> args, bool inplace = false) {
  Recorder* recorder = detail::current();
  recorder->begin(op);
  R out = [&] {
    detail::Nested nested;
    try {
      return run();
    } catch (...) {
      recorder->failed(op);
      throw;
    }
  }();
  recorder->record(op, inplace, std::move(args), outputs_of(out));
  return out;
}

/// Tells this thread's recorder (if any) that a tensor's value left the graph as `what`.
void note_data_dependence(std::string_view what);

namespace detail {
void note_memory_slow(int64_t bytes, Device device) noexcept;
}
/// Tells this thread's recorder (if any, whether an op runs or not) of an allocation or a free.
inline void note_memory(int64_t bytes, Device device) noexcept {
  if (detail::installed.load(std::memory_order_relaxed) != 0) [[unlikely]]
    detail::note_memory_slow(bytes, device);
}

}  // namespace ember::tracing
