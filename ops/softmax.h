#pragma once
// softmax and log_softmax along one dim (declared from the op table, ember/ops/functions.h),
// computed stably (the max of each slice is subtracted before exp). Floating tensors only, as in
// PyTorch. Both save their output for backward, which runs one fused kernel unless a graph of the
// gradient is being built (create_graph).
#include "ember/core/kernels/softmax.h"
#include "ember/ops/functions.h"
