// MultiheadAttention (every option), the transformer layers, stacks and Transformer: outputs and
// every gradient against PyTorch's for the same weights (tests/fixtures/attention.json), gradients
// against finite differences in float64, masks of every kind, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/fixture.h"
#include "support/layer_check.h"

using namespace ember;
using autograd::gradcheck;
using autograd::TensorList;
using ember::testing::expect_close;
using ember::testing::expect_error;
using ember::testing::FixtureCase;
using ember::testing::LayerForward;

namespace {

const FixtureCase& fixture(const std::string& name) {
  static const auto all = ember::testing::load_fixture("attention.json");
  auto it = all.find(name);
  EMBER_CHECK_KEY(it != all.end(), "attention.json has no case '", name, "'");
  return it->second;
}

// The case `name` checked in eval mode (the fixtures run with dropout 0 in eval mode). Stacks of
// several layers in float32 get a little more room: a weight gradient of the first layer sums
// rounding errors through every layer above it.
void check(nn::Module& layer, const std::string& name, const LayerForward& forward) {
  SCOPED_TRACE(name);
  const bool f64 = name.ends_with("_f64");
  const bool stack = name.starts_with("encoder_stack") || name.starts_with("decoder_stack") ||
                     name.starts_with("transformer");
  if (f64) layer.to(kFloat64);
  ember::testing::LayerTolerance tolerance;
  if (f64) tolerance = {1e-10, 1e-12};
  else if (stack) tolerance = {1e-4, 5e-6};
  ember::testing::check_layer(layer, fixture(name), false, forward, tolerance);
}

Tensor mask(const std::string& name, const std::string& which) { return fixture(name).tensor("mask." + which); }

std::vector<Tensor> both(const std::pair<Tensor, Tensor>& r) {
  return r.second.defined() ? std::vector<Tensor>{r.first, r.second} : std::vector<Tensor>{r.first};
}

nn::MultiheadAttentionOptions mha_options(int64_t e, int64_t h) { return nn::MultiheadAttentionOptions{e, h}; }

}  // namespace

TEST(TransformerTest, MultiheadAttentionWithKdimVdimMatchesPyTorch) {
  auto o = mha_options(8, 2);
  o.kdim = 5;
  o.vdim = 3;
  nn::MultiheadAttention m(o);
  EXPECT_FALSE(m.qkv_same_embed_dim());
  EXPECT_FALSE(m.has_parameter("in_proj_weight"));
  EXPECT_EQ(m.parameter("k_proj_weight").sizes(), IntArrayRef({8, 5}));
  for (bool weights : {true, false})
    check(m, std::string("mha_kdim_vdim_") + (weights ? "weights" : "noweights"),
          [&](const std::vector<Tensor>& in) { return both(m.forward(in[0], in[1], in[2], Tensor(), weights)); });
}

TEST(TransformerTest, MultiheadAttentionWithBiasKvZeroAttnAndMasksMatchesPyTorch) {
  auto o = mha_options(8, 4);
  o.add_bias_kv = o.add_zero_attn = o.batch_first = true;
  nn::MultiheadAttention m(o);
  for (bool weights : {true, false}) {
    std::string name = std::string("mha_bias_kv_zero_attn_") + (weights ? "weights" : "noweights");
    check(m, name, [&](const std::vector<Tensor>& in) {
      return both(m.forward(in[0], in[1], in[1], mask(name, "key_padding_mask"), weights, mask(name, "attn_mask")));
    });
  }
}

TEST(TransformerTest, MultiheadAttentionWithFloatMasksMatchesPyTorch) {
  nn::MultiheadAttention m(mha_options(6, 3));
  for (bool weights : {true, false}) {
    std::string name = std::string("mha_float_masks_") + (weights ? "weights" : "noweights");
    check(m, name, [&](const std::vector<Tensor>& in) {
      return both(m.forward(in[0], in[1], in[1], mask(name, "key_padding_mask"), weights, mask(name, "attn_mask"), false));
    });
  }
}

TEST(TransformerTest, MultiheadAttentionUnbatchedCausalAndFullyPaddedMatchPyTorch) {
  auto o = mha_options(6, 2);
  o.bias = false;
  nn::MultiheadAttention m(o);
  check(m, "mha_unbatched_self", [&](const std::vector<Tensor>& in) { return both(m.forward(in[0], in[0], in[0])); });
  check(m, "mha_is_causal", [&](const std::vector<Tensor>& in) {
    return both(m.forward(in[0], in[0], in[0], Tensor(), false, mask("mha_is_causal", "attn_mask"), true, true));
  });
  check(m, "mha_fully_padded_noweights", [&](const std::vector<Tensor>& in) {
    return both(m.forward(in[0], in[1], in[1], mask("mha_fully_padded_noweights", "key_padding_mask"), false));
  });
}

