// nn::functional::multi_head_attention_forward: against MultiheadAttention (written apart from it)
// for the same weights, with masks of both kinds, bias_k / bias_v, add_zero_attn, unbatched and
// fused paths; gradients against finite differences in float64; autocast's policy; PyTorch's
// errors. tests/python/test_misc_gaps.py replays 80+ calls against PyTorch 2.15.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_close;
using ember::testing::expect_error;
namespace F = nn::functional;

namespace {

// The functional's arguments taken from `m` (sequence-first, eval mode).
F::MultiheadAttentionForwardOptions options_of(const nn::MultiheadAttention& m) {
  F::MultiheadAttentionForwardOptions o;
  o.embed_dim_to_check = m.options().embed_dim;
  o.num_heads = m.options().num_heads;
  o.in_proj_weight = m.parameter("in_proj_weight");
  o.in_proj_bias = m.parameter("in_proj_bias");
  if (m.options().add_bias_kv) o.bias_k = m.parameter("bias_k"), o.bias_v = m.parameter("bias_v");
  o.add_zero_attn = m.options().add_zero_attn;
  o.out_proj_weight = m.out_proj()->parameter("weight");
  o.out_proj_bias = m.out_proj()->parameter("bias");
  o.training = false;
  return o;
}

TEST(MultiHeadAttentionForwardTest, AgreesWithTheModuleForEveryOptionAndMask) {
  manual_seed(3);
  for (bool bias_kv : {false, true})
    for (bool zero_attn : {false, true})
      for (bool need_weights : {true, false}) {
        SCOPED_TRACE(::testing::Message()
                     << "bias_kv=" << bias_kv << " zero_attn=" << zero_attn << " need_weights=" << need_weights);
        nn::MultiheadAttentionOptions mo{6, 3};
        mo.add_bias_kv = bias_kv;
        mo.add_zero_attn = zero_attn;
        nn::MultiheadAttention m(mo);
        m.to(kFloat64);
        m.eval();
        Tensor q = randn({4, 2, 6}, kFloat64), kv = randn({5, 2, 6}, kFloat64);
        // Key 4 of the first sequence is padding.
        Tensor padding = eq(reshape(arange(10), {2, 5}), 4), causal = triu(ones({4, 5}, kBool), 1);
        for (Tensor attn_mask : {Tensor(), causal, masked_fill(zeros({4, 5}, kFloat64), causal, -1e9)}) {
          auto o = options_of(m);
          o.need_weights = need_weights;
          o.key_padding_mask = padding;
          o.attn_mask = attn_mask;
          auto [out, weights] = F::multi_head_attention_forward(q, kv, kv, o);
          auto [want, want_weights] = m.forward(q, kv, kv, padding, need_weights, attn_mask);
          expect_close(out, want, 1e-12, 1e-12);
          EXPECT_EQ(weights.defined(), need_weights);
          if (need_weights) expect_close(weights, want_weights, 1e-12, 1e-12);
        }
      }
}

TEST(MultiHeadAttentionForwardTest, UnbatchedAndPerHeadWeightsMatchTheModule) {
  manual_seed(4);
  nn::MultiheadAttention m(nn::MultiheadAttentionOptions{4, 2});
  m.to(kFloat64);
  m.eval();
  Tensor x = randn({3, 4}, kFloat64);
  auto o = options_of(m);
  o.average_attn_weights = false;
  auto [out, weights] = F::multi_head_attention_forward(x, x, x, o);
  auto [want, want_weights] = m.forward(x, x, x, Tensor(), true, Tensor(), false);
  EXPECT_EQ(out.sizes().vec(), (DimVector{3, 4}));
  EXPECT_EQ(weights.sizes().vec(), (DimVector{2, 3, 3}));
  expect_close(out, want, 1e-12, 1e-12);
  expect_close(weights, want_weights, 1e-12, 1e-12);
}

TEST(MultiHeadAttentionForwardTest, AnEmptyBatchGivesEmptyOutputsAsPyTorch) {
  F::MultiheadAttentionForwardOptions o;
  o.embed_dim_to_check = 4;
  o.num_heads = 2;
  o.in_proj_weight = randn({12, 4});
  o.out_proj_weight = randn({4, 4});
  Tensor q = randn({3, 0, 4}), kv = randn({5, 0, 4});
  for (bool need_weights : {true, false}) {
    o.need_weights = need_weights;
    auto [out, weights] = F::multi_head_attention_forward(q, kv, kv, o);
    EXPECT_EQ(out.sizes().vec(), (DimVector{3, 0, 4}));
    if (need_weights) EXPECT_EQ(weights.sizes().vec(), (DimVector{0, 3, 5}));
  }
}

TEST(MultiHeadAttentionForwardTest, GradientsMatchFiniteDifferences) {
  manual_seed(5);
  Tensor q = randn({3, 2, 4}, kFloat64), w = randn({12, 4}, kFloat64), b = randn({12}, kFloat64);
  Tensor ow = randn({4, 4}, kFloat64), bk = randn({1, 1, 4}, kFloat64), bv = randn({1, 1, 4}, kFloat64);
  Tensor padding = eq(reshape(arange(6), {2, 3}), 3);  // key 0 of the second sequence is padding
  for (const Tensor* t : {&q, &w, &b, &ow, &bk, &bv}) t->set_requires_grad(true);
  for (bool need_weights : {true, false}) {
    auto f = [&](const autograd::TensorList& in) {
      F::MultiheadAttentionForwardOptions o;
      o.embed_dim_to_check = 4;
      o.num_heads = 2;
      o.in_proj_weight = in[1];
      o.in_proj_bias = in[2];
      o.bias_k = in[4];
      o.bias_v = in[5];
      o.add_zero_attn = true;
      o.out_proj_weight = in[3];
      o.key_padding_mask = padding;
      o.need_weights = need_weights;
      auto [out, weights] = F::multi_head_attention_forward(in[0], in[0], in[0], o);
      return need_weights ? out.sum() + (weights * weights).sum() : out;
    };
    autograd::gradcheck(f, {q, w, b, ow, bk, bv});
  }
}

TEST(MultiHeadAttentionForwardTest, AutocastRunsItInBfloat16OnTheCpu) {
  Tensor q = randn({3, 2, 4}), w = randn({12, 4}), ow = randn({4, 4});
  F::MultiheadAttentionForwardOptions o;
  o.embed_dim_to_check = 4;
  o.num_heads = 2;
  o.in_proj_weight = w;
  o.out_proj_weight = ow;
  AutocastGuard amp(DeviceType::CPU);
  auto [out, weights] = F::multi_head_attention_forward(q, q, q, o);
  EXPECT_EQ(out.dtype(), kBFloat16);
  EXPECT_EQ(weights.dtype(), kBFloat16);
}

TEST(MultiHeadAttentionForwardTest, MalformedCallsNameWhatIsWrong) {
  Tensor q = randn({3, 2, 4});
  F::MultiheadAttentionForwardOptions o;
  o.embed_dim_to_check = 4;
  o.num_heads = 2;
  o.in_proj_weight = randn({12, 4});
  o.out_proj_weight = randn({4, 4});
  auto call = [&](F::MultiheadAttentionForwardOptions opts, const Tensor& query) {
    return [opts, query] { F::multi_head_attention_forward(query, query, query, opts); };
  };
  auto with = [&](auto edit) {
    auto copy = o;
    edit(copy);
    return copy;
  };
  expect_error(call(with([](auto& c) { c.is_causal = true; }), q), {"Need attn_mask if specifying the is_causal hint"});
  expect_error(call(with([](auto& c) {
                      c.attn_mask = zeros({3, 2});
                    }),
                    q),
               {"The shape of the 2D attn_mask is (3, 2), but should be (3, 3)."});
  expect_error(call(with([](auto& c) {
                      c.attn_mask = zeros({5, 3, 3});
                    }),
                    q),
               {"The shape of the 3D attn_mask is (5, 3, 3), but should be (4, 3, 3)."});
  expect_error<ValueError>(call(with([](auto& c) {
                                  c.attn_mask = zeros({3, 3}, kInt64);
                                }),
                                q),
                           {"only bool and floating types of attn_mask are supported"});
  expect_error<ValueError>(call(with([](auto& c) { c.embed_dim_to_check = 8; }), q),
                           {"was expecting embedding dimension of 8, but got 4"});
  expect_error<ValueError>(call(with([](auto& c) { c.num_heads = 3; }), q),
                           {"embed_dim 4 not divisible by num_heads 3"});
  expect_error<ValueError>(call(with([](auto& c) {
                                  c.bias_k = zeros({1, 1, 4});
                                }),
                                q),
                           {"bias_k is set but bias_v is None"});
  expect_error<ValueError>(call(o, unsqueeze(q, 0)),
                           {"query should be unbatched 2D or batched 3D tensor", "received 4-D query tensor"});
  expect_error<ValueError>(call(with([](auto& c) { c.use_separate_proj_weight = true; }), q),
                           {"use_separate_proj_weight is True but q_proj_weight is None"});
  expect_error<ValueError>(call(with([](auto& c) {
                                  c.key_padding_mask = zeros({2, 5}, kBool);
                                }),
                                q),
                           {"Expected key_padded_mask.shape[1] to be 3, but got 5"});
}

}  // namespace
