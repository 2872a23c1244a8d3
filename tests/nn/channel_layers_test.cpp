// PixelShuffle / PixelUnshuffle (each other's inverse, and an element moved as the formula says),
// ChannelShuffle, the channel dropouts (whole channels, scaled; identity in eval mode), the alpha
// dropouts' moments, PairwiseDistance and Unflatten.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
namespace F = ember::nn::functional;
using ember::testing::expect_close;
using ember::testing::expect_error;

TEST(ChannelLayersTest, PixelShufflesMoveEachElementAsTheFormulaSays) {
  Tensor x = arange(2 * 8 * 3 * 5, TensorOptions(kFloat64)).reshape({2, 8, 3, 5});
  Tensor y = nn::PixelShuffle({2}).forward(x);
  EXPECT_EQ(y.sizes(), IntArrayRef({2, 2, 6, 10}));
  // out[n, c, h r + i, w r + j] = in[n, c r^2 + i r + j, h, w]
  for (int64_t c : {0, 1})
    for (int64_t i : {0, 1})
      for (int64_t j : {0, 1})
        EXPECT_EQ(y.select(0, 1).select(0, c).select(0, 2 * 2 + i).select(0, 3 * 2 + j).item<double>(),
                  x.select(0, 1).select(0, c * 4 + i * 2 + j).select(0, 2).select(0, 3).item<double>());
  expect_close(nn::PixelUnshuffle({2}).forward(y), x, 0, 0);
  expect_close(F::pixel_unshuffle(F::pixel_shuffle(x.select(0, 0), 2), 2), x.select(0, 0), 0, 0);  // unbatched
  expect_error<Error>([&] { F::pixel_shuffle(x, 3); }, {"divisible by 9"});
}

TEST(ChannelLayersTest, ChannelShuffleTransposesTheGroups) {
  Tensor x = arange(6, TensorOptions(kFloat64)).reshape({1, 6, 1});
  expect_close(reshape(nn::ChannelShuffle({2}).forward(x), {6}), tensor(std::vector<double>{0, 3, 1, 4, 2, 5}), 0, 0);
  expect_error<Error>([&] { F::channel_shuffle(x, 4); }, {"divisible by groups", "6 channels", "4 groups"});
}

TEST(ChannelLayersTest, ChannelDropoutsDropWholeChannelsWhileTraining) {
  manual_seed(9);
  Tensor x = ones({8, 16, 3, 4}, kFloat64);
  nn::Dropout2d drop({0.25});
  Tensor y = drop.forward(x);
  // every channel is all 0 or all 1 / (1 - p)
  Tensor per_channel = amax(y, {2, 3}), low = amin(y, {2, 3});
  expect_close(per_channel, low, 0, 0);
  EXPECT_TRUE(all(logical_or(eq(per_channel, 0.0), eq(per_channel, 1.0 / 0.75))).item<bool>());
  drop.eval();
  expect_close(drop.forward(x), x, 0, 0);
  EXPECT_EQ(nn::Dropout1d({0.5}).forward(ones({4, 5, 7})).sizes(), IntArrayRef({4, 5, 7}));
  EXPECT_EQ(nn::Dropout3d().forward(ones({2, 3, 2, 2, 2})).sizes(), IntArrayRef({2, 3, 2, 2, 2}));
  expect_error<Error>([] { F::dropout1d(ones({2, 3, 4, 5})); }, {"dropout1d", "2D or 3D", "4D"});
  expect_error<ValueError>([] { nn::Dropout2d({1.5}); }, {"Dropout2d", "1.5"});
}

TEST(ChannelLayersTest, AlphaDropoutsKeepMeanAndVariance) {
  manual_seed(10);
  Tensor x = randn({200000}, kFloat64);
  Tensor y = F::alpha_dropout(x, 0.2, true);
  EXPECT_NEAR(mean(y).item<double>(), 0.0, 0.01);
  EXPECT_NEAR(var(y).item<double>(), 1.0, 0.02);
  Tensor z = F::feature_alpha_dropout(randn({4000, 50, 2}, kFloat64), 0.3, true);
  EXPECT_NEAR(mean(z).item<double>(), 0.0, 0.02);
  EXPECT_NEAR(var(z).item<double>(), 1.0, 0.03);
  nn::AlphaDropout layer;
  layer.eval();
  expect_close(layer.forward(x), x, 0, 0);
}

TEST(ChannelLayersTest, PairwiseDistanceAndUnflatten) {
  Tensor a = tensor(std::vector<double>{0, 0, 3, 4}, {2, 2}), b = zeros({2, 2}, kFloat64);
  expect_close(nn::PairwiseDistance({2.0, 0.0}).forward(a, b), tensor(std::vector<double>{0, 5}), 0, 1e-15);
  nn::Unflatten unflatten(1, {2, 3});
  EXPECT_EQ(unflatten.forward(zeros({4, 6, 5})).sizes(), IntArrayRef({4, 2, 3, 5}));
  EXPECT_EQ(nn::Unflatten(-1, {5, 1}).forward(zeros({4, 5})).sizes(), IntArrayRef({4, 5, 1}));
  EXPECT_EQ(unflatten.extra_repr(), "dim=1, unflattened_size=(2, 3)");
}