TEST(TransformerTest, MultiheadAttentionFullyMaskedRowIsNaNWithWeightsAsInPyTorch) {
  nn::MultiheadAttention m(mha_options(4, 2));
  Tensor x = randn({3, 1, 4});
  Tensor all_padded = ones({1, 3}, kBool);
  auto [out, weights] = m.forward(x, x, x, all_padded, true);
  EXPECT_TRUE(out.isnan().all().item<bool>());
  EXPECT_TRUE(weights.isnan().all().item<bool>());
  Tensor quiet = m.forward(x, x, x, all_padded, false).first;  // the fused path: zeros, then out_proj's bias
  expect_close(quiet, zeros({3, 1, 4}), 0, 0);
}

TEST(TransformerTest, MultiheadAttentionGradientsMatchFiniteDifferences) {
  manual_seed(0);
  auto o = mha_options(4, 2);
  o.kdim = 3;
  o.vdim = 5;
  o.add_bias_kv = o.add_zero_attn = true;
  nn::MultiheadAttention m(o);
  m.to(kFloat64);
  Tensor keep_out = tensor(std::vector<bool>{false, true, false, false}, {1, 4}, kBool);
  for (bool weights : {false, true})
    gradcheck([&](const TensorList& x) { return m.forward(x[0], x[1], x[2], keep_out.expand({2, 4}), weights).first; },
              {randn({3, 2, 4}, kFloat64).set_requires_grad(), randn({4, 2, 3}, kFloat64).set_requires_grad(),
               randn({4, 2, 5}, kFloat64).set_requires_grad()});
}

TEST(TransformerTest, MultiheadAttentionBadInputsAreRefused) {
  expect_error<ValueError>([] { nn::MultiheadAttention(10, 3); },
                           {"MultiheadAttention: embed_dim (10) must be divisible by num_heads (3)"});
  nn::MultiheadAttention m(mha_options(4, 2));
  Tensor x = randn({3, 2, 4});
  expect_error<ValueError>([&] { m.forward(randn({3, 2, 5}), x, x); }, {"MultiheadAttention", "5 features", "4"});
  expect_error<ValueError>([&] { m.forward(x, randn({3, 2}), x); }, {"MultiheadAttention", "[3, 2, 4]", "[3, 2]"});
  expect_error<ValueError>([&] { m.forward(x, x, x, Tensor(), true, ones({2, 2}, kBool)); },
                           {"MultiheadAttention", "2-D attn_mask", "[2, 2]", "[3, 3]"});
  expect_error<ValueError>([&] { m.forward(x, x, x, Tensor(), true, ones({5, 3, 3}, kBool)); },
                           {"MultiheadAttention", "3-D attn_mask", "[5, 3, 3]", "[4, 3, 3]"});
  expect_error<ValueError>([&] { m.forward(x, x, x, ones({3, 2}, kBool)); },
                           {"MultiheadAttention", "key_padding_mask", "[3, 2]", "[2, 3]"});
  expect_error<TypeError>([&] { m.forward(x, x, x, ones({2, 3}, kInt64)); }, {"MultiheadAttention", "int64"});
  expect_error<ValueError>([&] { m.forward(x, x, x, Tensor(), false, Tensor(), true, true); },
                           {"MultiheadAttention", "is_causal needs attn_mask"});
}

TEST(TransformerTest, DecoderLayerMatchesPyTorchPostAndPreNorm) {
  for (bool norm_first : {false, true}) {
    nn::TransformerLayerOptions o{4, 2, 6, 0.0, norm_first ? "gelu" : "relu", 1e-5, true, norm_first};
    nn::TransformerDecoderLayer layer(o);
    std::string name = std::string("decoder_layer_") + (norm_first ? "pre" : "post") + "norm";
    check(layer, name, [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
      return {layer.forward(in[0], in[1], mask(name, "tgt_mask"), Tensor(), mask(name, "tgt_key_padding_mask"),
                            mask(name, "memory_key_padding_mask"), true)};
    });
  }
}

TEST(TransformerTest, EncoderLayerWithoutBiasMatchesPyTorch) {
  nn::TransformerLayerOptions o{4, 2, 6, 0.0};
  o.bias = false;
  nn::TransformerEncoderLayer layer(o);
  EXPECT_FALSE(layer.child("linear1")->has_parameter("bias"));
  EXPECT_FALSE(layer.child("norm1")->has_parameter("bias"));
  check(layer, "encoder_layer_nobias_seq_first", [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {layer.forward(in[0], triu(ones({5, 5}, kBool), 1))};
  });
}

