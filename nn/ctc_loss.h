#pragma once
// The connectionist temporal classification loss (torch.nn.functional.ctc_loss): the forward
// (alpha) recursion of Graves et al. (2006) in log space, one step per time frame, batched over the
// samples and over the extended label sequence (blank, l1, blank, l2, ..., blank), composed of
// differentiable ops so autograd differentiates it (on any device).
#include <vector>

#include "ember/nn/loss.h"

namespace ember::nn::functional {

/// -log of the total probability of the alignments of log_probs [T, N, C] (or [T, C]) with targets
/// padded [N, S] or concatenated [sum(target_lengths)]. Mean divides each loss by its target length
/// (at least 1), then averages. zero_infinity zeroes infinite losses (an impossible alignment). The
/// gradient to log_probs is PyTorch's: exp(log_probs) minus the alignments' occupancy, the gradient
/// to the logits when log_probs is their log_softmax.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const std::vector<int64_t>& input_lengths,
                const std::vector<int64_t>& target_lengths, int64_t blank = 0, Reduction reduction = Reduction::Mean,
                bool zero_infinity = false);
/// The same with the lengths as integer tensors [N] (read on the host).
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank = 0, Reduction reduction = Reduction::Mean,
                bool zero_infinity = false);

}  // namespace ember::nn::functional
