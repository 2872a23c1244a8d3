#include "ember/nn/channel_layers.h"

#include "ember/nn/margin_loss.h"
#include "ember/ops/ops.h"

namespace ember::nn {

namespace F = functional;

namespace {

void check_p(const char* layer, double p) {
  EMBER_CHECK_VALUE(p >= 0 && p <= 1, layer, ": dropout probability has to be between 0 and 1, but got ", p);
}

}  // namespace

PixelShuffle::PixelShuffle(PixelShuffleOptions o) : LayerWith("PixelShuffle", o) {}
Tensor PixelShuffle::forward(const Tensor& input) { return F::pixel_shuffle(input, options_.upscale_factor); }
PixelUnshuffle::PixelUnshuffle(PixelUnshuffleOptions o) : LayerWith("PixelUnshuffle", o) {}
Tensor PixelUnshuffle::forward(const Tensor& input) { return F::pixel_unshuffle(input, options_.downscale_factor); }
ChannelShuffle::ChannelShuffle(ChannelShuffleOptions o) : LayerWith("ChannelShuffle", o) {}
Tensor ChannelShuffle::forward(const Tensor& input) { return F::channel_shuffle(input, options_.groups); }

Dropout1d::Dropout1d(DropoutOptions o) : LayerWith("Dropout1d", o) { check_p("Dropout1d", o.p); }
Tensor Dropout1d::forward(const Tensor& input) { return F::dropout1d(input, options_.p, is_training()); }
Dropout2d::Dropout2d(DropoutOptions o) : LayerWith("Dropout2d", o) { check_p("Dropout2d", o.p); }
Tensor Dropout2d::forward(const Tensor& input) { return F::dropout2d(input, options_.p, is_training()); }
Dropout3d::Dropout3d(DropoutOptions o) : LayerWith("Dropout3d", o) { check_p("Dropout3d", o.p); }
Tensor Dropout3d::forward(const Tensor& input) { return F::dropout3d(input, options_.p, is_training()); }
AlphaDropout::AlphaDropout(DropoutOptions o) : LayerWith("AlphaDropout", o) { check_p("AlphaDropout", o.p); }
Tensor AlphaDropout::forward(const Tensor& input) { return F::alpha_dropout(input, options_.p, is_training()); }
FeatureAlphaDropout::FeatureAlphaDropout(DropoutOptions o) : LayerWith("FeatureAlphaDropout", o) {
  check_p("FeatureAlphaDropout", o.p);
}
Tensor FeatureAlphaDropout::forward(const Tensor& input) {
  return F::feature_alpha_dropout(input, options_.p, is_training());
}

Tensor PairwiseDistance::forward(const Tensor& x1, const Tensor& x2) {
  return F::pairwise_distance(x1, x2, options_.norm, options_.eps, options_.keepdim);
}

Tensor CosineSimilarity::forward(const Tensor& x1, const Tensor& x2) {
  return F::cosine_similarity(x1, x2, options_.dim, options_.eps);
}

Tensor LocalResponseNorm::forward(const Tensor& input) {
  const LocalResponseNormOptions& o = options_;
  return F::local_response_norm(input, o.size, o.alpha, o.beta, o.k);
}
std::string LocalResponseNorm::extra_repr() const {
  const LocalResponseNormOptions& o = options_;
  return std::to_string(o.size) + ", alpha=" + python_repr(o.alpha) + ", beta=" + python_repr(o.beta) +
         ", k=" + python_repr(o.k);
}

Unflatten::Unflatten(int64_t dim, std::vector<int64_t> unflattened_size)
    : Module("Unflatten"), dim_(dim), sizes_(std::move(unflattened_size)) {
  EMBER_CHECK_VALUE(!sizes_.empty(), "Unflatten: unflattened_size must not be empty");
}

Tensor Unflatten::forward(const Tensor& input) {
  EMBER_CHECK_INDEX(dim_ >= -input.dim() && dim_ < input.dim(), "Unflatten: dim ", dim_, " is out of range for ",
                    input.dim(), "-D input");
  const int64_t d = dim_ < 0 ? dim_ + input.dim() : dim_;
  DimVector shape(input.sizes().begin(), input.sizes().begin() + d);
  shape.insert(shape.end(), sizes_.begin(), sizes_.end());
  shape.insert(shape.end(), input.sizes().begin() + d + 1, input.sizes().end());
  return reshape(input, shape);
}

std::string Unflatten::extra_repr() const {
  return "dim=" + std::to_string(dim_) + ", unflattened_size=" + python_repr(sizes_);
}

}  // namespace ember::nn
