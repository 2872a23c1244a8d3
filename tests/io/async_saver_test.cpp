// io::Snapshot and io::AsyncSaver: a save returns once the state is copied, training changes the
// tensors at once and the file still holds what they were; saves land in call order; a failed
// write is an exception from wait() and leaves the previous file whole.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/core/warning.h"
#include "ember/ember.h"
#include "io/io_test_util.h"
#include "support/expect.h"

namespace ember::io {
namespace {

using ember::testing::bitwise_equal;
using ember::testing::TempDir;
using ::testing::HasSubstr;

// Every dtype family, a 0-d, an empty and a non-contiguous tensor, a tie, a parameter with an
// attribute and a non-persistent buffer, at several depths.
Value varied_state() {
  Tensor w = arange(12, TensorOptions(kFloat32)).reshape({3, 4}).set_requires_grad();
  w.attributes()["lr_scale"] = 0.5;
  Tensor counts = arange(5, TensorOptions(kInt64));
  Tensor transposed = arange(6, TensorOptions(kFloat64)).reshape({2, 3}).t();
  Tensor z = view_as_complex(arange(8, TensorOptions(kFloat32)).reshape({4, 2}));
  return Value::dict({
      {"model", Value::dict({{"w", Value(w, TensorKind::Parameter)},
                             {"running", Value(full({2}, 7.0), TensorKind::Buffer, false)}})},
      {"tied", Value(w, TensorKind::Parameter)},
      {"counts", counts},
      {"mask", full({3}, 1.0, TensorOptions(kBool))},
      {"scalar", full({}, 2.5, TensorOptions(kFloat64))},
      {"empty", zeros({0, 3})},
      {"transposed", transposed},
      {"complex", z},
      {"note", Value::tuple({"best", 3, 0.25, nullptr})},
  });
}

// Scribbles over every tensor of the tree in place, as the next training step would.
void scribble(const Value& v) {
  NoGradGuard no_grad;
  if (v.is_tensor()) {
    if (v.as_tensor().numel() > 0) v.as_tensor().fill_(v.as_tensor().dtype() == kBool ? 0.0 : 99.0);
    return;
  }
  if (v.is_list() || v.is_tuple() || v.is_dict())
    for (const Value& item : v.items()) scribble(item);
}

Value cloned(const Value& v) {
  if (v.is_tensor()) return Value(v.as_tensor().clone(), v.tensor_kind(), v.persistent());
  Value out = v;
  if (v.is_list() || v.is_tuple() || v.is_dict())
    for (size_t i = 0; i < v.items().size(); ++i) out.items()[i] = cloned(v.items()[i]);
  return out;
}

TEST(SnapshotTest, CopiesEveryTensorKeepingStructureKindsFlagsAndTies) {
  Value state = varied_state();
  Snapshot snapshot;
  Value copy = snapshot.take(state);
  EXPECT_TRUE(copy.equals(state)) << copy.str();
  const Tensor& w = copy.at("model").at("w").as_tensor();
  EXPECT_TRUE(w.requires_grad());
  EXPECT_EQ(w.attributes().at("lr_scale"), AttrValue(0.5));
  EXPECT_EQ(copy.at("model").at("w").tensor_kind(), TensorKind::Parameter);
  EXPECT_FALSE(copy.at("model").at("running").persistent());
  EXPECT_EQ(&copy.at("tied").as_tensor().impl(), &w.impl()) << "a tie became two tensors";
  EXPECT_NE(w.data_ptr(), state.at("model").at("w").as_tensor().data_ptr());
  EXPECT_TRUE(copy.at("transposed").as_tensor().is_contiguous());
  EXPECT_FALSE(copy.at("counts").as_tensor().requires_grad());
  // the copy does not change when the originals do
  Value expected = cloned(state);
  scribble(state);
  EXPECT_TRUE(copy.equals(expected));
}

TEST(SnapshotTest, ReusesItsBuffersWhenShapesRepeatAndRemakesThemWhenNot) {
  Tensor a = ones({1000}), b = zeros({10}, TensorOptions(kInt32));
  Snapshot snapshot;
  Value first = snapshot.take(Value::list({a, b}));
  const void* a_buffer = first[0].as_tensor().data_ptr();
  const size_t bytes = snapshot.bytes();
  EXPECT_EQ(bytes, 1000 * 4 + 10 * 4);
  Value second = snapshot.take(Value::list({a.mul(2.0), b}));
  EXPECT_EQ(second[0].as_tensor().data_ptr(), a_buffer) << "a same-shaped tensor got a new buffer";
  EXPECT_EQ(snapshot.bytes(), bytes);
  Value third = snapshot.take(Value::list({ones({1000}, TensorOptions(kFloat64))}));
  EXPECT_EQ(third[0].as_tensor().dtype(), kFloat64);
  EXPECT_EQ(snapshot.bytes(), 1000u * 8) << "the buffer the smaller tree no longer needs was kept";
  EXPECT_TRUE(bitwise_equal(third[0].as_tensor(), ones({1000}, TensorOptions(kFloat64))));
}

TEST(AsyncSaverTest, TheFileHoldsTheStateAsItWasWhenSaveReturned) {
  TempDir dir;
  Value state = varied_state();
  Value expected = cloned(state);
  AsyncSaver saver;
  saver.save(state, dir.file("ckpt.ember"));
  scribble(state);  // training goes on at once
  saver.wait();
  EXPECT_FALSE(saver.pending());
  Value loaded = load(dir.file("ckpt.ember"));
  EXPECT_TRUE(loaded.equals(expected)) << loaded.str();
  EXPECT_EQ(&loaded.at("tied").as_tensor().impl(), &loaded.at("model").at("w").as_tensor().impl());
  EXPECT_TRUE(loaded.at("model").at("w").as_tensor().requires_grad());
  EXPECT_EQ(loaded.at("model").at("w").as_tensor().attributes().at("lr_scale"), AttrValue(0.5));
}

TEST(AsyncSaverTest, SavesLandInCallOrder) {
  TempDir dir;
  Tensor t = zeros({100000});
  AsyncSaver saver;
  for (int i = 1; i <= 6; ++i) {
    {
      NoGradGuard no_grad;
      t.fill_(static_cast<double>(i));
    }
    // the even saves to a second file, so both files see several writes
    saver.save(Value::dict({{"i", i}, {"t", t}}), dir.file(i % 2 ? "odd.ember" : "even.ember"));
  }
  saver.wait();
  Value odd = load(dir.file("odd.ember")), even = load(dir.file("even.ember"));
  EXPECT_EQ(odd.at("i").as_int(), 5);
  EXPECT_EQ(even.at("i").as_int(), 6);
  EXPECT_TRUE(bitwise_equal(odd.at("t").as_tensor(), full({100000}, 5.0)));
  EXPECT_TRUE(bitwise_equal(even.at("t").as_tensor(), full({100000}, 6.0)));
}

TEST(AsyncSaverTest, AFailedWriteIsThrownByWaitAndTheSaverGoesOn) {
  TempDir dir;
  AsyncSaver saver;
  saver.save(Value::dict({{"x", ones({3})}}), dir.file("good.ember"));
  saver.wait();
  const std::string bad = dir.file("missing/dir/ckpt.ember");
  saver.save(Value::dict({{"x", zeros({3})}}), bad);
  EXPECT_THAT([&] { saver.wait(); }, ::testing::Throws<std::exception>());
  EXPECT_FALSE(saver.pending()) << "a failed write is reported once";
  saver.wait();  // nothing left to throw
  // the failure did not touch the earlier file, and later saves work
  EXPECT_TRUE(bitwise_equal(load(dir.file("good.ember")).at("x").as_tensor(), ones({3})));
  saver.save(Value::dict({{"x", full({3}, 2.0)}}), dir.file("good.ember"));
  saver.wait();
  EXPECT_TRUE(bitwise_equal(load(dir.file("good.ember")).at("x").as_tensor(), full({3}, 2.0)));
}

TEST(AsyncSaverTest, TheNextSaveThrowsTheErrorOfTheOneBefore) {
  TempDir dir;
  AsyncSaver saver;
  saver.save(Value::dict({{"x", ones({3})}}), dir.file("missing/ckpt.ember"));
  try {
    saver.save(Value::dict({{"x", ones({3})}}), dir.file("ok.ember"));
    FAIL() << "the failed save was not reported";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("missing"));
  }
  saver.wait();
  EXPECT_FALSE(std::filesystem::exists(dir.file("ok.ember")))
      << "a save whose predecessor failed should not have started";
}

TEST(AsyncSaverTest, AnErrorNobodyCollectedIsAWarningWhenTheSaverGoes) {
  TempDir dir;
  std::vector<std::string> warnings;
  WarningHandler previous = set_warning_handler([&](const std::string& m) { warnings.push_back(m); });
  {
    AsyncSaver saver;
    saver.save(Value::dict({{"x", ones({3})}}), dir.file("missing/ckpt.ember"));
  }
  set_warning_handler(previous);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("a background save failed"));
  EXPECT_THAT(warnings[0], HasSubstr("missing"));
}

