#include "ember/profiler/key_averages.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <utility>

#include "ember/core/error.h"

namespace ember::profiler {

namespace {

std::string format_time(int64_t ns) {
  const double us = static_cast<double>(ns) / 1e3;
  char buf[32];
  if (us >= 1e6)
    std::snprintf(buf, sizeof buf, "%.3fs", us / 1e6);
  else if (us >= 1e3)
    std::snprintf(buf, sizeof buf, "%.3fms", us / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3fus", us);
  return buf;
}

std::string format_percent(int64_t part, int64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / whole);
  return buf;
}

std::string format_memory(int64_t bytes) {
  constexpr double kKb = 1024.0, kMb = kKb * 1024, kGb = kMb * 1024;
  const double b = static_cast<double>(bytes);
  char buf[32];
  if (std::abs(b) >= kGb)
    std::snprintf(buf, sizeof buf, "%.2f Gb", b / kGb);
  else if (std::abs(b) >= kMb)
    std::snprintf(buf, sizeof buf, "%.2f Mb", b / kMb);
  else if (std::abs(b) >= kKb)
    std::snprintf(buf, sizeof buf, "%.2f Kb", b / kKb);
  else
    std::snprintf(buf, sizeof buf, "%lld b", static_cast<long long>(bytes));
  return buf;
}

using Column = std::function<double(const EventAverage&)>;

const std::map<std::string, Column, std::less<>>& sort_columns() {
  static const std::map<std::string, Column, std::less<>> columns = {
      {"cpu_time_total", [](const EventAverage& a) { return double(a.cpu_time_total_ns); }},
      {"self_cpu_time_total", [](const EventAverage& a) { return double(a.self_cpu_time_total_ns); }},
      {"cpu_time", [](const EventAverage& a) { return double(a.cpu_time_ns()); }},
      {"count", [](const EventAverage& a) { return double(a.count); }},
      {"cpu_memory_usage", [](const EventAverage& a) { return double(a.cpu_memory); }},
      {"self_cpu_memory_usage", [](const EventAverage& a) { return double(a.self_cpu_memory); }},
      {"cuda_time_total", [](const EventAverage& a) { return double(a.device_time_total_ns); }},
      {"device_time_total", [](const EventAverage& a) { return double(a.device_time_total_ns); }},
      {"self_cuda_time_total", [](const EventAverage& a) { return double(a.self_device_time_total_ns); }},
      {"self_device_time_total", [](const EventAverage& a) { return double(a.self_device_time_total_ns); }},
      {"cuda_time", [](const EventAverage& a) { return double(a.device_time_ns()); }},
      {"device_time", [](const EventAverage& a) { return double(a.device_time_ns()); }},
      {"cuda_memory_usage", [](const EventAverage& a) { return double(a.device_memory); }},
      {"device_memory_usage", [](const EventAverage& a) { return double(a.device_memory); }},
      {"self_cuda_memory_usage", [](const EventAverage& a) { return double(a.self_device_memory); }},
      {"self_device_memory_usage", [](const EventAverage& a) { return double(a.self_device_memory); }},
  };
  return columns;
}

// Columns count characters, not bytes: a UTF-8 continuation byte (10xxxxxx) starts none.
size_t text_width(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

// The first `count` characters of `text`.
std::string first_columns(const std::string& text, size_t count) {
  size_t end = 0;
  for (size_t seen = 0; end < text.size(); ++end) {
    if ((static_cast<unsigned char>(text[end]) & 0xC0) != 0x80 && seen++ == count) break;
  }
  return text.substr(0, end);
}

std::string fit(const std::string& name, size_t width) {
  if (text_width(name) <= width) return name;
  return width <= 3 ? first_columns(name, width) : first_columns(name, width - 3) + "...";
}

}  // namespace

std::string format_shapes(const std::vector<std::vector<int64_t>>& shapes) {
  std::ostringstream s;
  s << '[';
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i) s << ", ";
    s << '[';
    for (size_t j = 0; j < shapes[i].size(); ++j) s << (j ? ", " : "") << shapes[i][j];
    s << ']';
  }
  s << ']';
  return s.str();
}

std::vector<EventAverage> key_averages(const std::vector<Event>& events, bool group_by_input_shape) {
  std::vector<EventAverage> out;
  std::map<std::pair<std::string, std::string>, size_t> where;
  for (const Event& e : events) {
    std::string shapes = group_by_input_shape ? format_shapes(e.input_shapes) : std::string();
    std::string key = !e.is_op && e.name.starts_with("ProfilerStep#") ? "ProfilerStep*" : e.name;
    auto [it, fresh] = where.try_emplace({key, shapes}, out.size());
    if (fresh) {
      EventAverage a;
      a.key = std::move(key);
      if (group_by_input_shape) a.input_shapes = e.input_shapes;
      a.by_input_shape = group_by_input_shape;
      a.is_op = e.is_op;
      out.push_back(std::move(a));
    }
    EventAverage& a = out[it->second];
    ++a.count;
    a.cpu_time_total_ns += e.duration_ns();
    a.self_cpu_time_total_ns += e.self_ns;
    if (e.device_ns >= 0) {
      a.has_device_time = true;
      a.device_time_total_ns += e.device_ns;
      a.self_device_time_total_ns += e.self_device_ns;
    }
    a.cpu_memory += e.cpu_memory;
    a.self_cpu_memory += e.self_cpu_memory;
    a.device_memory += e.device_memory;
    a.self_device_memory += e.self_device_memory;
  }
  return out;
}

