#pragma once
// A profile's events added up by name (and by argument sizes on request), and the table PyTorch's
// key_averages().table() prints: self and total CPU times with their shares, the average, the
// calls, and the device times, memory and argument sizes when the profile has them.
#include <cstdint>
#include <string>
#include <vector>

#include "ember/profiler/event.h"

namespace ember::profiler {

/// The events of one name (and argument sizes), added up. Times in ns, memory in bytes.
struct EventAverage {
  std::string key;
  /// The argument sizes of its events when grouped by them (by_input_shape), else empty.
  std::vector<std::vector<int64_t>> input_shapes;
  bool by_input_shape = false;
  bool is_op = true;
  int64_t count = 0;
  int64_t cpu_time_total_ns = 0;
  int64_t self_cpu_time_total_ns = 0;
  int64_t device_time_total_ns = 0;
  int64_t self_device_time_total_ns = 0;
  bool has_device_time = false;
  int64_t cpu_memory = 0;
  int64_t self_cpu_memory = 0;
  int64_t device_memory = 0;
  int64_t self_device_memory = 0;

  int64_t cpu_time_ns() const { return count == 0 ? 0 : cpu_time_total_ns / count; }
  int64_t device_time_ns() const { return count == 0 ? 0 : device_time_total_ns / count; }
};

/// In the order each key first started. The ranges of a scheduled profile's steps, ProfilerStep#N,
/// add up as one key, ProfilerStep*, as PyTorch's do.
std::vector<EventAverage> key_averages(const std::vector<Event>& events, bool group_by_input_shape = false);

/// "[[8, 4], [3, 4], []]", as PyTorch prints an event's input shapes.
std::string format_shapes(const std::vector<std::vector<int64_t>>& shapes);

struct TableOptions {
  /// A column to sort by, largest first: cpu_time_total, self_cpu_time_total, cpu_time, count,
  /// cpu_memory_usage, self_cpu_memory_usage, cuda_time_total (device_time_total),
  /// self_cuda_time_total, cuda_time, cuda_memory_usage, self_cuda_memory_usage; empty: as given.
  std::string sort_by;
  /// At most this many rows (< 0: all).
  int64_t row_limit = 100;
  /// Columns, when the averages have them: memory, device times, input shapes.
  bool show_memory = false;
  int max_name_column_width = 55;
};

/// The table; a ValueError naming the column for an unknown sort_by.
std::string table(std::vector<EventAverage> averages, const TableOptions& options = {});

}  // namespace ember::profiler
