// scaled_dot_product_attention: values against PyTorch (tests/fixtures/attention.json) and a
// reference written here in double, the fused kernel against the composite path, gradients
// against finite differences, masks of every kind, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/fixture.h"
#include "support/layer_check.h"

using namespace ember;
using autograd::gradcheck;
using autograd::gradgradcheck;
using autograd::TensorList;
using ember::testing::expect_close;
using ember::testing::expect_error;
using ember::testing::expect_values;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

const std::map<std::string, ember::testing::FixtureCase>& cases() {
  static const auto all = ember::testing::load_fixture("attention.json");
  return all;
}

// The reference: for each query row, softmax over the keys it may see of q.k * scale + mask, then
// the weighted sum of the values; zeros where no key is visible. q [B, L, E], k [B, S, E],
// v [B, S, Ev], mask [B, L, S] (or undefined), all already broadcast.
Tensor reference(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool causal, double scale) {
  const int64_t B = q.size(0), L = q.size(1), S = k.size(1), E = q.size(2), Ev = v.size(2);
  std::vector<double> qv = q.contiguous().to_vector<double>(), kv = k.contiguous().to_vector<double>(),
                      vv = v.contiguous().to_vector<double>(), out(static_cast<size_t>(B * L * Ev), 0.0);
  std::vector<double> mv = mask.defined() ? mask.contiguous().to_vector<double>() : std::vector<double>();
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < L; ++i) {
      std::vector<double> x(static_cast<size_t>(S), -kInf);
      double top = -kInf;
      for (int64_t j = 0; j < S; ++j) {
        if (causal && j > i) continue;
        double m = mask.defined() ? mv[static_cast<size_t>((b * L + i) * S + j)] : 0.0;
        if (mask.defined() && mask.dtype() == kBool) {
          if (m == 0) continue;
          m = 0;
        }
        double dot = 0;
        for (int64_t e = 0; e < E; ++e) dot += qv[static_cast<size_t>((b * L + i) * E + e)] * kv[static_cast<size_t>((b * S + j) * E + e)];
        x[static_cast<size_t>(j)] = dot * scale + m;
        top = std::max(top, x[static_cast<size_t>(j)]);
      }
      if (top == -kInf) continue;
      double sum = 0;
      for (double& xj : x) sum += (xj = std::exp(xj - top));
      for (int64_t j = 0; j < S; ++j)
        for (int64_t e = 0; e < Ev; ++e)
          out[static_cast<size_t>((b * L + i) * Ev + e)] += x[static_cast<size_t>(j)] / sum * vv[static_cast<size_t>((b * S + j) * Ev + e)];
    }
  return tensor(out, {B, L, Ev}).to(q.dtype());
}

// A floating mask equal to `keep` (bool, true = takes part): 0 or -inf.
Tensor additive(const Tensor& keep, DType dtype) {
  return masked_fill(zeros(keep.sizes(), dtype), logical_not(keep), -kInf);
}

// The composite path's result for the same inputs (a floating mask that requires grad takes it),
// the causal triangle written into that mask.
Tensor composite(const Tensor& q, const Tensor& k, const Tensor& v, Tensor keep, bool causal) {
  if (causal) keep = logical_not(triu(ones({q.size(-2), k.size(-2)}, kBool), 1));
  Tensor mask = keep.defined() ? additive(keep, q.dtype()) : zeros({q.size(-2), k.size(-2)}, q.dtype());
  return scaled_dot_product_attention(q, k, v, mask.set_requires_grad());
}

// Sets the limit of kept probabilities for a scope (0: the backward recomputes them).
class SavedProbsLimit {
 public:
  explicit SavedProbsLimit(int64_t limit) : saved_(detail::attention_saved_probs_limit()) {
    detail::attention_saved_probs_limit() = limit;
  }
  ~SavedProbsLimit() { detail::attention_saved_probs_limit() = saved_; }

 private:
  int64_t saved_;
};

}  // namespace

TEST(AttentionTest, MatchesPyTorch) {
  int checked = 0;
  for (const auto& [name, c] : cases()) {
    if (name.rfind("sdpa_", 0) != 0) continue;
    SCOPED_TRACE(name);
    const bool f64 = name.ends_with("_f64");
    const Tensor mask = c.tensors.count("mask.attn_mask") ? c.tensor("mask.attn_mask") : Tensor();
    const bool causal = name.find("causal") != std::string::npos, gqa = name.find("gqa") != std::string::npos;
    std::optional<double> scale;
    if (name == "sdpa_scale") scale = 0.3;
    nn::Module none;
    ember::testing::check_layer(none, c, false, [&](const std::vector<Tensor>& in) -> std::vector<Tensor> {
      return {scaled_dot_product_attention(in[0], in[1], in[2], mask, 0.0, causal, scale, gqa)};
    }, f64 ? ember::testing::LayerTolerance{1e-10, 1e-12} : ember::testing::LayerTolerance{});
    ++checked;
  }
  EXPECT_EQ(checked, 18);
}

