#pragma once
// Sorting and running sums along a dim: argsort, sort, topk, kthvalue and cumsum (declared from
// the op table, ember/ops/functions.h). sort, topk and kthvalue gather their values with the
// indices argsort finds, so their gradients are gather's: each value's gradient goes back to
// where it came from.
#include "ember/core/kernels/sort.h"
#include "ember/ops/functions.h"
