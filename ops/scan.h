#pragma once
// Running scans along a dim beyond cumsum (ops/sort.h): cumprod, logcumsumexp, cummax and cummin
// (declared from the op table, ember/ops/functions.h). cumprod's gradient is exact where the input
// holds zeros (and differentiable again under create_graph); cummax and cummin gather their values
// with the indices the kernel finds, so their gradients are gather's.
#include "ember/core/kernels/scan.h"
#include "ember/ops/functions.h"
