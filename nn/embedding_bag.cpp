#include "ember/nn/embedding_bag.h"

#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/nn/init.h"
#include "ember/ops/ops.h"

namespace ember::nn {

namespace functional {
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets, const std::string& mode,
                     const Tensor& per_sample_weights, bool include_last_offset, std::optional<int64_t> padding_idx) {
  EMBER_CHECK_VALUE(mode == "sum" || mode == "mean" || mode == "max",
                    "embedding_bag: mode has to be one of sum, mean or max, got '", mode, "'");
  EMBER_CHECK_AS(NotImplementedError, !per_sample_weights.defined() || mode == "sum",
                 "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for "
                 "mode='sum' (got mode='",
                 mode, "'). Please open a feature request on GitHub.");
  EMBER_CHECK_VALUE(weight.dim() == 2, "embedding_bag: weight must be 2-D [num_embeddings, embedding_dim], got ",
                    weight.sizes());
  EMBER_CHECK_TYPE(input.dtype() == kInt64 || input.dtype() == kInt32,
                   "embedding_bag: input must hold indices "
                   "(int64 or int32), got ",
                   input.dtype());
  Tensor flat, psw = per_sample_weights;
  std::vector<int64_t> bag_of;
  int64_t bags = 0;
  if (input.dim() == 2) {
    EMBER_CHECK_VALUE(!offsets.defined(),
                      "embedding_bag: if input is 2D, then offsets has to be None, as input is "
                      "treated is a mini-batch of fixed length sequences.");
    bags = input.size(0);
    const int64_t length = input.size(1);
    flat = reshape(input, {-1});
    for (int64_t b = 0; b < bags; ++b) bag_of.insert(bag_of.end(), static_cast<size_t>(length), b);
    if (psw.defined()) psw = reshape(psw, {-1});
  } else {
    EMBER_CHECK_VALUE(input.dim() == 1, "embedding_bag: input has to be 1D or 2D Tensor, but got Tensor of dimension ",
                      input.dim());
    EMBER_CHECK_VALUE(offsets.defined() && offsets.dim() == 1, "embedding_bag: offsets has to be a 1D Tensor but got ",
                      offsets.defined() ? detail::str(offsets.dim(), "-D") : std::string("None"));
    std::vector<int64_t> starts = to_int64_vector(offsets, "embedding_bag: offsets");
    if (include_last_offset && !starts.empty()) starts.pop_back();
    bags = static_cast<int64_t>(starts.size());
    flat = input;
    const int64_t n = input.size(0);
    for (int64_t b = 0; b < bags; ++b) {
      const int64_t end = b + 1 < bags ? starts[b + 1] : n;
      EMBER_CHECK_INDEX(starts[b] >= 0 && starts[b] <= end && end <= n,
                        "embedding_bag: offsets must be "
                        "non-decreasing and within the input's ",
                        n, " indices, got ", starts[b], " then ", end);
      bag_of.insert(bag_of.end(), static_cast<size_t>(end - starts[b]), b);
    }
    EMBER_CHECK_VALUE(bags == 0 || starts[0] == 0, "embedding_bag: the first offset must be 0, got ", starts[0]);
  }
  if (psw.defined())
    EMBER_CHECK_VALUE(psw.sizes() == flat.sizes(), "embedding_bag: per_sample_weights of shape ",
                      per_sample_weights.sizes(), " must have input's shape ", input.sizes());
  const Device device = weight.device();
  const int64_t dim = weight.size(1);
  Tensor bag = tensor(bag_of, {static_cast<int64_t>(bag_of.size())}).to(device);
  Tensor keep = padding_idx ? ne(flat, *padding_idx) : ones(flat.sizes(), TensorOptions(kBool).device(device));
  Tensor rows = index_select(weight, 0, flat);
  if (psw.defined()) rows = rows * unsqueeze(psw, 1);
  Tensor out_zeros = zeros({bags, dim}, TensorOptions(weight.dtype()).device(device));
  if (mode == "max") {
    // Each bag's kept rows, max over them (0 for an empty bag); one reduction per bag.
    std::vector<uint8_t> kept(bag_of.size(), 1);
    if (padding_idx) {
      std::vector<int64_t> idx = to_int64_vector(flat);
      for (size_t i = 0; i < idx.size(); ++i) kept[i] = idx[i] != *padding_idx;
    }
    std::vector<Tensor> out;
    out.reserve(static_cast<size_t>(bags));
    size_t i = 0;
    for (int64_t b = 0; b < bags; ++b) {
      std::vector<int64_t> members;
      for (; i < bag_of.size() && bag_of[i] == b; ++i)
        if (kept[i]) members.push_back(static_cast<int64_t>(i));
      if (members.empty()) {
        out.push_back(select(out_zeros, 0, b));
      } else {
        Tensor index = tensor(members, {static_cast<int64_t>(members.size())}).to(device);
        out.push_back(amax(index_select(rows, 0, index), {0}));
      }
    }
    return bags == 0 ? out_zeros : stack(out, 0);
  }
  rows = where(unsqueeze(keep, 1), rows, 0.0);
  Tensor sums = index_add(out_zeros, 0, bag, rows);
  if (mode == "sum") return sums;
  Tensor counts =
      index_add(zeros({bags}, TensorOptions(weight.dtype()).device(device)), 0, bag, keep.to(weight.dtype()));
  return sums / unsqueeze(clamp(counts, Scalar(1.0)), 1);
}

}  // namespace functional

EmbeddingBag::EmbeddingBag(EmbeddingBagOptions options) : Module("EmbeddingBag"), options_(std::move(options)) {
  EMBER_CHECK_VALUE(options_.num_embeddings > 0 && options_.embedding_dim > 0,
                    "EmbeddingBag: sizes must be "
                    "positive, got ",
                    options_.num_embeddings, " x ", options_.embedding_dim);
  EMBER_CHECK_VALUE(options_.mode == "sum" || options_.mode == "mean" || options_.mode == "max",
                    "EmbeddingBag: mode has to be one of sum, mean or max, got '", options_.mode, "'");
  if (options_.padding_idx) {
    const int64_t p = *options_.padding_idx;
    EMBER_CHECK_INDEX(p >= -options_.num_embeddings && p < options_.num_embeddings, "EmbeddingBag: padding_idx ", p,
                      " must be within num_embeddings (", options_.num_embeddings, ")");
    if (p < 0) options_.padding_idx = p + options_.num_embeddings;
  }
  register_parameter("weight", empty({options_.num_embeddings, options_.embedding_dim}));
  reset_parameters();
}

void EmbeddingBag::reset_parameters() {
  init::normal_(weight());
  if (options_.padding_idx) {
    NoGradGuard no_grad;
    select(weight(), 0, *options_.padding_idx).fill_(0);
  }
}

Tensor EmbeddingBag::forward(const Tensor& input) { return forward(input, Tensor()); }

Tensor EmbeddingBag::forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights) {
  return functional::embedding_bag(input, weight(), offsets, options_.mode, per_sample_weights,
                                   options_.include_last_offset, options_.padding_idx);
}

std::string EmbeddingBag::extra_repr() const {
  std::string s = detail::str(options_.num_embeddings, ", ", options_.embedding_dim, ", mode='", options_.mode, "'");
  if (options_.padding_idx) s += detail::str(", padding_idx=", *options_.padding_idx);
  return s;
}

}  // namespace ember::nn
