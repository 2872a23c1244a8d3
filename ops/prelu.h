#pragma once
// prelu (torch.nn.functional.prelu; declared from the op table, ember/ops/functions.h):
// self where self > 0, else weight * self. weight has one element, or one per channel (dim 1 of
// an input of 2 or more dims). A composite of where and mul, so its gradients are theirs: in
// self, 1 where self > 0 and weight elsewhere (at 0 too, as PyTorch); in weight, self where
// self <= 0, summed over all but the channel dim.
#include "ember/ops/functions.h"
