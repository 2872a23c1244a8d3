#pragma once
// Per-sample normalisations over [N, C, *] (declared from the op table, ember/ops/functions.h),
// both batch_norm of the input seen as [1, N * groups, rest], so they share its fused kernels and
// gradients:
//   group_norm     each sample over groups of C / num_groups consecutive channels (and the spatial
//                  dims), with the biased variance, then weight [C] and bias [C] per channel;
//   instance_norm  each (sample, channel) over the spatial dims (use_input_stats), updating
//                  running_mean / running_var [C] with the average over the batch of each sample's
//                  statistics (unbiased variance), or normalising with them (use_input_stats false),
//                  as torch.nn.functional.instance_norm.
#include "ember/ops/functions.h"
