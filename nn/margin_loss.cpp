#include "ember/nn/margin_loss.h"

#include <cmath>
#include <limits>
#include <vector>

#include "ember/autograd/function_node.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/ops.h"

namespace ember::nn::functional {
namespace {

// 1e-12 rounded to float32, PyTorch's EPSILON: the loss of a vector near 0 depends on it.
constexpr double kEps1e12F32 = 9.999999960041972e-13;

}  // namespace

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  Tensor diff = x1 - x2 + eps;
  if (diff.dim() == 0) return abs(diff);
  return norm(diff, p, {-1}, keepdim);  // NB: norm's gradients at 0, NaN and inf are PyTorch's
}

Tensor pdist(const Tensor& input, double p) {
  if (autocast::applies("pdist", input))
    return autocast::run("pdist", {input}, [&](const autocast::Cast& cast) { return pdist(cast(input), p); });
  EMBER_CHECK_VALUE(input.dim() == 2, "pdist only supports 2D tensors, got: ", input.dim(), "D");
  EMBER_CHECK_VALUE(p >= 0, "pdist only supports non-negative p values, got ", p);
  const int64_t n = input.size(0);
  std::vector<int64_t> rows, cols;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) rows.push_back(i), cols.push_back(j);
  const auto count = static_cast<int64_t>(rows.size());
  Tensor r = tensor(rows, {count}).to(input.device()), c = tensor(cols, {count}).to(input.device());
  Tensor diff = abs(index_select(input, 0, r) - index_select(input, 0, c));
  if (std::isinf(p)) return amax(diff, {-1});
  return pow(sum(pow(diff, p), {-1}), 1.0 / p);
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           Reduction reduction) {
  if (autocast::applies("margin_ranking_loss", input1))
    return autocast::run("margin_ranking_loss", {input1, input2, target}, [&](const autocast::Cast& cast) {
      return margin_ranking_loss(cast(input1), cast(input2), cast(target), margin, reduction);
    });
  return reduce_loss(clamp(neg(target) * (input1 - input2) + margin, Scalar(0.0)), reduction);
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin, Reduction reduction) {
  if (autocast::applies("hinge_embedding_loss", input))
    return autocast::run("hinge_embedding_loss", {input, target}, [&](const autocast::Cast& cast) {
      return hinge_embedding_loss(cast(input), cast(target), margin, reduction);
    });
  // PyTorch's sum of the two sides: a target of neither 1 nor -1 counts both.
  Tensor loss = where(ne(target, -1), input, 0.0) + where(ne(target, 1), clamp(neg(input) + margin, Scalar(0.0)), 0.0);
  return reduce_loss(loss, reduction);
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  if (autocast::applies("soft_margin_loss", input))
    return autocast::run("soft_margin_loss", {input, target}, [&](const autocast::Cast& cast) {
      return soft_margin_loss(cast(input), cast(target), reduction);
    });
  // NB: 0 - logsigmoid, not its negation: a loss of 0 is +0, as PyTorch's log1p(exp(-inf)).
  return reduce_loss(0.0 - logsigmoid(target * input), reduction);
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                                   Reduction reduction) {
  Tensor loss = neg(target * logsigmoid(input) + (1.0 - target) * logsigmoid(neg(input)));
  if (weight.defined()) loss = loss * weight;
  return reduce_loss(mean(loss, {-1}), reduction);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             Reduction reduction) {
  if (autocast::applies("cosine_embedding_loss", input1))
    return autocast::run("cosine_embedding_loss", {input1, input2, target}, [&](const autocast::Cast& cast) {
      return cosine_embedding_loss(cast(input1), cast(input2), cast(target), margin, reduction);
    });
  Tensor dot = sum(input1 * input2, {-1});
  Tensor cos = dot / sqrt((sum(input1 * input1, {-1}) + kEps1e12F32) * (sum(input2 * input2, {-1}) + kEps1e12F32));
  Tensor loss = where(eq(target, 1), 1.0 - cos, where(eq(target, -1), clamp(cos - margin, Scalar(0.0)), 0.0));
  return reduce_loss(loss, reduction);
}

