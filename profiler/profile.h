#pragma once
// A profile of this thread's work: every outermost op of the table with its times (and, on
// request, its argument sizes, the memory it left allocated and the device time it queued), inside
// the named ranges that open around them (RecordFunction, the backward nodes). As PyTorch's
// torch.profiler.profile, from C++:
//
//   profiler::Profile prof({.record_shapes = true, .profile_memory = true});
//   prof.start();
//   { profiler::RecordFunction step("train_step"); train_step(); }
//   prof.stop();
//   std::cout << profiler::table(profiler::key_averages(prof.events()), {.sort_by = "cpu_time_total"});
//   profiler::export_chrome_trace(prof.events(), "trace.json");   // chrome://tracing, Perfetto
//
// A profile watches the thread that starts it (ops that other threads run are not seen) and is
// stopped, and destroyed if still running, on that thread. Started again, it adds to the events
// it holds.
#include <memory>
#include <vector>

#include "ember/core/tracing.h"
#include "ember/profiler/event.h"

namespace ember::profiler {

struct ProfileOptions {
  bool record_shapes = false;
  bool profile_memory = false;
  /// Device times: a timing mark on the streams of the CUDA devices in use before and after each
  /// event (nothing on a machine without a GPU).
  bool cuda = false;
};

/// The named range of a profile: `RecordFunction r("forward");` spans the scope.
using RecordFunction = tracing::Range;

class Profile {
 public:
  explicit Profile(ProfileOptions options = {});
  ~Profile();
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  /// Installs the profile on this thread; an Error if it runs already.
  void start();
  /// Closes what is open and uninstalls it; an Error on another thread than start()'s.
  void stop();
  bool running() const;
  /// The events in the order they started; an Error while the profile runs.
  const std::vector<Event>& events() const;
  const ProfileOptions& options() const;

 private:
  class Recorder;
  std::unique_ptr<Recorder> recorder_;
};

}  // namespace ember::profiler
