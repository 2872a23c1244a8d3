#include "ember/nn/embedding.h"

#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/nn/init.h"
#include "ember/ops/index.h"
#include "ember/ops/view.h"

namespace ember::nn {

Embedding::Embedding(EmbeddingOptions options) : Module("Embedding"), options_(options) {
  EMBER_CHECK_VALUE(options.num_embeddings > 0 && options.embedding_dim > 0,
                    "Embedding: sizes must be positive, got ", options.num_embeddings, " x ",
                    options.embedding_dim);
  if (options.padding_idx) {
    int64_t p = *options.padding_idx;
    EMBER_CHECK_INDEX(p >= -options.num_embeddings && p < options.num_embeddings,
                      "Embedding: padding_idx ", p, " must be within num_embeddings (",
                      options.num_embeddings, ")");
    if (p < 0) options_.padding_idx = p + options.num_embeddings;
  }
  register_parameter("weight", empty({options.num_embeddings, options.embedding_dim}));
  reset_parameters();
}

void Embedding::reset_parameters() {
  init::normal_(weight());
  if (options_.padding_idx) {
    NoGradGuard no_grad;
    select(weight(), 0, *options_.padding_idx).fill_(0);
  }
}

Tensor Embedding::forward(const Tensor& indices) {
  return embedding(weight(), indices, options_.padding_idx);
}

std::string Embedding::extra_repr() const {
  std::string s = detail::str(options_.num_embeddings, ", ", options_.embedding_dim);
  if (options_.padding_idx) s += detail::str(", padding_idx=", *options_.padding_idx);
  return s;
}

}  // namespace ember::nn
