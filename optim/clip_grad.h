#pragma once
// Gradient clipping, as torch.nn.utils.clip_grad_norm_ / clip_grad_value_. Parameters without a
// gradient are ignored; gradients are changed in place under NoGradGuard.
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

/// Scales all gradients by min(1, max_norm / (total + 1e-6)), where total is the norm of order
/// norm_type (inf and -inf allowed, 0 counts non-zeros) of all gradients seen as one vector.
/// Returns total, before clipping, as a 0-d tensor (0 without gradients). A NaN or infinite total
/// is an error with error_if_nonfinite, else the gradients are scaled by it as PyTorch does.
/// clip_grad_norm_(model.parameters(), 1.0).item().
Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type = 2,
                       bool error_if_nonfinite = false);
/// The same over named parameters (what an optimizer's groups hold).
Tensor clip_grad_norm_(const NamedParameters& params, double max_norm, double norm_type = 2,
                       bool error_if_nonfinite = false);

/// Clamps every gradient element to [-clip_value, clip_value].
void clip_grad_value_(const std::vector<Tensor>& params, double clip_value);
void clip_grad_value_(const NamedParameters& params, double clip_value);

}  // namespace ember::optim