TEST(AttentionTest, FusedMatchesReferenceAndCompositeAcrossBlocks) {
  // Shapes from one block to several (more than 16384 scores per entry), every kind of mask.
  manual_seed(0);
  struct Shape {
    int64_t B, L, S, E, Ev;
  };
  for (int64_t limit : {detail::attention_saved_probs_limit(), int64_t{0}}) {  // kept, then recomputed
  SavedProbsLimit keep_probs(limit);
  for (Shape s : {Shape{3, 5, 7, 4, 3}, Shape{2, 150, 130, 6, 5}, Shape{1, 200, 90, 3, 4}, Shape{2, 1, 1, 2, 2}}) {
    for (int kind = 0; kind < 4; ++kind) {  // none, causal, bool, float
      SCOPED_TRACE(::testing::Message() << "L " << s.L << " S " << s.S << " mask kind " << kind << " limit " << limit);
      Tensor q = randn({s.B, s.L, s.E}, kFloat64).set_requires_grad();
      Tensor k = randn({s.B, s.S, s.E}, kFloat64).set_requires_grad();
      Tensor v = randn({s.B, s.S, s.Ev}, kFloat64).set_requires_grad();
      Tensor keep = kind >= 2 ? rand({s.B, s.L, s.S}, kFloat64) > 0.3 : Tensor();
      Tensor mask = kind == 3 ? randn({s.B, s.L, s.S}, kFloat64) : keep;
      Tensor out = scaled_dot_product_attention(q, k, v, mask, 0.0, kind == 1);
      Tensor want = reference(q.detach(), k.detach(), v.detach(), mask, kind == 1, 1.0 / std::sqrt(double(s.E)));
      expect_close(out, want, 1e-12, 1e-12, "forward");
      Tensor g = randn(out.sizes(), kFloat64);
      TensorList fused = autograd::grad({(out * g).sum()}, {q, k, v});
      Tensor other = kind == 3 ? scaled_dot_product_attention(q, k, v, mask.clone().set_requires_grad())
                               : composite(q, k, v, keep, kind == 1);
      expect_close(other, want, 1e-12, 1e-12, "composite forward");
      TensorList slow = autograd::grad({(other * g).sum()}, {q, k, v});
      for (int i = 0; i < 3; ++i) expect_close(fused[i], slow[i], 1e-10, 1e-12, "gradient " + std::to_string(i));
    }
  }
  }
}

// q, k and v as a GPT makes them: heads split off one [B, L, 3 heads E] projection and transposed.
// Their gradients come back in that layout (so they reshape to the projection's without a copy),
// with the values of the composite formulas, over one block and several, causal or not.
TEST(AttentionTest, GradientsOfTransposedHeadsComeBackInTheirLayout) {
  manual_seed(2);
  for (int64_t L : {5, 200}) {
    for (bool causal : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "L " << L << (causal ? " causal" : ""));
      const int64_t B = 2, H = 3, E = 4;
      Tensor proj = randn({B, L, 3 * H * E}, kFloat64).set_requires_grad();
      TensorList qkv = split(proj, H * E, 2);
      auto heads = [&](const Tensor& t) { return t.view({B, L, H, E}).transpose(1, 2); };
      Tensor q = heads(qkv[0]), k = heads(qkv[1]), v = heads(qkv[2]);
      Tensor out = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, causal);
      Tensor g = randn(out.sizes(), kFloat64);
      TensorList fused = autograd::grad({(out * g).sum()}, {q, k, v});
      TensorList slow = autograd::grad({(composite(q, k, v, Tensor(), causal) * g).sum()}, {q, k, v});
      for (int i = 0; i < 3; ++i) {
        expect_close(fused[i], slow[i], 1e-10, 1e-12, "gradient " + std::to_string(i));
        EXPECT_EQ(fused[i].strides(), IntArrayRef({L * H * E, E, H * E, 1})) << "gradient " << i;
      }
    }
  }
}

TEST(AttentionTest, FloatMatchesDoubleAcrossBlocks) {
  manual_seed(1);
  Tensor q = randn({2, 3, 140, 16}), k = randn({2, 3, 150, 16}), v = randn({2, 3, 150, 8});
  for (bool causal : {false, true}) {
    Tensor out = scaled_dot_product_attention(q, k, v, Tensor(), 0.0, causal);
    Tensor want = scaled_dot_product_attention(q.to(kFloat64), k.to(kFloat64), v.to(kFloat64), Tensor(), 0.0, causal);
    expect_close(out, want, 1e-5, 1e-6);
  }
}

