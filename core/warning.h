#pragma once
// Warnings: conditions worth telling the user about that are not errors (a damaged checkpoint
// skipped in favour of an older one). They go through one settable handler so that the Python
// bindings can route them to Python's `warnings` module instead of stderr.
//
//   ember::warn("CheckpointManager: skipping damaged 'ckpt-12.ember': ...");
//   auto previous = ember::set_warning_handler([](const std::string& m) { log(m); });
#include <functional>
#include <string>

namespace ember {

/// Receives each warning's message (without the "ember warning: " prefix).
using WarningHandler = std::function<void(const std::string& message)>;

/// Passes `message` to the current handler; by default it prints "ember warning: <message>" to
/// stderr. Thread-safe; the handler runs on the calling thread.
void warn(const std::string& message);

/// Installs `handler` (an empty one restores the default) and returns the one it replaces, so a
/// caller can put it back.
WarningHandler set_warning_handler(WarningHandler handler);

}  // namespace ember
