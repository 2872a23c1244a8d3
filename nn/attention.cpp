#include "ember/nn/attention.h"

#include <cmath>
#include <limits>

#include "ember/core/factory.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/ops/ops.h"

namespace ember::nn {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// A mask in MultiheadAttention's sense (bool true = masked out, or floating added) with one more
// key at the end that every query may attend (what bias_k and add_zero_attn append).
Tensor with_open_key(const Tensor& mask) {
  if (!mask.defined()) return mask;
  DimVector shape = mask.sizes().vec();
  shape.back() = 1;
  return cat({mask, zeros(shape, mask.options())}, -1);
}

// A floating mask of `dtype` from either kind: bool true becomes -inf.
Tensor additive(const Tensor& mask, DType dtype) {
  if (mask.dtype() != kBool) return mask.dtype() == dtype ? mask : to(mask, dtype);
  return masked_fill(zeros(mask.sizes(), dtype), mask, kNegInf);
}

// attn_mask and key_padding_mask, both in MultiheadAttention's sense and shaped to broadcast over
// [N, H, L, S], merged into one mask in scaled_dot_product_attention's sense (bool true = takes
// part, or floating added), as PyTorch merges them (a sum of the floating forms).
Tensor merged_mask(const Tensor& attn_mask, const Tensor& padding, DType dtype) {
  if (!attn_mask.defined() && !padding.defined()) return Tensor();
  const bool both_bool = (!attn_mask.defined() || attn_mask.dtype() == kBool) &&
                         (!padding.defined() || padding.dtype() == kBool);
  if (both_bool) {
    Tensor hidden = !attn_mask.defined() ? padding : !padding.defined() ? attn_mask : logical_or(attn_mask, padding);
    return logical_not(hidden);
  }
  if (!attn_mask.defined()) return additive(padding, dtype);
  if (!padding.defined()) return additive(attn_mask, dtype);
  return additive(attn_mask, dtype) + additive(padding, dtype);
}

}  // namespace

MultiheadAttention::MultiheadAttention(MultiheadAttentionOptions options)
    : Module("MultiheadAttention"), options_(options) {
  EMBER_CHECK_VALUE(options.embed_dim > 0 && options.num_heads > 0, "MultiheadAttention: embed_dim and num_heads ",
                    "must be greater than 0, got embed_dim=", options.embed_dim, " and num_heads=", options.num_heads);
  EMBER_CHECK_VALUE(options.embed_dim % options.num_heads == 0, "MultiheadAttention: embed_dim (", options.embed_dim,
                    ") must be divisible by num_heads (", options.num_heads, ")");
  EMBER_CHECK_VALUE(kdim() > 0 && vdim() > 0, "MultiheadAttention: kdim and vdim must be positive, got ", kdim(),
                    " and ", vdim());
  const int64_t e = options.embed_dim;
  if (qkv_same_embed_dim()) {
    register_parameter("in_proj_weight", empty({3 * e, e}));
  } else {
    register_parameter("q_proj_weight", empty({e, e}));
    register_parameter("k_proj_weight", empty({e, kdim()}));
    register_parameter("v_proj_weight", empty({e, vdim()}));
  }
  if (options.bias) register_parameter("in_proj_bias", empty({3 * e}));
  register_module("out_proj", std::make_shared<Linear>(e, e, options.bias));
  if (options.add_bias_kv) {
    register_parameter("bias_k", empty({1, 1, e}));
    register_parameter("bias_v", empty({1, 1, e}));
  }
  reset_parameters();
}

void MultiheadAttention::reset_parameters() {
  if (qkv_same_embed_dim()) {
    init::xavier_uniform_(parameter("in_proj_weight"));
  } else {
    for (const char* name : {"q_proj_weight", "k_proj_weight", "v_proj_weight"}) init::xavier_uniform_(parameter(name));
  }
  if (options_.bias) {
    init::zeros_(parameter("in_proj_bias"));
    init::zeros_(out_proj()->bias());
  }
  if (options_.add_bias_kv) {
    init::xavier_normal_(parameter("bias_k"));
    init::xavier_normal_(parameter("bias_v"));
  }
}

