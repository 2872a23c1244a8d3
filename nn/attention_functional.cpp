#include "ember/nn/attention_functional.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/core/factory.h"
#include "ember/core/warning.h"
#include "ember/nn/functional.h"
#include "ember/ops/autocast.h"
#include "ember/ops/ops.h"

namespace ember::nn::functional {
namespace {

// A shape as Python prints a tuple, "(3, 2)" / "(3,)": PyTorch's messages show tuples.
std::string tuple_of(IntArrayRef shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// PyTorch's _mha_shape_check: whether the call is batched, with the masks' ranks that go with it.
bool batched_call(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
                  const Tensor& attn_mask, int64_t num_heads) {
  const int64_t qd = query.dim();
  EMBER_CHECK_VALUE(qd == 2 || qd == 3, "query should be unbatched 2D or batched 3D tensor but received ", qd,
                    "-D query tensor");
  const char* kind = qd == 3 ? "batched (3-D)" : "unbatched (2-D)";
  EMBER_CHECK_VALUE(key.dim() == qd && value.dim() == qd, "For ", kind, " `query`, expected `key` and `value` to be ",
                    qd, "-D but found ", key.dim(), "-D and ", value.dim(), "-D tensors respectively");
  EMBER_CHECK_VALUE(!key_padding_mask.defined() || key_padding_mask.dim() == qd - 1, "For ", kind,
                    " `query`, expected `key_padding_mask` to be `None` or ", qd - 1, "-D but found ",
                    key_padding_mask.dim(), "-D tensor instead");
  EMBER_CHECK_VALUE(!attn_mask.defined() || attn_mask.dim() == 2 || attn_mask.dim() == 3, "For ", kind,
                    " `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found ", attn_mask.dim(),
                    "-D tensor instead");
  if (qd == 2 && attn_mask.defined() && attn_mask.dim() == 3) {
    const std::vector<int64_t> expected{num_heads, query.size(0), key.size(0)};
    EMBER_CHECK_VALUE(attn_mask.sizes().vec() == DimVector(expected.begin(), expected.end()),
                      "Expected `attn_mask` shape to be ", tuple_of(expected), " but got ",
                      tuple_of(attn_mask.sizes()));
  }
  return qd == 3;
}

// A bool mask becomes an additive one (-inf where true); a floating mask is kept as it is.
Tensor canonical_mask(const Tensor& mask, const char* name, const Tensor& other, const char* other_name, DType dtype) {
  if (!mask.defined()) return mask;
  EMBER_CHECK_VALUE(mask.dtype() == kBool || mask.is_floating_point(), "only bool and floating types of ", name,
                    " are supported");
  if (other.defined() && mask.dtype() != other.dtype())
    warn(detail::str("Support for mismatched ", name, " and ", other_name,
                     " is deprecated. Use same type for both instead."));
  if (mask.dtype() != kBool) return mask;
  return masked_fill(zeros(mask.sizes(), TensorOptions(dtype).device(mask.device())), mask,
                     -std::numeric_limits<double>::infinity());
}

// One more key position (bias_k / the zero key), attended by every query.
Tensor pad_last(const Tensor& mask) {
  if (!mask.defined()) return mask;
  DimVector shape = mask.sizes().vec();
  shape.back() = 1;
  return cat({mask, zeros(shape, mask.options())}, -1);
}

std::pair<Tensor, Tensor> forward(Tensor query, Tensor key, Tensor value, const MultiheadAttentionForwardOptions& o) {
  const int64_t num_heads = o.num_heads;
  Tensor key_padding_mask = o.key_padding_mask, attn_mask = o.attn_mask;
  const bool batched = batched_call(query, key, value, key_padding_mask, attn_mask, num_heads);
  if (!batched) {
    query = unsqueeze(query, 1);
    key = unsqueeze(key, 1);
    value = unsqueeze(value, 1);
    if (key_padding_mask.defined()) key_padding_mask = unsqueeze(key_padding_mask, 0);
  }
  const int64_t tgt_len = query.size(0), bsz = query.size(1), embed_dim = query.size(2);
  int64_t src_len = key.size(0);
  key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask", query.dtype());
  EMBER_CHECK(!o.is_causal || attn_mask.defined(),
              "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
              "`generate_square_subsequent_mask` to create this mask.");
  bool is_causal = o.is_causal;
  if (is_causal && !key_padding_mask.defined() && !o.need_weights) {
    attn_mask = Tensor();  // the fused path applies the causal mask itself
  } else {
    attn_mask = canonical_mask(attn_mask, "attn_mask", Tensor(), "", query.dtype());
    if (key_padding_mask.defined()) is_causal = false;  // the mask given, merged with the padding, is used
  }
  EMBER_CHECK_VALUE(embed_dim == o.embed_dim_to_check, "was expecting embedding dimension of ", o.embed_dim_to_check,
                    ", but got ", embed_dim);
  const int64_t head_dim = embed_dim / num_heads;
  EMBER_CHECK_VALUE(head_dim * num_heads == embed_dim, "embed_dim ", embed_dim, " not divisible by num_heads ",
                    num_heads);

  // ---- input projections
  Tensor w_q, w_k, w_v, b_q, b_k, b_v;
  if (o.in_proj_bias.defined()) {
    auto b = chunk(o.in_proj_bias, 3);
    b_q = b[0], b_k = b[1], b_v = b[2];
  }
  if (o.use_separate_proj_weight) {
    EMBER_CHECK_VALUE(key.size(0) == value.size(0) && key.size(1) == value.size(1), "key's sequence and batch dims ",
                      tuple_of(IntArrayRef(key.sizes().data(), 2)), " do not match value's ",
                      tuple_of(IntArrayRef(value.sizes().data(), 2)));
    for (auto [name, w] : {std::pair{"q", &o.q_proj_weight}, {"k", &o.k_proj_weight}, {"v", &o.v_proj_weight}})
      EMBER_CHECK_VALUE(w->defined(), "use_separate_proj_weight is True but ", name, "_proj_weight is None");
    w_q = o.q_proj_weight, w_k = o.k_proj_weight, w_v = o.v_proj_weight;
  } else {
    EMBER_CHECK_VALUE(key.sizes() == value.sizes(), "key shape ", tuple_of(key.sizes()), " does not match value shape ",
                      tuple_of(value.sizes()));
    EMBER_CHECK_VALUE(o.in_proj_weight.defined(), "use_separate_proj_weight is False but in_proj_weight is None");
    auto w = chunk(o.in_proj_weight, 3);
    w_q = w[0], w_k = w[1], w_v = w[2];
  }
  Tensor q = linear(query, w_q, b_q), k = linear(key, w_k, b_k), v = linear(value, w_v, b_v);

  if (attn_mask.defined()) {
    if (attn_mask.dim() == 2) {
      EMBER_CHECK(attn_mask.size(0) == tgt_len && attn_mask.size(1) == src_len, "The shape of the 2D attn_mask is ",
                  tuple_of(attn_mask.sizes()), ", but should be ", tuple_of({tgt_len, src_len}), ".");
      attn_mask = unsqueeze(attn_mask, 0);
    } else {
      EMBER_CHECK(attn_mask.size(0) == bsz * num_heads && attn_mask.size(1) == tgt_len && attn_mask.size(2) == src_len,
                  "The shape of the 3D attn_mask is ", tuple_of(attn_mask.sizes()), ", but should be ",
                  tuple_of({bsz * num_heads, tgt_len, src_len}), ".");
    }
  }

  // ---- extra key/value positions
  if (o.bias_k.defined() && o.bias_v.defined()) {
    EMBER_CHECK_VALUE(!o.static_k.defined(), "bias cannot be added to static key.");
    EMBER_CHECK_VALUE(!o.static_v.defined(), "bias cannot be added to static value.");
    k = cat({k, repeat(o.bias_k, {1, bsz, 1})});
    v = cat({v, repeat(o.bias_v, {1, bsz, 1})});
    attn_mask = pad_last(attn_mask);
    key_padding_mask = pad_last(key_padding_mask);
  } else {
    EMBER_CHECK_VALUE(!o.bias_k.defined(), "bias_k is set but bias_v is None");
    EMBER_CHECK_VALUE(!o.bias_v.defined(), "bias_v is set but bias_k is None");
  }

  // ---- heads: [N*H, len, head_dim]
  q = transpose(reshape(q, {tgt_len, bsz * num_heads, head_dim}), 0, 1);
  for (auto [name, s] : {std::pair{"k", &o.static_k}, {"v", &o.static_v}}) {
    if (!s->defined()) continue;
    EMBER_CHECK_VALUE(s->size(0) == bsz * num_heads, "expecting static_", name, ".size(0) of ", bsz * num_heads,
                      ", but got ", s->size(0));
    EMBER_CHECK_VALUE(s->size(2) == head_dim, "expecting static_", name, ".size(2) of ", head_dim, ", but got ",
                      s->size(2));
  }
  auto heads = [&](const Tensor& t) { return transpose(reshape(t, {t.size(0), bsz * num_heads, head_dim}), 0, 1); };
  k = o.static_k.defined() ? o.static_k : heads(k);
  v = o.static_v.defined() ? o.static_v : heads(v);
  if (o.add_zero_attn) {
    k = cat({k, zeros({bsz * num_heads, 1, head_dim}, k.options())}, 1);
    v = cat({v, zeros({bsz * num_heads, 1, head_dim}, v.options())}, 1);
    attn_mask = pad_last(attn_mask);
    key_padding_mask = pad_last(key_padding_mask);
  }
  src_len = k.size(1);

  if (key_padding_mask.defined()) {
    EMBER_CHECK_VALUE(key_padding_mask.size(0) == bsz, "Expected key_padded_mask.shape[0] to be ", bsz, ", but got ",
                      key_padding_mask.size(0));
    EMBER_CHECK_VALUE(key_padding_mask.size(1) == src_len, "Expected key_padded_mask.shape[1] to be ", src_len,
                      ", but got ", key_padding_mask.size(1));
    key_padding_mask = reshape(expand(reshape(key_padding_mask, {bsz, 1, 1, src_len}), {bsz, num_heads, 1, src_len}),
                               {bsz * num_heads, 1, src_len});
    attn_mask = attn_mask.defined() ? attn_mask + key_padding_mask : key_padding_mask;
  }
  const double dropout_p = o.training ? o.dropout_p : 0.0;
  // [L*N, E] -> out_proj -> [L, N, E_out] (sizes named: -1 is ambiguous for an empty batch)
  auto project_out = [&](const Tensor& t) {
    Tensor y = linear(t, o.out_proj_weight, o.out_proj_bias);
    return reshape(y, {tgt_len, bsz, y.size(1)});
  };

  if (o.need_weights) {
    // The explicit path: the weights are an output.
    Tensor scores = bmm(q * std::sqrt(1.0 / static_cast<double>(head_dim)), transpose(k, -2, -1));
    if (attn_mask.defined()) scores = scores + attn_mask;
    Tensor weights = softmax(scores, -1);
    if (dropout_p > 0.0) weights = dropout(weights, dropout_p);
    Tensor out = reshape(transpose(bmm(weights, v), 0, 1), {tgt_len * bsz, embed_dim});
    out = project_out(out);
    weights = reshape(weights, {bsz, num_heads, tgt_len, src_len});
    if (o.average_attn_weights) weights = mean(weights, {1});
    if (!batched) out = squeeze(out, 1), weights = squeeze(weights, 0);
    return {out, weights};
  }

  // The fused path (scaled_dot_product_attention); no weights.
  if (attn_mask.defined())
    attn_mask = attn_mask.size(0) == 1 && attn_mask.dim() == 3 ? unsqueeze(attn_mask, 0)
                                                               : reshape(attn_mask, {bsz, num_heads, -1, src_len});
  q = reshape(q, {bsz, num_heads, tgt_len, head_dim});
  k = reshape(k, {bsz, num_heads, src_len, head_dim});
  v = reshape(v, {bsz, num_heads, src_len, head_dim});
  Tensor out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal);
  out = reshape(permute(out, {2, 0, 1, 3}), {bsz * tgt_len, embed_dim});
  out = project_out(out);
  if (!batched) out = squeeze(out, 1);
  return {out, Tensor()};
}

}  // namespace

std::pair<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                       const MultiheadAttentionForwardOptions& options) {
  constexpr const char* kOp = "multi_head_attention_forward";
  MultiheadAttentionForwardOptions o = options;
  std::vector<Tensor*> tensors{&o.in_proj_weight,  &o.in_proj_bias,  &o.bias_k,           &o.bias_v,
                               &o.out_proj_weight, &o.out_proj_bias, &o.key_padding_mask, &o.attn_mask,
                               &o.q_proj_weight,   &o.k_proj_weight, &o.v_proj_weight,    &o.static_k,
                               &o.static_v};
  std::vector<Tensor> inputs{query, key, value};
  for (Tensor* t : tensors)
    if (t->defined()) inputs.push_back(*t);
  if (!autocast::applies(kOp, inputs)) return forward(query, key, value, o);
  return autocast::run(kOp, inputs, [&](const autocast::Cast& cast) {
    for (Tensor* t : tensors)
      if (t->defined()) *t = cast(*t);
    return forward(cast(query), cast(key), cast(value), o);
  });
}

}  // namespace ember::nn::functional