namespace {

Tensor triplet(const Tensor& d_pos, Tensor d_neg, const Tensor& d_swap, double margin, Reduction reduction) {
  EMBER_CHECK_VALUE(margin > 0, "triplet_margin_loss: margin must be greater than 0, got ", margin);
  if (d_swap.defined()) d_neg = minimum(d_neg, d_swap);
  // NB: summed in PyTorch's order, margin first: the rounding decides whether a loss of about 0
  // comes out exactly 0, where the clamp passes no gradient.
  return reduce_loss(clamp(d_pos + margin - d_neg, Scalar(0.0)), reduction);
}

}  // namespace

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p, double eps, bool swap, Reduction reduction) {
  if (autocast::applies("triplet_margin_loss", anchor))
    return autocast::run("triplet_margin_loss", {anchor, positive, negative}, [&](const autocast::Cast& cast) {
      return triplet_margin_loss(cast(anchor), cast(positive), cast(negative), margin, p, eps, swap, reduction);
    });
  EMBER_CHECK_VALUE(anchor.dim() == positive.dim() && anchor.dim() == negative.dim(),
                    "triplet_margin_loss: the anchor, positive and negative tensors must have the same number of "
                    "dims, got ",
                    anchor.sizes(), ", ", positive.sizes(), " and ", negative.sizes());
  return triplet(pairwise_distance(anchor, positive, p, eps), pairwise_distance(anchor, negative, p, eps),
                 swap ? pairwise_distance(positive, negative, p, eps) : Tensor(), margin, reduction);
}

Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const DistanceFunction& distance_function, double margin, bool swap,
                                         Reduction reduction) {
  const DistanceFunction d =
      distance_function ? distance_function : [](const Tensor& a, const Tensor& b) { return pairwise_distance(a, b); };
  return triplet(d(anchor, positive), d(anchor, negative), swap ? d(positive, negative) : Tensor(), margin, reduction);
}

