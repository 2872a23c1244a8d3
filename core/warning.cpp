#include "ember/core/warning.h"

#include <cstdio>
#include <mutex>

namespace ember {

namespace {

std::mutex& handler_mutex() {
  static std::mutex m;
  return m;
}

WarningHandler& handler() {
  static WarningHandler h;  // empty: the default, stderr
  return h;
}

}  // namespace

void warn(const std::string& message) {
  WarningHandler h;
  {
    // NB: copied under the lock and called outside it, so a handler may itself warn or replace
    // the handler without deadlocking.
    std::lock_guard<std::mutex> lock(handler_mutex());
    h = handler();
  }
  if (h) {
    h(message);
    return;
  }
  std::fprintf(stderr, "ember warning: %s\n", message.c_str());
  std::fflush(stderr);
}

WarningHandler set_warning_handler(WarningHandler h) {
  std::lock_guard<std::mutex> lock(handler_mutex());
  WarningHandler previous = std::move(handler());
  handler() = std::move(h);
  return previous;
}

}  // namespace ember
