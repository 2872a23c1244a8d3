#pragma once
// The loss modules (torch.nn's): each holds an options struct and forwards the tensors it compares
// to its functional form. Class weights are buffers ("weight", "pos_weight"), so state_dict saves
// them and to() moves them, as in PyTorch. Module's one-tensor forward is refused: a loss takes
// (input, target), or the three or four tensors its functional form takes.
//
//   nn::CrossEntropyLoss loss({.label_smoothing = 0.1});
//   Tensor l = loss.forward(logits, labels);
//
// Each options struct lists its scalar options in fields() and its class weights in weights(), by
// PyTorch's names; io saves and restores a loss through them, and the Python binding exposes them
// as attributes.
#include <string>
#include <tuple>

#include "ember/nn/ctc_loss.h"
#include "ember/nn/loss.h"
#include "ember/nn/margin_loss.h"
#include "ember/nn/module.h"
#include "ember/nn/option_field.h"

namespace ember::nn {

using functional::Reduction;

/// The base of every loss module.
class Loss : public Module {
 public:
  using Module::Module;
  /// Refused: a loss compares two or more tensors.
  Tensor forward(const Tensor& input) override;
  /// The weight buffer `name` ("weight", "pos_weight"), undefined when the loss was built without it.
  Tensor weight(const std::string& name = "weight") const;

 protected:
  void register_weight(const std::string& name, const Tensor& weight);
};

/// f(field) for each class-weight tensor of a loss's options struct (its weights(), where it has
/// one): the buffers the loss registers, io records and Python shows.
template <typename O, typename F>
void for_each_weight(F&& f) {
  if constexpr (requires { O::weights(); }) std::apply([&](auto... w) { (f(w), ...); }, O::weights());
}

/// A loss with options of type O; its class weights, where given, become buffers of their names.
template <typename O>
class LossWith : public Loss {
 public:
  using Options = O;
  LossWith(std::string type_name, O options) : Loss(std::move(type_name)), options_(std::move(options)) {
    for_each_weight<O>([this](auto w) { register_weight(w.name, options_.*(w.member)); });
  }
  const O& options() const { return options_; }
  O& options() { return options_; }

