#pragma once
// Checks a layer against a PyTorch fixture case (tests/fixtures/make_*_fixtures.py,
// fixture_writer.record_layer): loads the case's parameters and buffers into the layer (strict),
// runs `forward` on the case's inputs (floating ones requiring grad), and compares the outputs, the
// input gradients of sum(output * grad_output) (floating outputs), every parameter gradient and the
// buffers after the forward.
#include <functional>
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "support/fixture.h"

namespace ember::testing {

using LayerForward = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

/// rtol / atol of the comparisons: float32 fixtures by default.
struct LayerTolerance {
  double rtol = 1e-5, atol = 1e-6;
};

void check_layer(nn::Module& layer, const FixtureCase& c, bool train, const LayerForward& forward,
                 LayerTolerance tolerance = {});

}  // namespace ember::testing
