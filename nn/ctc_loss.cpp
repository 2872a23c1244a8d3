#include "ember/nn/ctc_loss.h"

#include <algorithm>
#include <limits>

#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/ops.h"

namespace ember::nn::functional {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// log(sum(exp(terms))) over the last dim of the stacked terms, -inf where every term is -inf, with
// zero gradient there (logsumexp would give NaN: exp(-inf - -inf)).
Tensor log_add_exp(const std::vector<Tensor>& terms) {
  Tensor stacked = stack(terms, -1);
  Tensor top = amax(stacked.detach(), {-1}, true);  // NB: the shift cancels in the value, so no gradient
  top = where(isfinite(top), top, 0.0);
  Tensor total = sum(exp(stacked - top), {-1});
  Tensor some = gt(total, 0);
  return where(some, log(where(some, total, 1.0)) + squeeze(top, -1), kNegInf);
}

// [N, 2 S + 1] int64: each sample's labels between blanks, padded with blanks (S the longest
// target), and where the recursion may skip the blank before a position (a label that differs from
// the one two places back).
std::pair<std::vector<int64_t>, std::vector<bool>> extended_labels(const Tensor& targets,
                                                                   const std::vector<int64_t>& lengths, int64_t batch,
                                                                   int64_t blank) {
  EMBER_CHECK(targets.dim() == 1 || targets.dim() == 2, "ctc_loss: expected targets of 1 to 2 dimensions, but got ",
              targets.dim(), "-dimensional tensor of size ", targets.sizes());
  const std::vector<int64_t> values = to_int64_vector(targets, "ctc_loss: targets");
  const int64_t longest = lengths.empty() ? 0 : *std::max_element(lengths.begin(), lengths.end());
  int64_t total = 0;
  for (int64_t l : lengths) total += l;
  if (targets.dim() == 2) {
    EMBER_CHECK(targets.size(0) == batch, "ctc_loss: targets of size ", targets.sizes(), " must have batch_size ",
                batch, " rows");
    EMBER_CHECK(targets.size(1) >= longest, "ctc_loss: expected targets to have size at least ", longest,
                " at dimension 1 (the longest target length), but got targets of size ", targets.sizes());
  } else {
    EMBER_CHECK(targets.size(0) == total, "ctc_loss: concatenated targets of size ", targets.sizes(),
                " must have sum(target_lengths) = ", total, " elements");
  }
  const int64_t width = 2 * longest + 1;
  std::vector<int64_t> labels(static_cast<size_t>(batch * width), blank);
  std::vector<bool> skip(labels.size(), false);
  int64_t start = 0;
  for (int64_t n = 0; n < batch; ++n) {
    const int64_t first = targets.dim() == 2 ? n * targets.size(1) : start;
    for (int64_t k = 0; k < lengths[n]; ++k) labels[n * width + 2 * k + 1] = values[first + k];
    for (int64_t s = 3; s < width; s += 2) skip[n * width + s] = labels[n * width + s] != labels[n * width + s - 2];
    start += lengths[n];
  }
  return {labels, skip};
}

}  // namespace

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const std::vector<int64_t>& input_lengths,
                const std::vector<int64_t>& target_lengths, int64_t blank, Reduction reduction, bool zero_infinity) {
  if (autocast::applies("ctc_loss", log_probs))
    return autocast::run("ctc_loss", {log_probs}, [&](const autocast::Cast& cast) {
      return ctc_loss(cast(log_probs), targets, input_lengths, target_lengths, blank, reduction, zero_infinity);
    });
  EMBER_CHECK_VALUE(reduction != Reduction::BatchMean, "ctc_loss: batchmean is not a valid value for reduction");
  EMBER_CHECK(log_probs.dim() == 2 || log_probs.dim() == 3,
              "ctc_loss: expected log_probs of 2 (unbatched [T, C]) "
              "or 3 ([T, N, C]) dimensions, got size ",
              log_probs.sizes());
  const bool unbatched = log_probs.dim() == 2;
  const Tensor lp = unbatched ? unsqueeze(log_probs, 1) : log_probs;
  const Tensor tg = unbatched && targets.dim() == 1 ? unsqueeze(targets, 0) : targets;
  const int64_t steps = lp.size(0), batch = lp.size(1), classes = lp.size(2);
  EMBER_CHECK(static_cast<int64_t>(input_lengths.size()) == batch,
              "ctc_loss: input_lengths must be of size "
              "batch_size: got ",
              input_lengths.size(), " lengths, log_probs of size ", log_probs.sizes());
  EMBER_CHECK(static_cast<int64_t>(target_lengths.size()) == batch,
              "ctc_loss: target_lengths must be of size "
              "batch_size: got ",
              target_lengths.size(), " lengths, log_probs of size ", log_probs.sizes());
  EMBER_CHECK(blank >= 0 && blank < classes, "ctc_loss: blank must be in label range: blank=", blank, ", ", classes,
              " classes");
  for (int64_t v : input_lengths)
    EMBER_CHECK(v >= 0 && v <= steps, "ctc_loss: Expected input_lengths to have values in [0, ", steps,
                "], but got value ", v);
  for (int64_t v : target_lengths)
    EMBER_CHECK(v >= 0, "ctc_loss: Expected target_lengths to have values in [0, inf], but got value ", v);
  auto [label_values, skip_values] = extended_labels(tg, target_lengths, batch, blank);
  const Device device = lp.device();
  const int64_t width = static_cast<int64_t>(label_values.size()) / std::max<int64_t>(batch, 1);
  Tensor labels = tensor(label_values, {batch, width}).to(device);
  Tensor skip = tensor(skip_values, {batch, width}, TensorOptions(kBool)).to(device);
  // emissions[t, n, s] = log_probs[t, n, label s of sample n]
  Tensor emissions = gather(lp, 2, expand(unsqueeze(labels, 0), {steps, batch, width}));
  const TensorOptions like = TensorOptions(lp.dtype()).device(device);
  Tensor pad = full({batch, 2}, kNegInf, like);
  // NB: alpha starts one frame before the first, all its mass on the leading blank (log 1 = 0), so a
  // sample with input length 0 keeps it and costs 0 when its target is empty, as in PyTorch.
  std::vector<double> start(static_cast<size_t>(batch * width), kNegInf);
  for (int64_t n = 0; n < batch; ++n) start[n * width] = 0.0;
  Tensor alpha = tensor(start, {batch, width}).to(lp.dtype()).to(device);
  std::vector<bool> active_values(static_cast<size_t>(steps * batch));
  for (int64_t t = 0; t < steps; ++t)
    for (int64_t n = 0; n < batch; ++n) active_values[t * batch + n] = t < input_lengths[n];
  Tensor active = tensor(active_values, {steps, batch}, TensorOptions(kBool)).to(device);
  const int64_t frames = input_lengths.empty() ? 0 : *std::max_element(input_lengths.begin(), input_lengths.end());
  Tensor minus_inf = full_like(alpha, kNegInf);
  for (int64_t t = 0; t < frames; ++t) {
    std::vector<Tensor> terms{alpha, cat({slice(pad, 1, 0, 1), slice(alpha, 1, 0, width - 1)}, 1)};
    if (width > 2) terms.push_back(where(skip, cat({pad, slice(alpha, 1, 0, width - 2)}, 1), minus_inf));
    alpha = where(unsqueeze(select(active, 0, t), 1), log_add_exp(terms) + select(emissions, 0, t), alpha);
  }
  std::vector<int64_t> ends(target_lengths.size()), before_ends(target_lengths.size());
  std::vector<bool> has_label(target_lengths.size());
  for (size_t n = 0; n < ends.size(); ++n) {
    ends[n] = 2 * target_lengths[n];
    before_ends[n] = std::max<int64_t>(ends[n] - 1, 0);
    has_label[n] = ends[n] > 0;
  }
  Tensor last = squeeze(gather(alpha, 1, tensor(ends, {batch, 1}).to(device)), 1);
  Tensor before = squeeze(gather(alpha, 1, tensor(before_ends, {batch, 1}).to(device)), 1);
  Tensor labelled = tensor(has_label, {batch}, TensorOptions(kBool)).to(device);
  Tensor loss = neg(log_add_exp({last, where(labelled, before, kNegInf)}));
  // NB: PyTorch's backward gives d loss / d log_probs[t, n, c] = exp(log_probs) - (the alignments'
  // occupancy of c at t) for t < input length: the gradient with respect to the logits when log_probs
  // is their log_softmax, not the derivative of the loss in log_probs (which lacks exp(log_probs)).
  // A term worth exactly 0 whose gradient is exp(log_probs) on those frames gives PyTorch's gradients
  // for any log_probs, so models that feed raw log_probs train the same.
  Tensor probs = exp(lp);
  loss = loss + sum((probs - probs.detach()) * unsqueeze(active, 2).to(lp.dtype()), {0, 2});
  if (zero_infinity) loss = where(isinf(loss), 0.0, loss);
  if (reduction == Reduction::Mean) {
    std::vector<double> divisors(target_lengths.size());
    for (size_t n = 0; n < divisors.size(); ++n)
      divisors[n] = std::max<double>(static_cast<double>(target_lengths[n]), 1.0);
    return mean(loss / tensor(divisors, {batch}).to(lp.dtype()).to(device));
  }
  if (reduction == Reduction::Sum) return sum(loss);
  return unbatched ? squeeze(loss, 0) : loss;
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, Reduction reduction, bool zero_infinity) {
  return ctc_loss(log_probs, targets, to_int64_vector(input_lengths, "ctc_loss: input_lengths"),
                  to_int64_vector(target_lengths, "ctc_loss: target_lengths"), blank, reduction, zero_infinity);
}

}  // namespace ember::nn::functional