 protected:
  O options_;
};

struct L1LossOptions {
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() { return std::make_tuple(field("reduction", &L1LossOptions::reduction)); }
};
struct MSELossOptions {
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() { return std::make_tuple(field("reduction", &MSELossOptions::reduction)); }
};
struct CrossEntropyLossOptions {
  Tensor weight;  // [C] class weights (optional): the buffer "weight"
  int64_t ignore_index = -100;
  Reduction reduction = Reduction::Mean;
  double label_smoothing = 0.0;
  static constexpr auto fields() {
    return std::make_tuple(field("ignore_index", &CrossEntropyLossOptions::ignore_index),
                           field("reduction", &CrossEntropyLossOptions::reduction),
                           field("label_smoothing", &CrossEntropyLossOptions::label_smoothing));
  }
  static auto weights() { return std::make_tuple(field("weight", &CrossEntropyLossOptions::weight)); }
};
struct NLLLossOptions {
  Tensor weight;
  int64_t ignore_index = -100;
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() {
    return std::make_tuple(field("ignore_index", &NLLLossOptions::ignore_index),
                           field("reduction", &NLLLossOptions::reduction));
  }
  static auto weights() { return std::make_tuple(field("weight", &NLLLossOptions::weight)); }
};
struct BCELossOptions {
  Tensor weight;  // broadcast against each element's loss
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() { return std::make_tuple(field("reduction", &BCELossOptions::reduction)); }
  static auto weights() { return std::make_tuple(field("weight", &BCELossOptions::weight)); }
};
struct BCEWithLogitsLossOptions {
  Tensor weight;
  Reduction reduction = Reduction::Mean;
  Tensor pos_weight;  // weighs the positive term, broadcast over the last dim: the buffer "pos_weight"
  static constexpr auto fields() { return std::make_tuple(field("reduction", &BCEWithLogitsLossOptions::reduction)); }
  static auto weights() {
    return std::make_tuple(field("weight", &BCEWithLogitsLossOptions::weight),
                           field("pos_weight", &BCEWithLogitsLossOptions::pos_weight));
  }
};
struct SmoothL1LossOptions {
  Reduction reduction = Reduction::Mean;
  double beta = 1.0;
  static constexpr auto fields() {
    return std::make_tuple(field("reduction", &SmoothL1LossOptions::reduction),
                           field("beta", &SmoothL1LossOptions::beta));
  }
};
struct HuberLossOptions {
  Reduction reduction = Reduction::Mean;
  double delta = 1.0;
  static constexpr auto fields() {
    return std::make_tuple(field("reduction", &HuberLossOptions::reduction), field("delta", &HuberLossOptions::delta));
  }
};
struct KLDivLossOptions {
  Reduction reduction = Reduction::Mean;  // BatchMean allowed
  bool log_target = false;
  static constexpr auto fields() {
    return std::make_tuple(field("reduction", &KLDivLossOptions::reduction),
                           field("log_target", &KLDivLossOptions::log_target));
  }
};
struct PoissonNLLLossOptions {
  bool log_input = true;
  bool full = false;
  double eps = 1e-8;
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() {
    return std::make_tuple(field("log_input", &PoissonNLLLossOptions::log_input),
                           field("full", &PoissonNLLLossOptions::full), field("eps", &PoissonNLLLossOptions::eps),
                           field("reduction", &PoissonNLLLossOptions::reduction));
  }
};
struct GaussianNLLLossOptions {
  bool full = false;
  double eps = 1e-6;
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() {
    return std::make_tuple(field("full", &GaussianNLLLossOptions::full), field("eps", &GaussianNLLLossOptions::eps),
                           field("reduction", &GaussianNLLLossOptions::reduction));
  }
};
struct MarginRankingLossOptions {
  double margin = 0.0;
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() {
    return std::make_tuple(field("margin", &MarginRankingLossOptions::margin),
                           field("reduction", &MarginRankingLossOptions::reduction));
  }
};
struct HingeEmbeddingLossOptions {
  double margin = 1.0;
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() {
    return std::make_tuple(field("margin", &HingeEmbeddingLossOptions::margin),
                           field("reduction", &HingeEmbeddingLossOptions::reduction));
  }
};
struct SoftMarginLossOptions {
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() { return std::make_tuple(field("reduction", &SoftMarginLossOptions::reduction)); }
};
struct MultiLabelSoftMarginLossOptions {
  Tensor weight;
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() {
    return std::make_tuple(field("reduction", &MultiLabelSoftMarginLossOptions::reduction));
  }
  static auto weights() { return std::make_tuple(field("weight", &MultiLabelSoftMarginLossOptions::weight)); }
};
struct CosineEmbeddingLossOptions {
  double margin = 0.0;
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() {
    return std::make_tuple(field("margin", &CosineEmbeddingLossOptions::margin),
                           field("reduction", &CosineEmbeddingLossOptions::reduction));
  }
};
struct MultiMarginLossOptions {
  int64_t p = 1;
  double margin = 1.0;
  Tensor weight;
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() {
    return std::make_tuple(field("p", &MultiMarginLossOptions::p), field("margin", &MultiMarginLossOptions::margin),
                           field("reduction", &MultiMarginLossOptions::reduction));
  }
  static auto weights() { return std::make_tuple(field("weight", &MultiMarginLossOptions::weight)); }
};
struct MultiLabelMarginLossOptions {
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() {
    return std::make_tuple(field("reduction", &MultiLabelMarginLossOptions::reduction));
  }
};
struct TripletMarginLossOptions {
  double margin = 1.0;
  double p = 2.0;
  double eps = 1e-6;
  bool swap = false;
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() {
    return std::make_tuple(field("margin", &TripletMarginLossOptions::margin), field("p", &TripletMarginLossOptions::p),
                           field("eps", &TripletMarginLossOptions::eps), field("swap", &TripletMarginLossOptions::swap),
                           field("reduction", &TripletMarginLossOptions::reduction));
  }
};
struct TripletMarginWithDistanceLossOptions {
  functional::DistanceFunction distance_function;  // none: pairwise_distance (not saved by io)
  double margin = 1.0;
  bool swap = false;
  Reduction reduction = Reduction::Mean;
  static constexpr auto fields() {
    return std::make_tuple(field("margin", &TripletMarginWithDistanceLossOptions::margin),
                           field("swap", &TripletMarginWithDistanceLossOptions::swap),
                           field("reduction", &TripletMarginWithDistanceLossOptions::reduction));
  }
};
struct CTCLossOptions {
  int64_t blank = 0;
  Reduction reduction = Reduction::Mean;
  bool zero_infinity = false;
  static constexpr auto fields() {
    return std::make_tuple(field("blank", &CTCLossOptions::blank), field("reduction", &CTCLossOptions::reduction),
                           field("zero_infinity", &CTCLossOptions::zero_infinity));
  }
};

// forward(input, target)
#define EMBER_PAIR_LOSS(Name)                                  \
  class Name : public LossWith<Name##Options> {                \
   public:                                                     \
    explicit Name(Name##Options options = {});                 \
    using Loss::forward;                                       \
    Tensor forward(const Tensor& input, const Tensor& target); \
  };
EMBER_PAIR_LOSS(L1Loss)
EMBER_PAIR_LOSS(MSELoss)
EMBER_PAIR_LOSS(CrossEntropyLoss)
EMBER_PAIR_LOSS(NLLLoss)
EMBER_PAIR_LOSS(BCELoss)
EMBER_PAIR_LOSS(BCEWithLogitsLoss)
EMBER_PAIR_LOSS(SmoothL1Loss)
EMBER_PAIR_LOSS(HuberLoss)
EMBER_PAIR_LOSS(KLDivLoss)
EMBER_PAIR_LOSS(PoissonNLLLoss)
EMBER_PAIR_LOSS(HingeEmbeddingLoss)
EMBER_PAIR_LOSS(SoftMarginLoss)
EMBER_PAIR_LOSS(MultiLabelSoftMarginLoss)
EMBER_PAIR_LOSS(MultiMarginLoss)
EMBER_PAIR_LOSS(MultiLabelMarginLoss)
#undef EMBER_PAIR_LOSS

// forward(a, b, c): GaussianNLLLoss(input, target, var), MarginRankingLoss and
// CosineEmbeddingLoss(input1, input2, target), the triplet losses (anchor, positive, negative).
#define EMBER_TRIPLE_LOSS(Name)                                        \
  class Name : public LossWith<Name##Options> {                        \
   public:                                                             \
    explicit Name(Name##Options options = {});                         \
    using Loss::forward;                                               \
    Tensor forward(const Tensor& a, const Tensor& b, const Tensor& c); \
  };
EMBER_TRIPLE_LOSS(GaussianNLLLoss)
EMBER_TRIPLE_LOSS(MarginRankingLoss)
EMBER_TRIPLE_LOSS(CosineEmbeddingLoss)
EMBER_TRIPLE_LOSS(TripletMarginLoss)
EMBER_TRIPLE_LOSS(TripletMarginWithDistanceLoss)
#undef EMBER_TRIPLE_LOSS

class CTCLoss : public LossWith<CTCLossOptions> {
 public:
  explicit CTCLoss(CTCLossOptions options = {});
  using Loss::forward;
  /// log_probs [T, N, C], targets, and the [N] input and target lengths (integer tensors).
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);
};

}  // namespace ember::nn
