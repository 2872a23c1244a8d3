#pragma once
// Differentiable copies: clone, and conversion to another dtype or device (to), declared from the
// op table (ember/ops/functions.h).
#include <vector>

#include "ember/ops/functions.h"

namespace ember {

/// The values of an integer (or bool) tensor, flattened, read on the host (one copy from a device):
/// how ops read lengths, offsets and indices that decide shapes. `what` names the tensor in the
/// error for a floating one.
std::vector<int64_t> to_int64_vector(const Tensor& t, const char* what = "tensor");

}  // namespace ember
