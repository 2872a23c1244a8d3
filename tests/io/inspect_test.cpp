// ember-inspect (tools/inspect/) run as a user runs it: the built binary on files written here,
// checking what it prints and its exit status.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "ember/ember.h"
#include "io/io_test_util.h"

namespace ember::io {
namespace {

using ember::testing::read_file;
using ember::testing::TempDir;
using ember::testing::ToolRun;
using ember::testing::write_file;
using ::testing::HasSubstr;
using ::testing::Not;

ToolRun inspect(const std::vector<std::string>& args) { return ember::testing::run_tool(EMBER_INSPECT_PATH, args); }

/// The first line of `text` that contains `needle` ("" when none does).
std::string line_with(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.find(needle) != std::string::npos) return line;
  return "";
}

/// The table row of the tensor stored under `key` ("" when there is none).
std::string row_of(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string start = "  '" + key + "' ";
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(start)) return line;
  return "";
}

// A small model-like checkpoint with a tie, attributes, a buffer and a few scalars.
std::string write_checkpoint(const TempDir& dir) {
  Tensor embed = tensor(std::vector<float>{1.5f, -2.f, 3.f, 0.25f, 4.f, 5.f}, {2, 3});
  embed.set_requires_grad();
  embed.attributes()["lr_scale"] = 0.5;
  embed.attributes()["no_decay"] = true;
  Value v = Value::dict({
      {"model", Value::dict({{"embed.weight", Value(embed, TensorKind::Parameter)},
                             {"bn.running_mean", Value(zeros({3}), TensorKind::Buffer)},
                             {"decoder.weight", Value(embed, TensorKind::Parameter)}})},
      {"epoch", 3},
      {"lr", 0.01},
      {"note", Value::tuple({"best", tensor({int64_t{7}, int64_t{8}})})},
      {"done", false},
      {"nothing", Value()},
  });
  std::string path = dir.file("model.ember");
  save(v, path);
  return path;
}

TEST(InspectTest, PrintsKindValueTreeAndTensorTable) {
  TempDir dir;
  std::string path = write_checkpoint(dir);
  ToolRun run = inspect({path});
  ASSERT_EQ(run.status, 0) << run.output;
  const std::string& out = run.output;
  EXPECT_THAT(out, HasSubstr("kind: Ember checkpoint, schema v1"));
  // The tree: containers with their sizes, scalars with their types, tensor leaves with kind.
  EXPECT_THAT(out, HasSubstr("root: dict (6 keys)"));
  EXPECT_THAT(out, HasSubstr("    'model': dict (3 keys)\n"));
  EXPECT_THAT(out, HasSubstr("      'embed.weight': Tensor float32 [2, 3] (parameter, requires_grad)\n"));
  EXPECT_THAT(out, HasSubstr("      'bn.running_mean': Tensor float32 [3] (buffer)\n"));
  EXPECT_THAT(out, HasSubstr("    'epoch': int 3\n"));
  EXPECT_THAT(out, HasSubstr("    'lr': float 0.01\n"));
  EXPECT_THAT(out, HasSubstr("    'done': bool False\n"));
  EXPECT_THAT(out, HasSubstr("    'nothing': None\n"));
  EXPECT_THAT(out, HasSubstr("    'note': tuple (2 items)\n"
                             "      [0]: str 'best'\n"
                             "      [1]: Tensor int64 [2] (tensor)\n"));
  // The table: one row per stored tensor (the tie once), every checksum verified.
  EXPECT_THAT(out, HasSubstr("tensors: 3 stored, 52 bytes of data"));
  std::string header = line_with(out, "requires_grad  attributes");
  for (const char* column : {"key", "other names", "dtype", "shape", "bytes", "checksum"})
    EXPECT_THAT(header, HasSubstr(column));
  std::string row = row_of(out, "model/bn.running_mean");
  EXPECT_THAT(row, HasSubstr("float32"));
  EXPECT_THAT(row, HasSubstr("[3]"));
  EXPECT_THAT(row, HasSubstr(" 12 "));
  EXPECT_THAT(row, HasSubstr("False"));
  EXPECT_THAT(row, ::testing::EndsWith("ok"));
  EXPECT_THAT(row_of(out, "note/1"), HasSubstr("int64"));
}

TEST(InspectTest, ShowsEveryNameOfATiedTensorAndItsAttributes) {
  TempDir dir;
  ToolRun run = inspect({write_checkpoint(dir)});
  ASSERT_EQ(run.status, 0) << run.output;
  std::string row = row_of(run.output, "model/embed.weight");
  EXPECT_THAT(row, HasSubstr("'model/decoder.weight'"));
  EXPECT_THAT(row, HasSubstr("True"));  // requires_grad
  EXPECT_THAT(row, HasSubstr("lr_scale=0.5, no_decay=True"));
  EXPECT_THAT(row, ::testing::EndsWith("ok"));
  // In the tree, the second name points at the stored one.
  EXPECT_THAT(run.output, HasSubstr("'decoder.weight': Tensor float32 [2, 3] (parameter, requires_grad)"
                                    "  tied: stored as 'model/embed.weight'"));
  EXPECT_EQ(row_of(run.output, "model/decoder.weight"), "") << "an alias got a row of its own";
}

