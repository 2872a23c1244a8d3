#pragma once
// Embedding: a [num_embeddings, embedding_dim] table looked up by integer indices; the row of
// padding_idx starts at zero and gets no gradient.
#include <optional>

#include "ember/nn/module.h"

namespace ember::nn {

struct EmbeddingOptions {
  int64_t num_embeddings;
  int64_t embedding_dim;
  std::optional<int64_t> padding_idx;
};

class Embedding : public Module {
 public:
  explicit Embedding(EmbeddingOptions options);
  Embedding(int64_t num_embeddings, int64_t embedding_dim)
      : Embedding(EmbeddingOptions{num_embeddings, embedding_dim, std::nullopt}) {}
  Tensor forward(const Tensor& indices) override;
  std::string extra_repr() const override;
  void reset_parameters();
  const Tensor& weight() const { return parameter("weight"); }
  const EmbeddingOptions& options() const { return options_; }

 private:
  EmbeddingOptions options_;
};

}  // namespace ember::nn
