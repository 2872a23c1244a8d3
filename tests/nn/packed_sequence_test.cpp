// nn/packed_sequence.h: packing and padding by hand values (torch.nn.utils.rnn's layout), round
// trips, gradients against finite differences, and the errors. The RNN fixtures against PyTorch run
// their packed cases through these functions (rnn_test.cpp).
#include "ember/nn/packed_sequence.h"

#include <gtest/gtest.h>

#include "ember/autograd/gradcheck.h"
#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_error;

namespace {

// [T=3, B=3, 1]: sequence b holds 10 * (b + 1) + t at step t.
Tensor padded_batch() {
  std::vector<double> v;
  for (int t = 0; t < 3; ++t)
    for (int b = 0; b < 3; ++b) v.push_back(10.0 * (b + 1) + t);
  return tensor(v, {3, 3, 1});
}

TEST(PackedSequenceTest, PacksStepByStepLongestFirstAndPadsBackInTheCallersOrder) {
  nn::PackedSequence p = nn::pack_padded_sequence(padded_batch(), {2, 3, 1}, false, /*enforce_sorted=*/false);
  // Sorted by length: sequence 1 (3 steps), 0 (2), 2 (1).
  EXPECT_EQ(p.sorted_indices.to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(p.unsorted_indices.to_vector<int64_t>(), (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(p.batch_sizes.to_vector<int64_t>(), (std::vector<int64_t>{3, 2, 1}));
  EXPECT_EQ(p.data.to_vector<double>(), (std::vector<double>{20, 10, 30, 21, 11, 22}));
  auto [padded, lengths] = nn::pad_packed_sequence(p, /*batch_first=*/true, -1.0, 4);
  EXPECT_EQ(lengths.to_vector<int64_t>(), (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(padded.sizes(), IntArrayRef({3, 4, 1}));
  EXPECT_EQ(padded.to_vector<double>(), (std::vector<double>{10, 11, -1, -1, 20, 21, 22, -1, 30, -1, -1, -1}));
  // Sorted already: no permutation is kept.
  nn::PackedSequence q = nn::pack_padded_sequence(padded_batch(), {3, 2, 2});
  EXPECT_FALSE(q.sorted_indices.defined());
  EXPECT_FALSE(q.unsorted_indices.defined());
  EXPECT_EQ(q.batch_sizes.to_vector<int64_t>(), (std::vector<int64_t>{3, 3, 1}));
}

TEST(PackedSequenceTest, SequencesRoundTripAndPadOnEitherSide) {
  std::vector<Tensor> seqs{tensor<double>({1, 2}, {2, 1}), tensor<double>({3, 4, 5}, {3, 1}),
                           tensor<double>({6}, {1, 1})};
  Tensor right = nn::pad_sequence(seqs, true, 0.5);
  EXPECT_EQ(right.to_vector<double>(), (std::vector<double>{1, 2, 0.5, 3, 4, 5, 6, 0.5, 0.5}));
  Tensor left = nn::pad_sequence(seqs, false, 0.0, "left");
  EXPECT_EQ(left.sizes(), IntArrayRef({3, 3, 1}));
  EXPECT_EQ(left.transpose(0, 1).contiguous().to_vector<double>(), (std::vector<double>{0, 1, 2, 3, 4, 5, 0, 0, 6}));
  std::vector<Tensor> back = nn::unpack_sequence(nn::pack_sequence(seqs, false));
  ASSERT_EQ(back.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(equal(back[i], seqs[i])) << i;
  std::vector<Tensor> cut = nn::unpad_sequence(right, {2, 3, 1}, true);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(equal(cut[i], seqs[i])) << i;
  EXPECT_FALSE(nn::invert_permutation(Tensor()).defined());
  EXPECT_EQ(nn::invert_permutation(tensor(std::vector<int64_t>{2, 0, 1})).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 2, 0}));
}

TEST(PackedSequenceTest, GradientsFlowThroughPackingAndPadding) {
  Tensor x = randn({3, 4, 2}, kFloat64).set_requires_grad(true);
  auto f = [](const autograd::TensorList& t) {
    nn::PackedSequence p = nn::pack_padded_sequence(t[0], {1, 3, 2, 3}, false, false);
    return nn::pad_packed_sequence(p, true, 0.25).first * 1.5;
  };
  EXPECT_NO_THROW(autograd::gradcheck(f, {x}));
}

TEST(PackedSequenceTest, BadInputIsNamed) {
  Tensor x = padded_batch();
  expect_error<ValueError>([&] { nn::pack_padded_sequence(x, {2, 1}); }, {"2 lengths for a batch of 3 sequences"});
  expect_error<Error>([&] { nn::pack_padded_sequence(x, {2, 0, 1}); }, {"has to be greater than 0"});
  expect_error<Error>([&] { nn::pack_padded_sequence(x, {1, 2, 1}); }, {"must be sorted in decreasing order"});
  expect_error<Error>([&] { nn::pack_padded_sequence(x, {4, 2, 1}); }, {"a length of 4 is longer than the 3 steps"});
  expect_error<ValueError>(
      [&] {
        nn::pad_packed_sequence(nn::pack_padded_sequence(x, {3, 2, 1}), false, 0, 2);
      },
      {"Expected total_length to be at least 3, but got total_length=2"});
  expect_error<Error>([] { nn::pad_sequence({}); }, {"received an empty list of sequences"});
  expect_error<ValueError>([&] { nn::pad_sequence({x}, false, 0, "top"); }, {"padding_side must be 'left' or 'right'"});
  expect_error<ValueError>(
      [] {
        nn::invert_permutation(tensor(std::vector<int64_t>{0, 0}));
      },
      {"is not a permutation of [0, 2)"});
}

TEST(PackedSequenceTest, AnLstmRunsEachSequenceForItsOwnLength) {
  // The oracle: each sequence alone, unpacked, from the same initial state.
  manual_seed(5);
  nn::LSTM lstm(nn::RNNOptions{2, 3});
  lstm.to(kFloat64);
  Tensor x = randn({4, 3, 2}, kFloat64), h0 = randn({1, 3, 3}, kFloat64), c0 = randn({1, 3, 3}, kFloat64);
  std::vector<int64_t> lengths{2, 4, 3};
  nn::RNNBase::PackedResult r = lstm.run(nn::pack_padded_sequence(x, lengths, false, false), h0, c0);
  Tensor out = nn::pad_packed_sequence(r.output).first;
  for (int64_t b = 0; b < 3; ++b) {
    SCOPED_TRACE(b);
    auto alone = lstm.run(x.narrow(1, b, 1).narrow(0, 0, lengths[b]), h0.narrow(1, b, 1), c0.narrow(1, b, 1));
    EXPECT_TRUE(allclose(out.narrow(1, b, 1).narrow(0, 0, lengths[b]), alone.output, 1e-12, 1e-12));
    EXPECT_TRUE(allclose(r.h_n.narrow(1, b, 1), alone.h_n, 1e-12, 1e-12));
    EXPECT_TRUE(allclose(r.c_n.narrow(1, b, 1), alone.c_n, 1e-12, 1e-12));
  }
}

}  // namespace
