#pragma once
// EmbeddingBag (torch.nn's): the sum, mean or max of the embeddings of each bag of indices, bags
// given as the rows of a 2-D input or as a 1-D input cut at offsets, composed of index_select and
// index_add (segment sums), so the weight gets its gradient.
#include <optional>
#include <string>

#include "ember/nn/module.h"

namespace ember::nn {

namespace functional {

/// [B, D] reductions ("sum", "mean" or "max") of weight's rows at each bag's indices; an empty bag
/// gives zeros. A 2-D input [B, L] is B bags of L; a 1-D input is cut at offsets [B] (or [B + 1]
/// with include_last_offset). per_sample_weights (input's shape, mode "sum" only) scale each
/// index's row; padding_idx's rows take no part (nor count in a mean).
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets = Tensor(),
                     const std::string& mode = "mean", const Tensor& per_sample_weights = Tensor(),
                     bool include_last_offset = false, std::optional<int64_t> padding_idx = std::nullopt);

}  // namespace functional

struct EmbeddingBagOptions {
  int64_t num_embeddings;
  int64_t embedding_dim;
  std::string mode = "mean";
  bool include_last_offset = false;
  std::optional<int64_t> padding_idx;
};

/// weight [num_embeddings, embedding_dim] from N(0, 1), the padding row zero, as PyTorch's.
class EmbeddingBag : public Module {
 public:
  explicit EmbeddingBag(EmbeddingBagOptions options);
  /// The bags of a 2-D input.
  Tensor forward(const Tensor& input) override;
  Tensor forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights = Tensor());
  std::string extra_repr() const override;
  void reset_parameters();
  const Tensor& weight() const { return parameter("weight"); }
  const EmbeddingBagOptions& options() const { return options_; }

 private:
  EmbeddingBagOptions options_;
};

}  // namespace ember::nn
