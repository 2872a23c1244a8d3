#pragma once
// Whether ops record the graph, per thread. NoGradGuard turns recording off for a scope
// (optimizer steps, evaluation); backward turns it on only when create_graph is set.

namespace ember::autograd {

struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

/// Sets grad mode for a scope and restores the previous one on exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

/// { NoGradGuard g; ... }: nothing in the scope is recorded.
class NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

}  // namespace ember::autograd

namespace ember {
using autograd::NoGradGuard;
}
