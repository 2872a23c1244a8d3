#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "ember/ops/index.h"
#include "ember/ops/join.h"
#include "support/expect.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_error;
using ember::testing::expect_values;

namespace {

// [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]] in float32.
Tensor grid() { return arange(12, TensorOptions(kFloat32)).reshape({3, 4}); }

Tensor draw(IntArrayRef shape, uint64_t seed = 7) {
  Generator gen(seed);
  return randn(shape, kFloat64, &gen).set_requires_grad();
}

Tensor idx64(std::vector<int64_t> v, IntArrayRef shape) { return tensor(v, shape); }
Tensor idx64(std::vector<int64_t> v) { return tensor(v); }

}  // namespace

// ---- index_select

TEST(IndexSelectTest, PicksRowsAndColumnsWithInt64AndInt32Indices) {
  Tensor x = grid();
  Tensor rows = index_select(x, 0, idx64({2, 0, 2}));
  EXPECT_EQ(rows.sizes(), IntArrayRef({3, 4}));
  expect_values(rows, {8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11});
  Tensor cols = x.index_select(1, tensor(std::vector<int32_t>{3, 0}));
  EXPECT_EQ(cols.sizes(), IntArrayRef({3, 2}));
  expect_values(cols, {3, 0, 7, 4, 11, 8});
  expect_values(index_select(x, -1, idx64({1})), {1, 5, 9});
  EXPECT_EQ(index_select(x, 0, idx64({})).sizes(), IntArrayRef({0, 4}));
}

TEST(IndexSelectTest, NonContiguousInputsAndAnyDtype) {
  Tensor x = grid();
  Tensor xt = x.t();  // [4, 3], strides [1, 4]
  expect_values(index_select(xt, 0, idx64({3, 1})), {3, 7, 11, 1, 5, 9});
  expect_values(index_select(xt, 1, idx64({2, 2, 0})), {8, 8, 0, 9, 9, 1, 10, 10, 2, 11, 11, 3});
  Tensor stepped = x.slice(1, 0, 4, 2);  // columns 0 and 2
  expect_values(index_select(stepped, 0, idx64({1})), {4, 6});
  Tensor ints = arange(6).reshape({2, 3});
  Tensor picked = index_select(ints, 1, idx64({2, 1}));
  EXPECT_EQ(picked.dtype(), kInt64);
  EXPECT_EQ(picked.to_vector<int64_t>(), (std::vector<int64_t>{2, 1, 5, 4}));
  Tensor flags = tensor(std::vector<bool>{true, false, true});
  EXPECT_EQ(index_select(flags, 0, idx64({1, 0})).to_vector<bool>(), (std::vector<bool>{false, true}));
}

TEST(IndexSelectTest, ZeroDimIndexAndInput) {
  Tensor x = grid();
  Tensor one = index_select(x, 0, scalar_tensor(1, kInt64));
  EXPECT_EQ(one.sizes(), IntArrayRef({1, 4}));
  expect_values(one, {4, 5, 6, 7});
  Tensor s = index_select(scalar_tensor(3.5), 0, idx64({0}));
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.item<float>(), 3.5f);
}

TEST(IndexSelectTest, LargeSelectionMatchesElementwiseReference) {
  // Big enough to take the parallel paths, contiguous and strided.
  Tensor x = randn({400, 300});
  Tensor index = randint(0, 400, {257});
  std::vector<float> xv = x.to_vector<float>();
  std::vector<int64_t> iv = index.to_vector<int64_t>();
  std::vector<float> rows = index_select(x, 0, index).to_vector<float>();
  std::vector<float> cols = index_select(x.t(), 1, index).to_vector<float>();  // [300, 257]
  for (size_t i = 0; i < iv.size(); ++i)
    for (size_t j = 0; j < 300; ++j) {
      float want = xv[static_cast<size_t>(iv[i]) * 300 + j];
      ASSERT_EQ(rows[i * 300 + j], want);
      ASSERT_EQ(cols[j * iv.size() + i], want);
    }
}

