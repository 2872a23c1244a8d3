// cereal types in a checkpoint (io/cereal_archive.h): a user's struct with the standard containers
// inside, through a file and back with every type, readable as a plain tree, and read with errors
// that name the path.
#include <gtest/gtest.h>

#include <cereal/types/map.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/tuple.hpp>
#include <cereal/types/vector.hpp>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "ember/ember.h"
#include "ember/io/cereal_archive.h"
#include "io/io_test_util.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::io;
using ember::testing::expect_error;
using ember::testing::TempDir;

namespace {

enum class Phase : int { Warmup = 1, Main = 2 };

struct RunState {
  int64_t epoch = 0;
  uint8_t small = 0;
  bool finished = false;
  float scale = 0;
  std::string note;
  Phase phase = Phase::Warmup;
  std::vector<double> losses;
  std::map<std::string, int> counts;
  std::optional<double> best;
  std::optional<double> unset;
  std::tuple<int, std::string> pair;
  std::vector<std::vector<int>> nested;
  Tensor weights;
  int unnamed = 0;

  template <class Archive>
  void serialize(Archive& ar) {
    ar(CEREAL_NVP(epoch), CEREAL_NVP(small), CEREAL_NVP(finished), CEREAL_NVP(scale), CEREAL_NVP(note),
       CEREAL_NVP(phase), CEREAL_NVP(losses), CEREAL_NVP(counts), CEREAL_NVP(best), CEREAL_NVP(unset),
       CEREAL_NVP(pair), CEREAL_NVP(nested), CEREAL_NVP(weights), unnamed);
  }
};

RunState sample() {
  RunState r;
  r.epoch = int64_t{1} << 40;
  r.small = 200;
  r.finished = true;
  r.scale = 0.1f;
  r.note = "résumé \"quoted\"";
  r.phase = Phase::Main;
  r.losses = {2.5, 1.25, -0.0};
  r.counts = {{"a", 1}, {"b", -2}};
  r.best = 0.875;
  r.pair = {7, "seven"};
  r.nested = {{1, 2}, {}, {3}};
  r.weights = arange(6, kFloat32).reshape({2, 3});
  r.unnamed = 42;
  return r;
}

}  // namespace

TEST(CerealArchiveTest, AStructRoundTripsThroughAFileWithItsTypes) {
  TempDir dir;
  RunState run = sample();
  save(Value::dict({{"run", cereal_to_value(run)}}), dir.file("ckpt.ember"));
  RunState back;
  cereal_from_value(load(dir.file("ckpt.ember")).at("run"), back);
  EXPECT_EQ(back.epoch, run.epoch);
  EXPECT_EQ(back.small, 200);
  EXPECT_TRUE(back.finished);
  EXPECT_EQ(back.scale, 0.1f);
  EXPECT_EQ(back.note, run.note);
  EXPECT_EQ(back.phase, Phase::Main);
  EXPECT_EQ(back.losses, run.losses);
  EXPECT_TRUE(std::signbit(back.losses[2]));
  EXPECT_EQ(back.counts, run.counts);
  EXPECT_EQ(back.best, 0.875);
  EXPECT_FALSE(back.unset.has_value());
  EXPECT_EQ(back.pair, run.pair);
  EXPECT_EQ(back.nested, run.nested);
  EXPECT_EQ(back.weights.to_vector<float>(), run.weights.to_vector<float>());
  EXPECT_EQ(back.weights.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(back.unnamed, 42);
}

TEST(CerealArchiveTest, TheTreeIsPlainAndNamedByField) {
  Value v = cereal_to_value(sample());
  ASSERT_TRUE(v.is_dict());
  EXPECT_EQ(v.at("epoch").as_int(), int64_t{1} << 40);
  EXPECT_TRUE(v.at("finished").is_bool());
  EXPECT_EQ(v.at("phase").as_int(), 2);  // an enum is its number
  ASSERT_TRUE(v.at("losses").is_list());
  EXPECT_EQ(v.at("losses").size(), 3u);
  EXPECT_TRUE(v.at("weights").is_tensor());
  EXPECT_EQ(v.at("value0").as_int(), 42);  // an unnamed field, named as cereal names it
  EXPECT_EQ(v.at("counts")[1].at("key").as_string(), "b");  // a map: its {key, value} items
}

TEST(CerealArchiveTest, ReadingNamesThePathOfAMissingOrMistypedNode) {
  Value v = cereal_to_value(sample());
  RunState r;
  Value wrong = v;
  wrong.set("losses", Value::list({1.0, "x"}));
  expect_error<TypeError>([&] { cereal_from_value(wrong, r); },
                          {"io::cereal_from_value: 'losses/1' is a str, expected a float"});
  Value missing = Value::dict({{"epoch", 1}});
  expect_error<KeyError>([&] { cereal_from_value(missing, r); },
                         {"io::cereal_from_value: 'small' is missing"});
  Value too_big = v;
  too_big.set("small", int64_t{300});
  expect_error<ValueError>([&] { cereal_from_value(too_big, r); }, {"the integer 300 does not fit"});
  uint64_t huge = UINT64_MAX;
  expect_error<ValueError>([&] { cereal_to_value(huge); }, {"beyond int64"});
}

TEST(CerealArchiveTest, PlainValuesAndContainersAtTheTop) {
  std::vector<int> xs{3, 1, 2};
  Value v = cereal_to_value(xs);
  ASSERT_TRUE(v.is_list());
  std::vector<int> back;
  cereal_from_value(v, back);
  EXPECT_EQ(back, xs);
  double d = 0;
  cereal_from_value(cereal_to_value(2.5), d);
  EXPECT_EQ(d, 2.5);
}
