#pragma once
// Layers over nn/channel_functional.h and the distance between two inputs: PixelShuffle,
// PixelUnshuffle, ChannelShuffle, the channel dropouts (Dropout1d, Dropout2d, Dropout3d,
// AlphaDropout, FeatureAlphaDropout; identity in eval mode), PairwiseDistance, CosineSimilarity,
// LocalResponseNorm (across channels) and Unflatten.
#include <vector>

#include "ember/nn/activation_layers.h"
#include "ember/nn/channel_functional.h"
#include "ember/nn/functional.h"

namespace ember::nn {

struct PixelShuffleOptions {
  int64_t upscale_factor;
  static constexpr auto fields() {
    return std::make_tuple(field("upscale_factor", &PixelShuffleOptions::upscale_factor));
  }
};
struct PixelUnshuffleOptions {
  int64_t downscale_factor;
  static constexpr auto fields() {
    return std::make_tuple(field("downscale_factor", &PixelUnshuffleOptions::downscale_factor));
  }
};
struct ChannelShuffleOptions {
  int64_t groups;
  static constexpr auto fields() { return std::make_tuple(field("groups", &ChannelShuffleOptions::groups)); }
};
struct DropoutOptions {
  double p = 0.5;
  static constexpr auto fields() { return std::make_tuple(field("p", &DropoutOptions::p)); }
};
struct CosineSimilarityOptions {
  int64_t dim = 1;
  double eps = 1e-8;
  static constexpr auto fields() {
    return std::make_tuple(field("dim", &CosineSimilarityOptions::dim), field("eps", &CosineSimilarityOptions::eps));
  }
};
struct LocalResponseNormOptions {
  int64_t size;
  double alpha = 1e-4;
  double beta = 0.75;
  double k = 1.0;
  static constexpr auto fields() {
    using O = LocalResponseNormOptions;
    return std::make_tuple(field("size", &O::size), field("alpha", &O::alpha), field("beta", &O::beta),
                           field("k", &O::k));
  }
};
struct PairwiseDistanceOptions {
  double norm = 2.0;  // p (PyTorch keeps it as .norm)
  double eps = 1e-6;
  bool keepdim = false;
  static constexpr auto fields() {
    return std::make_tuple(field("norm", &PairwiseDistanceOptions::norm), field("eps", &PairwiseDistanceOptions::eps),
                           field("keepdim", &PairwiseDistanceOptions::keepdim));
  }
};

#define EMBER_CHANNEL_LAYER(Name, O, default_options) \
  class Name : public LayerWith<O> {                  \
   public:                                            \
    explicit Name(O options default_options);         \
    Tensor forward(const Tensor& input) override;     \
  };
#define EMBER_DEFAULT = {}
#define EMBER_REQUIRED
EMBER_CHANNEL_LAYER(PixelShuffle, PixelShuffleOptions, EMBER_REQUIRED)
EMBER_CHANNEL_LAYER(PixelUnshuffle, PixelUnshuffleOptions, EMBER_REQUIRED)
EMBER_CHANNEL_LAYER(ChannelShuffle, ChannelShuffleOptions, EMBER_REQUIRED)
EMBER_CHANNEL_LAYER(Dropout1d, DropoutOptions, EMBER_DEFAULT)
EMBER_CHANNEL_LAYER(Dropout2d, DropoutOptions, EMBER_DEFAULT)
EMBER_CHANNEL_LAYER(Dropout3d, DropoutOptions, EMBER_DEFAULT)
EMBER_CHANNEL_LAYER(AlphaDropout, DropoutOptions, EMBER_DEFAULT)
EMBER_CHANNEL_LAYER(FeatureAlphaDropout, DropoutOptions, EMBER_DEFAULT)
#undef EMBER_CHANNEL_LAYER
#undef EMBER_DEFAULT
#undef EMBER_REQUIRED

/// ||x1 - x2 + eps||_norm along the last dim of two inputs.
class PairwiseDistance : public LayerWith<PairwiseDistanceOptions> {
 public:
  explicit PairwiseDistance(PairwiseDistanceOptions options = {}) : LayerWith("PairwiseDistance", options) {}
  using Module::forward;
  Tensor forward(const Tensor& x1, const Tensor& x2);
  std::string extra_repr() const override { return ""; }
};

/// The cosine of the angle between two inputs along dim.
class CosineSimilarity : public LayerWith<CosineSimilarityOptions> {
 public:
  explicit CosineSimilarity(CosineSimilarityOptions options = {}) : LayerWith("CosineSimilarity", options) {}
  using Module::forward;
  Tensor forward(const Tensor& x1, const Tensor& x2);
  std::string extra_repr() const override { return ""; }
};

/// AlexNet's normalisation over neighbouring channels (functional::local_response_norm).
class LocalResponseNorm : public LayerWith<LocalResponseNormOptions> {
 public:
  explicit LocalResponseNorm(LocalResponseNormOptions options) : LayerWith("LocalResponseNorm", options) {}
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
};

/// Splits dim into the given sizes (a view when possible).
class Unflatten : public Module {
 public:
  Unflatten(int64_t dim, std::vector<int64_t> unflattened_size);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  int64_t dim() const { return dim_; }
  const std::vector<int64_t>& unflattened_size() const { return sizes_; }

 private:
  int64_t dim_;
  std::vector<int64_t> sizes_;
};

}  // namespace ember::nn