TEST(IndexSelectTest, OutOfRangeIndexIsIndexErrorNamingIndexAndSize) {
  Tensor x = grid();
  try {
    index_select(x, 0, idx64({0, 5}));
    FAIL() << "expected an IndexError";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "index_select: index 5 is out of range for dimension 0 with size 3");
  }
  expect_error([&] { index_select(x, 1, tensor(std::vector<int32_t>{-1})); },
               {"index_select: index -1 is out of range for dimension 1 with size 4"});
  expect_error([&] { index_select(x, 0, tensor({0.0f})); },
               {"index_select: index must be an int64 or int32 tensor, got float32"});
  expect_error([&] { index_select(x, 0, idx64({0, 1}, {1, 2})); },
               {"index_select: index must be 0-d or 1-D, got shape [1, 2]"});
  expect_error([&] { index_select(x, 2, idx64({0})); }, {"index_select", "dimension 2"});
}

TEST(IndexSelectTest, GradientAccumulatesRepeatedIndices) {
  Tensor x = ones({3, 2}).set_requires_grad();
  index_select(x, 0, idx64({0, 0, 2, 0})).sum().backward();
  expect_values(x.grad(), {3, 3, 0, 0, 1, 1});
}

TEST(IndexSelectTest, Gradcheck) {
  Tensor index = idx64({2, 0, 2, 1});
  gradcheck([&](const TensorList& in) { return index_select(in[0], 0, index); }, {draw({3, 4})});
  gradcheck([&](const TensorList& in) { return index_select(in[0], -1, index); }, {draw({2, 3})});
  gradcheck([&](const TensorList& in) { return index_select(in[0].t(), 1, index); }, {draw({3, 4})});
  gradcheck([&](const TensorList& in) { return index_select(in[0], 0, idx64({0})); }, {draw({})});
  gradgradcheck([&](const TensorList& in) {
    Tensor y = index_select(in[0], 1, index);
    return y * y;
  }, {draw({2, 3})});
}

// ---- gather

TEST(GatherTest, PicksAlongEitherDim) {
  Tensor x = tensor<float>({1.0f, 2.0f, 3.0f, 4.0f}, {2, 2});
  Tensor index = idx64({0, 0, 1, 0}, {2, 2});
  expect_values(gather(x, 1, index), {1, 1, 4, 3});
  expect_values(x.gather(0, index), {1, 2, 3, 2});
  expect_values(gather(x, -1, tensor(std::vector<int32_t>{1, 0, 0, 0}, {2, 2})), {2, 1, 3, 3});
}

TEST(GatherTest, IndexSmallerThanInputAndNonContiguousOperands) {
  Tensor x = grid();  // [3, 4]
  Tensor picks = idx64({3, 1}, {2, 1});
  Tensor g = gather(x, 1, picks);
  EXPECT_EQ(g.sizes(), IntArrayRef({2, 1}));
  expect_values(g, {3, 5});
  // x.t() is [4, 3]; the index is a transposed view too.
  Tensor index = idx64({0, 2, 1, 1, 0, 2}, {2, 3}).t();  // [[0, 1], [2, 0], [1, 2]]
  expect_values(gather(x.t(), 1, index), {0, 4, 9, 1, 6, 10});
  expect_values(gather(x.t(), 0, index), {0, 5, 2, 4, 1, 6});
}

TEST(GatherTest, ZeroDimOperandsAndEmptyIndex) {
  Tensor s = gather(scalar_tensor(2.5), 0, scalar_tensor(0, kInt64));
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.item<float>(), 2.5f);
  Tensor from_vector = gather(tensor({1.0f, 2.0f, 3.0f}), 0, scalar_tensor(2, kInt64));
  EXPECT_EQ(from_vector.dim(), 0);
  EXPECT_EQ(from_vector.item<float>(), 3.0f);
  EXPECT_EQ(gather(grid(), 1, zeros({3, 0}, kInt64)).sizes(), IntArrayRef({3, 0}));
}

