#include "ember/core/tracing.h"

#include "ember/core/error.h"
#include "ember/core/generator.h"

namespace ember::tracing {

namespace {
thread_local Recorder* t_recorder = nullptr;
thread_local int t_depth = 0;  // recorded ops running on this thread
}  // namespace

namespace detail {
std::atomic<int> installed{0};

Recorder* current() { return t_depth == 0 ? t_recorder : nullptr; }

Nested::Nested() { ++t_depth; }
Nested::~Nested() { --t_depth; }
}  // namespace detail

Scope::Scope(Recorder& recorder) : previous_(t_recorder), previous_depth_(t_depth) {
  t_recorder = &recorder;
  t_depth = 0;
  detail::installed.fetch_add(1, std::memory_order_relaxed);
}

Scope::~Scope() {
  detail::installed.fetch_sub(1, std::memory_order_relaxed);
  t_recorder = previous_;
  t_depth = previous_depth_;
}

Range::Range(std::string_view name) : recorder_(detail::current()) {
  if (recorder_) recorder_->enter_range(name);
}

Range::~Range() {
  if (recorder_) recorder_->exit_range();
}

Paused::Paused() : previous_(t_recorder) { t_recorder = nullptr; }
Paused::~Paused() { t_recorder = previous_; }

Arg arg(Generator* generator) {
  if (generator != nullptr && generator != &default_generator())
    if (Recorder* r = detail::current()) r->note_own_generator();
  return Arg();
}

void note_data_dependence(std::string_view what) {
  if (Recorder* r = detail::current()) r->note_data_dependence(what);
}

namespace detail {
void note_memory_slow(int64_t bytes, Device device) noexcept {
  if (t_recorder != nullptr) t_recorder->note_memory(bytes, device);
}
}  // namespace detail

}  // namespace ember::tracing
