#include "ember/nn/loss.h"

#include <cmath>
#include <limits>
#include <numbers>

#include "ember/autograd/function_node.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/record.h"
#include "ember/core/factory.h"
#include "ember/core/tracing.h"
#include "ember/core/warning.h"
#include "ember/ops/activation.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/compare.h"
#include "ember/ops/convert.h"
#include "ember/ops/index.h"
#include "ember/ops/reduce.h"
#include "ember/ops/softmax.h"
#include "ember/ops/unary.h"
#include "ember/ops/view.h"

namespace ember::nn::functional {

Reduction reduction_from_string(const std::string& name, const char* op) {
  if (name == "mean") return Reduction::Mean;
  if (name == "sum") return Reduction::Sum;
  if (name == "none") return Reduction::None;
  if (name == "batchmean") return Reduction::BatchMean;
  throw ValueError(detail::str(op, ": ", name,
                               " is not a valid value for reduction: reduction must be 'mean', 'sum' "
                               "or 'none', got '",
                               name, "'"));
}

const char* reduction_name(Reduction reduction) {
  switch (reduction) {
    case Reduction::None:
      return "none";
    case Reduction::Sum:
      return "sum";
    case Reduction::Mean:
      return "mean";
    case Reduction::BatchMean:
      return "batchmean";
  }
  return "mean";
}

Tensor reduce_loss(const Tensor& loss, Reduction reduction) {
  switch (reduction) {
    case Reduction::None: return loss;
    case Reduction::Sum: return sum(loss);
    case Reduction::Mean: return mean(loss);
    case Reduction::BatchMean:
      break;
  }
  throw ValueError("reduction 'batchmean' is kl_div's only; use 'mean', 'sum' or 'none'");
}

namespace {

Tensor reduce(const Tensor& loss, Reduction reduction) { return reduce_loss(loss, reduction); }

void check_same_shape(const Tensor& input, const Tensor& target, const char* op) {
  EMBER_CHECK_VALUE(input.sizes() == target.sizes(), op, ": input of shape ", input.sizes(),
                    " and target of shape ", target.sizes(), " differ");
}

// The elementwise regression losses broadcast input against target, as PyTorch does, with its
// warning: a [N, 1] prediction against an [N] target silently becomes an [N, N] loss.
std::pair<Tensor, Tensor> broadcast_pair(const Tensor& input, const Tensor& target, const char* op) {
  if (input.sizes() == target.sizes()) return {input, target};
  DimVector shape = broadcast_shapes(input.sizes(), target.sizes(), op);  // shapes that cannot: refused first
  warn(detail::str(op, ": using a target size (", target.sizes(), ") that is different to the input size (",
                   input.sizes(), "). This will likely lead to incorrect results due to broadcasting. "
                   "Please ensure they have the same size."));
  return {expand(input, shape), expand(target, shape)};
}

// weight viewed along the class dim 1 of a [N, C, d...] tensor of `ndim` dims, after checking it
// holds one entry per class.
Tensor class_weights(const Tensor& weight, int64_t classes, int64_t ndim, const char* op) {
  EMBER_CHECK_VALUE(weight.dim() == 1 && weight.size(0) == classes, op,
                    ": weight tensor should be defined either for all ", classes,
                    " classes or no classes but got weight tensor of shape: ", weight.sizes());
  DimVector shape(static_cast<size_t>(ndim), 1);
  shape[1] = classes;
  return reshape(weight, shape);
}

// Checks [N, C, d...] scores against [N, d...] class-index targets and returns the per-element
// weight[target] * -log p[target] (weight 1 without one) with ignored positions zeroed, plus each
// position's weight in the mean (weight[target], or 1; 0 where ignored). nll(scores, safe) gives
// the [N, d...] -log p at the targets (ignored positions read class 0).
template <typename Nll>
std::pair<Tensor, Tensor> picked_nll(const Tensor& scores, const Tensor& target, const Tensor& weight,
                                     int64_t ignore_index, const char* op, const Nll& nll) {
  EMBER_CHECK_VALUE(scores.dim() >= 2, op, ": input must be [N, C] or [N, C, d...], got ", scores.sizes());
  EMBER_CHECK_TYPE(target.dtype() == kInt64 || target.dtype() == kInt32, op,
                   ": target must hold class indices (int64), got ", target.dtype());
  DimVector expected = scores.sizes().vec();
  expected.erase(expected.begin() + 1);
  EMBER_CHECK_VALUE(target.sizes() == IntArrayRef(expected), op, ": target of shape ", target.sizes(),
                    " does not match input of shape ", scores.sizes(), " (expected ", IntArrayRef(expected), ")");
  Tensor idx = target.to(kInt64);
  Tensor keep = ne(idx, ignore_index);
  Tensor safe = where(keep, idx, 0);
  int64_t classes = scores.size(1);
  if (weight.defined()) class_weights(weight, classes, 2, op);
  Tensor bad = logical_and(keep, logical_or(lt(safe, 0), ge(safe, classes)));
  if (sum(bad.to(kInt64)).item<int64_t>() != 0) {
    const int64_t at = argmax(reshape(bad.to(kInt64), {-1})).item<int64_t>();
    EMBER_CHECK_INDEX(false, op, ": target ", reshape(idx, {-1}).select(0, at).item<int64_t>(), " (element ", at,
                      ") is out of range for ", classes, " classes; expected a class in [0, ", classes,
                      ") or ignore_index ", ignore_index);
  }
  Tensor mask = keep.to(scores.dtype());
  if (weight.defined()) mask = reshape(index_select(weight, 0, reshape(safe, {-1})), safe.sizes()) * mask;
  // NB: where, not a product with the 0/1 mask: an ignored row's NaN or inf must not reach the loss.
  return {where(keep, nll(scores, safe) * mask, 0), mask};
}

// Mean divides by the summed weights of the counted positions (their count without weights).
Tensor masked_reduce(const Tensor& loss, const Tensor& weights, Reduction reduction) {
  if (reduction != Reduction::Mean) return reduce(loss, reduction);
  // NB: when every target is ignored the mean is 0/0, NaN, as in PyTorch, but its gradient must be
  // 0 (PyTorch's), not 0 * (1/0). The total is read on the host (picked_nll has already synced for
  // its range check), which keeps the common case at one division.
  const double total = sum(weights).item<double>();
  if (total == 0) return sum(loss) * 0.0 + std::numeric_limits<double>::quiet_NaN();
  return sum(loss) / total;
}

// An unbatched [C] input (with a 0-d target, or [C] probabilities) as a batch of one; the
// unreduced loss is made 0-d again.
template <typename Loss>
Tensor batch_of_one(const Tensor& input, const Tensor& target, bool probabilities, Reduction reduction,
                    const char* op, const Loss& loss) {
  if (input.dim() != 1) return loss(input, target);
  EMBER_CHECK_VALUE(probabilities || (target.dim() <= 1 && target.numel() == 1), op, ": target of shape ",
                    target.sizes(), " does not match input of shape ", input.sizes(), " (expected a 0-d class index)");
  Tensor out = loss(unsqueeze(input, 0), probabilities ? unsqueeze(target, 0) : reshape(target, {1}));
  if (reduction != Reduction::None) return out;
  // NB: PyTorch sums an unbatched class-index loss from +0 whatever the reduction, so -(+0) comes out +0
  return probabilities ? reshape(out, {}) : add(reshape(out, {}), 0.0);
}

// Cross entropy against class probabilities `target` (input's shape), PyTorch's formula: the
// smoothed target mixes in 1 / C, and Mean divides by the number of positions, N * d...
Tensor cross_entropy_probabilities(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                                   Reduction reduction, double label_smoothing) {
  EMBER_CHECK_TYPE(is_floating(target.dtype()),
                   "cross_entropy: Expected floating point type for target with class probabilities, got ",
                   target.dtype());
  EMBER_CHECK_VALUE(ignore_index < 0, "cross_entropy: ignore_index is not supported for floating point target, got ",
                    ignore_index);
  const int64_t classes = input.size(1);
  Tensor log_probs = log_softmax(input, 1);
  Tensor t = label_smoothing > 0 ? target * (1.0 - label_smoothing) + label_smoothing / static_cast<double>(classes)
                                 : target;
  Tensor terms = log_probs * t;
  if (weight.defined()) terms = terms * class_weights(weight, classes, input.dim(), "cross_entropy");
  switch (reduction) {
    case Reduction::None: return neg(sum(terms, {1}));
    case Reduction::Sum: return neg(sum(terms));
    case Reduction::Mean:
      if (input.numel() == 0) return sum(terms) * 0.0 + std::numeric_limits<double>::quiet_NaN();
      return neg(sum(terms)) / static_cast<double>(input.numel() / classes);
    case Reduction::BatchMean:
      break;
  }
  return reduce(terms, reduction);  // refuses BatchMean
}

}  // namespace

Tensor nll_loss(const Tensor& log_probs, const Tensor& target, int64_t ignore_index, Reduction reduction,
                const Tensor& weight) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>("nn.nll_loss",
                                   [&] { return nll_loss(log_probs, target, ignore_index, reduction, weight); },
                                   {tracing::arg(log_probs), tracing::arg(target), tracing::arg(ignore_index),
                                    tracing::arg(reduction_name(reduction)), tracing::arg(weight)});
  if (autocast::applies("nll_loss", log_probs))
    return autocast::run("nll_loss", {log_probs, target, weight}, [&](const autocast::Cast& cast) {
      return nll_loss(cast(log_probs), target, ignore_index, reduction, cast(weight));
    });
  return batch_of_one(log_probs, target, false, reduction, "nll_loss", [&](const Tensor& x, const Tensor& t) {
    auto [loss, weights] = picked_nll(x, t, weight, ignore_index, "nll_loss", detail::nll_at_targets);
    return masked_reduce(loss, weights, reduction);
  });
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, int64_t ignore_index, Reduction reduction,
                     double label_smoothing, const Tensor& weight) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>(
        "nn.cross_entropy",
        [&] { return cross_entropy(input, target, ignore_index, reduction, label_smoothing, weight); },
        {tracing::arg(input), tracing::arg(target), tracing::arg(ignore_index), tracing::arg(reduction_name(reduction)),
         tracing::arg(label_smoothing), tracing::arg(weight)});
  if (autocast::applies("cross_entropy", input))
    return autocast::run("cross_entropy", {input, target, weight}, [&](const autocast::Cast& cast) {
      return cross_entropy(cast(input), cast(target), ignore_index, reduction, label_smoothing, cast(weight));
    });
  EMBER_CHECK_VALUE(label_smoothing >= 0.0 && label_smoothing <= 1.0,
                    "cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  EMBER_CHECK_VALUE(input.dim() >= 1, "cross_entropy: input must be [C], [N, C] or [N, C, d...], got ",
                    input.sizes());
  const bool probabilities = target.sizes() == input.sizes();
  return batch_of_one(input, target, probabilities, reduction, "cross_entropy", [&](const Tensor& x, const Tensor& t) {
    if (probabilities)
      return cross_entropy_probabilities(x, t, weight, ignore_index, reduction, label_smoothing);
    if (label_smoothing == 0.0 && x.dim() == 2) {  // the usual [N, C] logits: one fused op, no log-probabilities
      auto [loss, weights] = picked_nll(x, t, weight, ignore_index, "cross_entropy", detail::log_softmax_nll);
      return masked_reduce(loss, weights, reduction);
    }
    Tensor log_probs = log_softmax(x, 1);
    auto [loss, weights] = picked_nll(log_probs, t, weight, ignore_index, "cross_entropy", detail::nll_at_targets);
    Tensor nll = masked_reduce(loss, weights, reduction);
    if (label_smoothing == 0.0) return nll;
    // PyTorch's: (1 - s) * nll + s / C * the summed -log p of every class (weighted by class),
    // zero where ignored, reduced as nll is (Mean by the same weights).
    const int64_t classes = x.size(1);
    Tensor all = weight.defined() ? log_probs * class_weights(weight, classes, x.dim(), "cross_entropy") : log_probs;
    Tensor counted = ne(t.to(kInt64), ignore_index).to(log_probs.dtype());
    Tensor smooth = masked_reduce(where(ne(counted, 0), neg(sum(all, {1})), 0), weights, reduction);
    return nll * (1.0 - label_smoothing) + smooth * (label_smoothing / static_cast<double>(classes));
  });
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>(
        "nn.mse_loss", [&] { return mse_loss(input, target, reduction); },
        {tracing::arg(input), tracing::arg(target), tracing::arg(reduction_name(reduction))});
  if (autocast::applies("mse_loss", input))
    return autocast::run("mse_loss", {input, target}, [&](const autocast::Cast& cast) { return mse_loss(cast(input), cast(target), reduction); });
  auto [x, y] = broadcast_pair(input, target, "mse_loss");
  Tensor d = x - y;
  return reduce(d * d, reduction);
}

Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>(
        "nn.l1_loss", [&] { return l1_loss(input, target, reduction); },
        {tracing::arg(input), tracing::arg(target), tracing::arg(reduction_name(reduction))});
  if (autocast::applies("l1_loss", input))
    return autocast::run("l1_loss", {input, target}, [&](const autocast::Cast& cast) { return l1_loss(cast(input), cast(target), reduction); });
  auto [x, y] = broadcast_pair(input, target, "l1_loss");
  return reduce(abs(x - y), reduction);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction, double beta) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>(
        "nn.smooth_l1_loss", [&] { return smooth_l1_loss(input, target, reduction, beta); },
        {tracing::arg(input), tracing::arg(target), tracing::arg(reduction_name(reduction)), tracing::arg(beta)});
  if (autocast::applies("smooth_l1_loss", input))
    return autocast::run("smooth_l1_loss", {input, target},
                         [&](const autocast::Cast& cast) { return smooth_l1_loss(cast(input), cast(target), reduction, beta); });
  EMBER_CHECK_VALUE(beta >= 0, "smooth_l1_loss: beta must be non-negative, got ", beta);
  auto [x, y] = broadcast_pair(input, target, "smooth_l1_loss");
  Tensor d = abs(x - y);
  if (beta == 0.0) return reduce(d, reduction);
  Tensor linear = ge(d, beta);
  // NB: the quadratic branch squares only the small differences: an infinite one squared there
  // would send 0 * inf = NaN back through where()'s unpicked side. A NaN difference is taken as
  // small, so its gradient is NaN, as PyTorch's.
  Tensor dq = where(linear, 0, d);
  Tensor loss = where(linear, d - 0.5 * beta, dq * dq * (0.5 / beta));
  return reduce(loss, reduction);
}