TEST(CheckpointManagerAsyncTest, SaveAsyncKeepsTheLastKAndOrdersWithSave) {
  TempDir dir;
  CheckpointManager manager(dir.file("run"), 2);
  Tensor w = zeros({1000});
  for (int64_t step = 1; step <= 4; ++step) {
    {
      NoGradGuard no_grad;
      w.fill_(static_cast<double>(step));
    }
    if (step == 3) {
      manager.save(Value::dict({{"w", w}}), step);  // waits for step 2's background write
    } else {
      std::string path = manager.save_async(Value::dict({{"w", w}}), step);
      EXPECT_EQ(path, manager.path_for(step));
    }
    NoGradGuard no_grad;
    w.fill_(-1.0);
  }
  manager.wait();
  std::vector<CheckpointManager::Entry> all = manager.checkpoints();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].step, 3);
  EXPECT_EQ(all[1].step, 4);
  std::optional<CheckpointManager::Restored> r = manager.restore();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->step, 4);
  EXPECT_TRUE(bitwise_equal(r->state.at("w").as_tensor(), full({1000}, 4.0)));
}

TEST(CheckpointManagerAsyncTest, AManagerDestroyedMidWriteLetsTheWriteFinish) {
  TempDir dir;
  {
    CheckpointManager manager(dir.file("run"), 3);
    manager.save_async(Value::dict({{"w", ones({2000000})}}), 7);
  }
  CheckpointManager again(dir.file("run"), 3);
  std::optional<CheckpointManager::Restored> r = again.restore();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->step, 7);
  EXPECT_TRUE(bitwise_equal(r->state.at("w").as_tensor(), ones({2000000})));
}

TEST(CheckpointManagerAsyncTest, RejectsANegativeStep) {
  TempDir dir;
  CheckpointManager manager(dir.file("run"), 1);
  ember::testing::expect_error<ValueError>([&] { manager.save_async(Value::dict(), -1); },
                                           {"CheckpointManager.save_async: step must be non-negative, got -1"});
}

}  // namespace
}  // namespace ember::io
