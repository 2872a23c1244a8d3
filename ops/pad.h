#pragma once
// pad (torch.nn.functional.pad; declared from the op table, ember/ops/functions.h): pads the last
// len(pad) / 2 dims, pad = (left, right, top, bottom, front, back) from the last dim backwards.
//   "constant"   value (default 0); negative amounts crop; any dims, any dtype.
//   "reflect"    mirrored without the edge (amounts < the dim's size), "replicate" the edge
//                repeated, "circular" wrapped around (amounts <= the dim's size): the last 1 to 3
//                dims of a batched or unbatched input ([C, W] or [N, C, W] for 1 dim, ...), as
//                PyTorch; amounts non-negative.
// A composite of narrow, flip, expand and cat, so its gradient (and every higher one) is theirs.
#include "ember/ops/functions.h"
