// ember._C.profiler: a profile of this thread's ops (profiler/profile.h), its events, their key
// averages and table, the Chrome trace, and the named ranges. ember/profiler gives them
// torch.profiler's names and its schedule.
#include "ember/profiler/profiler.h"

#include <pybind11/stl.h>

#include <memory>

#include "bindings.h"

namespace ember::python {

namespace {

// A range opened by __enter__ and closed by __exit__ (ember.profiler.record_function).
class PyRange {
 public:
  explicit PyRange(std::string name) : name_(std::move(name)) {}
  void enter() {
    EMBER_CHECK(!range_, "record_function('", name_, "') is open already");
    range_ = std::make_unique<tracing::Range>(name_);
  }
  void exit() { range_.reset(); }

 private:
  std::string name_;
  std::unique_ptr<tracing::Range> range_;
};

double us(int64_t ns) { return static_cast<double>(ns) / 1e3; }

}  // namespace

void bind_profiler(py::module_& m) {
  using namespace profiler;
  py::module_ p = m.def_submodule("profiler", "ember.profiler's C++ half");

  py::class_<Event>(p, "Event", "One op or range a profile recorded (times in microseconds).")
      .def_readonly("name", &Event::name)
      .def_readonly("is_op", &Event::is_op)
      .def_property_readonly("start_us", [](const Event& e) { return us(e.start_ns); })
      .def_property_readonly("end_us", [](const Event& e) { return us(e.end_ns); })
      .def_property_readonly("cpu_time_total", [](const Event& e) { return us(e.duration_ns()); })
      .def_property_readonly("self_cpu_time_total", [](const Event& e) { return us(e.self_ns); })
      .def_property_readonly("device_time_total",
                             [](const Event& e) { return e.device_ns < 0 ? 0.0 : us(e.device_ns); })
      .def_property_readonly("self_device_time_total",
                             [](const Event& e) { return e.self_device_ns < 0 ? 0.0 : us(e.self_device_ns); })
      .def_readonly("cpu_memory_usage", &Event::cpu_memory)
      .def_readonly("self_cpu_memory_usage", &Event::self_cpu_memory)
      .def_readonly("device_memory_usage", &Event::device_memory)
      .def_readonly("self_device_memory_usage", &Event::self_device_memory)
      .def_readonly("input_shapes", &Event::input_shapes)
      .def_readonly("depth", &Event::depth)
      .def_readonly("thread", &Event::thread)
      .def("__repr__", [](const Event& e) {
        return "<FunctionEvent name=" + e.name + " cpu_time=" + std::to_string(us(e.duration_ns())) +
               "us start=" + std::to_string(us(e.start_ns)) + "us input_shapes=" + format_shapes(e.input_shapes) + ">";
      });

  py::class_<EventAverage>(p, "EventAverage", "The events of one key, added up (times in microseconds).")
      .def_readonly("key", &EventAverage::key)
      .def_readonly("count", &EventAverage::count)
      .def_readonly("is_op", &EventAverage::is_op)
      .def_readonly("input_shapes", &EventAverage::input_shapes)
      .def_property_readonly("cpu_time_total", [](const EventAverage& a) { return us(a.cpu_time_total_ns); })
      .def_property_readonly("self_cpu_time_total", [](const EventAverage& a) { return us(a.self_cpu_time_total_ns); })
      .def_property_readonly("cpu_time", [](const EventAverage& a) { return us(a.cpu_time_ns()); })
      .def_property_readonly("device_time_total", [](const EventAverage& a) { return us(a.device_time_total_ns); })
      .def_property_readonly("self_device_time_total",
                             [](const EventAverage& a) { return us(a.self_device_time_total_ns); })
      .def_property_readonly("device_time", [](const EventAverage& a) { return us(a.device_time_ns()); })
      .def_readonly("cpu_memory_usage", &EventAverage::cpu_memory)
      .def_readonly("self_cpu_memory_usage", &EventAverage::self_cpu_memory)
      .def_readonly("device_memory_usage", &EventAverage::device_memory)
      .def_readonly("self_device_memory_usage", &EventAverage::self_device_memory)
      // PyTorch's older names, which scripts still read.
      .def_property_readonly("cuda_time_total", [](const EventAverage& a) { return us(a.device_time_total_ns); })
      .def_property_readonly("self_cuda_time_total",
                             [](const EventAverage& a) { return us(a.self_device_time_total_ns); })
      .def_property_readonly("cuda_time", [](const EventAverage& a) { return us(a.device_time_ns()); })
      .def_readonly("cuda_memory_usage", &EventAverage::device_memory)
      .def_readonly("self_cuda_memory_usage", &EventAverage::self_device_memory)
      .def("__repr__", [](const EventAverage& a) {
        return "<FunctionEventAvg key=" + a.key + " self_cpu_time=" + std::to_string(us(a.self_cpu_time_total_ns)) +
               "us cpu_time=" + std::to_string(us(a.cpu_time_ns())) + "us count=" + std::to_string(a.count) +
               " input_shapes=" + format_shapes(a.input_shapes) + ">";
      });

  py::class_<Profile>(p, "Profile", "A profile of the ops this thread runs between start() and stop().")
      .def(py::init([](bool record_shapes, bool profile_memory, bool cuda) {
             return std::make_unique<Profile>(ProfileOptions{record_shapes, profile_memory, cuda});
           }),
           py::kw_only(), py::arg("record_shapes") = false, py::arg("profile_memory") = false, py::arg("cuda") = false)
      .def("start", &Profile::start)
      .def("stop", &Profile::stop)
      .def_property_readonly("running", &Profile::running)
      .def("events", &Profile::events, py::return_value_policy::copy)
      .def("chrome_trace", [](const Profile& prof) { return chrome_trace(prof.events()); })
      .def(
          "export_chrome_trace",
          [](const Profile& prof, const std::string& path) { export_chrome_trace(prof.events(), path); },
          py::arg("path"));

  p.def("key_averages", &key_averages, py::arg("events"), py::arg("group_by_input_shape") = false);
  p.def(
      "table",
      [](std::vector<EventAverage> averages, const std::string& sort_by, int64_t row_limit, bool show_memory,
         int max_name_column_width) {
        return table(std::move(averages), TableOptions{sort_by, row_limit, show_memory, max_name_column_width});
      },
      py::arg("averages"), py::kw_only(), py::arg("sort_by") = "", py::arg("row_limit") = 100,
      py::arg("show_memory") = false, py::arg("max_name_column_width") = 55);

  py::class_<PyRange>(p, "Range", "A named range: open with enter(), close with exit().")
      .def(py::init<std::string>(), py::arg("name"))
      .def("enter", &PyRange::enter)
      .def("exit", &PyRange::exit);
}

}  // namespace ember::python
