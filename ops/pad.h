#pragma once
// pad (declared from the op table, ember/ops/functions.h; torch.nn.functional.pad): pad = (left,
// right, top, bottom, ...) pads the last len(pad) / 2 dims from the last backwards; negative amounts
// crop. "constant" fills with value (0 by default) and pads any number of dims; "reflect" mirrors
// about the edge entry, "replicate" repeats it, "circular" wraps around (the cropped extent), each
// padding the last 1, 2 or 3 dims of an input with one or two more (unbatched or batched), with
// PyTorch's limits: reflect pads less than the dim's size, circular at most its size. The copies
// are cat and index_select, so the gradient is theirs (the padded entries sum into their source).
#include "ember/ops/functions.h"
