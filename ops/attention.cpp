#include "ember/ops/attention.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/record.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/view.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

namespace {

constexpr const char* kOp = "scaled_dot_product_attention";
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// The dims of t before its last two.
DimVector leading(const Tensor& t) { return DimVector(t.sizes().begin(), t.sizes().end() - 2); }

DimVector with_matrix(const DimVector& batch, int64_t rows, int64_t cols) {
  DimVector shape = batch;
  shape.push_back(rows);
  shape.push_back(cols);
  return shape;
}

// t broadcast to `shape` through autograd (the gradient sums back), or t itself.
Tensor expand_to(const Tensor& t, const DimVector& shape) {
  return t.sizes() == IntArrayRef(shape) ? t : expand(t, shape);
}

// The probabilities softmax(q k^T * scale + mask), composed of differentiable ops; a row whose
// keys are all hidden is zeros (PyTorch's _safe_softmax), with no NaN in its gradient either.
Tensor attention_probs(const Tensor& q, const Tensor& k, const Tensor& mask, bool causal, double scale) {
  Tensor scores = matmul(q, transpose(k, -2, -1)) * scale;
  if (causal) {
    Tensor later = triu(ones({q.size(-2), k.size(-2)}, TensorOptions(kBool).device(q.device())), 1);
    scores = masked_fill(scores, later, kNegInf);
  }
  if (mask.defined()) scores = mask.dtype() == kBool ? masked_fill(scores, logical_not(mask), kNegInf) : scores + mask;
  Tensor hidden;
  {
    autograd::NoGradGuard no_grad;
    hidden = all(eq(scores, kNegInf), -1, true);
  }
  return where(hidden, 0.0, softmax(where(hidden, 0.0, scores), -1));
}

// d out / d (q, k, v) as differentiable ops, for create_graph: with P the probabilities,
// dv = P^T g, dS = P * (g v^T - rowsum(g v^T * P)), dq = dS k * scale, dk = dS^T q * scale.
TensorList attention_grads(const Tensor& g, const Tensor& q, const Tensor& k, const Tensor& v,
                           const Tensor& mask, bool causal, double scale) {
  Tensor p = attention_probs(q, k, mask, causal, scale);
  Tensor dp = matmul(g, transpose(v, -2, -1));
  Tensor ds = p * (dp - sum(dp * p, {-1}, true));
  return {matmul(ds, k) * scale, matmul(transpose(ds, -2, -1), q) * scale, matmul(transpose(p, -2, -1), g)};
}

// A new tensor of t's shape laid out densely in t's order of strides, or contiguous where t's last
// dim is not its fastest. q, k and v are usually transposed views of a [B, L, heads, E] projection;
// gradients in their layout transpose and reshape back to it without a copy (a GPT step copied
// each of them: 2% of its time).
Tensor empty_in_order_of(const Tensor& t) {
  const int64_t n = t.dim();
  DimVector order(static_cast<size_t>(n));
  for (int64_t d = 0; d < n; ++d) order[static_cast<size_t>(d)] = d;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return t.stride(a) > t.stride(b); });
  if (n < 2 || order.back() != n - 1) return empty(t.sizes(), t.options());
  DimVector sizes, inverse(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    sizes.push_back(t.size(order[static_cast<size_t>(i)]));
    inverse[static_cast<size_t>(order[static_cast<size_t>(i)])] = i;
  }
  return permute(empty(sizes, t.options()), inverse);
}