TEST(InspectTest, DamagedTensorShowsMismatchAndFails) {
  TempDir dir;
  std::string path = dir.file("damaged.ember");
  save(Value::dict({{"a", ones({16})}, {"b", zeros({16})}}), path);
  std::string bytes = read_file(path);
  bytes[bytes.size() - 3] ^= 0x40;  // inside the last tensor's data
  write_file(path, bytes);
  std::string damaged = File::open(path).verify("a") ? "b" : "a";
  std::string intact = damaged == "a" ? "b" : "a";

  ToolRun run = inspect({path});
  EXPECT_EQ(run.status, 1) << run.output;
  EXPECT_THAT(row_of(run.output, damaged), ::testing::EndsWith("MISMATCH"));
  EXPECT_THAT(row_of(run.output, intact), ::testing::EndsWith("ok"));
  EXPECT_THAT(run.output, HasSubstr("is damaged: 1 tensor fails its checksum: '" + damaged + "'"));

  // Its values are never printed; the intact one still is.
  ToolRun values = inspect({path, "--tensor", damaged});
  EXPECT_NE(values.status, 0);
  EXPECT_THAT(values.output, HasSubstr("checksum mismatch for tensor '" + damaged + "'"));
  EXPECT_THAT(values.output, Not(HasSubstr("tensor([")));
  ToolRun good = inspect({path, "--tensor", intact});
  EXPECT_EQ(good.status, 0) << good.output;
}

TEST(InspectTest, TensorOptionPrintsValuesByKeyOrAlias) {
  TempDir dir;
  std::string path = write_checkpoint(dir);
  ToolRun run = inspect({path, "--tensor", "model/embed.weight"});
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("'model/embed.weight' (also 'model/decoder.weight'): float32 [2, 3], 24 bytes, "
                                    "checksum ok\n"));
  EXPECT_THAT(
      run.output,
      HasSubstr("tensor([[ 1.5000, -2.0000,  3.0000],\n        [ 0.2500,  4.0000,  5.0000]], requires_grad=True)"));

  ToolRun alias = inspect({path, "-t", "model/decoder.weight", "-t", "note/1"});
  ASSERT_EQ(alias.status, 0) << alias.output;
  EXPECT_THAT(alias.output, HasSubstr("'model/decoder.weight' (stored as 'model/embed.weight')"));
  EXPECT_THAT(alias.output, HasSubstr("tensor([[ 1.5000, -2.0000,  3.0000],"));
  EXPECT_THAT(alias.output, HasSubstr("tensor([7, 8])"));
}

TEST(InspectTest, UnknownTensorNameFailsNamingIt) {
  TempDir dir;
  std::string path = write_checkpoint(dir);
  ToolRun run = inspect({path, "--tensor", "model/missing.weight"});
  EXPECT_NE(run.status, 0);
  EXPECT_THAT(run.output, HasSubstr("ember-inspect: error: "));
  EXPECT_THAT(run.output, HasSubstr("no tensor named 'model/missing.weight'"));
  EXPECT_THAT(run.output, HasSubstr("'model/embed.weight'"));  // what there is instead
}

TEST(InspectTest, OpensPyTorchFilesWithoutRunningThem) {
  std::string pt = std::string(EMBER_FIXTURES_DIR) + "/pt/tied.pt";
  ToolRun run = inspect({pt});
  EXPECT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("kind: PyTorch checkpoint (torch.save zip"));
  EXPECT_THAT(run.output, HasSubstr("'decoder.weight': Tensor float32 [6, 3]"));
}

TEST(InspectTest, OpensPlainSafetensorsFiles) {
  TempDir dir;
  // Written by hand, as another tool would: no Ember metadata, but a metadata entry of its own.
  std::string header = R"({"__metadata__":{"format":"pt"},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                       R"("a":{"dtype":"I64","shape":[],"data_offsets":[8,16]}})";
  header.resize((header.size() + 7) / 8 * 8, ' ');
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(header.size());
  float b[2] = {1.5f, -2.f};
  int64_t a = 42;
  bytes += header + std::string(reinterpret_cast<char*>(b), 8) + std::string(reinterpret_cast<char*>(&a), 8);
  std::string path = dir.file("plain.safetensors");
  write_file(path, bytes);

  ToolRun run = inspect({path});
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("kind: plain safetensors"));
  EXPECT_THAT(run.output, HasSubstr("metadata:\n  'format': 'pt'\n"));
  EXPECT_THAT(run.output, HasSubstr("root: dict (2 keys)\n    'b': Tensor float32 [2] (tensor)\n"
                                    "    'a': Tensor int64 [] (tensor)\n"));
  EXPECT_THAT(row_of(run.output, "b"), ::testing::EndsWith("none"));  // no checksum to verify

  ToolRun values = inspect({path, "--tensor", "b"});
  ASSERT_EQ(values.status, 0) << values.output;
  EXPECT_THAT(values.output, HasSubstr("tensor([ 1.5000, -2.0000])"));
}

TEST(InspectTest, UnreadableFilesFailWithTheReason) {
  TempDir dir;
  ToolRun missing = inspect({dir.file("nope.ember")});
  EXPECT_EQ(missing.status, 1);
  EXPECT_THAT(missing.output, HasSubstr("ember-inspect: error: "));
  EXPECT_THAT(missing.output, HasSubstr("nope.ember"));

  std::string garbage = dir.file("garbage.ember");
  write_file(garbage, std::string("\xff\xff\xff\xff\xff\xff\xff\x7f{not json", 17));
  ToolRun bad = inspect({garbage});
  EXPECT_EQ(bad.status, 1);
  EXPECT_THAT(bad.output, HasSubstr("ember-inspect: error: "));
  EXPECT_THAT(bad.output, HasSubstr("not a valid safetensors file"));

  ToolRun usage = inspect({});
  EXPECT_NE(usage.status, 0);
  EXPECT_THAT(usage.output, HasSubstr("FILE"));
}

}  // namespace
}  // namespace ember::io
