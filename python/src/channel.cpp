// PixelShuffle, PixelUnshuffle, ChannelShuffle, the channel dropouts, PairwiseDistance,
// CosineSimilarity, LocalResponseNorm and Unflatten of ember._C.nn, and their functional forms (torch's keywords;
// `inplace` accepted, the result a new tensor of the same value).
#include <pybind11/stl.h>

#include "ember/nn/channel_layers.h"
#include "ember/nn/margin_loss.h"
#include "layer_binding.h"

namespace ember::python {
namespace {

using namespace pybind11::literals;
namespace F = nn::functional;

template <typename M>
void dropout_layer(py::module_& nn, const char* name, const char* doc) {
  layer_with_fields<M>(nn, name, doc)
      .def(layer_init<M>([](double p, bool) { return nn::DropoutOptions{p}; }), "p"_a = 0.5, "inplace"_a = false);
}

}  // namespace

void bind_channel_layers(py::module_& nn) {
  layer_with_fields<nn::PixelShuffle>(nn, "PixelShuffle",
                                      "[*, C r^2, H, W] -> [*, C, H r, W r] (torch.nn.PixelShuffle).")
      .def(layer_init<nn::PixelShuffle>([](int64_t r) { return nn::PixelShuffleOptions{r}; }), "upscale_factor"_a);
  layer_with_fields<nn::PixelUnshuffle>(nn, "PixelUnshuffle", "The inverse of PixelShuffle (torch.nn.PixelUnshuffle).")
      .def(layer_init<nn::PixelUnshuffle>([](int64_t r) { return nn::PixelUnshuffleOptions{r}; }),
           "downscale_factor"_a);
  layer_with_fields<nn::ChannelShuffle>(nn, "ChannelShuffle", "ShuffleNet's channel shuffle (torch.nn.ChannelShuffle).")
      .def(layer_init<nn::ChannelShuffle>([](int64_t groups) { return nn::ChannelShuffleOptions{groups}; }),
           "groups"_a);
  dropout_layer<nn::Dropout1d>(nn, "Dropout1d", "Zeroes whole channels of [N, C, L] input while training.");
  dropout_layer<nn::Dropout2d>(nn, "Dropout2d", "Zeroes whole channels of [N, C, H, W] input while training.");
  dropout_layer<nn::Dropout3d>(nn, "Dropout3d", "Zeroes whole channels of [N, C, D, H, W] input while training.");
  dropout_layer<nn::AlphaDropout>(nn, "AlphaDropout", "Dropout that keeps SELU's mean and variance, while training.");
  dropout_layer<nn::FeatureAlphaDropout>(nn, "FeatureAlphaDropout", "AlphaDropout of whole channels, while training.");
  layer_with_fields<nn::PairwiseDistance>(nn, "PairwiseDistance", "||x1 - x2 + eps||_p along the last dim.")
      .def(layer_init<nn::PairwiseDistance>([](double p, double eps, bool keepdim) {
             return nn::PairwiseDistanceOptions{p, eps, keepdim};
           }),
           "p"_a = 2.0, "eps"_a = 1e-6, "keepdim"_a = false)
      .def("forward", py::overload_cast<const Tensor&, const Tensor&>(&nn::PairwiseDistance::forward), "x1"_a, "x2"_a);
  layer_with_fields<nn::CosineSimilarity>(nn, "CosineSimilarity", "The cosine between x1 and x2 along dim.")
      .def(layer_init<nn::CosineSimilarity>([](int64_t dim, double eps) {
             return nn::CosineSimilarityOptions{dim, eps};
           }),
           "dim"_a = 1, "eps"_a = 1e-8)
      .def("forward", py::overload_cast<const Tensor&, const Tensor&>(&nn::CosineSimilarity::forward), "x1"_a, "x2"_a);
  layer_with_fields<nn::LocalResponseNorm>(nn, "LocalResponseNorm",
                                           "AlexNet's normalisation across channels (torch.nn.LocalResponseNorm).")
      .def(layer_init<nn::LocalResponseNorm>([](int64_t size, double alpha, double beta, double k) {
             return nn::LocalResponseNormOptions{size, alpha, beta, k};
           }),
           "size"_a, "alpha"_a = 1e-4, "beta"_a = 0.75, "k"_a = 1.0);
  Layer<nn::Unflatten>(nn, "Unflatten", "dim split into unflattened_size (torch.nn.Unflatten).")
      .def(layer_init<nn::Unflatten>(
               [](int64_t dim, std::vector<int64_t> sizes) { return std::make_tuple(dim, std::move(sizes)); }),
           "dim"_a, "unflattened_size"_a)
      .def_property_readonly("dim", &nn::Unflatten::dim)
      .def_property_readonly("unflattened_size",
                             [](const nn::Unflatten& m) { return py::tuple(py::cast(m.unflattened_size())); });
}

void bind_channel_functions(py::module_& f) {
  f.def("cosine_similarity", &F::cosine_similarity, "x1"_a, "x2"_a, "dim"_a = 1, "eps"_a = 1e-8,
        "The cosine between x1 and x2 along dim, each norm clamped at eps.");
  f.def("normalize", &F::normalize, "input"_a, "p"_a = 2.0, "dim"_a = 1, "eps"_a = 1e-12,
        "input / max(||input||_p along dim, eps).");
  f.def("local_response_norm", &F::local_response_norm, "input"_a, "size"_a, "alpha"_a = 1e-4, "beta"_a = 0.75,
        "k"_a = 1.0, "input / (k + alpha * mean of input^2 over size neighbouring channels)^beta.");
  f.def("pixel_shuffle", &F::pixel_shuffle, "input"_a, "upscale_factor"_a);
  f.def("pixel_unshuffle", &F::pixel_unshuffle, "input"_a, "downscale_factor"_a);
  f.def("channel_shuffle", &F::channel_shuffle, "input"_a, "groups"_a);
  f.def(
      "dropout1d", [](const Tensor& x, double p, bool training, bool) { return F::dropout1d(x, p, training); },
      "input"_a, "p"_a = 0.5, "training"_a = true, "inplace"_a = false);
  f.def(
      "dropout2d", [](const Tensor& x, double p, bool training, bool) { return F::dropout2d(x, p, training); },
      "input"_a, "p"_a = 0.5, "training"_a = true, "inplace"_a = false);
  f.def(
      "dropout3d", [](const Tensor& x, double p, bool training, bool) { return F::dropout3d(x, p, training); },
      "input"_a, "p"_a = 0.5, "training"_a = true, "inplace"_a = false);
  f.def(
      "alpha_dropout", [](const Tensor& x, double p, bool training, bool) { return F::alpha_dropout(x, p, training); },
      "input"_a, "p"_a = 0.5, "training"_a = false, "inplace"_a = false);
  f.def(
      "feature_alpha_dropout",
      [](const Tensor& x, double p, bool training, bool) { return F::feature_alpha_dropout(x, p, training); },
      "input"_a, "p"_a = 0.5, "training"_a = false, "inplace"_a = false);
}

}  // namespace ember::python