TEST(GatherTest, LargeGatherMatchesReference) {
  Tensor x = randn({5000, 16});
  Tensor index = randint(0, 16, {5000, 8});
  std::vector<float> xv = x.to_vector<float>(), gv = gather(x, 1, index).to_vector<float>();
  std::vector<int64_t> iv = index.to_vector<int64_t>();
  for (size_t r = 0; r < 5000; ++r)
    for (size_t j = 0; j < 8; ++j)
      ASSERT_EQ(gv[r * 8 + j], xv[r * 16 + static_cast<size_t>(iv[r * 8 + j])]);
  // A long 1-D gather: few positions, split over the indexed dim.
  Tensor v = randn({100000});
  Tensor perm = randperm(100000);
  std::vector<float> vv = v.to_vector<float>(), pv = gather(v, 0, perm).to_vector<float>();
  std::vector<int64_t> permv = perm.to_vector<int64_t>();
  for (size_t i = 0; i < permv.size(); ++i) ASSERT_EQ(pv[i], vv[static_cast<size_t>(permv[i])]);
}

TEST(GatherTest, LargeBackwardAccumulatesLikeReference) {
  // The backward is a scatter_add big enough to run in parallel over rows.
  Tensor x = zeros({5000, 16}).set_requires_grad();
  Tensor index = randint(0, 16, {5000, 8}, TensorOptions(kInt32));
  Tensor g = randn({5000, 8});
  gather(x, 1, index).backward(g);
  std::vector<double> want(5000 * 16, 0.0);
  std::vector<float> gv = g.to_vector<float>();
  std::vector<int32_t> iv = index.to_vector<int32_t>();
  for (size_t r = 0; r < 5000; ++r)
    for (size_t j = 0; j < 8; ++j) want[r * 16 + static_cast<size_t>(iv[r * 8 + j])] += gv[r * 8 + j];
  std::vector<float> got = x.grad().to_vector<float>();
  for (size_t k = 0; k < want.size(); ++k) ASSERT_NEAR(got[k], want[k], 1e-5) << k;
}

TEST(GatherTest, ErrorsNameOpIndexAndShapes) {
  Tensor x = grid();
  try {
    gather(x, 1, idx64({0, 4}, {1, 2}));
    FAIL() << "expected an IndexError";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "gather: index 4 is out of range for dimension 1 with size 4");
  }
  expect_error([&] { gather(x, 1, idx64({0, 1})); },
               {"gather: index [2] and input [3, 4] must have the same number of dims"});
  expect_error([&] { gather(x, 1, zeros({4, 1}, kInt64)); },
               {"gather: index [4, 1] is larger than the input [3, 4] in dimension 0"});
  expect_error([&] { gather(x, 0, zeros({1, 1}, kUInt8)); },
               {"gather: index must be an int64 or int32 tensor, got uint8"});
}

TEST(GatherTest, GradientScattersBackWithDuplicates) {
  Tensor x = zeros({2, 3}).set_requires_grad();
  gather(x, 1, idx64({2, 2, 0, 1}, {2, 2})).sum().backward();
  expect_values(x.grad(), {0, 0, 2, 1, 1, 0});
}

TEST(GatherTest, Gradcheck) {
  Tensor index = idx64({0, 2, 2, 1, 0, 0}, {2, 3});
  gradcheck([&](const TensorList& in) { return gather(in[0], 1, index); }, {draw({2, 4})});
  gradcheck([&](const TensorList& in) { return gather(in[0], 0, index); }, {draw({3, 3})});
  gradcheck([&](const TensorList& in) { return gather(in[0].t(), -1, index); }, {draw({4, 2})});
  gradcheck([&](const TensorList& in) { return gather(in[0], 0, scalar_tensor(0, kInt64)); }, {draw({})});
  gradgradcheck([&](const TensorList& in) {
    Tensor y = gather(in[0], 1, index);
    return y * y;
  }, {draw({2, 4})});
}

// ---- scatter_add

TEST(ScatterAddTest, AddsSourceAtIndexedPositionsOutOfPlace) {
  Tensor src = ones({2, 5});
  Tensor base = zeros({3, 5});
  Tensor once = scatter_add(base, 0, idx64({0, 1, 2, 0, 0}, {1, 5}), src);
  expect_values(once, {1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0});
  Tensor twice = base.scatter_add(0, idx64({0, 1, 2, 0, 0, 0, 1, 2, 2, 2}, {2, 5}), src);
  expect_values(twice, {2, 0, 0, 1, 1, 0, 2, 0, 0, 0, 0, 0, 2, 1, 1});
  expect_values(base, std::vector<double>(15, 0.0));  // the input is untouched
  Tensor ints = scatter_add(zeros({4}, kInt32), 0, tensor(std::vector<int32_t>{3, 3, 0}),
                            tensor(std::vector<int32_t>{1, 2, 5}));
  EXPECT_EQ(ints.to_vector<int32_t>(), (std::vector<int32_t>{5, 0, 0, 3}));
}