std::string table(std::vector<EventAverage> averages, const TableOptions& options) {
  if (!options.sort_by.empty()) {
    const auto& columns = sort_columns();
    auto it = columns.find(options.sort_by);
    if (it == columns.end()) {
      std::string known;
      for (const auto& [name, column] : columns) known += (known.empty() ? "" : ", ") + name;
      throw ValueError("profiler table: cannot sort by '" + options.sort_by + "'; the columns are " + known);
    }
    const Column& key = it->second;
    std::stable_sort(averages.begin(), averages.end(),
                     [&](const EventAverage& a, const EventAverage& b) { return key(a) > key(b); });
  }
  bool device = false, shapes = false;
  int64_t self_total = 0, self_device_total = 0;
  size_t name_width = 4;
  for (const EventAverage& a : averages) {
    device = device || a.has_device_time;
    shapes = shapes || a.by_input_shape;
    self_total += a.self_cpu_time_total_ns;
    self_device_total += a.self_device_time_total_ns;
    name_width = std::max(name_width, text_width(a.key));
  }
  name_width = std::min(name_width, static_cast<size_t>(std::max(options.max_name_column_width, 4)));
  if (options.row_limit >= 0 && averages.size() > static_cast<size_t>(options.row_limit))
    averages.resize(static_cast<size_t>(options.row_limit));

  // Each column: its header, its width and how a row fills it.
  struct Cell {
    std::string header;
    size_t width;
    std::function<std::string(const EventAverage&)> text;
  };
  std::vector<Cell> cells;
  cells.push_back({"Name", name_width, [&](const EventAverage& a) { return fit(a.key, name_width); }});
  auto add = [&](std::string header, std::function<std::string(const EventAverage&)> text) {
    cells.push_back({std::move(header), 12, std::move(text)});
  };
  add("Self CPU %", [&](const EventAverage& a) { return format_percent(a.self_cpu_time_total_ns, self_total); });
  add("Self CPU", [](const EventAverage& a) { return format_time(a.self_cpu_time_total_ns); });
  add("CPU total %", [&](const EventAverage& a) { return format_percent(a.cpu_time_total_ns, self_total); });
  add("CPU total", [](const EventAverage& a) { return format_time(a.cpu_time_total_ns); });
  add("CPU time avg", [](const EventAverage& a) { return format_time(a.cpu_time_ns()); });
  if (device) {
    add("Self CUDA", [](const EventAverage& a) { return format_time(a.self_device_time_total_ns); });
    add("Self CUDA %",
        [&](const EventAverage& a) { return format_percent(a.self_device_time_total_ns, self_device_total); });
    add("CUDA total", [](const EventAverage& a) { return format_time(a.device_time_total_ns); });
    add("CUDA time avg", [](const EventAverage& a) { return format_time(a.device_time_ns()); });
  }
  if (options.show_memory) {
    add("CPU Mem", [](const EventAverage& a) { return format_memory(a.cpu_memory); });
    add("Self CPU Mem", [](const EventAverage& a) { return format_memory(a.self_cpu_memory); });
    if (device) {
      add("CUDA Mem", [](const EventAverage& a) { return format_memory(a.device_memory); });
      add("Self CUDA Mem", [](const EventAverage& a) { return format_memory(a.self_device_memory); });
    }
  }
  add("# of Calls", [](const EventAverage& a) { return std::to_string(a.count); });
  if (shapes)
    cells.push_back({"Input Shapes", 45, [](const EventAverage& a) { return fit(format_shapes(a.input_shapes), 45); }});

  std::ostringstream s;
  auto rule = [&] {
    for (size_t i = 0; i < cells.size(); ++i) s << (i ? "  " : "") << std::string(cells[i].width, '-');
    s << '\n';
  };
  auto row = [&](auto&& text_of) {
    for (size_t i = 0; i < cells.size(); ++i) {
      const std::string text = text_of(cells[i]);
      const bool left = i + 1 == cells.size() && shapes;  // the shapes, as PyTorch, to the left
      s << (i ? "  " : "");
      if (left) {
        s << text;
      } else {
        s << std::string(cells[i].width > text_width(text) ? cells[i].width - text_width(text) : 0, ' ') << text;
      }
    }
    s << '\n';
  };
  rule();
  row([](const Cell& c) { return c.header; });
  rule();
  for (const EventAverage& a : averages) row([&](const Cell& c) { return c.text(a); });
  rule();
  s << "Self CPU time total: " << format_time(self_total) << '\n';
  if (device) s << "Self CUDA time total: " << format_time(self_device_total) << '\n';
  return s.str();
}

}  // namespace ember::profiler