// The fused kernel's backward: its own kernel, or the composite formulas under create_graph.
struct ScaledDotProductAttentionBackward : autograd::Node {
  SavedTensor q, k, v, out;
  Tensor logsumexp, probs, mask;  // never require grad; probs may be undefined (recomputed)
  bool causal = false;
  double scale = 1.0;
  const char* name() const override { return "ScaledDotProductAttentionBackward"; }
  TensorList apply(TensorList&& g) override {
    AttentionInputs in{q.unpack(this), k.unpack(this), v.unpack(this), mask, causal, scale};
    if (autograd::any_requires_grad(g[0], in.q, in.k, in.v))
      return attention_grads(g[0], in.q, in.k, in.v, mask, causal, scale);
    Tensor gq = needs_input_grad(0) ? empty_in_order_of(in.q) : Tensor();
    Tensor gk = needs_input_grad(1) ? empty_in_order_of(in.k) : Tensor();
    Tensor gv = needs_input_grad(2) ? empty_in_order_of(in.v) : Tensor();
    attention_backward_stub(in.q.device().type, gq, gk, gv, g[0], out.unpack(this), logsumexp, probs, in);
    return {gq, gk, gv};
  }
  void release_saved() override {
    q.reset();
    k.reset();
    v.reset();
    out.reset();
    logsumexp = Tensor();
    probs = Tensor();
    mask = Tensor();
  }
};

void check_inputs(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& attn_mask,
                  double dropout_p, bool is_causal) {
  EMBER_CHECK_VALUE(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, kOp,
                    ": expected query, key and value to be at least 2-D, got ", query.sizes(), ", ",
                    key.sizes(), " and ", value.sizes());
  EMBER_CHECK_TYPE(query.dtype() == key.dtype() && query.dtype() == value.dtype(), kOp,
                   ": expected query, key and value to have one dtype, got ", query.dtype(), ", ",
                   key.dtype(), " and ", value.dtype());
  check_floating_compute(query.dtype(), kOp);
  EMBER_CHECK_VALUE(query.device() == key.device() && query.device() == value.device(), kOp,
                    ": query, key and value are on different devices, ", query.device(), ", ", key.device(),
                    " and ", value.device());
  EMBER_CHECK_VALUE(query.size(-1) == key.size(-1), kOp, ": query ", query.sizes(), " and key ", key.sizes(),
                    " differ in their last dim (the embedding)");
  EMBER_CHECK_VALUE(key.size(-2) == value.size(-2), kOp, ": key ", key.sizes(), " and value ", value.sizes(),
                    " differ in their sequence length (dim -2)");
  EMBER_CHECK_VALUE(dropout_p >= 0 && dropout_p <= 1, kOp, ": dropout_p has to be between 0 and 1, but got ",
                    dropout_p);
  if (!attn_mask.defined()) return;
  EMBER_CHECK_VALUE(!is_causal, kOp, ": an explicit attn_mask must not be given with is_causal=True");
  EMBER_CHECK_TYPE(attn_mask.dtype() == kBool || attn_mask.dtype() == query.dtype() || attn_mask.dtype() == kFloat32,
                   kOp, ": attn_mask must be bool, float32 or query's dtype (", query.dtype(), "), got ",
                   attn_mask.dtype());
  EMBER_CHECK_VALUE(attn_mask.device() == query.device(), kOp, ": attn_mask is on ", attn_mask.device(),
                    ", query on ", query.device());
}

// Key and value heads repeated for their groups of query heads (enable_gqa).
std::pair<Tensor, Tensor> share_heads(const Tensor& query, const Tensor& key, const Tensor& value) {
  EMBER_CHECK_VALUE(query.dim() >= 3 && key.dim() >= 3 && value.dim() >= 3, kOp,
                    ": enable_gqa needs a heads dim (-3) in query, key and value, got ", query.sizes(), ", ",
                    key.sizes(), " and ", value.sizes());
  const int64_t hq = query.size(-3), hk = key.size(-3), hv = value.size(-3);
  EMBER_CHECK_VALUE(hk > 0 && hv > 0 && hq % hk == 0 && hq % hv == 0, kOp,
                    ": the number of key heads (", hk, ") and value heads (", hv,
                    ") must divide the number of query heads (", hq, ")");
  return {hk == hq ? key : repeat_interleave(key, hq / hk, -3),
          hv == hq ? value : repeat_interleave(value, hq / hv, -3)};
}

}  // namespace

