#include "ember/profiler/chrome_trace.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "ember/core/error.h"
#include "ember/profiler/key_averages.h"

namespace ember::profiler {

std::string chrome_trace(const std::vector<Event>& events) {
  const int pid = static_cast<int>(getpid());
  // Threads get small numbers in the order they appear, as Perfetto labels tracks by them.
  std::vector<uint64_t> threads;
  auto tid = [&](uint64_t thread) {
    for (size_t i = 0; i < threads.size(); ++i)
      if (threads[i] == thread) return static_cast<int64_t>(i + 1);
    threads.push_back(thread);
    return static_cast<int64_t>(threads.size());
  };
  nlohmann::json trace_events = nlohmann::json::array();
  for (const Event& e : events) {
    nlohmann::json args = nlohmann::json::object();
    if (!e.input_shapes.empty()) args["Input Dims"] = e.input_shapes;
    if (e.cpu_memory != 0 || e.self_cpu_memory != 0) {
      args["CPU Mem (bytes)"] = e.cpu_memory;
      args["Self CPU Mem (bytes)"] = e.self_cpu_memory;
    }
    if (e.device_ns >= 0) args["CUDA time (us)"] = static_cast<double>(e.device_ns) / 1e3;
    trace_events.push_back({{"ph", "X"},
                            {"cat", e.is_op ? "cpu_op" : "user_annotation"},
                            {"name", e.name},
                            {"pid", pid},
                            {"tid", tid(e.thread)},
                            {"ts", static_cast<double>(e.start_ns) / 1e3},
                            {"dur", static_cast<double>(e.duration_ns()) / 1e3},
                            {"args", std::move(args)}});
  }
  for (size_t i = 0; i < threads.size(); ++i)
    trace_events.push_back({{"ph", "M"},
                            {"name", "thread_name"},
                            {"pid", pid},
                            {"tid", static_cast<int64_t>(i + 1)},
                            {"args", {{"name", "thread " + std::to_string(i + 1)}}}});
  nlohmann::json doc = {{"schemaVersion", 1}, {"displayTimeUnit", "ms"}, {"traceEvents", std::move(trace_events)}};
  // NB: a C++ range name need not be UTF-8; JSON must be: invalid bytes become U+FFFD.
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void export_chrome_trace(const std::vector<Event>& events, const std::string& path) {
  const std::string text = chrome_trace(events);
  const std::string partial = path + ".partial";
  auto fail = [&](const std::string& what, const std::string& file) {
    const int error = errno;
    std::remove(partial.c_str());
    throw OSError("export_chrome_trace: " + what + " " + file + ": " + std::strerror(error), error, file);
  };
  const int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot open", partial);
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      errno = error;
      fail("cannot write", partial);
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) fail("cannot write", partial);
  if (std::rename(partial.c_str(), path.c_str()) != 0) fail("cannot rename " + partial + " to", path);
}

}  // namespace ember::profiler