std::pair<Tensor, Tensor> MultiheadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                      const Tensor& key_padding_mask, bool need_weights,
                                                      const Tensor& attn_mask, bool average_attn_weights,
                                                      bool is_causal) {
  const int64_t e = options_.embed_dim, h = options_.num_heads, d = e / h;
  const bool batched = query.dim() == 3;
  EMBER_CHECK_VALUE((query.dim() == 3 || query.dim() == 2) && key.dim() == query.dim() && value.dim() == query.dim(),
                    "MultiheadAttention: expected query, key and value to be all 3-D (batched) or all 2-D "
                    "(unbatched), got ", query.sizes(), ", ", key.sizes(), " and ", value.sizes());
  EMBER_CHECK_VALUE(!key_padding_mask.defined() || key_padding_mask.dim() == query.dim() - 1,
                    "MultiheadAttention: expected key_padding_mask to be ", batched ? "2-D" : "1-D", " for ",
                    query.dim(), "-D query, got ", key_padding_mask.sizes());
  EMBER_CHECK_VALUE(!attn_mask.defined() || attn_mask.dim() == 2 || attn_mask.dim() == 3,
                    "MultiheadAttention: expected attn_mask to be 2-D or 3-D, got ", attn_mask.sizes());
  for (const Tensor* m : {&attn_mask, &key_padding_mask})
    EMBER_CHECK_TYPE(!m->defined() || m->dtype() == kBool || m->is_floating_point(),
                     "MultiheadAttention: masks must be bool or floating, got ", m->dtype());
  EMBER_CHECK_VALUE(!is_causal || attn_mask.defined(), "MultiheadAttention: is_causal needs attn_mask (the causal ",
                    "mask itself, e.g. Transformer::generate_square_subsequent_mask(L))");

  // Work batch-first: [N, T, features].
  auto batch_first = [&](const Tensor& t) {
    return !batched ? unsqueeze(t, 0) : options_.batch_first ? t : transpose(t, 0, 1);
  };
  Tensor q_in = batch_first(query), k_in = batch_first(key), v_in = batch_first(value);
  const int64_t n = q_in.size(0), l = q_in.size(1), s = k_in.size(1);
  EMBER_CHECK_VALUE(q_in.size(2) == e, "MultiheadAttention: query has ", q_in.size(2), " features, expected embed_dim ", e);
  EMBER_CHECK_VALUE(k_in.size(2) == kdim() && v_in.size(2) == vdim(), "MultiheadAttention: key and value have ",
                    k_in.size(2), " and ", v_in.size(2), " features, expected kdim ", kdim(), " and vdim ", vdim());
  EMBER_CHECK_VALUE(k_in.size(0) == n && v_in.size(0) == n && v_in.size(1) == s, "MultiheadAttention: key ",
                    key.sizes(), " and value ", value.sizes(), " do not match query ", query.sizes(),
                    " in batch and sequence");

  // The projections, [N, T, E] each; one product when query, key and value are one tensor.
  Tensor b = options_.bias ? parameter("in_proj_bias") : Tensor();
  auto part = [&](const Tensor& t, int64_t i) { return t.defined() ? narrow(t, 0, i * e, e) : Tensor(); };
  Tensor q, k, v;
  if (qkv_same_embed_dim()) {
    const Tensor& w = parameter("in_proj_weight");
    if (query.is_same(key) && key.is_same(value)) {
      Tensor y = functional::linear(q_in, w, b);
      q = narrow(y, 2, 0, e);
      k = narrow(y, 2, e, e);
      v = narrow(y, 2, 2 * e, e);
    } else {
      q = functional::linear(q_in, part(w, 0), part(b, 0));
      k = functional::linear(k_in, part(w, 1), part(b, 1));
      v = functional::linear(v_in, part(w, 2), part(b, 2));
    }
  } else {
    q = functional::linear(q_in, parameter("q_proj_weight"), part(b, 0));
    k = functional::linear(k_in, parameter("k_proj_weight"), part(b, 1));
    v = functional::linear(v_in, parameter("v_proj_weight"), part(b, 2));
  }

  // The masks, shaped to broadcast over [N, H, L, S].
  Tensor mask = attn_mask, padding = key_padding_mask;
  if (mask.defined()) {
    if (mask.dim() == 2) {
      EMBER_CHECK_VALUE(mask.size(0) == l && mask.size(1) == s, "MultiheadAttention: the 2-D attn_mask is ",
                        mask.sizes(), ", expected [", l, ", ", s, "]");
    } else {
      EMBER_CHECK_VALUE(mask.size(0) == n * h && mask.size(1) == l && mask.size(2) == s,
                        "MultiheadAttention: the 3-D attn_mask is ", mask.sizes(), ", expected [", n * h, ", ", l,
                        ", ", s, "] (batch * num_heads, L, S)");
      mask = reshape(mask, {n, h, l, s});
    }
  }
  if (padding.defined()) {
    if (!batched) padding = unsqueeze(padding, 0);
    EMBER_CHECK_VALUE(padding.size(0) == n && padding.size(1) == s, "MultiheadAttention: key_padding_mask is ",
                      key_padding_mask.sizes(), ", expected [", n, ", ", s, "]");
    padding = reshape(padding, {n, 1, 1, s});
  }
  if (options_.add_bias_kv) {
    k = cat({k, expand(parameter("bias_k"), {n, 1, e})}, 1);
    v = cat({v, expand(parameter("bias_v"), {n, 1, e})}, 1);
    mask = with_open_key(mask);
    padding = with_open_key(padding);
  }
  // [N, T, E] -> [N, H, T, D]
  auto heads = [&](const Tensor& t) { return transpose(reshape(t, {n, t.size(1), h, d}), 1, 2); };
  q = heads(q);
  k = heads(k);
  v = heads(v);
  if (options_.add_zero_attn) {
    k = cat({k, zeros({n, h, 1, d}, k.options())}, 2);
    v = cat({v, zeros({n, h, 1, d}, v.options())}, 2);
    mask = with_open_key(mask);
    padding = with_open_key(padding);
  }

  const double p = is_training() ? options_.dropout : 0.0;
  Tensor out, weights;
  if (need_weights) {
    // As PyTorch: an explicit softmax, so a fully masked row is NaN; the weights are returned
    // after dropout.
    Tensor scores = matmul(q * std::sqrt(1.0 / static_cast<double>(d)), transpose(k, -2, -1));
    Tensor hide = merged_mask(mask, padding, q.dtype());
    if (hide.defined()) scores = hide.dtype() == kBool ? masked_fill(scores, logical_not(hide), kNegInf) : scores + hide;
    weights = dropout(softmax(scores, -1), p, true);
    out = matmul(weights, v);
    if (average_attn_weights) weights = mean(weights, {1});
    if (!batched) weights = squeeze(weights, 0);
  } else if (is_causal && !padding.defined()) {
    // attn_mask is the causal mask: the kernel's own triangle replaces it.
    out = scaled_dot_product_attention(q, k, v, Tensor(), p, true);
  } else {
    out = scaled_dot_product_attention(q, k, v, merged_mask(mask, padding, q.dtype()), p, false);
  }

  out = reshape(transpose(out, 1, 2), {n, l, e});
  const Module& proj = child_as<Linear>("out_proj");
  out = functional::linear(out, proj.parameter("weight"),
                           proj.has_parameter("bias") ? proj.parameter("bias") : Tensor());
  out = !batched ? squeeze(out, 0) : options_.batch_first ? out : transpose(out, 0, 1);
  return {out, weights};
}

std::shared_ptr<Linear> MultiheadAttention::out_proj() const {
  return std::dynamic_pointer_cast<Linear>(child("out_proj"));
}

Tensor MultiheadAttention::forward(const Tensor& x) { return forward(x, x, x, Tensor(), false).first; }

std::string MultiheadAttention::extra_repr() const {
  std::string s = detail::str("embed_dim=", options_.embed_dim, ", num_heads=", options_.num_heads,
                              ", dropout=", options_.dropout, ", batch_first=", options_.batch_first ? "True" : "False");
  if (!qkv_same_embed_dim()) s += detail::str(", kdim=", kdim(), ", vdim=", vdim());
  if (options_.add_bias_kv) s += ", add_bias_kv=True";
  if (options_.add_zero_attn) s += ", add_zero_attn=True";
  return s;
}

}  // namespace ember::nn