namespace {

// -log sigmoid(x) = log(1 + e^-x) for x >= 0 and -x + log(1 + e^x) below, so neither overflows,
// and its gradient is -sigmoid(-x) everywhere: the form log(1 + e^-|x|) + max(-x, 0) has
// derivative 0 at x = 0 (abs and relu both pick 0 there) instead of -1/2. Each branch sees only
// its own half of x, so the unpicked one sends no inf * 0 = NaN back through where().
Tensor neg_log_sigmoid(const Tensor& x) {
  Tensor negative = lt(x, 0);
  Tensor below = where(negative, x, 0);
  Tensor above = where(negative, 0, x);
  return where(negative, log1p(exp(below)) - below, log1p(exp(neg(above))));
}

// PyTorch's gradients, each one product with the incoming gradient: input's (pw t + 1 - t) sigmoid(x) - pw t
// (sigmoid(x) - t without pos_weight), target's log sigmoid(-x) - pw log sigmoid(x) (-x without), and the
// weights' their factor of the loss. Autograd's way through the loss's terms gave inf - inf = NaN for an
// infinite incoming gradient, where PyTorch's gives +-inf.
struct BceWithLogitsBackward : autograd::Node {
  autograd::SavedTensor input, target, pos_weight, weight;
  DimVector shapes[4];
  const char* name() const override { return "BinaryCrossEntropyWithLogitsBackward"; }
  autograd::TensorList apply(autograd::TensorList&& grads) override {
    const Tensor x = input.unpack(this), t = target.unpack(this), pw = pos_weight.unpack(this),
                 w = weight.unpack(this);
    const Tensor g = w.defined() ? grads[0] * w : grads[0];
    Tensor gx, gt, gpw, gw;
    if (needs_input_grad(0)) {
      Tensor d = pw.defined() ? ((pw * t + 1.0) - t) * sigmoid(x) - pw * t : sigmoid(x) - t;
      gx = sum_to(d * g, shapes[0]);
    }
    if (needs_input_grad(1)) {
      Tensor d = pw.defined() ? neg_log_sigmoid(x) * pw - neg_log_sigmoid(neg(x)) : neg(x);
      gt = sum_to(d * g, shapes[1]);
    }
    if (needs_input_grad(2)) gpw = sum_to(t * neg_log_sigmoid(x) * g, shapes[2]);
    if (needs_input_grad(3)) gw = sum_to(unweighted(x, t, pw) * grads[0], shapes[3]);
    return {gx, gt, gpw, gw};
  }
  void release_saved() override {
    input.reset();
    target.reset();
    pos_weight.reset();
    weight.reset();
  }
  static Tensor unweighted(const Tensor& x, const Tensor& t, const Tensor& pw) {
    Tensor log_sig_neg = neg_log_sigmoid(x);
    if (pw.defined()) return (1.0 - t) * x + ((pw - 1.0) * t + 1.0) * log_sig_neg;
    return (1.0 - t) * x + log_sig_neg;
  }
};

}  // namespace

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const Tensor& pos_weight, Reduction reduction, const Tensor& weight) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>(
        "nn.binary_cross_entropy_with_logits",
        [&] { return binary_cross_entropy_with_logits(input, target, pos_weight, reduction, weight); },
        {tracing::arg(input), tracing::arg(target), tracing::arg(pos_weight), tracing::arg(reduction_name(reduction)),
         tracing::arg(weight)});
  if (autocast::applies("binary_cross_entropy_with_logits", input))
    return autocast::run("binary_cross_entropy_with_logits", {input, target, pos_weight, weight}, [&](const autocast::Cast& cast) {
      return binary_cross_entropy_with_logits(cast(input), cast(target), cast(pos_weight), reduction, cast(weight));
    });
  check_same_shape(input, target, "binary_cross_entropy_with_logits");
  Tensor loss;
  {
    autograd::NoGradGuard no_grad;
    loss = BceWithLogitsBackward::unweighted(input, target, pos_weight);
    if (weight.defined()) loss = loss * weight;
  }
  if (autograd::any_requires_grad(input, target, pos_weight, weight)) {
    auto node = autograd::make_node<BceWithLogitsBackward>(input, target, pos_weight, weight);
    const Tensor* saved[] = {&input, &target, &pos_weight, &weight};
    for (int i = 0; i < 4; ++i)
      if (saved[i]->defined()) node->shapes[i] = saved[i]->sizes().vec();
    node->input = autograd::SavedTensor(input);
    node->target = autograd::SavedTensor(target);
    if (pos_weight.defined()) node->pos_weight = autograd::SavedTensor(pos_weight);
    if (weight.defined()) node->weight = autograd::SavedTensor(weight);
    autograd::set_history(loss, node);
  }
  return reduce(loss, reduction);
}