int64_t& detail::attention_saved_probs_limit() {
  static int64_t limit = int64_t{1} << 24;
  return limit;
}

Tensor impl_scaled_dot_product_attention(const Tensor& query, const Tensor& key_in, const Tensor& value_in,
                                         const Tensor& attn_mask, double dropout_p, bool is_causal,
                                         std::optional<double> scale, bool enable_gqa) {
  if (autocast::applies("scaled_dot_product_attention", query))
    return autocast::run("scaled_dot_product_attention", {query, key_in, value_in, attn_mask}, [&](const autocast::Cast& cast) {
      return scaled_dot_product_attention(cast(query), cast(key_in), cast(value_in), cast(attn_mask), dropout_p,
                                          is_causal, scale, enable_gqa);
    });
  check_inputs(query, key_in, value_in, attn_mask, dropout_p, is_causal);
  auto [key, value] = enable_gqa ? share_heads(query, key_in, value_in) : std::pair{key_in, value_in};
  const int64_t L = query.size(-2), S = key.size(-2), E = query.size(-1), Ev = value.size(-1);
  const double s = scale.value_or(1.0 / std::sqrt(static_cast<double>(E)));
  Tensor mask = attn_mask;
  if (mask.defined() && mask.dtype() != kBool && mask.dtype() != query.dtype()) mask = to(mask, query.dtype());

  DimVector batch = broadcast_shapes(leading(query), leading(key), kOp);
  batch = broadcast_shapes(batch, leading(value), kOp);
  if (mask.defined()) {
    const DimVector scores = with_matrix(batch, L, S);
    const IntArrayRef m = mask.sizes();
    for (size_t i = 1; i <= std::min(m.size(), scores.size()); ++i) {
      const int64_t sm = m[m.size() - i], ss = scores[scores.size() - i];
      EMBER_CHECK_VALUE(sm == ss || sm == 1 || (ss == 1 && i > 2), kOp, ": attn_mask ", m,
                        " does not broadcast to the scores ", IntArrayRef(scores));
    }
    DimVector full = broadcast_shapes(scores, m, kOp);
    batch.assign(full.begin(), full.end() - 2);
  }
  const bool fused = dropout_p == 0 && attention_forward_stub.has(query.device().type) &&
                     !(mask.defined() && autograd::any_requires_grad(mask));
  if (!fused) {
    Tensor p = attention_probs(query, key, mask, is_causal, s);
    return matmul(dropout(p, dropout_p, true), value);
  }

  AttentionInputs in{expand_to(query, with_matrix(batch, L, E)), expand_to(key, with_matrix(batch, S, E)),
                     expand_to(value, with_matrix(batch, S, Ev)), Tensor(), is_causal, s};
  if (mask.defined()) in.mask = expand_data(mask, with_matrix(batch, L, S));
  Tensor out = empty(with_matrix(batch, L, Ev), query.options());
  DimVector lse_shape = batch;
  lse_shape.push_back(L);
  Tensor logsumexp = empty(lse_shape, query.options());
  const bool grad = autograd::any_requires_grad(in.q, in.k, in.v);
  // Kept for backward when they fit the limit (as many as the composite path would keep), else
  // recomputed there from logsumexp.
  Tensor probs;
  if (grad && numel_of(batch) * L * S <= detail::attention_saved_probs_limit())
    probs = empty(with_matrix(batch, L, S), query.options());
  attention_forward_stub(query.device().type, out, logsumexp, probs, in);
  if (grad) {
    auto node = autograd::make_node<ScaledDotProductAttentionBackward>(in.q, in.k, in.v);
    node->q = SavedTensor(in.q);
    node->k = SavedTensor(in.k);
    node->v = SavedTensor(in.v);
    node->mask = in.mask;
    node->logsumexp = logsumexp;
    node->probs = probs;
    node->causal = is_causal;
    node->scale = s;
    autograd::set_history(out, node);
    node->out = SavedTensor(out, true);
  }
  return out;
}

}  // namespace ember