TEST(ScatterAddTest, NonContiguousOperandsAlongLastDim) {
  Tensor base = zeros({3, 2}).t();  // [2, 3], strides [1, 2]
  Tensor src = tensor<float>({1.0f, 2.0f, 3.0f, 4.0f}, {2, 2}).t();  // [[1, 3], [2, 4]]
  Tensor out = scatter_add(base, -1, idx64({2, 2, 0, 1}, {2, 2}), src);
  expect_values(out, {0, 0, 4, 2, 4, 0});
}

TEST(ScatterAddTest, ErrorsNameOpAndOperands) {
  Tensor base = zeros({2, 3});
  expect_error([&] { scatter_add(base, 1, idx64({3}, {1, 1}), ones({1, 1})); },
               {"scatter_add: index 3 is out of range for dimension 1 with size 3"});
  expect_error([&] { scatter_add(base, 1, idx64({0}, {1, 1}), ones({1, 1}, kFloat64)); },
               {"scatter_add: src has dtype float64 but the input has dtype float32"});
  expect_error([&] { scatter_add(base, 1, zeros({1, 2}, kInt64), ones({1, 1})); },
               {"scatter_add: index [1, 2] is larger than src [1, 1] in dimension 1"});
}

TEST(ScatterAddTest, GradcheckInInputAndSource) {
  Tensor index = idx64({0, 2, 2, 1, 0, 0}, {2, 3});
  auto fn = [&](const TensorList& in) { return scatter_add(in[0], 0, index, in[1]); };
  gradcheck(fn, {draw({3, 4}, 1), draw({2, 3}, 2)});
  gradcheck(fn, {draw({3, 4}, 1), draw({3, 5}, 2)});  // src larger than index: zero gradient there
  gradcheck([&](const TensorList& in) { return scatter_add(in[0].t(), 1, index, in[1]); },
            {draw({3, 2}, 1), draw({2, 3}, 2)});
  gradcheck([&](const TensorList& in) {
    return scatter_add(in[0], 0, scalar_tensor(0, kInt64), in[1]);
  }, {draw({}, 1), draw({}, 2)});
  gradgradcheck([&](const TensorList& in) {
    Tensor y = scatter_add(in[0], 1, index, in[1]);
    return y * y;
  }, {draw({2, 4}, 1), draw({2, 3}, 2)});
}

// ---- index_add

