#pragma once
// The distance and margin losses of torch.nn.functional: the ones that compare embeddings (margin
// ranking, hinge embedding, cosine embedding, triplet margin), the margin classifiers' (soft margin,
// multi-label soft margin, multi-class and multi-label margin), pairwise_distance and pdist. Each
// is composed of differentiable ops (multi_margin_loss has PyTorch's gradient as its own) and
// reduced as PyTorch's.
#include <functional>

#include "ember/nn/activation_functional.h"  // logsigmoid
#include "ember/nn/loss.h"

namespace ember::nn::functional {

/// ||x1 - x2 + eps||_p along the last dim (broadcast).
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6, bool keepdim = false);
/// The p-norm distances between every pair of rows i < j of input [N, M], in row-major order.
Tensor pdist(const Tensor& input, double p = 2.0);

/// max(0, -target (input1 - input2) + margin): target 1 asks input1 to rank higher.
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                           Reduction reduction = Reduction::Mean);
/// input where target is 1, max(0, margin - input) where it is -1.
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin = 1.0,
                            Reduction reduction = Reduction::Mean);
/// log(1 + e^(-target input)), for targets of 1 and -1.
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);
/// -(t log sigmoid(x) + (1 - t) log sigmoid(-x)), weighted (weight optional, [C]), averaged over
/// the classes (the last dim), then reduced over the batch.
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight = Tensor(),
                                   Reduction reduction = Reduction::Mean);
/// 1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1 (the cosine along
/// the last dim, squared norms kept off zero by PyTorch's float32 1e-12).
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                             Reduction reduction = Reduction::Mean);
/// max(d(anchor, positive) - d(anchor, negative) + margin, 0), d = pairwise_distance(p, eps);
/// swap takes the negative's distance to the positive when that is smaller. margin must be > 0.
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin = 1.0,
                           double p = 2.0, double eps = 1e-6, bool swap = false, Reduction reduction = Reduction::Mean);
/// A distance between two batches of embeddings, one value per row.
using DistanceFunction = std::function<Tensor(const Tensor&, const Tensor&)>;
/// triplet_margin_loss with any distance (none: pairwise_distance).
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const DistanceFunction& distance_function = nullptr, double margin = 1.0,
                                         bool swap = false, Reduction reduction = Reduction::Mean);
/// sum over j != target of max(0, margin - input[target] + input[j])^p / C per sample (times
/// weight[target]), for input [N, C] (or [C]) and class indices target; p is 1 or 2.
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p = 1, double margin = 1.0,
                         const Tensor& weight = Tensor(), Reduction reduction = Reduction::Mean);
/// sum over the target classes j and the other classes i of max(0, 1 - (input[j] - input[i])) / C,
/// for input [N, C] (or [C]) and target of input's shape holding each sample's classes, ended by -1.
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, Reduction reduction = Reduction::Mean);

}  // namespace ember::nn::functional
