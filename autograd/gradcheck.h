#pragma once
// Compares the gradients autograd computes with central finite differences, in float64. Every
// differentiable op is tested with it (broadcast, non-contiguous and 0-d inputs included).
#include <functional>

#include "ember/autograd/node.h"

namespace ember::autograd {

struct GradcheckOptions {
  double eps = 1e-6;   // finite-difference step
  double atol = 1e-5;  // |analytic - numeric| <= atol + rtol * |numeric|
  double rtol = 1e-3;
};

using TensorFunction = std::function<Tensor(const TensorList&)>;

/// Checks d fn(inputs) / d inputs (the inputs that require grad; float64) element by element;
/// throws ember::Error naming the input, elements and both values at the first mismatch.
void gradcheck(const TensorFunction& fn, const TensorList& inputs, GradcheckOptions options = {});

/// Checks second derivatives: gradcheck of a random projection of the first gradients (computed
/// with create_graph) with respect to the inputs.
void gradgradcheck(const TensorFunction& fn, const TensorList& inputs, GradcheckOptions options = {});

}  // namespace ember::autograd
