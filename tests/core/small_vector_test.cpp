// SmallVector (absl::InlinedVector) holds every shape and stride: checked against std::vector as
// the oracle across the inline capacity, and through the tensors built on it (0 to 9 dims).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ember/ember.h"
#include "ember/core/small_vector.h"

using namespace ember;

namespace {

using Small = SmallVector<int64_t, 6>;

void expect_same(const Small& got, const std::vector<int64_t>& want, int step) {
  ASSERT_EQ(got.size(), want.size()) << "after step " << step;
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "element " << i << ", step " << step;
}

}  // namespace

TEST(SmallVectorTest, RandomEditsMatchStdVectorAcrossTheInlineCapacity) {
  std::mt19937_64 rng(7);
  Small v;
  std::vector<int64_t> oracle;
  for (int step = 0; step < 20000; ++step) {
    int64_t value = static_cast<int64_t>(rng() % 1000);
    size_t pos = oracle.empty() ? 0 : rng() % (oracle.size() + 1);
    switch (rng() % 9) {
      case 0:
      case 1: v.push_back(value); oracle.push_back(value); break;
      case 2: if (!oracle.empty()) { v.pop_back(); oracle.pop_back(); } break;
      case 3: v.insert(v.begin() + pos, value); oracle.insert(oracle.begin() + pos, value); break;
      case 4:
        if (pos < oracle.size()) { v.erase(v.begin() + pos); oracle.erase(oracle.begin() + pos); }
        break;
      case 5: {
        size_t n = rng() % 20;
        v.resize(n, value);
        oracle.resize(n, value);
        break;
      }
      case 6: { Small copy(v); v = copy; break; }                 // copy there and back
      case 7: { Small moved(std::move(v)); v = std::move(moved); break; }  // move there and back
      case 8: if (rng() % 8 == 0) { v.clear(); oracle.clear(); } break;
    }
    expect_same(v, oracle, step);
  }
}

TEST(SmallVectorTest, GrowsPastInlineCapacityKeepingEveryElement) {
  for (size_t n : {0, 1, 5, 6, 7, 8, 9, 16, 40, 1000}) {
    Small v;
    std::vector<int64_t> oracle;
    for (size_t i = 0; i < n; ++i) {
      v.push_back(static_cast<int64_t>(i * 3));
      oracle.push_back(static_cast<int64_t>(i * 3));
    }
    expect_same(v, oracle, static_cast<int>(n));
    Small copy = v;
    expect_same(copy, oracle, static_cast<int>(n));
    Small& self = v;
    v = self;  // self-assignment keeps the elements
    expect_same(v, oracle, static_cast<int>(n));
    Small moved = std::move(copy);
    expect_same(moved, oracle, static_cast<int>(n));
    size_t kept = std::min<size_t>(2, n);
    moved.resize(kept);  // back below the inline capacity
    expect_same(moved, std::vector<int64_t>(oracle.begin(), oracle.begin() + kept), -1);
  }
}

TEST(SmallVectorTest, TensorsOfZeroToNineDimsKeepTheirShapeAndValues) {
  for (int64_t ndim = 0; ndim <= 9; ++ndim) {
    std::vector<int64_t> shape;
    for (int64_t d = 0; d < ndim; ++d) shape.push_back(d % 3 == 0 ? 2 : 1);
    Tensor t = arange(numel_of(shape), kFloat64).reshape(shape);
    EXPECT_EQ(t.sizes(), IntArrayRef(shape)) << ndim << " dims";
    EXPECT_EQ(t.strides(), IntArrayRef(contiguous_strides(shape))) << ndim << " dims";
    Tensor total = t.sum();
    EXPECT_EQ(total.dim(), 0) << ndim << " dims";
    double n = static_cast<double>(t.numel());
    EXPECT_DOUBLE_EQ(total.item(), n * (n - 1) / 2) << ndim << " dims";
    if (ndim >= 2) {
      Tensor back = t.transpose(0, ndim - 1).contiguous().transpose(0, ndim - 1);
      EXPECT_EQ(back.to_vector<double>(), t.to_vector<double>()) << ndim << " dims";
    }
  }
}
