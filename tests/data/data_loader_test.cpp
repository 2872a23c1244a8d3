#include "ember/data/data_loader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ember/core/error.h"
#include "ember/core/factory.h"
#include "support/expect.h"

namespace ember::testing {
namespace {

using ::testing::HasSubstr;

/// inputs[i] = {2i, 2i + 1} (float32 [n, 2]), targets[i] = i (int64 [n]).
std::pair<Tensor, Tensor> numbered(int64_t n) {
  std::vector<float> x;
  std::vector<int64_t> y;
  for (int64_t i = 0; i < n; ++i) {
    x.push_back(static_cast<float>(2 * i));
    x.push_back(static_cast<float>(2 * i + 1));
    y.push_back(i);
  }
  return {tensor(x, {n, 2}), tensor(y)};
}

/// The targets of every batch of one epoch, batch by batch.
std::vector<std::vector<int64_t>> epoch_targets(data::DataLoader& loader, int64_t first_batch = 0) {
  std::vector<std::vector<int64_t>> out;
  if (first_batch == 0)
    loader.start_epoch();
  else
    loader.resume_epoch(first_batch);
  while (auto batch = loader.next()) out.push_back(batch->targets.to_vector<int64_t>());
  return out;
}

TEST(DataLoaderTest, BatchesInOrderWithShortLastBatch) {
  auto [x, y] = numbered(10);
  data::DataLoader loader(x, y, {.batch_size = 4});
  EXPECT_EQ(loader.num_batches(), 3);
  loader.start_epoch();
  auto first = loader.next();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->inputs.sizes(), IntArrayRef({4, 2}));
  EXPECT_EQ(first->inputs.dtype(), kFloat32);
  EXPECT_EQ(first->inputs.to_vector<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(first->targets.to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(loader.position(), 1);
  EXPECT_EQ(loader.next()->targets.to_vector<int64_t>(), (std::vector<int64_t>{4, 5, 6, 7}));
  auto last = loader.next();
  ASSERT_TRUE(last);
  EXPECT_EQ(last->inputs.sizes(), IntArrayRef({2, 2}));
  EXPECT_EQ(last->targets.to_vector<int64_t>(), (std::vector<int64_t>{8, 9}));
  EXPECT_FALSE(loader.next());
  EXPECT_FALSE(loader.next());  // stays over until the next start_epoch
}

TEST(DataLoaderTest, DropLastLeavesOutTheShortBatch) {
  auto [x, y] = numbered(10);
  data::DataLoader loader(x, y, {.batch_size = 4, .drop_last = true});
  EXPECT_EQ(loader.num_batches(), 2);
  auto batches = epoch_targets(loader);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[1], (std::vector<int64_t>{4, 5, 6, 7}));
  data::DataLoader exact(x, y, {.batch_size = 5, .drop_last = true});
  EXPECT_EQ(exact.num_batches(), 2);
}

TEST(DataLoaderTest, ShuffleIsAPermutationRowsStayPairedAndSeedDetermines) {
  auto [x, y] = numbered(50);
  data::DataLoader a(x, y, {.batch_size = 8, .shuffle = true, .seed = 3});
  data::DataLoader b(x, y, {.batch_size = 8, .shuffle = true, .seed = 3});
  data::DataLoader c(x, y, {.batch_size = 8, .shuffle = true, .seed = 4});
  std::vector<int64_t> seen;
  a.start_epoch();
  while (auto batch = a.next()) {
    const auto in = batch->inputs.to_vector<float>();
    const auto t = batch->targets.to_vector<int64_t>();
    for (size_t i = 0; i < t.size(); ++i) {
      EXPECT_EQ(in[2 * i], static_cast<float>(2 * t[i]));  // inputs and targets stay paired
      seen.push_back(t[i]);
    }
  }
  std::vector<int64_t> sorted = seen;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> all(50);
  for (int64_t i = 0; i < 50; ++i) all[i] = i;
  EXPECT_EQ(sorted, all);
  EXPECT_NE(seen, all);

  const auto b0 = epoch_targets(b), b1 = epoch_targets(b);
  const auto c0 = epoch_targets(c);
  data::DataLoader a2(x, y, {.batch_size = 8, .shuffle = true, .seed = 3});
  EXPECT_EQ(epoch_targets(a2), b0);  // same seed, same orders
  EXPECT_EQ(epoch_targets(a2), b1);
  EXPECT_NE(b0, b1);  // a new order every epoch
  EXPECT_NE(b0, c0);  // another seed, another order
}

TEST(DataLoaderTest, ResumesMidEpochFromGeneratorStateAndPosition) {
  auto [x, y] = numbered(37);
  const data::DataLoaderOptions options{.batch_size = 5, .shuffle = true, .drop_last = false, .seed = 11};
  // The uninterrupted run: three epochs.
  data::DataLoader full(x, y, options);
  std::vector<std::vector<int64_t>> reference;
  for (int epoch = 0; epoch < 3; ++epoch)
    for (auto& batch : epoch_targets(full)) reference.push_back(batch);
  ASSERT_EQ(reference.size(), 3u * 8u);

  // The interrupted run stops after 3 batches of the second epoch and saves what a checkpoint
  // saves: the generator's state and the position.
  data::DataLoader first(x, y, options);
  std::vector<std::vector<int64_t>> got = epoch_targets(first);
  first.start_epoch();
  for (int i = 0; i < 3; ++i) got.push_back(first.next()->targets.to_vector<int64_t>());
  const Generator::State saved = first.generator().get_state();
  const int64_t position = first.position();
  EXPECT_EQ(position, 3);

  // A new loader, seeded differently on purpose, restored from the saved state.
  data::DataLoader resumed(x, y, {.batch_size = 5, .shuffle = true, .seed = 999});
  resumed.generator().set_state(saved);
  for (auto& batch : epoch_targets(resumed, position)) got.push_back(batch);
  for (auto& batch : epoch_targets(resumed)) got.push_back(batch);
  EXPECT_EQ(got, reference);
}

// Rewinding a loader to a checkpoint of its own current epoch: the generator state it is given
// is the one it already holds, and resume_epoch must redraw that epoch, not skip to the next.
TEST(DataLoaderTest, ResumesIntoTheSameLoader) {
  auto [x, y] = numbered(20);
  const data::DataLoaderOptions options{.batch_size = 4, .shuffle = true, .seed = 2};
  data::DataLoader full(x, y, options);
  const auto e0 = epoch_targets(full), e1 = epoch_targets(full);
  data::DataLoader loader(x, y, options);
  loader.start_epoch();
  loader.next();
  loader.next();
  const Generator::State saved = loader.generator().get_state();
  loader.next();  // ran past the checkpoint, then rewinds to it
  loader.generator().set_state(saved);
  std::vector<std::vector<int64_t>> rest;
  loader.resume_epoch(2);
  while (auto batch = loader.next()) rest.push_back(batch->targets.to_vector<int64_t>());
  EXPECT_EQ(rest, std::vector<std::vector<int64_t>>(e0.begin() + 2, e0.end()));
  EXPECT_EQ(epoch_targets(loader), e1);
}

TEST(DataLoaderTest, ResumesAtAnEpochBoundary) {
  auto [x, y] = numbered(12);
  const data::DataLoaderOptions options{.batch_size = 4, .shuffle = true, .seed = 5};
  data::DataLoader full(x, y, options);
  const auto e0 = epoch_targets(full), e1 = epoch_targets(full);
  // Saved after the whole first epoch, position == num_batches().
  data::DataLoader first(x, y, options);
  epoch_targets(first);
  data::DataLoader resumed(x, y, options);
  resumed.generator().set_state(first.generator().get_state());
  EXPECT_TRUE(epoch_targets(resumed, first.position()).empty());
  EXPECT_EQ(epoch_targets(resumed), e1);
}

TEST(DataLoaderTest, RejectsBadArguments) {
  auto [x, y] = numbered(4);
  expect_error<ValueError>([&] { data::DataLoader(x, y, {.batch_size = 0}); },
                           {"DataLoader: batch_size must be >= 1, got 0"});
  try {
    data::DataLoader(x, arange(5), {.batch_size = 2});
    ADD_FAILURE() << "no error for 4 inputs and 5 targets";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("inputs have 4 samples [4, 2] but targets have 5 [5]"));
  }
  data::DataLoader loader(x, y, {.batch_size = 2});
  expect_error<IndexError>([&] { loader.resume_epoch(3); },
                           {"DataLoader::resume_epoch: batch 3 is outside [0, 2]"});
}

}  // namespace
}  // namespace ember::testing
