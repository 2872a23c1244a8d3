#pragma once
// multinomial (declared from the op table, ember/ops/functions.h): categories drawn from the
// weights of each row of a 1-D or 2-D tensor, with PyTorch's checks and error messages; the draws
// come from the generator given (the default one otherwise), so manual_seed makes them repeat.
#include "ember/core/kernels/sampling.h"
#include "ember/ops/functions.h"
