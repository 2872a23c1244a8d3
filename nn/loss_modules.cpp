#include "ember/nn/loss_modules.h"

#include "ember/core/error.h"

namespace ember::nn {

namespace F = functional;

Tensor Loss::forward(const Tensor&) {
  throw TypeError(type_name() + ".forward takes the tensors it compares (input and target, or more), not one tensor");
}

Tensor Loss::weight(const std::string& name) const { return has_buffer(name) ? buffer(name) : Tensor(); }

void Loss::register_weight(const std::string& name, const Tensor& weight) {
  if (weight.defined()) register_buffer(name, weight);
}

L1Loss::L1Loss(L1LossOptions o) : LossWith("L1Loss", o) {}
Tensor L1Loss::forward(const Tensor& input, const Tensor& target) {
  return F::l1_loss(input, target, options_.reduction);
}

MSELoss::MSELoss(MSELossOptions o) : LossWith("MSELoss", o) {}
Tensor MSELoss::forward(const Tensor& input, const Tensor& target) {
  return F::mse_loss(input, target, options_.reduction);
}

CrossEntropyLoss::CrossEntropyLoss(CrossEntropyLossOptions o) : LossWith("CrossEntropyLoss", o) {}
Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  return F::cross_entropy(input, target, options_.ignore_index, options_.reduction, options_.label_smoothing, weight());
}

NLLLoss::NLLLoss(NLLLossOptions o) : LossWith("NLLLoss", o) {}
Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) {
  return F::nll_loss(input, target, options_.ignore_index, options_.reduction, weight());
}

BCELoss::BCELoss(BCELossOptions o) : LossWith("BCELoss", o) {}
Tensor BCELoss::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy(input, target, weight(), options_.reduction);
}

BCEWithLogitsLoss::BCEWithLogitsLoss(BCEWithLogitsLossOptions o) : LossWith("BCEWithLogitsLoss", o) {}
Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy_with_logits(input, target, weight("pos_weight"), options_.reduction, weight());
}

SmoothL1Loss::SmoothL1Loss(SmoothL1LossOptions o) : LossWith("SmoothL1Loss", o) {}
Tensor SmoothL1Loss::forward(const Tensor& input, const Tensor& target) {
  return F::smooth_l1_loss(input, target, options_.reduction, options_.beta);
}

HuberLoss::HuberLoss(HuberLossOptions o) : LossWith("HuberLoss", o) {}
Tensor HuberLoss::forward(const Tensor& input, const Tensor& target) {
  return F::huber_loss(input, target, options_.reduction, options_.delta);
}

KLDivLoss::KLDivLoss(KLDivLossOptions o) : LossWith("KLDivLoss", o) {}
Tensor KLDivLoss::forward(const Tensor& input, const Tensor& target) {
  return F::kl_div(input, target, options_.reduction, options_.log_target);
}

PoissonNLLLoss::PoissonNLLLoss(PoissonNLLLossOptions o) : LossWith("PoissonNLLLoss", o) {}
Tensor PoissonNLLLoss::forward(const Tensor& input, const Tensor& target) {
  return F::poisson_nll_loss(input, target, options_.log_input, options_.full, options_.eps, options_.reduction);
}

HingeEmbeddingLoss::HingeEmbeddingLoss(HingeEmbeddingLossOptions o) : LossWith("HingeEmbeddingLoss", o) {}
Tensor HingeEmbeddingLoss::forward(const Tensor& input, const Tensor& target) {
  return F::hinge_embedding_loss(input, target, options_.margin, options_.reduction);
}

SoftMarginLoss::SoftMarginLoss(SoftMarginLossOptions o) : LossWith("SoftMarginLoss", o) {}
Tensor SoftMarginLoss::forward(const Tensor& input, const Tensor& target) {
  return F::soft_margin_loss(input, target, options_.reduction);
}

MultiLabelSoftMarginLoss::MultiLabelSoftMarginLoss(MultiLabelSoftMarginLossOptions o)
    : LossWith("MultiLabelSoftMarginLoss", o) {}
Tensor MultiLabelSoftMarginLoss::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_soft_margin_loss(input, target, weight(), options_.reduction);
}

MultiMarginLoss::MultiMarginLoss(MultiMarginLossOptions o) : LossWith("MultiMarginLoss", o) {
  EMBER_CHECK_VALUE(o.p == 1 || o.p == 2, "MultiMarginLoss: only p == 1 and p == 2 supported, got ", o.p);
}
Tensor MultiMarginLoss::forward(const Tensor& input, const Tensor& target) {
  return F::multi_margin_loss(input, target, options_.p, options_.margin, weight(), options_.reduction);
}

MultiLabelMarginLoss::MultiLabelMarginLoss(MultiLabelMarginLossOptions o) : LossWith("MultiLabelMarginLoss", o) {}
Tensor MultiLabelMarginLoss::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_margin_loss(input, target, options_.reduction);
}

GaussianNLLLoss::GaussianNLLLoss(GaussianNLLLossOptions o) : LossWith("GaussianNLLLoss", o) {}
Tensor GaussianNLLLoss::forward(const Tensor& input, const Tensor& target, const Tensor& var) {
  return F::gaussian_nll_loss(input, target, var, options_.full, options_.eps, options_.reduction);
}

MarginRankingLoss::MarginRankingLoss(MarginRankingLossOptions o) : LossWith("MarginRankingLoss", o) {}
Tensor MarginRankingLoss::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return F::margin_ranking_loss(input1, input2, target, options_.margin, options_.reduction);
}

CosineEmbeddingLoss::CosineEmbeddingLoss(CosineEmbeddingLossOptions o) : LossWith("CosineEmbeddingLoss", o) {}
Tensor CosineEmbeddingLoss::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return F::cosine_embedding_loss(input1, input2, target, options_.margin, options_.reduction);
}

TripletMarginLoss::TripletMarginLoss(TripletMarginLossOptions o) : LossWith("TripletMarginLoss", o) {
  EMBER_CHECK_VALUE(o.margin > 0, "TripletMarginLoss: margin must be greater than 0, got ", o.margin);
}
Tensor TripletMarginLoss::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  return F::triplet_margin_loss(anchor, positive, negative, options_.margin, options_.p, options_.eps, options_.swap,
                                options_.reduction);
}

TripletMarginWithDistanceLoss::TripletMarginWithDistanceLoss(TripletMarginWithDistanceLossOptions o)
    : LossWith("TripletMarginWithDistanceLoss", std::move(o)) {
  EMBER_CHECK_VALUE(options_.margin > 0, "TripletMarginWithDistanceLoss: margin must be greater than 0, got ",
                    options_.margin);
}
Tensor TripletMarginWithDistanceLoss::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  return F::triplet_margin_with_distance_loss(anchor, positive, negative, options_.distance_function, options_.margin,
                                              options_.swap, options_.reduction);
}

CTCLoss::CTCLoss(CTCLossOptions o) : LossWith("CTCLoss", o) {}
Tensor CTCLoss::forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                        const Tensor& target_lengths) {
  return F::ctc_loss(log_probs, targets, input_lengths, target_lengths, options_.blank, options_.reduction,
                     options_.zero_infinity);
}

}  // namespace ember::nn
