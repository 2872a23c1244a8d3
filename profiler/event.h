#pragma once
// One span a Profile recorded: an op of the table (its outermost call), or a named range around
// ops (a RecordFunction, a backward node). Times are nanoseconds since the profile started.
#include <cstdint>
#include <string>
#include <vector>

namespace ember::profiler {

struct Event {
  std::string name;
  bool is_op = true;  // else a range
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t self_ns = 0;  // minus the events that ran inside it
  /// Device work queued inside it, in ns (a profile with Activity::CUDA on a machine with a GPU);
  /// -1 where not measured.
  int64_t device_ns = -1;
  int64_t self_device_ns = -1;
  /// Bytes allocated minus bytes freed while it ran, on the CPU and on devices (profile_memory).
  int64_t cpu_memory = 0;
  int64_t self_cpu_memory = 0;
  int64_t device_memory = 0;
  int64_t self_device_memory = 0;
  /// The sizes of each argument (record_shapes): a tensor's sizes, [] for anything else; a list of
  /// tensors gives each tensor's sizes in turn.
  std::vector<std::vector<int64_t>> input_shapes;
  int depth = 0;  // how many events it ran inside
  uint64_t thread = 0;

  int64_t duration_ns() const { return end_ns - start_ns; }
};

}  // namespace ember::profiler