TEST(AttentionTest, GradientsMatchFiniteDifferences) {
  manual_seed(2);
  auto q = [](std::vector<int64_t> shape) { return randn(shape, kFloat64).set_requires_grad(); };
  auto check = [](const TensorList& in, const Tensor& mask, bool causal, std::optional<double> scale = std::nullopt,
                  bool gqa = false) {
    for (int64_t limit : {detail::attention_saved_probs_limit(), int64_t{0}}) {  // kept, then recomputed
      SavedProbsLimit keep_probs(limit);
      gradcheck([&](const TensorList& x) { return scaled_dot_product_attention(x[0], x[1], x[2], mask, 0.0, causal, scale, gqa); },
                in);
    }
  };
  check({q({2, 3, 4}), q({2, 5, 4}), q({2, 5, 3})}, Tensor(), false);
  check({q({2, 3, 4}), q({2, 5, 4}), q({2, 5, 3})}, Tensor(), false, 0.7);
  check({q({2, 6, 3}), q({2, 4, 3}), q({2, 4, 2})}, Tensor(), true);  // L > S: rows 4, 5 see all keys
  check({q({2, 3, 3}), q({2, 6, 3}), q({2, 6, 2})}, Tensor(), true);  // L < S
  Tensor keep = tensor(std::vector<bool>{true, false, true, false, false, false, true, true, false, true, true, true},
                       {3, 4}, kBool);  // row 1 sees no key
  check({q({2, 3, 5}), q({2, 4, 5}), q({2, 4, 2})}, keep, false);
  Tensor bias = randn({2, 1, 3, 4}, kFloat64);
  bias.select(0, 0).select(0, 0).select(0, 2).fill_(-kInf);  // one fully masked row
  check({q({2, 2, 3, 5}), q({2, 2, 4, 5}), q({2, 2, 4, 3})}, bias, false);
  check({q({3, 4, 2}), q({1, 5, 2}), q({1, 5, 3})}, Tensor(), false);  // broadcast batch
  check({q({4, 3}), q({5, 3}), q({5, 2})}, Tensor(), false);  // 2-D
  check({q({1, 4, 3, 2}), q({1, 2, 5, 2}), q({1, 2, 5, 3})}, Tensor(), false, std::nullopt, true);  // gqa
  // Non-contiguous: transposed views (the usual [N, L, H, D] -> [N, H, L, D]) and a column-major
  // value matrix.
  gradcheck([](const TensorList& x) {
    return scaled_dot_product_attention(x[0].transpose(1, 2), x[1].transpose(1, 2), x[2].transpose(-1, -2), Tensor(),
                                        0.0, true);
  }, {q({2, 4, 3, 5}), q({2, 6, 3, 5}), q({2, 3, 4, 6})});
  // A floating mask that requires grad (the composite path) gets its gradient too.
  gradcheck([](const TensorList& x) { return scaled_dot_product_attention(x[0], x[1], x[2], x[3]); },
            {q({2, 3, 4}), q({2, 5, 4}), q({2, 5, 3}), q({3, 5})});
}

TEST(AttentionTest, SecondDerivativesMatchFiniteDifferences) {
  manual_seed(3);
  TensorList in{randn({2, 3, 4}, kFloat64).set_requires_grad(), randn({2, 5, 4}, kFloat64).set_requires_grad(),
                randn({2, 5, 3}, kFloat64).set_requires_grad()};
  Tensor keep = rand({3, 5}, kFloat64) > 0.3;
  keep.select(0, 0).fill_(false);
  for (bool causal : {false, true})
    gradgradcheck([&](const TensorList& x) {
      return scaled_dot_product_attention(x[0], x[1], x[2], causal ? Tensor() : keep, 0.0, causal);
    }, in);
}

TEST(AttentionTest, FullyMaskedRowsAreZeroWithZeroGradient) {
  // PyTorch 2.x: zeros (a plain softmax would give NaN), in the fused and the composite path.
  Tensor q = randn({1, 3, 4}, kFloat64).set_requires_grad(), k = randn({1, 5, 4}, kFloat64).set_requires_grad();
  Tensor v = randn({1, 5, 2}, kFloat64).set_requires_grad();
  Tensor keep = ones({3, 5}, kBool);
  keep.select(0, 1).fill_(false);
  for (bool fused : {true, false}) {
    Tensor out = fused ? scaled_dot_product_attention(q, k, v, keep) : scaled_dot_product_attention(q, k, v, keep, 0.5);
    expect_values(out.select(1, 1), {0, 0});
    TensorList g = autograd::grad({out.sum()}, {q, k, v});
    expect_values(g[0].select(1, 1), {0, 0, 0, 0});
    for (const Tensor& t : g) EXPECT_TRUE(t.isfinite().all().item<bool>());
  }
  // No keys at all: zeros as well.
  Tensor none = scaled_dot_product_attention(randn({2, 3}), zeros({0, 3}), zeros({0, 4}));
  expect_values(none, std::vector<double>(8, 0.0));
}

