#include "ember/nn/attention.h"

#include <cmath>
#include <limits>

#include "ember/core/factory.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/ops/binary.h"
#include "ember/ops/dropout.h"
#include "ember/ops/index.h"
#include "ember/ops/matmul.h"
#include "ember/ops/reduce.h"
#include "ember/ops/softmax.h"
#include "ember/ops/view.h"

namespace ember::nn {

MultiheadAttention::MultiheadAttention(MultiheadAttentionOptions options)
    : Module("MultiheadAttention"), options_(options) {
  EMBER_CHECK_VALUE(options.embed_dim > 0 && options.num_heads > 0 &&
                        options.embed_dim % options.num_heads == 0,
                    "MultiheadAttention: embed_dim (", options.embed_dim,
                    ") must be divisible by num_heads (", options.num_heads, ")");
  int64_t e = options.embed_dim;
  register_parameter("in_proj_weight", empty({3 * e, e}));
  if (options.bias) register_parameter("in_proj_bias", empty({3 * e}));
  register_module("out_proj", std::make_shared<Linear>(e, e, options.bias));
  reset_parameters();
}

void MultiheadAttention::reset_parameters() {
  init::xavier_uniform_(parameter("in_proj_weight"));
  if (options_.bias) {
    init::zeros_(parameter("in_proj_bias"));
    init::zeros_(out_proj()->bias());
  }
}

std::pair<Tensor, Tensor> MultiheadAttention::forward(const Tensor& query, const Tensor& key,
                                                      const Tensor& value,
                                                      const Tensor& key_padding_mask,
                                                      bool need_weights, const Tensor& attn_mask,
                                                      bool average_attn_weights) {
  const int64_t e = options_.embed_dim, h = options_.num_heads, d = e / h;
  EMBER_CHECK_VALUE(query.dim() == 3 && key.dim() == 3 && value.dim() == 3,
                    "MultiheadAttention: expected 3-D query, key and value, got ", query.sizes(), ", ",
                    key.sizes(), " and ", value.sizes());
  // Work batch-first: [N, L, E].
  Tensor q_in = options_.batch_first ? query : transpose(query, 0, 1);
  Tensor k_in = options_.batch_first ? key : transpose(key, 0, 1);
  Tensor v_in = options_.batch_first ? value : transpose(value, 0, 1);
  EMBER_CHECK_VALUE(q_in.size(2) == e, "MultiheadAttention: query has embedding size ", q_in.size(2),
                    ", expected ", e);
  const int64_t n = q_in.size(0), l = q_in.size(1), s = k_in.size(1);

  const Tensor& w = parameter("in_proj_weight");
  Tensor b = options_.bias ? parameter("in_proj_bias") : Tensor();
  auto project = [&](const Tensor& x, int64_t part) {
    Tensor wp = narrow(w, 0, part * e, e);
    Tensor bp = b.defined() ? narrow(b, 0, part * e, e) : Tensor();
    // [N, T, E] -> [N, H, T, D]
    Tensor y = functional::linear(x, wp, bp);
    return transpose(reshape(y, {n, x.size(1), h, d}), 1, 2);
  };
  Tensor q = project(q_in, 0), k = project(k_in, 1), v = project(v_in, 2);

  Tensor scores = matmul(q, transpose(k, -2, -1)) * (1.0 / std::sqrt(static_cast<double>(d)));
  const double neg_inf = -std::numeric_limits<double>::infinity();
  if (attn_mask.defined()) {
    Tensor mask = attn_mask.dim() == 3 ? reshape(attn_mask, {n, h, l, s}) : attn_mask;
    scores = attn_mask.dtype() == kBool ? masked_fill(scores, mask, neg_inf) : scores + mask;
  }
  if (key_padding_mask.defined()) {
    EMBER_CHECK_VALUE(key_padding_mask.sizes() == IntArrayRef({n, s}),
                      "MultiheadAttention: key_padding_mask of shape ", key_padding_mask.sizes(),
                      ", expected [", n, ", ", s, "]");
    Tensor mask = reshape(key_padding_mask, {n, 1, 1, s});
    scores = key_padding_mask.dtype() == kBool ? masked_fill(scores, mask, neg_inf) : scores + mask;
  }
  Tensor attn = softmax(scores, -1);
  Tensor attn_used = options_.dropout > 0.0 ? dropout(attn, options_.dropout, is_training()) : attn;
  Tensor out = reshape(transpose(matmul(attn_used, v), 1, 2), {n, l, e});
  const Module& proj = child_as<Linear>("out_proj");
  out = functional::linear(out, proj.parameter("weight"),
                           proj.has_parameter("bias") ? proj.parameter("bias") : Tensor());
  if (!options_.batch_first) out = transpose(out, 0, 1);
  Tensor weights;
  if (need_weights) weights = average_attn_weights ? mean(attn, {1}) : attn;
  return {out, weights};
}

std::shared_ptr<Linear> MultiheadAttention::out_proj() const {
  return std::dynamic_pointer_cast<Linear>(child("out_proj"));
}

Tensor MultiheadAttention::forward(const Tensor& x) { return forward(x, x, x, Tensor(), false).first; }

std::string MultiheadAttention::extra_repr() const {
  return detail::str("embed_dim=", options_.embed_dim, ", num_heads=", options_.num_heads,
                     ", dropout=", options_.dropout, ", batch_first=", options_.batch_first ? "True" : "False");
}

}  // namespace ember::nn