TEST(TransformerTest, EncoderStackMatchesPyTorchWithEveryMaskKind) {
  nn::TransformerEncoderLayer layer(nn::TransformerLayerOptions{4, 2, 6, 0.0, "relu", 1e-5, true});
  nn::TransformerEncoder encoder(layer, 3, std::make_shared<nn::LayerNorm>(4));
  EXPECT_EQ(encoder.num_layers(), 3);
  check(encoder, "encoder_stack_causal_padding", [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    const std::string name = "encoder_stack_causal_padding";
    return {encoder.forward(in[0], mask(name, "mask"), mask(name, "src_key_padding_mask"))};
  });
  check(encoder, "encoder_stack_bool_causal", [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {encoder.forward(in[0], triu(ones({6, 6}, kBool), 1))};
  });
}

TEST(TransformerTest, EncoderStackHoldsIndependentCopiesOfItsLayer) {
  nn::TransformerEncoderLayer layer(nn::TransformerLayerOptions{4, 2, 6, 0.0});
  nn::TransformerEncoder encoder(layer, 2);
  // Copies start with the layer's weights (PyTorch deep-copies it) but share nothing with it.
  const nn::StateDict encoder_state = encoder.state_dict();
  for (const auto& [key, value] : layer.state_dict())
    for (const char* prefix : {"layers.0.", "layers.1."}) expect_close(encoder_state.at(prefix + key), value, 0, 0, key);
  EXPECT_FALSE(encoder.layer(0).child("self_attn")->parameter("in_proj_weight").is_same(
      layer.child("self_attn")->parameter("in_proj_weight")));
  EXPECT_FALSE(encoder.layer(0).child("self_attn")->parameter("in_proj_weight").is_same(
      encoder.layer(1).child("self_attn")->parameter("in_proj_weight")));
  EXPECT_EQ(encoder.state_dict().size(), 2 * layer.state_dict().size());
  EXPECT_TRUE(encoder.state_dict().contains("layers.1.norm2.bias"));
}

TEST(TransformerTest, DecoderStackMatchesPyTorch) {
  nn::TransformerDecoderLayer layer(nn::TransformerLayerOptions{4, 2, 6, 0.0});
  nn::TransformerDecoder decoder(layer, 2, std::make_shared<nn::LayerNorm>(4));
  check(decoder, "decoder_stack", [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {decoder.forward(in[0], in[1], mask("decoder_stack", "tgt_mask"))};
  });
}

TEST(TransformerTest, TransformerMatchesPyTorchSeqFirstAndBatchFirstInFloat64) {
  for (bool batch_first : {false, true}) {
    nn::TransformerOptions o{4, 2, 2, 2, 6, 0.0};
    o.batch_first = batch_first;
    nn::Transformer model(o);
    std::string name = batch_first ? "transformer_batch_first_f64" : "transformer_seq_first";
    check(model, name, [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
      Tensor pad = mask(name, "src_key_padding_mask");
      return {model.forward(in[0], in[1], Tensor(), mask(name, "tgt_mask"), Tensor(), pad, Tensor(), pad)};
    });
  }
}

TEST(TransformerTest, TransformerPreNormGeluWithoutBiasUnbatchedMatchesPyTorch) {
  nn::TransformerOptions o{6, 3, 1, 1, 4, 0.0, "gelu"};
  o.norm_first = true;
  o.bias = false;
  nn::Transformer model(o);
  check(model, "transformer_prenorm_gelu_nobias_unbatched", [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
    return {model.forward(in[0], in[1], Tensor(), nn::Transformer::generate_square_subsequent_mask(3))};
  });
}

TEST(TransformerTest, LayersAndStacksGradientsMatchFiniteDifferences) {
  manual_seed(1);
  for (bool norm_first : {false, true}) {
    nn::TransformerLayerOptions o{4, 2, 5, 0.0, "gelu", 1e-5, false, norm_first};
    nn::TransformerEncoderLayer enc(o);
    nn::TransformerDecoder dec(nn::TransformerDecoderLayer(o), 2, std::make_shared<nn::LayerNorm>(4));
    enc.to(kFloat64);
    dec.to(kFloat64);
    Tensor causal = nn::square_subsequent_mask(3, kFloat64);
    Tensor pad = tensor(std::vector<bool>{false, false, false, false, true, false}, {2, 3}, kBool);
    gradcheck([&](const TensorList& x) { return enc.forward(x[0], causal, pad); },
              {randn({3, 2, 4}, kFloat64).set_requires_grad()});
    gradcheck([&](const TensorList& x) { return dec.forward(x[0], x[1], causal, Tensor(), Tensor(), pad); },
              {randn({3, 2, 4}, kFloat64).set_requires_grad(), randn({3, 2, 4}, kFloat64).set_requires_grad()});
  }
}

