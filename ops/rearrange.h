#pragma once
// Tensors rearranged from their own entries: tril, triu, flip, roll, repeat, repeat_interleave,
// one_hot, the products outer, addmm and baddbmm, and the reductions any and all (declared from the
// op table, ember/ops/functions.h). Each is a composite of views, index_select, cat, where, matmul
// and comparisons, so its gradient is theirs.
#include "ember/ops/functions.h"