TEST(IndexAddTest, AccumulatesDuplicateIndicesAlongAnyDim) {
  Tensor out = index_add(zeros({3, 2}), 0, idx64({2, 0, 2}), tensor<float>({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, {3, 2}));
  expect_values(out, {3, 4, 0, 0, 6, 8});
  Tensor cols = index_add(ones({2, 3}), 1, tensor(std::vector<int32_t>{1, 1}), ones({2, 2}));
  expect_values(cols, {1, 3, 1, 1, 3, 1});
  Tensor strided = index_add(zeros({2, 3}).t(), 0, idx64({0, 0}), grid().slice(1, 0, 4, 2).slice(0, 0, 2));
  expect_values(strided, {4, 8, 0, 0, 0, 0});
}

TEST(IndexAddTest, LargeRowsMatchReference) {
  Tensor src = randn({4096, 64});
  Tensor index = randint(0, 100, {4096});
  std::vector<double> want(100 * 64, 0.0);
  std::vector<float> sv = src.to_vector<float>();
  std::vector<int64_t> iv = index.to_vector<int64_t>();
  for (size_t i = 0; i < iv.size(); ++i)
    for (size_t c = 0; c < 64; ++c) want[static_cast<size_t>(iv[i]) * 64 + c] += sv[i * 64 + c];
  std::vector<float> got = index_add(zeros({100, 64}), 0, index, src).to_vector<float>();
  for (size_t k = 0; k < want.size(); ++k) ASSERT_NEAR(got[k], want[k], 1e-3) << k;
}

TEST(IndexAddTest, ErrorsNameShapes) {
  expect_error([&] { index_add(zeros({3, 2}), 0, idx64({0, 1}), ones({3, 2})); },
               {"index_add: source [3, 2] does not fit the input [3, 2] with 2 indices along dimension 0"});
  expect_error([&] { index_add(zeros({3, 2}), 0, idx64({3}), ones({1, 2})); },
               {"index_add: index 3 is out of range for dimension 0 with size 3"});
}

TEST(IndexAddTest, Gradcheck) {
  Tensor index = idx64({1, 1, 0});
  auto fn = [&](const TensorList& in) { return index_add(in[0], 1, index, in[1]); };
  gradcheck(fn, {draw({2, 2}, 1), draw({2, 3}, 2)});
  gradcheck([&](const TensorList& in) { return index_add(in[0].t(), 0, index, in[1]); },
            {draw({2, 2}, 1), draw({3, 2}, 2)});
  gradgradcheck([&](const TensorList& in) {
    Tensor y = index_add(in[0], 1, index, in[1]);
    return y * y;
  }, {draw({2, 2}, 1), draw({2, 3}, 2)});
}

// ---- masked_fill

TEST(MaskedFillTest, FillsWhereMaskHoldsWithBroadcasting) {
  Tensor x = grid();
  Tensor mask = tensor(std::vector<bool>{true, false, false, true});
  expect_values(masked_fill(x, mask, -1.5), {-1.5, 1, 2, -1.5, -1.5, 5, 6, -1.5, -1.5, 9, 10, -1.5});
  // The mask may broadcast t: [3] with a [2, 1] mask gives [2, 3].
  Tensor row = tensor({1.0f, 2.0f, 3.0f});
  Tensor rows = row.masked_fill(tensor(std::vector<bool>{false, true}, {2, 1}), 0);
  EXPECT_EQ(rows.sizes(), IntArrayRef({2, 3}));
  expect_values(rows, {1, 2, 3, 0, 0, 0});
  Tensor ints = masked_fill(arange(4), tensor(std::vector<bool>{false, true, true, false}), 9);
  EXPECT_EQ(ints.dtype(), kInt64);
  EXPECT_EQ(ints.to_vector<int64_t>(), (std::vector<int64_t>{0, 9, 9, 3}));
  Tensor t = masked_fill(x.t(), tensor(std::vector<bool>{true, false, false}), 0);
  expect_values(t, {0, 4, 8, 0, 5, 9, 0, 6, 10, 0, 7, 11});
}

TEST(MaskedFillTest, RejectsNonBoolMask) {
  expect_error([] { masked_fill(zeros({2}), ones({2}, kUInt8), 0); },
               {"masked_fill: mask must be a bool tensor, got uint8"});
  expect_error([] { masked_fill(zeros({2}), tensor(std::vector<bool>{true, false, true}), 0); },
               {"masked_fill", "[2]", "[3]"});
}

TEST(MaskedFillTest, Gradcheck) {
  Tensor mask = tensor(std::vector<bool>{true, false, true});
  auto fn = [&](const TensorList& in) { return masked_fill(in[0], mask, 2.0); };
  gradcheck(fn, {draw({2, 3})});
  gradcheck(fn, {draw({})});          // t broadcast up to the mask
  gradcheck(fn, {draw({2, 1})});      // both broadcast
  gradcheck([&](const TensorList& in) { return masked_fill(in[0].t(), mask, 0.0); }, {draw({3, 2})});
  gradgradcheck([&](const TensorList& in) {
    Tensor y = masked_fill(in[0], mask, 1.0);
    return y * y;
  }, {draw({2, 3})});
}

// ---- embedding

TEST(EmbeddingTest, LooksUpRowsForAnyIndexShape) {
  Tensor weight = grid();  // 3 embeddings of dim 4
  Tensor out = embedding(weight, idx64({2, 0, 1, 2}, {2, 2}));
  EXPECT_EQ(out.sizes(), IntArrayRef({2, 2, 4}));
  expect_values(out, {8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  Tensor one = embedding(weight, scalar_tensor(1, kInt32));
  EXPECT_EQ(one.sizes(), IntArrayRef({4}));
  expect_values(one, {4, 5, 6, 7});
  expect_values(embedding(weight.t().contiguous().t(), tensor(std::vector<int32_t>{1})), {4, 5, 6, 7});
  EXPECT_EQ(embedding(weight, zeros({0, 3}, kInt64)).sizes(), IntArrayRef({0, 3, 4}));
}

TEST(EmbeddingTest, DuplicateIndicesAccumulateAndPaddingRowGetsNoGradient) {
  Tensor weight = zeros({4, 2}).set_requires_grad();
  Tensor indices = idx64({1, 3, 1, 0, 1, 3}, {2, 3});
  embedding(weight, indices).sum().backward();
  expect_values(weight.grad(), {1, 1, 3, 3, 0, 0, 2, 2});
  Tensor w2 = zeros({4, 2}).set_requires_grad();
  embedding(w2, indices, 1).sum().backward();
  expect_values(w2.grad(), {1, 1, 0, 0, 0, 0, 2, 2});
  Tensor w3 = zeros({4, 2}).set_requires_grad();
  embedding(w3, indices, -1).sum().backward();  // -1 is row 3
  expect_values(w3.grad(), {1, 1, 3, 3, 0, 0, 0, 0});
}

TEST(EmbeddingTest, LargeBackwardMatchesReference) {
  Tensor weight = zeros({1000, 64}).set_requires_grad();
  Tensor indices = randint(0, 1000, {64, 64});
  Tensor g = randn({64, 64, 64});
  embedding(weight, indices, 5).backward(g);
  std::vector<double> want(1000 * 64, 0.0);
  std::vector<float> gv = g.to_vector<float>();
  std::vector<int64_t> iv = indices.to_vector<int64_t>();
  for (size_t i = 0; i < iv.size(); ++i)
    if (iv[i] != 5)
      for (size_t c = 0; c < 64; ++c) want[static_cast<size_t>(iv[i]) * 64 + c] += gv[i * 64 + c];
  std::vector<float> got = weight.grad().to_vector<float>();
  for (size_t k = 0; k < want.size(); ++k) ASSERT_NEAR(got[k], want[k], 1e-3) << k;
}

TEST(EmbeddingTest, ErrorsNameOpAndValues) {
  Tensor weight = zeros({4, 2});
  try {
    embedding(weight, idx64({0, 4}));
    FAIL() << "expected an IndexError";
  } catch (const IndexError& e) {
    EXPECT_STREQ(e.what(), "embedding: index 4 is out of range for dimension 0 with size 4");
  }
  expect_error([&] { embedding(zeros({4}), idx64({0})); },
               {"embedding: weight must be 2-D [num_embeddings, dim], got [4]"});
  expect_error([&] { embedding(weight, tensor({1.0f})); },
               {"embedding: indices must be an int64 or int32 tensor, got float32"});
  expect_error([&] { embedding(weight, idx64({0}), 4); },
               {"embedding: padding_idx 4 is out of range for 4 embeddings"});
}

TEST(EmbeddingTest, Gradcheck) {
  Tensor indices = idx64({2, 0, 2, 3, 2, 1}, {3, 2});
  gradcheck([&](const TensorList& in) { return embedding(in[0], indices); }, {draw({4, 3})});
  gradcheck([&](const TensorList& in) { return embedding(in[0].t(), indices); }, {draw({3, 4})});
  // NB: no plain gradcheck with padding_idx: its row is read but by design gets no gradient.
  gradgradcheck([&](const TensorList& in) {
    Tensor y = embedding(in[0], indices, 0);
    return y * y;
  }, {draw({4, 3})});
}

TEST(MaskedFillTest, AOneElementTensorValueIsItsNumber) {
  Tensor x = grid();
  Tensor mask = x > 5;
  EXPECT_EQ(masked_fill(x, mask, tensor({-1.0})).to_vector<double>(),
            masked_fill(x, mask, -1.0).to_vector<double>());
  Tensor ints = arange(4, TensorOptions(kInt64));
  Tensor big = scalar_tensor(int64_t{1} << 60, kInt64);  // beyond a double's 53 bits
  EXPECT_EQ(ints.masked_fill(ints > 2, big).to_vector<int64_t>()[3], int64_t{1} << 60);
  expect_error([&] { masked_fill(x, mask, tensor({1.0, 2.0})); },
               {"masked_fill: value must be a one-element tensor, got float64 [2]"});
}
