#pragma once
// The element-wise combining functions a backend hands to its collective library (Gloo calls
// them on chunks while it runs its algorithm): one per dtype and ReduceOp, float16 and bfloat16
// computed in float and rounded back, as PyTorch's Gloo backend does.
#include <cstddef>
#include <functional>

#include "ember/core/dtype.h"
#include "ember/distributed/process_group.h"

namespace ember::distributed::detail {

/// out[i] = a[i] op b[i] for n elements (out may alias a or b).
using ReduceFunction = std::function<void(void* out, const void* a, const void* b, size_t n)>;

/// The function for `dtype` and `op` (Avg combines as Sum; divide_by finishes it).
ReduceFunction reduce_function(DType dtype, ReduceOp op);
/// data[i] /= divisor for n elements of a floating or complex dtype (Avg's last step).
void divide_by(void* data, DType dtype, size_t n, int divisor);

}  // namespace ember::distributed::detail
