#pragma once
// Counting (declared from the op table, ember/ops/functions.h): bincount, the occurrences (or summed
// weights) of each non-negative integer, and histc, the histogram of equal-width bins between min
// and max (the data's own range when min == max), with PyTorch's bin arithmetic in the input's
// dtype, so an entry on a bin edge lands where PyTorch puts it. Neither is differentiable (as in
// PyTorch): their results never require grad.
#include "ember/ops/functions.h"
