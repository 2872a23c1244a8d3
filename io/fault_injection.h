#pragma once
// Fault injection for io/'s file layer (io/file_ops.h), as SQLite tests its I/O: count the calls a
// save or a load makes, then fail the Nth one, for every N, and check that nothing was lost.
//
//   io::testing::FaultPlan plan;            // count only
//   { io::testing::FaultScope scope(plan); io::save(v, path); }
//   int64_t n = io::testing::fault_points();   // calls made by that save
//   for (int64_t k = 1; k <= n; ++k) {
//     io::testing::FaultScope scope({.at = k, .error = ENOSPC});
//     EXPECT_THROW(io::save(v, path), OSError);   // and the previous file still loads
//   }
//
// The plan is process-wide (every thread's calls count) and meant for tests; with no plan in
// force, each wrapper costs one relaxed atomic load.
#include <cerrno>
#include <cstdint>
#include <optional>

#include "ember/io/file_ops.h"

namespace ember::io::testing {

using detail::FileOp;

enum class Fault {
  Error,       ///< the call fails with `error` and does nothing
  ShortWrite,  ///< a write or read does half of what was asked (then the calls go on normally)
  Kill,        ///< the process is SIGKILLed just before the call, as a crash would stop it
};

struct FaultPlan {
  /// The 1-based number of the call to fault, counting the calls that match `only`; 0 counts
  /// without faulting.
  int64_t at = 0;
  Fault fault = Fault::Error;
  int error = EIO;
  /// Count (and fault) only calls of this kind.
  std::optional<FileOp> only;
};

/// Puts `plan` in force and restarts the count.
void set_fault_plan(const FaultPlan& plan);
/// No plan: calls are neither counted nor faulted.
void clear_fault_plan();
/// How many matching calls were made since the plan was set.
int64_t fault_points();
/// Whether the planned fault has happened.
bool fault_fired();

/// set_fault_plan() for a scope.
class FaultScope {
 public:
  explicit FaultScope(const FaultPlan& plan) { set_fault_plan(plan); }
  ~FaultScope() { clear_fault_plan(); }
  FaultScope(const FaultScope&) = delete;
  FaultScope& operator=(const FaultScope&) = delete;
};

}  // namespace ember::io::testing
