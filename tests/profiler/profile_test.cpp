// ember::profiler through its C++ API: what a profile records (ops, ranges, backward nodes,
// argument sizes, memory), how it adds them up, its table and its Chrome trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "ember/autograd/autograd.h"
#include "ember/core/factory.h"
#include "ember/core/generator.h"
#include "ember/ops/ops.h"
#include "ember/profiler/profiler.h"

namespace ember::profiler {
namespace {

const Event* find(const std::vector<Event>& events, std::string_view name) {
  for (const Event& e : events)
    if (e.name == name) return &e;
  return nullptr;
}

int64_t count(const std::vector<Event>& events, std::string_view name) {
  return std::count_if(events.begin(), events.end(), [&](const Event& e) { return e.name == name; });
}

TEST(Profile, RecordsOutermostOpsInsideRangesWithTheirShapes) {
  Tensor a = ones({2, 3}), b = ones({3, 4});
  Profile prof({.record_shapes = true});
  prof.start();
  {
    RecordFunction step("step");
    Tensor c = matmul(a, b);
    Tensor d = relu(c);
  }
  prof.stop();
  const std::vector<Event>& events = prof.events();
  const Event* step = find(events, "step");
  const Event* mm = find(events, "matmul");
  ASSERT_NE(step, nullptr);
  ASSERT_NE(mm, nullptr) << "events: " << events.size();
  EXPECT_FALSE(step->is_op);
  EXPECT_TRUE(mm->is_op);
  EXPECT_EQ(step->depth, 0);
  EXPECT_EQ(mm->depth, 1);
  EXPECT_EQ(mm->input_shapes, (std::vector<std::vector<int64_t>>{{2, 3}, {3, 4}}));
  // The range holds its ops; its self time is what is left of it.
  EXPECT_LE(step->start_ns, mm->start_ns);
  EXPECT_GE(step->end_ns, mm->end_ns);
  int64_t children = 0;
  for (const Event& e : events)
    if (e.depth == 1) children += e.duration_ns();
  EXPECT_EQ(step->self_ns, step->duration_ns() - children);
  EXPECT_EQ(mm->self_ns, mm->duration_ns());  // an op's inner ops are its own business
  EXPECT_EQ(count(events, "relu"), 1);
  // Sorted by start, the first event is the range.
  EXPECT_EQ(events.front().name, "step");
}

TEST(Profile, ShapesOnlyWhenAskedAndNothingOutsideStartStop) {
  Tensor a = ones({5});
  Profile prof;
  (void)neg(a);
  prof.start();
  (void)neg(a);
  prof.stop();
  (void)neg(a);
  ASSERT_EQ(count(prof.events(), "neg"), 1);
  EXPECT_TRUE(find(prof.events(), "neg")->input_shapes.empty());
  EXPECT_EQ(find(prof.events(), "neg")->device_ns, -1);
}

TEST(Profile, BackwardNodesAreRangesAroundTheirOps) {
  Tensor x = ones({4, 4}).set_requires_grad();
  Profile prof;
  prof.start();
  Tensor y = sum(mul(x, x));
  y.backward();
  prof.stop();
  const Event* node = nullptr;
  for (const Event& e : prof.events())
    if (!e.is_op && e.name.find("MulBackward") != std::string::npos) node = &e;
  ASSERT_NE(node, nullptr);
  bool inside = false;
  for (const Event& e : prof.events())
    if (e.is_op && e.start_ns >= node->start_ns && e.end_ns <= node->end_ns && e.depth == node->depth + 1)
      inside = true;
  EXPECT_TRUE(inside) << "no op ran inside " << node->name;
}

TEST(Profile, MemoryIsWhatAnEventLeavesAllocated) {
  Tensor a = ones({1000}), b = ones({1000});
  Profile prof({.profile_memory = true});
  prof.start();
  Tensor kept;
  {
    RecordFunction r("block");
    kept = add(a, b);                 // 4000 bytes that outlive the range
    (void)mul(add(a, b), add(a, b));  // temporaries freed inside it
  }
  prof.stop();
  const Event* block = find(prof.events(), "block");
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(block->cpu_memory, 4000);
  EXPECT_EQ(block->self_cpu_memory, -12000);  // the two temporaries and the product, freed by the range
  const Event* add = find(prof.events(), "add");
  EXPECT_EQ(add->cpu_memory, 4000);
  EXPECT_EQ(add->self_cpu_memory, 4000);
  EXPECT_EQ(block->device_memory, 0);
}

TEST(Profile, AFailingOpClosesItsEvent) {
  Profile prof({.record_shapes = true});
  prof.start();
  EXPECT_THROW(matmul(ones({2, 3}), ones({2, 3})), Error);
  (void)neg(ones({2}));
  prof.stop();
  const Event* mm = find(prof.events(), "matmul");
  const Event* neg = find(prof.events(), "neg");
  ASSERT_NE(mm, nullptr);
  ASSERT_NE(neg, nullptr);
  EXPECT_EQ(neg->depth, 0);  // the failed op did not stay open around it
}

TEST(Profile, OwnGeneratorsWorkWhileProfiled) {
  Generator g(3);
  Profile prof;
  prof.start();
  Tensor r = randn({8}, {}, &g);
  prof.stop();
  EXPECT_EQ(r.numel(), 8);
}

TEST(Profile, MisuseIsAnError) {
  Profile prof;
  EXPECT_THROW(prof.stop(), Error);
  prof.start();
  EXPECT_THROW(prof.start(), Error);
  EXPECT_THROW((void)prof.events(), Error);
  std::thread other([&] { EXPECT_THROW(prof.stop(), Error); });
  other.join();
  prof.stop();
  EXPECT_FALSE(prof.running());
  prof.start();  // started again, it adds to what it holds
  (void)neg(ones({1}));
  prof.stop();
  EXPECT_EQ(count(prof.events(), "neg"), 1);
}

TEST(Profile, DestroyedWhileRunningUninstallsItself) {
  {
    Profile prof;
    prof.start();
  }
  EXPECT_FALSE(tracing::recording());
  (void)neg(ones({1}));  // nothing is told of it: no recorder dangles
}

TEST(KeyAverages, AddsUpByNameOrByNameAndShapes) {
  Profile prof({.record_shapes = true});
  prof.start();
  for (int i = 0; i < 3; ++i) (void)neg(ones({2}));
  (void)neg(ones({3, 3}));
  prof.stop();
  std::vector<EventAverage> by_name = key_averages(prof.events());
  auto neg = std::find_if(by_name.begin(), by_name.end(), [](const EventAverage& a) { return a.key == "neg"; });
  ASSERT_NE(neg, by_name.end());
  EXPECT_EQ(neg->count, 4);
  int64_t total = 0;
  for (const Event& e : prof.events())
    if (e.name == "neg") total += e.duration_ns();
  EXPECT_EQ(neg->cpu_time_total_ns, total);
  EXPECT_EQ(neg->cpu_time_ns(), total / 4);

  std::vector<EventAverage> by_shape = key_averages(prof.events(), true);
  std::vector<std::pair<std::string, int64_t>> negs;
  for (const EventAverage& a : by_shape)
    if (a.key == "neg") negs.emplace_back(format_shapes(a.input_shapes), a.count);
  EXPECT_EQ(negs, (std::vector<std::pair<std::string, int64_t>>{{"[[2]]", 3}, {"[[3, 3]]", 1}}));
}

TEST(Table, PrintsPyTorchsColumnsSortedAndLimited) {
  Tensor v = ones({2}), m = ones({2, 2});
  Profile prof({.record_shapes = true, .profile_memory = true});
  prof.start();
  for (int i = 0; i < 3; ++i) (void)neg(v);
  (void)matmul(m, m);
  prof.stop();
  const std::string text =
      table(key_averages(prof.events()), {.sort_by = "count", .row_limit = 1, .show_memory = true});
  for (const char* header : {"Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "CPU Mem",
                             "Self CPU Mem", "# of Calls", "Self CPU time total: "})
    EXPECT_NE(text.find(header), std::string::npos) << header << " missing from\n" << text;
  EXPECT_NE(text.find("neg"), std::string::npos) << text;     // 3 calls: first by count
  EXPECT_EQ(text.find("matmul"), std::string::npos) << text;  // row_limit 1
  EXPECT_EQ(text.find("CUDA"), std::string::npos) << text;    // no device times here
  const std::string shapes = table(key_averages(prof.events(), true), {});
  EXPECT_NE(shapes.find("Input Shapes"), std::string::npos);
  EXPECT_NE(shapes.find("[[2, 2], [2, 2]]"), std::string::npos) << shapes;
  try {
    (void)table(key_averages(prof.events()), {.sort_by = "cpu_time_totl"});
    FAIL() << "no error for an unknown column";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("'cpu_time_totl'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("self_cpu_time_total"), std::string::npos) << e.what();
  }
}

TEST(Table, CountsCharactersNotBytesAndShortensLongNames) {
  Profile prof;
  prof.start();
  { RecordFunction r("na\xc3\xafve \xe2\x9c\x93"); }  // "naïve ✓": 7 characters, 10 bytes
  { RecordFunction r(std::string(80, 'x')); }
  prof.stop();
  const std::string text = table(key_averages(prof.events()), {.max_name_column_width = 20});
  EXPECT_NE(text.find("             na\xc3\xafve \xe2\x9c\x93  "), std::string::npos) << text;  // right-aligned in 20
  EXPECT_NE(text.find(std::string(17, 'x') + "...  "), std::string::npos) << text;
  EXPECT_EQ(text.find(std::string(18, 'x')), std::string::npos) << text;
}

TEST(ChromeTrace, CompleteEventsNestedInTime) {
  Profile prof({.record_shapes = true});
  prof.start();
  {
    RecordFunction r("outer");
    (void)matmul(ones({2, 3}), ones({3, 1}));
  }
  prof.stop();
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "ember_profile_trace.json";
  export_chrome_trace(prof.events(), path.string());
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  const nlohmann::json* outer = nullptr;
  const nlohmann::json* mm = nullptr;
  for (const nlohmann::json& e : doc.at("traceEvents")) {
    if (e.at("ph") != "X") continue;
    EXPECT_TRUE(e.contains("ts") && e.contains("dur") && e.contains("pid") && e.contains("tid")) << e.dump();
    if (e.at("name") == "outer") outer = &e;
    if (e.at("name") == "matmul") mm = &e;
  }
  ASSERT_TRUE(outer && mm);
  EXPECT_EQ(outer->at("cat"), "user_annotation");
  EXPECT_EQ(mm->at("cat"), "cpu_op");
  EXPECT_EQ(mm->at("args").at("Input Dims"), nlohmann::json::parse("[[2, 3], [3, 1]]"));
  EXPECT_LE(outer->at("ts").get<double>(), mm->at("ts").get<double>());
  EXPECT_GE(outer->at("ts").get<double>() + outer->at("dur").get<double>(),
            mm->at("ts").get<double>() + mm->at("dur").get<double>());
  EXPECT_EQ(outer->at("tid"), mm->at("tid"));
}

TEST(ChromeTrace, ANameThatIsNotUtf8StillGivesJson) {
  Profile prof;
  prof.start();
  { RecordFunction r("bad\xff name"); }
  prof.stop();
  const nlohmann::json doc = nlohmann::json::parse(chrome_trace(prof.events()));
  EXPECT_EQ(doc.at("traceEvents").at(0).at("name"), "bad\xef\xbf\xbd name");  // U+FFFD
}

TEST(ChromeTrace, AnUnwritableFileIsAnOSErrorNamingIt) {
  Profile prof;
  prof.start();
  prof.stop();
  try {
    export_chrome_trace(prof.events(), "/nonexistent-dir/trace.json");
    FAIL() << "no error";
  } catch (const OSError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/trace.json"), std::string::npos) << e.what();
    EXPECT_EQ(e.error(), ENOENT);
  }
}

}  // namespace
}  // namespace ember::profiler
