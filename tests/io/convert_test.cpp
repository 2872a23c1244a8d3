// ember-convert (tools/convert/) run as a user runs it: a PyTorch .pt file into an Ember
// checkpoint and a plain safetensors file, an Ember checkpoint into plain safetensors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "ember/ember.h"
#include "io/io_test_util.h"

namespace ember::io {
namespace {

using ember::testing::bitwise_equal;
using ember::testing::run_tool;
using ember::testing::TempDir;
using ember::testing::ToolRun;
using ::testing::HasSubstr;

const std::filesystem::path kPtDir = std::filesystem::path(EMBER_FIXTURES_DIR) / "pt";

ToolRun convert(const std::vector<std::string>& args) { return run_tool(EMBER_CONVERT_PATH, args); }

TEST(ConvertTest, PyTorchFileBecomesAnEmberCheckpointWithItsTies) {
  TempDir dir;
  std::string out = dir.file("tied.ember");
  ToolRun run = convert({(kPtDir / "tied.pt").string(), out});
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("wrote Ember checkpoint"));
  Value from_pt = load((kPtDir / "tied.pt").string());
  Value back = load(out);
  EXPECT_TRUE(back.equals(from_pt));
  EXPECT_TRUE(File::open(out).is_ember());
  // Five tensors under five names, two ties (one storage under two names each): three stored.
  File file = File::open(out);
  EXPECT_EQ(file.tensors().size(), 3u);
  EXPECT_THAT(file.info("state/decoder.weight").names,
              ::testing::ElementsAre("state/embed.weight", "state/decoder.weight"));
}

TEST(ConvertTest, PlainSafetensorsHoldsEveryNameAndListsWhatItLeftOut) {
  TempDir dir;
  // An Ember checkpoint with a tie and a non-tensor value.
  Tensor shared = randn({3, 2});
  std::string ember = dir.file("ckpt.ember");
  save(Value::dict({{"model", Value::dict({{"embed.weight", Value(shared, TensorKind::Parameter)},
                                           {"decoder.weight", Value(shared, TensorKind::Parameter)}})},
                    {"epoch", 4}}),
       ember);
  std::string out = dir.file("weights.safetensors");
  ToolRun run = convert({ember, out});
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("left out 1 value(s) that are not tensors: 'epoch'"));
  File file = File::open(out);
  EXPECT_FALSE(file.is_ember());
  EXPECT_EQ(file.metadata().at("converted_from"), ember);
  Value back = load(out);
  ASSERT_EQ(back.keys(), (std::vector<Key>{"model/embed.weight", "model/decoder.weight"}));
  EXPECT_TRUE(bitwise_equal(back.at("model/embed.weight").as_tensor(), shared));
  EXPECT_TRUE(bitwise_equal(back.at("model/decoder.weight").as_tensor(), shared));
}

TEST(ConvertTest, FormatOptionOverridesTheExtension) {
  TempDir dir;
  std::string out = dir.file("model.bin");
  ToolRun run = convert({(kPtDir / "model.pt").string(), out, "--format", "safetensors"});
  ASSERT_EQ(run.status, 0) << run.output;
  EXPECT_FALSE(File::open(out).is_ember());
}

TEST(ConvertTest, UnreadableInputFailsNamingTheFile) {
  TempDir dir;
  std::string missing = dir.file("nope.pt");
  ToolRun run = convert({missing, dir.file("out.ember")});
  EXPECT_EQ(run.status, 1);
  EXPECT_THAT(run.output, HasSubstr("ember-convert: io: cannot open '" + missing + "'"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.ember")));
}

}  // namespace
}  // namespace ember::io
