#pragma once
// Inverted dropout (declared from the op table, ember/ops/functions.h): in training each element is
// zeroed with probability p and the survivors are scaled by 1 / (1 - p), so the expected value is
// unchanged and evaluation needs no rescaling. dropout(x, 0.1, training) is t itself when
// !training, p == 0 or t is empty, and t * 0 when p == 1 (as PyTorch: zeros, NaN stays NaN). The
// mask comes from the generator (default_generator() when null): the same seed gives the same
// mask. The gradient is grad * mask / (1 - p).
#include "ember/core/kernels/dropout.h"
#include "ember/ops/functions.h"