TEST(AttentionTest, EmptyAndLengthOneInputs) {
  EXPECT_EQ(scaled_dot_product_attention(randn({2, 0, 3}), randn({2, 4, 3}), randn({2, 4, 5})).sizes(),
            IntArrayRef({2, 0, 5}));
  EXPECT_EQ(scaled_dot_product_attention(randn({0, 2, 3}), randn({0, 4, 3}), randn({0, 4, 5})).sizes(),
            IntArrayRef({0, 2, 5}));
  Tensor v = randn({1, 1, 3});
  // One key: the output is its value, whatever the query.
  expect_close(scaled_dot_product_attention(randn({1, 4, 2}), randn({1, 1, 2}), v), v.expand({1, 4, 3}), 1e-6, 1e-7);
}

TEST(AttentionTest, DropoutZeroesWholeWeightsAndKeepsTheExpectation) {
  manual_seed(4);
  Tensor q = zeros({1, 1, 2}), k = zeros({1, 4, 2}), v = ones({1, 4, 1});  // uniform weights 1/4
  double total = 0;
  for (int i = 0; i < 400; ++i) {
    double y = scaled_dot_product_attention(q, k, v, Tensor(), 0.5).item<double>();
    // Each kept weight 1/4 is scaled to 1/2: the output is a multiple of 1/2.
    EXPECT_DOUBLE_EQ(std::round(y * 2) / 2, y);
    total += y;
  }
  EXPECT_NEAR(total / 400, 1.0, 0.1);
}

TEST(AttentionTest, BadInputsAreRefusedWithNamesAndShapes) {
  Tensor q = randn({2, 3, 4}), k = randn({2, 5, 4}), v = randn({2, 5, 6});
  expect_error<ValueError>([&] { scaled_dot_product_attention(randn({4}), k, v); },
                           {"scaled_dot_product_attention", "at least 2-D", "[4]"});
  expect_error<TypeError>([&] { scaled_dot_product_attention(q, k.to(kFloat64), v); },
                          {"scaled_dot_product_attention", "one dtype", "float64"});
  expect_error<TypeError>([&] { scaled_dot_product_attention(q.to(kInt64), k.to(kInt64), v.to(kInt64)); },
                          {"scaled_dot_product_attention", "int64"});
  expect_error<ValueError>([&] { scaled_dot_product_attention(q, randn({2, 5, 3}), v); },
                           {"scaled_dot_product_attention", "[2, 3, 4]", "[2, 5, 3]", "last dim"});
  expect_error<ValueError>([&] { scaled_dot_product_attention(q, k, randn({2, 6, 6})); },
                           {"scaled_dot_product_attention", "[2, 5, 4]", "[2, 6, 6]", "sequence length"});
  expect_error<ValueError>([&] { scaled_dot_product_attention(q, k, v, ones({3, 5}, kBool), 0.0, true); },
                           {"scaled_dot_product_attention", "attn_mask", "is_causal"});
  expect_error<TypeError>([&] { scaled_dot_product_attention(q, k, v, ones({3, 5}, kInt64)); },
                          {"scaled_dot_product_attention", "attn_mask", "int64"});
  expect_error<TypeError>([&] { scaled_dot_product_attention(q, k, v, ones({3, 5}, kFloat64)); },
                          {"attn_mask", "float64"});
  expect_error<ValueError>([&] { scaled_dot_product_attention(q, k, v, ones({4, 5}, kBool)); },
                           {"scaled_dot_product_attention", "attn_mask", "[4, 5]"});
  expect_error<ValueError>([&] { scaled_dot_product_attention(q, k, v, Tensor(), 1.5); },
                           {"scaled_dot_product_attention", "dropout_p", "1.5"});
  expect_error<ValueError>([&] {
    scaled_dot_product_attention(randn({1, 4, 3, 2}), randn({1, 3, 5, 2}), randn({1, 3, 5, 2}), Tensor(), 0.0, false,
                                 std::nullopt, true);
  }, {"scaled_dot_product_attention", "key heads (3)", "query heads (4)"});
  expect_error<ValueError>([&] { scaled_dot_product_attention(randn({2, 3, 4}), randn({3, 5, 4}), randn({3, 5, 6})); },
                           {"scaled_dot_product_attention"});
}
