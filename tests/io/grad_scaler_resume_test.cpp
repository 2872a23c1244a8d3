// optim::GradScaler in checkpoints: a run stopped and resumed through an io::TrainingState in a file
// scales, skips and grows as the whole run; a malformed scaler state is refused before anything loads.
#include <gtest/gtest.h>

#include <limits>

#include "ember/ember.h"
#include "ember/io/optim_io.h"
#include "ember/io/training_state.h"
#include "ember/optim/optim.h"
#include "io/io_test_util.h"
#include "optim/tiny_sgd_model.h"
#include "support/expect.h"

using namespace ember;
using namespace ember::optim;
using ember::testing::bitwise_equal;
using ember::testing::expect_error;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using Tiny = ember::testing::TinySgdModel;

}  // namespace

// A run of 8 steps with inf gradients at steps 2 and 5, stopped after 4 and resumed through a
// TrainingState in a file: the same parameters, scale and growth count as the whole run.
TEST(GradScalerTest, AResumedRunScalesAndSkipsAsTheWholeRun) {
  auto run = [](Tiny& t, GradScaler& s, int from, int to) {
    for (int step = from; step < to; ++step) {
      t.sgd.zero_grad();
      s.scale(t.loss(1.0 + step)).backward();
      if (step == 2 || step == 5) t.w.grad().narrow(0, 0, 1).fill_(kInf);
      s.step(t.sgd);
      s.update();
    }
  };
  const GradScalerOptions options{.init_scale = 256.0, .growth_factor = 2.0, .backoff_factor = 0.25, .growth_interval = 2};
  Tiny whole;
  GradScaler whole_scaler(options);
  run(whole, whole_scaler, 0, 8);

  ember::testing::TempDir dir;
  {
    Tiny first;
    GradScaler s(options);
    run(first, s, 0, 4);
    io::TrainingState ts{.model = nullptr, .optimizer = &first.sgd, .scaler = &s};
    ts.extras.set("w", first.w);
    ts.extras.set("b", first.b);
    io::save(ts.to_value(), dir.file("run.ember"));
  }
  Tiny second;
  GradScaler s({.init_scale = 1.0, .growth_interval = 99});  // the checkpoint brings the rest
  io::TrainingState ts{.model = nullptr, .optimizer = &second.sgd, .scaler = &s};
  ts.load(io::load(dir.file("run.ember")));
  {
    autograd::NoGradGuard no_grad;
    second.w.copy_(ts.extras.at("w").as_tensor());
    second.b.copy_(ts.extras.at("b").as_tensor());
  }
  EXPECT_EQ(s.get_growth_interval(), 2);
  EXPECT_EQ(s.get_backoff_factor(), 0.25);
  run(second, s, 4, 8);
  EXPECT_TRUE(bitwise_equal(second.w, whole.w));
  EXPECT_TRUE(bitwise_equal(second.b, whole.b));
  EXPECT_EQ(s.get_scale(), whole_scaler.get_scale());
  EXPECT_EQ(s.growth_tracker(), whole_scaler.growth_tracker());
  // 256 -> 512 (2 clean) -> 128 (inf at 2) -> 256 (3, 4) -> 64 (inf at 5) -> 128 (6, 7)
  EXPECT_EQ(whole_scaler.get_scale(), 128.0);
}

TEST(GradScalerTest, TrainingStateRefusesAMalformedScalerBeforeChangingAnything) {
  Tiny t;
  GradScaler s;
  io::TrainingState ts{.model = nullptr, .optimizer = &t.sgd, .scaler = &s};
  io::Value v = ts.to_value();
  io::Value bad = io::to_value(s);
  bad.set("growth_interval", 2.5);
  v.set("scaler", bad);
  ts.step = 7;
  expect_error([&] { ts.load(v); }, {"growth_interval"});
  EXPECT_EQ(ts.step, 7);
  io::TrainingState without{.model = nullptr, .optimizer = &t.sgd};
  expect_error([&] { without.load(ts.to_value()); }, {"the checkpoint has a 'scaler' but this training state has none"});
}
