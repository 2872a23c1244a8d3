// The elementwise kernels' index math (cuda/shared/offset_calculator.h): for operands of any
// layout (permuted, sliced with steps, broadcast with stride 0, size-1 dims with any stride), the
// byte offset the calculator gives element i of each operand is the row-major definition's.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

#include "ember/cuda/shared/offset_calculator.h"

using ember::cuda::kMaxDims;
using ember::cuda::make_offset_calculator;
using ember::cuda::OffsetCalculator;

namespace {

struct Operand {
  std::vector<int64_t> strides;  // elements
  int64_t itemsize;
};

// The byte offset of row-major element `linear` of an operand.
int64_t naive_offset(const std::vector<int64_t>& sizes, const Operand& op, int64_t linear) {
  int64_t off = 0;
  for (size_t d = sizes.size(); d-- > 0;) {
    off += (linear % sizes[d]) * op.strides[d] * op.itemsize;
    linear /= sizes[d];
  }
  return off;
}

template <int N>
void check(const std::vector<int64_t>& sizes, const std::array<Operand, N>& ops) {
  const int64_t* strides[N];
  int64_t itemsizes[N];
  for (int k = 0; k < N; ++k) {
    strides[k] = ops[static_cast<size_t>(k)].strides.data();
    itemsizes[k] = ops[static_cast<size_t>(k)].itemsize;
  }
  OffsetCalculator<N> calc;
  ASSERT_TRUE(make_offset_calculator<N>(static_cast<int>(sizes.size()), sizes.data(), strides, itemsizes, calc));
  const int64_t numel = std::accumulate(sizes.begin(), sizes.end(), int64_t{1}, std::multiplies<>());
  for (int64_t i = 0; i < numel; ++i) {
    int64_t off[N];
    calc.offsets(i, off);
    for (int k = 0; k < N; ++k)
      ASSERT_EQ(off[k], naive_offset(sizes, ops[static_cast<size_t>(k)], i)) << "element " << i << ", operand " << k;
  }
}

std::vector<int64_t> contiguous(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> s(sizes.size());
  int64_t step = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    s[d] = step;
    step *= sizes[d];
  }
  return s;
}

}  // namespace

TEST(OffsetCalculatorTest, RandomLayoutsGiveTheRowMajorOffsets) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 300; ++trial) {
    const int nd = static_cast<int>(rng() % 7);  // 0-d to 6-d
    std::vector<int64_t> sizes(static_cast<size_t>(nd));
    for (auto& s : sizes) s = 1 + static_cast<int64_t>(rng() % 4);
    std::array<Operand, 3> ops;
    for (auto& op : ops) {
      op.itemsize = int64_t{1} << (rng() % 4);
      const int kind = static_cast<int>(rng() % 4);
      if (kind == 0) {  // contiguous
        op.strides = contiguous(sizes);
      } else if (kind == 1) {  // permuted: the contiguous strides of a shuffled shape
        std::vector<size_t> order(sizes.size());
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        std::vector<int64_t> shuffled;
        for (size_t d : order) shuffled.push_back(sizes[d]);
        const std::vector<int64_t> cs = contiguous(shuffled);
        op.strides.assign(sizes.size(), 0);
        for (size_t j = 0; j < order.size(); ++j) op.strides[order[j]] = cs[j];
      } else {  // sliced with steps, some dims broadcast (stride 0)
        op.strides = contiguous(sizes);
        for (auto& s : op.strides) s *= 1 + static_cast<int64_t>(rng() % 3);
        for (auto& s : op.strides)
          if (rng() % 3 == 0) s = 0;
      }
      for (size_t d = 0; d < sizes.size(); ++d)
        if (sizes[d] == 1) op.strides[d] = static_cast<int64_t>(rng() % 100);  // any stride on a size-1 dim
    }
    check<3>(sizes, ops);
  }
}

TEST(OffsetCalculatorTest, DenseOperandsCoalesceToOneDim) {
  const std::vector<int64_t> sizes = {3, 1, 4, 5};
  const Operand a{contiguous(sizes), 4}, b{contiguous(sizes), 8};
  const int64_t* strides[2] = {a.strides.data(), b.strides.data()};
  const int64_t items[2] = {4, 8};
  OffsetCalculator<2> calc;
  ASSERT_TRUE(make_offset_calculator<2>(4, sizes.data(), strides, items, calc));
  EXPECT_EQ(calc.dims, 1);
  EXPECT_EQ(calc.sizes[0], 60);
  check<2>(sizes, {a, b});
  // One element, or a 0-d tensor: a single dim of size 1.
  OffsetCalculator<2> one;
  ASSERT_TRUE(make_offset_calculator<2>(0, sizes.data(), strides, items, one));
  EXPECT_EQ(one.dims, 1);
  EXPECT_EQ(one.sizes[0], 1);
}

TEST(OffsetCalculatorTest, RefusesMoreDimsThanItHoldsAfterCoalescing) {
  // 30 dims of size 2 whose strides never merge (stride 4^k where merging needs 2 * 4^(k-1)).
  std::vector<int64_t> sizes(30, 2), strides(30);
  for (size_t d = 0; d < 30; ++d) strides[d] = int64_t{1} << (2 * (29 - d));
  const int64_t* s[1] = {strides.data()};
  const int64_t items[1] = {1};
  OffsetCalculator<1> calc;
  EXPECT_FALSE(make_offset_calculator<1>(30, sizes.data(), s, items, calc));
  // kMaxDims of them still fit.
  std::vector<int64_t> last(strides.end() - kMaxDims, strides.end());
  const int64_t* t[1] = {last.data()};
  EXPECT_TRUE(make_offset_calculator<1>(kMaxDims, sizes.data(), t, items, calc));
  EXPECT_EQ(calc.dims, kMaxDims);
}
