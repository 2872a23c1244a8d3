#pragma once
// Scaled dot-product attention (declared from the op table, ember/ops/functions.h), as
// torch.nn.functional.scaled_dot_product_attention:
//   out = softmax(query key^T * scale + mask) value
// over the last two dims, query [*, L, E], key [*, S, E], value [*, S, Ev], batched over the
// broadcast of the leading dims (the mask's included). attn_mask is bool (true = the key takes
// part) or floating (added to the scores); is_causal hides key j from query i when j > i (top-left
// aligned); scale defaults to 1 / sqrt(E); enable_gqa lets key and value have fewer heads (dim -3)
// than query, each shared by a group of query heads. A query row whose keys are all masked out
// gives zeros and passes no gradient (PyTorch 2.x's result, where a plain softmax gives NaN).
//
// Without dropout, on CPU, a fused kernel (core/kernels/attention.h) computes it a block of query
// rows at a time. For backward it keeps the probabilities (as the composite path would) while they
// number at most detail::attention_saved_probs_limit() (2^24), and otherwise only the row
// log-sum-exps, from which backward recomputes them (FlashAttention's scheme: memory linear in
// the sequence length). With dropout, with a floating mask that requires grad, or on a device
// without the kernel, the same result is composed of matmul, softmax and dropout.
#include <cstdint>

#include "ember/core/kernels/attention.h"
#include "ember/ops/functions.h"

namespace ember::detail {

/// Probabilities (elements over the whole batch) up to which the fused path keeps them for
/// backward; settable (tests set it to 0 to run the recomputing backward).
int64_t& attention_saved_probs_limit();

}  // namespace ember::detail
