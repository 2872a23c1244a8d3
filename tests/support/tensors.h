#pragma once
// Small tensor helpers the tests share: one element as a double, a seeded float64 draw.
#include <initializer_list>
#include <vector>

#include "ember/ember.h"

namespace ember::testing {

/// t[i][j]... as a double.
inline double at(const Tensor& t, std::initializer_list<int64_t> index) {
  Tensor v = t;
  for (int64_t i : index) v = v.select(0, i);
  return v.item<double>();
}

/// randn(shape) in float64 from the default generator seeded with `seed`.
inline Tensor seeded_randn(std::vector<int64_t> shape, uint64_t seed) {
  manual_seed(seed);
  return randn(shape, TensorOptions(kFloat64));
}

}  // namespace ember::testing
