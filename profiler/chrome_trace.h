#pragma once
// A profile's events as a Chrome trace (the JSON "traceEvents" format of chrome://tracing and
// Perfetto): one complete ("X") event per op and range on its thread's track, times in
// microseconds, argument sizes and memory in its args.
#include <string>
#include <vector>

#include "ember/profiler/event.h"

namespace ember::profiler {

std::string chrome_trace(const std::vector<Event>& events);
/// Writes chrome_trace() to `path` (through a temporary file renamed into place); an Error naming
/// the file when it cannot be written.
void export_chrome_trace(const std::vector<Event>& events, const std::string& path);

}  // namespace ember::profiler
