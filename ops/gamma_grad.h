#pragma once
// _standard_gamma_grad (torch's): the reparameterisation gradient of Gamma(alpha, 1) draws, which
// ember.distributions' Gamma, Dirichlet and Beta rsample through (core/math/gamma_grad.h).
#include "ember/core/tensor.h"

namespace ember {

/// dz/dalpha at the draws z (broadcast with alpha), in z's floating dtype, computed in double on
/// the host; 0 at z = 0, NaN where alpha or z is not positive and finite. Its own derivative is
/// not implemented (an error when a backward reaches it), as in PyTorch.
Tensor standard_gamma_grad(const Tensor& alpha, const Tensor& z);

}  // namespace ember
