#include "ember/profiler/profile.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

#include "ember/core/backend.h"
#include "ember/core/error.h"

namespace ember::profiler {

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

uint64_t this_thread_id() { return static_cast<uint64_t>(pthread_self()); }

void add_shapes(const tracing::Arg& arg, std::vector<std::vector<int64_t>>& out) {
  if (const Tensor* t = std::get_if<Tensor>(&arg)) {
    IntArrayRef sizes = t->sizes();
    out.emplace_back(sizes.begin(), sizes.end());
  } else if (const auto* ts = std::get_if<std::vector<Tensor>>(&arg)) {
    for (const Tensor& t : *ts) {
      if (!t.defined()) {
        out.emplace_back();
        continue;
      }
      IntArrayRef sizes = t.sizes();
      out.emplace_back(sizes.begin(), sizes.end());
    }
  } else {
    out.emplace_back();
  }
}

// The op as PyTorch's profiler shows aten::<name>: without the recorder's namespace ("nn.linear",
// "factory.ones", "Tensor.detach") and without its overload ("add.Tensor").
std::string_view display_name(std::string_view op) {
  for (std::string_view prefix : {"nn.", "factory.", "Tensor."})
    if (op.starts_with(prefix)) {
      op.remove_prefix(prefix.size());
      break;
    }
  return op.substr(0, op.find('.'));
}

}  // namespace

// An open event: what its children add up to, and its device marks.
struct Frame {
  Event event;
  int64_t children_ns = 0;
  int64_t children_device_ns = 0;
  int64_t children_cpu_memory = 0;
  int64_t children_device_memory = 0;
  void* mark = nullptr;
};

class Profile::Recorder final : public tracing::Recorder {
 public:
  explicit Recorder(ProfileOptions options) : options_(options) {}
  ~Recorder() override {
    for (Frame& f : open_) cuda::release_timing_mark(f.mark);
  }

  void start() {
    EMBER_CHECK(!scope_, "profiler: the profile is running already");
    if (origin_ns_ < 0) origin_ns_ = now_ns();
    thread_ = std::this_thread::get_id();
    device_ = options_.cuda && cuda::is_available();
    scope_.emplace(*this);
  }

  void stop() {
    EMBER_CHECK(scope_, "profiler: the profile is not running");
    EMBER_CHECK(std::this_thread::get_id() == thread_,
                "profiler: a profile is stopped on the thread that started it (it watches that thread)");
    while (!open_.empty()) close(nullptr);
    scope_.reset();
    std::stable_sort(done_.begin(), done_.end(),
                     [](const Event& a, const Event& b) { return a.start_ns < b.start_ns; });
  }

  bool running() const { return scope_.has_value(); }
  bool on_its_thread() const { return std::this_thread::get_id() == thread_; }

  const std::vector<Event>& events() const {
    EMBER_CHECK(!scope_, "profiler: the events of a running profile are read after stop()");
    return done_;
  }

  const ProfileOptions& options() const { return options_; }

  // ---- tracing::Recorder
  void begin(std::string_view op) override { open(display_name(op), true); }
  void record(std::string_view, bool inplace, std::vector<tracing::Arg> args, std::vector<tracing::Arg>) override {
    if (inplace && !open_.empty()) open_.back().event.name += '_';  // neg_, as the method is named
    close(options_.record_shapes ? &args : nullptr);
  }
  void failed(std::string_view) override { close(nullptr); }
  void enter_range(std::string_view name) override { open(name, false); }
  void exit_range() override {
    if (!open_.empty()) close(nullptr);
  }
  void note_memory(int64_t bytes, Device device) noexcept override {
    if (!options_.profile_memory || open_.empty()) return;
    Event& e = open_.back().event;
    (device.is_cpu() ? e.self_cpu_memory : e.self_device_memory) += bytes;
  }

 private:
  void open(std::string_view name, bool is_op) {
    Frame f;
    f.event.name = std::string(name);
    f.event.is_op = is_op;
    f.event.depth = static_cast<int>(open_.size());
    f.event.thread = this_thread_id();
    if (device_) f.mark = cuda::record_timing_mark();
    f.event.start_ns = now_ns() - origin_ns_;
    open_.push_back(std::move(f));
  }

  void close(const std::vector<tracing::Arg>* args) {
    const int64_t end = now_ns() - origin_ns_;
    Frame f = std::move(open_.back());
    open_.pop_back();
    Event& e = f.event;
    e.end_ns = end;
    e.self_ns = e.duration_ns() - f.children_ns;
    if (f.mark != nullptr) {
      void* last = cuda::record_timing_mark();
      e.device_ns = static_cast<int64_t>(cuda::elapsed_ms(f.mark, last) * 1e6);
      e.self_device_ns = std::max<int64_t>(0, e.device_ns - f.children_device_ns);
      cuda::release_timing_mark(last);
      cuda::release_timing_mark(f.mark);
    }
    // note_memory counted into self_*; the totals add the children's.
    e.cpu_memory = e.self_cpu_memory + f.children_cpu_memory;
    e.device_memory = e.self_device_memory + f.children_device_memory;
    if (args != nullptr)
      for (const tracing::Arg& a : *args) add_shapes(a, e.input_shapes);
    if (!open_.empty()) {
      Frame& parent = open_.back();
      parent.children_ns += e.duration_ns();
      parent.children_device_ns += std::max<int64_t>(0, e.device_ns);
      parent.children_cpu_memory += e.cpu_memory;
      parent.children_device_memory += e.device_memory;
    }
    done_.push_back(std::move(e));
  }

  ProfileOptions options_;
  std::optional<tracing::Scope> scope_;
  std::thread::id thread_;
  bool device_ = false;
  int64_t origin_ns_ = -1;
  std::vector<Frame> open_;
  std::vector<Event> done_;
};

Profile::Profile(ProfileOptions options) : recorder_(std::make_unique<Recorder>(options)) {}
Profile::~Profile() {
  if (!recorder_->running()) return;
  // A profile destroyed while running (an exception left its scope) uninstalls itself first. On
  // another thread it cannot: the profiled thread still points at the recorder, which is then
  // leaked rather than left dangling there.
  if (recorder_->on_its_thread()) {
    recorder_->stop();
  } else {
    (void)recorder_.release();
  }
}
void Profile::start() { recorder_->start(); }
void Profile::stop() { recorder_->stop(); }
bool Profile::running() const { return recorder_->running(); }
const std::vector<Event>& Profile::events() const { return recorder_->events(); }
const ProfileOptions& Profile::options() const { return recorder_->options(); }

}  // namespace ember::profiler