namespace {

// [N, C] scores and [N] int64 targets of an [N, C] or [C] input, checked as PyTorch checks them.
std::pair<Tensor, Tensor> margin_batch(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK_VALUE(input.dim() == 1 || input.dim() == 2, op, ": expected input of 1 or 2 dims ([C] or [N, C]), got ",
                    input.sizes());
  EMBER_CHECK_TYPE(!is_floating(target.dtype()) && target.dtype() != kBool, op,
                   ": target must hold class indices (int64), got ", target.dtype());
  Tensor x = input.dim() == 2 ? input : unsqueeze(input, 0);
  return {x, target.to(kInt64)};
}

}  // namespace

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p, double margin, const Tensor& weight,
                         Reduction reduction) {
  if (autocast::applies("multi_margin_loss", input))
    return autocast::run("multi_margin_loss", {input, target, weight}, [&](const autocast::Cast& cast) {
      return multi_margin_loss(cast(input), target, p, margin, cast(weight), reduction);
    });
  EMBER_CHECK_VALUE(p == 1 || p == 2, "multi_margin_loss: only p == 1 and p == 2 supported, got ", p);
  auto [x, t] = margin_batch(input, target, "multi_margin_loss");
  t = reshape(t, {-1});
  const int64_t n = x.size(0), classes = x.size(1);
  EMBER_CHECK_VALUE(t.numel() == n, "multi_margin_loss: inconsistent target size: ", target.sizes(),
                    " for input of size ", input.sizes());
  {
    autograd::NoGradGuard no_grad;
    EMBER_CHECK_INDEX(n == 0 || (all(ge(t, 0)).item<bool>() && all(lt(t, classes)).item<bool>()),
                      "multi_margin_loss: target out of range: expected classes in [0, ", classes, ")");
  }
  // As PyTorch's kernel: a term counts where z = margin - x[target] + x[j] > 0 (a NaN z counts as
  // nothing); the gradient is its derivative (1 or 2 z over C, times the weight; minus their sum at
  // the target) times the incoming gradient, so an infinite incoming gradient gives NaN at the
  // terms that did not count, as PyTorch's does.
  Tensor loss, d;
  {
    autograd::NoGradGuard no_grad;
    Tensor picked = one_hot(t, classes).to(kBool);
    Tensor z = (margin - gather(x, 1, unsqueeze(t, 1))) + x;  // NB: PyTorch's order
    Tensor counts = logical_and(gt(z, 0), logical_not(picked));
    const double g = 1.0 / static_cast<double>(classes);
    // NB: 2 / C times z, as PyTorch's, stays finite where 2 z overflows
    d = p == 1 ? counts.to(x.dtype()) * g : where(counts, z * (2 * g), 0.0);
    Tensor terms = where(counts, p == 1 ? z : z * z, 0.0);
    if (weight.defined()) {
      Tensor w = unsqueeze(index_select(weight.detach(), 0, t), 1);
      d = d * w, terms = terms * w;
    }
    d = where(picked, neg(sum(d, {1}, true)), d);  // NB: not d - picked * sum: 0 * inf would be NaN
    loss = sum(terms, {1}) / static_cast<double>(classes);
  }
  autograd::record_function(
      "MultiMarginLossBackward", loss, {x}, {d},
      [](const autograd::TensorList& saved, const autograd::TensorList& grads, const autograd::Node&) {
        return autograd::TensorList{saved[0] * unsqueeze(grads[0], 1)};
      });
  return reduce_loss(input.dim() == 2 ? loss : reshape(loss, {}), reduction);
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  if (autocast::applies("multilabel_margin_loss", input))
    return autocast::run("multilabel_margin_loss", {input, target}, [&](const autocast::Cast& cast) {
      return multilabel_margin_loss(cast(input), target, reduction);
    });
  auto [x, t] = margin_batch(input, target, "multilabel_margin_loss");
  EMBER_CHECK_VALUE(target.sizes() == input.sizes(), "multilabel_margin_loss: target of shape ", target.sizes(),
                    " must have input's shape ", input.sizes());
  t = reshape(t, x.sizes());
  const int64_t classes = x.size(1);
  // Each sample's targets are its entries before the first -1; a class listed twice counts twice,
  // as in PyTorch's kernel.
  Tensor listed = cumprod(ne(t, -1).to(kInt64), 1);
  {
    autograd::NoGradGuard no_grad;
    Tensor bad = logical_and(ne(listed, 0), logical_or(lt(t, 0), ge(t, classes)));
    EMBER_CHECK_INDEX(t.numel() == 0 || !any(bad).item<bool>(),
                      "multilabel_margin_loss: target out of range: "
                      "expected classes in [0, ",
                      classes, ") before the first -1");
  }
  Tensor times = scatter_add(zeros_like(t), 1, where(ne(listed, 0), t, 0), listed);  // [N, C]
  Tensor is_target = gt(times, 0);
  // z[n, j, i] = 1 - (x[n, j] - x[n, i]) for target j and non-target i, counted where z > 0.
  Tensor z = 1.0 - (unsqueeze(x, 2) - unsqueeze(x, 1));
  Tensor pairs = logical_and(unsqueeze(is_target, 2), unsqueeze(logical_not(is_target), 1));
  Tensor terms = where(logical_and(pairs, gt(z, 0)), z, 0.0) * unsqueeze(times.to(x.dtype()), 2);
  Tensor loss = sum(terms, {1, 2}) / static_cast<double>(classes);
  return reduce_loss(input.dim() == 2 ? loss : reshape(loss, {}), reduction);
}

}  // namespace ember::nn::functional