namespace {

// 1e-12 rounded to float32, PyTorch's EPSILON in the binary cross-entropy gradient.
constexpr double kEps1e12F32 = 9.999999960041972e-13;

// Refuses input or target outside [0, 1] (a NaN too: PyTorch's check is 0 <= x <= 1), reading one
// flag from the device for both.
void check_unit_interval(const Tensor& input, const Tensor& target) {
  autograd::NoGradGuard no_grad;
  auto inside = [](const Tensor& x) {
    return x.numel() == 0 ? ones({}, TensorOptions(kBool).device(x.device())) : all(logical_and(ge(x, 0), le(x, 1)));
  };
  Tensor in_ok = inside(input), target_ok = inside(target);
  if (logical_and(in_ok, target_ok.to(in_ok.device())).item<bool>()) return;
  EMBER_CHECK(false, "binary_cross_entropy: all elements of ", in_ok.item<bool>() ? "target" : "input",
              " should be between 0 and 1");
}

}  // namespace

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>(
        "nn.binary_cross_entropy", [&] { return binary_cross_entropy(input, target, weight, reduction); },
        {tracing::arg(input), tracing::arg(target), tracing::arg(weight), tracing::arg(reduction_name(reduction))});
  if (autocast::applies("binary_cross_entropy", input))
    return autocast::run("binary_cross_entropy", {input, target, weight}, [&](const autocast::Cast& cast) {
      return binary_cross_entropy(cast(input), cast(target), cast(weight), reduction);
    });
  EMBER_CHECK_VALUE(input.sizes() == target.sizes(), "binary_cross_entropy: using a target size (", target.sizes(),
                    ") that is different to the input size (", input.sizes(),
                    ") is deprecated. Please ensure they "
                    "have the same size.");
  check_unit_interval(input, target);
  Tensor loss;
  {
    autograd::NoGradGuard no_grad;
    loss = (target - 1.0) * clamp(log1p(neg(input)), -100.0) - target * clamp(log(input), -100.0);
  }
  autograd::record_function(
      "BinaryCrossEntropyBackward", loss, {input, target}, {input, target},
      [](const autograd::TensorList& saved, const autograd::TensorList& grads, const autograd::Node& node) {
        const Tensor &p = saved[0], &t = saved[1];
        Tensor gp, gt;
        if (node.needs_input_grad(0)) gp = grads[0] * (p - t) / clamp((1.0 - p) * p, kEps1e12F32);
        if (node.needs_input_grad(1)) gt = grads[0] * (log1p(neg(p)) - log(p));
        return autograd::TensorList{gp, gt};
      });
  if (weight.defined()) loss = loss * weight;
  return reduce(loss, reduction);
}

Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta) {
  if (tracing::recording()) [[unlikely]]
    return tracing::record<Tensor>(
        "nn.huber_loss", [&] { return huber_loss(input, target, reduction, delta); },
        {tracing::arg(input), tracing::arg(target), tracing::arg(reduction_name(reduction)), tracing::arg(delta)});
  if (autocast::applies("huber_loss", input))
    return autocast::run("huber_loss", {input, target}, [&](const autocast::Cast& cast) {
      return huber_loss(cast(input), cast(target), reduction, delta);
    });
  EMBER_CHECK_VALUE(delta > 0, "huber_loss: delta must be positive, got ", delta);
  auto [x, y] = broadcast_pair(input, target, "huber_loss");
  Tensor loss;
  {
    autograd::NoGradGuard no_grad;
    Tensor z = abs(x - y);
    loss = where(lt(z, delta), z * z * 0.5, (z - 0.5 * delta) * delta);
  }
  autograd::record_function(
      "HuberLossBackward", loss, {x, y}, {x, y},
      [delta](const autograd::TensorList& saved, const autograd::TensorList& grads, const autograd::Node&) {
        Tensor g = grads[0] * clamp(saved[0] - saved[1], -delta, delta);
        return autograd::TensorList{g, neg(g)};
      });
  // NB: computed in the dtype the two promote to, given in input's floating dtype, as PyTorch's.
  if (is_floating(input.dtype()) && loss.dtype() != input.dtype()) loss = loss.to(input.dtype());
  return reduce(loss, reduction);
}

Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction, bool log_target) {
  if (autocast::applies("kl_div", input))
    return autocast::run("kl_div", {input, target}, [&](const autocast::Cast& cast) {
      return kl_div(cast(input), cast(target), reduction, log_target);
    });
  // NB: target log target is 0 where target is 0 (xlogy's convention), NaN below; its gradient to a
  // target of 0 is NaN, as PyTorch's (xlogy's other / self = 0 / 0).
  Tensor loss =
      log_target ? exp(target) * (target - input) : where(eq(target, 0), 0, target * log(target)) - target * input;
  if (reduction != Reduction::BatchMean) return reduce(loss, reduction);
  return input.dim() > 0 ? sum(loss) / static_cast<double>(input.size(0)) : sum(loss);
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                        Reduction reduction) {
  if (autocast::applies("poisson_nll_loss", input))
    return autocast::run("poisson_nll_loss", {input, target}, [&](const autocast::Cast& cast) {
      return poisson_nll_loss(cast(input), cast(target), log_input, full, eps, reduction);
    });
  Tensor loss = log_input ? exp(input) - target * input : input - target * log(input + eps);
  if (full) {
    Tensor counted = gt(target, 1);
    Tensor safe = where(counted, target, 1.0);
    Tensor stirling = safe * log(safe) - safe + 0.5 * log(safe * (2 * std::numbers::pi));
    loss = loss + where(counted, stirling, 0.0);
  }
  return reduce(loss, reduction);
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full, double eps,
                         Reduction reduction) {
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    const IntArrayRef in = input.sizes(), vs = var.sizes();
    const IntArrayRef in_lead(in.data(), in.empty() ? 0 : in.size() - 1);
    const bool lacks_last = !in.empty() && in_lead == vs;
    const bool last_one =
        !in.empty() && var.dim() == input.dim() && vs.back() == 1 && in_lead == IntArrayRef(vs.data(), vs.size() - 1);
    EMBER_CHECK_VALUE(lacks_last || last_one, "gaussian_nll_loss: var is of incorrect size: input ", in, ", var ", vs,
                      " (expected input's shape, input's without its last dim, or that dim 1)");
    if (lacks_last) v = unsqueeze(var, -1);
  }
  {
    autograd::NoGradGuard no_grad;
    EMBER_CHECK_VALUE(!any(lt(var, 0)).item<bool>(), "gaussian_nll_loss: var has negative entry/entries");
  }
  // Clamped in value only: the gradient passes to var as if unclamped, as PyTorch's (an in-place
  // clamp under no_grad there).
  v = v + (clamp(v, eps) - v).detach();
  Tensor d = input - target;
  Tensor loss = 0.5 * (log(v) + d * d / v);
  if (full) loss = loss + 0.5 * std::log(2 * std::numbers::pi);
  return reduce(loss, reduction);
}

}  // namespace ember::nn::functional