TEST(TransformerTest, SquareSubsequentMaskAndCausalDetection) {
  Tensor m = nn::Transformer::generate_square_subsequent_mask(3);
  const double inf = std::numeric_limits<double>::infinity();
  ember::testing::expect_values(m, {0, -inf, -inf, 0, 0, -inf, 0, 0, 0});
  EXPECT_EQ(m.dtype(), kFloat32);
  ember::testing::expect_values(nn::square_subsequent_mask(2, kBool), {0, 1, 0, 0});
  EXPECT_EQ(nn::square_subsequent_mask(0).numel(), 0);
  EXPECT_TRUE(nn::detail::detect_is_causal_mask(m, std::nullopt, 3));
  EXPECT_TRUE(nn::detail::detect_is_causal_mask(triu(ones({3, 3}, kBool), 1), std::nullopt, 3));
  EXPECT_FALSE(nn::detail::detect_is_causal_mask(m, std::nullopt, 4));
  EXPECT_FALSE(nn::detail::detect_is_causal_mask(m, false, 3));
  EXPECT_TRUE(nn::detail::detect_is_causal_mask(Tensor(), true, 3));
  EXPECT_FALSE(nn::detail::detect_is_causal_mask(zeros({3, 3}), std::nullopt, 3));
  expect_error<ValueError>([] { nn::square_subsequent_mask(-1); }, {"generate_square_subsequent_mask", "-1"});
}

TEST(TransformerTest, CausalHintGivesTheSameResultAsTheMask) {
  manual_seed(2);
  nn::TransformerEncoderLayer layer(nn::TransformerLayerOptions{8, 2, 16, 0.0, "relu", 1e-5, true});
  Tensor x = randn({2, 5, 8});
  Tensor mask = nn::square_subsequent_mask(5);
  expect_close(layer.forward(x, mask, Tensor(), true), layer.forward(x, mask, Tensor(), false), 1e-6, 1e-6);
  nn::TransformerEncoder encoder(layer, 2);
  expect_close(encoder.forward(x, mask), encoder.forward(x, mask, Tensor(), false), 1e-6, 1e-6);
}

TEST(TransformerTest, TransformerAndLayersRefuseBadInput) {
  expect_error<ValueError>([] { nn::TransformerEncoderLayer(nn::TransformerLayerOptions{4, 2, 8, 0.1, "tanh"}); },
                           {"TransformerEncoderLayer: activation must be 'relu' or 'gelu', got 'tanh'"});
  expect_error<ValueError>([] { nn::TransformerDecoderLayer(nn::TransformerLayerOptions{4, 2, 0}); },
                           {"TransformerDecoderLayer", "dim_feedforward", "0"});
  expect_error<ValueError>([] { nn::TransformerEncoder(nn::TransformerEncoderLayer(4, 2), -1); },
                           {"TransformerEncoder", "num_layers", "-1"});
  nn::Transformer model(nn::TransformerOptions{4, 2, 1, 1, 8, 0.0});
  expect_error<ValueError>([&] { model.forward(randn({3, 2, 4}), randn({3, 5, 4})); },
                           {"Transformer", "batch number", "[3, 2, 4]", "[3, 5, 4]"});
  expect_error<ValueError>([&] { model.forward(randn({3, 2, 4}), randn({3, 2, 5})); },
                           {"Transformer", "d_model (4)", "[3, 2, 5]"});
  expect_error<NotImplementedError>([&] { model.forward(randn({3, 2, 4})); }, {"Transformer", "forward(src, tgt"});
  auto list = std::make_shared<nn::ModuleList>();
  list->push_back(std::make_shared<nn::Linear>(4, 4));
  expect_error<TypeError>([&] { nn::TransformerEncoder(list, nullptr); },
                          {"child '0' is a Linear"});
}

TEST(TransformerTest, TransformerHasPyTorchParameterNamesAndXavierWeights) {
  nn::Transformer model(nn::TransformerOptions{8, 2, 2, 1, 16, 0.1});
  auto state = model.state_dict();
  for (const char* key : {"encoder.layers.0.self_attn.in_proj_weight", "encoder.layers.1.linear2.bias",
                          "encoder.norm.weight", "decoder.layers.0.multihead_attn.out_proj.weight",
                          "decoder.layers.0.norm3.bias", "decoder.norm.bias"})
    EXPECT_TRUE(state.contains(key)) << key;
  EXPECT_FALSE(state.contains("decoder.layers.1.norm1.weight"));
  // Xavier-uniform: bound sqrt(6 / (fan_in + fan_out)) = sqrt(6 / 24) for linear1 [16, 8].
  Tensor w = state.at("encoder.layers.1.linear1.weight");
  EXPECT_LE(w.abs().max().item<double>(), std::sqrt(6.0 / 24));
  EXPECT_GT(w.abs().max().item<double>(), 0.8 * std::sqrt(6.0 / 24));
  // reset: the two encoder layers differ (each re-initialised after the copy).
  EXPECT_FALSE(eq(state.at("encoder.layers.0.linear1.weight"), state.at("encoder.layers.1.linear1.weight")).all().item<bool>());
}
