#pragma once
// The kernel contract of concatenation (ops/join.h). Ops call these stubs; each backend (core/cpu/,
// cuda/) registers its kernels into them.
#include <vector>

#include "ember/core/dispatch.h"
#include "ember/core/tensor.h"

namespace ember {

/// Kernel: copies each of `inputs` (any dtype and layout, out's device) into out (contiguous),
/// one after another along `dim`, converting to out's dtype; each has out's sizes outside `dim`.
using CatFn = void (*)(const Tensor& out, const std::vector<Tensor>& inputs, int64_t dim);
EMBER_DECLARE_STUB(cat_stub, CatFn);

}  // namespace ember
