#pragma once
// The random fill whose probabilities are a tensor (t.bernoulli_(p)); the others, and bernoulli_ with one
// probability, are table ops (ops/ops.toml, ops/random_fill.cpp).
#include "ember/core/generator.h"
#include "ember/core/tensor.h"

namespace ember {

/// Fills self with 1 where a U[0, 1) draw is below p (broadcast to self's shape), else 0; p's values must
/// lie in [0, 1].
Tensor bernoulli_(const Tensor& self, const Tensor& p, Generator* generator = nullptr);

}  // namespace ember
