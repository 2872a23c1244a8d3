// Every layer's forward output and gradients against PyTorch's for the same weights and inputs
// (tests/fixtures/nn.json, written by tests/fixtures/make_nn_fixtures.py).
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/fixture.h"
#include "support/layer_check.h"

using namespace ember;
using ember::testing::expect_close;
using ember::testing::FixtureCase;

namespace {

const std::map<std::string, FixtureCase>& cases() {
  static const auto all = ember::testing::load_fixture("nn.json");
  return all;
}

const FixtureCase& fixture(const std::string& name) {
  auto it = cases().find(name);
  EMBER_CHECK_KEY(it != cases().end(), "nn.json has no case '", name, "'");
  return it->second;
}

// The case `name` of nn.json (support/layer_check.h).
void check_layer(nn::Module& layer, const std::string& name, bool train,
                 const ember::testing::LayerForward& forward) {
  SCOPED_TRACE(name);
  ember::testing::check_layer(layer, fixture(name), train, forward);
}

void check_layer(nn::Module& layer, const std::string& name, bool train = true) {
  check_layer(layer, name, train, [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {layer.forward(in[0])};
  });
}

}  // namespace

TEST(LayersTest, LinearMatchesPyTorch) {
  nn::Linear a(5, 3);
  check_layer(a, "linear");
  nn::Linear b(5, 3, /*bias=*/false);
  check_layer(b, "linear_nobias_3d");
}

TEST(LayersTest, Conv2dMatchesPyTorch) {
  nn::Conv2d a(nn::Conv2dOptions{3, 4, {3, 3}, {2, 2}, {1, 1}});
  check_layer(a, "conv2d_stride_pad");
  nn::Conv2d b(nn::Conv2dOptions{4, 6, {3, 3}, {1, 1}, {0, 0}, {2, 2}, 2, false});
  check_layer(b, "conv2d_dilation_groups_nobias");
  nn::Conv2d c(nn::Conv2dOptions{2, 3, {3, 2}, {1, 2}, {2, 0}});
  check_layer(c, "conv2d_rect");
}

TEST(LayersTest, PoolingMatchesPyTorch) {
  nn::MaxPool2d m1(nn::Pool2dOptions{{2, 2}});
  check_layer(m1, "maxpool2d");
  nn::MaxPool2d m2(nn::Pool2dOptions{{3, 3}, Size2(2, 2), {1, 1}});
  check_layer(m2, "maxpool2d_k3_s2_p1");
  nn::AvgPool2d a1(nn::Pool2dOptions{{2, 2}});
  check_layer(a1, "avgpool2d");
  nn::AvgPool2d a2(nn::Pool2dOptions{{3, 3}, Size2(2, 2), {1, 1}});
  check_layer(a2, "avgpool2d_k3_s2_p1");
  nn::Pool2dOptions exclude{{3, 3}, Size2(2, 2), {1, 1}};
  exclude.count_include_pad = false;
  nn::AvgPool2d a3(exclude);
  check_layer(a3, "avgpool2d_k3_s2_p1_exclude_pad");
  nn::AdaptiveAvgPool2d p1({3, 3});
  check_layer(p1, "adaptive_avgpool2d_3x3");
  nn::AdaptiveAvgPool2d p2({1, 1});
  check_layer(p2, "adaptive_avgpool2d_1x1");
}

TEST(LayersTest, BatchNormMatchesPyTorchInTrainAndEval) {
  nn::BatchNorm1d a(4);
  check_layer(a, "batchnorm1d_train");
  nn::BatchNorm1d b(nn::BatchNormOptions{4, 1e-5, 0.3});
  check_layer(b, "batchnorm1d_3d_train");
  nn::BatchNorm2d c(3);
  check_layer(c, "batchnorm2d_train");
  EXPECT_EQ(c.buffer("num_batches_tracked").item<int64_t>(), 1);
  nn::BatchNorm2d d(3);
  check_layer(d, "batchnorm2d_eval", /*train=*/false);
  EXPECT_EQ(d.buffer("num_batches_tracked").item<int64_t>(), 0);
}

TEST(LayersTest, LayerNormMatchesPyTorch) {
  nn::LayerNorm a(5);
  check_layer(a, "layernorm");
  nn::LayerNorm b(nn::LayerNormOptions{{4, 5}, 1e-3});
  check_layer(b, "layernorm_2d_shape");
}

TEST(LayersTest, EmbeddingMatchesPyTorchWithPaddingAndDuplicates) {
  nn::Embedding e(nn::EmbeddingOptions{10, 4, 0});
  check_layer(e, "embedding_padding");
}

TEST(LayersTest, ActivationsMatchPyTorch) {
  nn::ReLU relu;
  check_layer(relu, "relu");
  nn::GELU gelu;
  check_layer(gelu, "gelu");
  nn::GELU gelu_tanh("tanh");
  check_layer(gelu_tanh, "gelu_tanh");
  nn::Tanh tanh_layer;
  check_layer(tanh_layer, "tanh");
  nn::Sigmoid sigmoid_layer;
  check_layer(sigmoid_layer, "sigmoid");
  nn::LeakyReLU leaky(0.2);
  check_layer(leaky, "leaky_relu");
  nn::Softmax softmax_layer(1);
  check_layer(softmax_layer, "softmax");
  nn::Flatten flatten_layer;
  check_layer(flatten_layer, "flatten");
  nn::Identity identity;
  check_layer(identity, "identity");
}

TEST(LayersTest, MultiheadAttentionMatchesPyTorch) {
  nn::MultiheadAttention cross(nn::MultiheadAttentionOptions{8, 2, 0.0, true, /*batch_first=*/true});
  check_layer(cross, "mha_cross_padding", true, [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    auto [out, weights] = cross.forward(in[0], in[1], in[2], in[3], true);
    return {out, weights};
  });
  nn::MultiheadAttention self_attn(nn::MultiheadAttentionOptions{8, 4});
  check_layer(self_attn, "mha_self_causal_seq_first", true,
              [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
                auto [out, weights] = self_attn.forward(in[0], in[0], in[0], Tensor(), true, in[1], false);
                return {out, weights};
              });
}

TEST(LayersTest, TransformerEncoderLayerMatchesPyTorchPostAndPreNorm) {
  for (bool norm_first : {false, true}) {
    nn::TransformerEncoderLayerOptions o{8, 2, 16, 0.0, norm_first ? "gelu" : "relu", 1e-5, true, norm_first};
    nn::TransformerEncoderLayer layer(o);
    std::string name = std::string("transformer_encoder_layer_") + (norm_first ? "pre" : "post") + "norm";
    check_layer(layer, name, true, [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
      return {layer.forward(in[0], Tensor(), in[1])};
    });
  }
}
