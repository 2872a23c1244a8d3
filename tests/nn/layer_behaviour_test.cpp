// Layer behaviour beyond numerics: default initialisation as PyTorch's, train/eval switches,
// containers and their names, printouts, argument errors.
#include <gtest/gtest.h>

#include <cmath>

#include "ember/ember.h"
#include "support/expect.h"

using namespace ember;
using ember::testing::expect_error;

namespace {
std::pair<double, double> min_max(const Tensor& t) {
  std::vector<double> v = t.to_vector<double>();
  return {*std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())};
}
double stddev(const Tensor& t) {
  std::vector<double> v = t.to_vector<double>();
  double m = 0, s = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size()));
}
}  // namespace

TEST(LayerInitTest, LinearAndConvFollowPyTorchBounds) {
  manual_seed(1);
  nn::Linear fc(400, 300);
  // kaiming_uniform(a = sqrt 5) gives U(-1/sqrt(in), 1/sqrt(in)); the bias the same bound.
  double bound = 1.0 / std::sqrt(400.0);
  auto [lo, hi] = min_max(fc.weight());
  EXPECT_GE(lo, -bound);
  EXPECT_LE(hi, bound);
  EXPECT_NEAR(stddev(fc.weight()), bound / std::sqrt(3.0), 0.02 * bound);
  auto [blo, bhi] = min_max(fc.bias());
  EXPECT_GE(blo, -bound);
  EXPECT_LE(bhi, bound);
  nn::Conv2d conv(8, 16, 3);
  double cbound = 1.0 / std::sqrt(8.0 * 9.0);
  auto [clo, chi] = min_max(conv.weight());
  EXPECT_GE(clo, -cbound);
  EXPECT_LE(chi, cbound);
}

TEST(LayerInitTest, EmbeddingIsStandardNormalWithZeroPaddingRow) {
  manual_seed(2);
  nn::Embedding e(nn::EmbeddingOptions{1000, 16, 3});
  EXPECT_NEAR(stddev(e.weight()), 1.0, 0.03);
  EXPECT_EQ(select(e.weight(), 0, 3).to_vector<float>(), std::vector<float>(16, 0.0f));
}

TEST(LayerInitTest, NormsStartAtOneAndZero) {
  nn::BatchNorm2d bn(4);
  EXPECT_EQ(bn.parameter("weight").to_vector<float>(), std::vector<float>(4, 1.0f));
  EXPECT_EQ(bn.buffer("running_var").to_vector<float>(), std::vector<float>(4, 1.0f));
  EXPECT_EQ(bn.buffer("num_batches_tracked").dtype(), kInt64);
  nn::LayerNorm ln(6);
  EXPECT_EQ(ln.parameter("bias").to_vector<float>(), std::vector<float>(6, 0.0f));
}

TEST(LayerInitTest, InitFunctionsMatchTheirDistributions) {
  Generator g(5);
  Tensor w = empty({256, 128});
  nn::init::xavier_uniform_(w, 1.0, &g);
  double bound = std::sqrt(6.0 / (256 + 128));
  auto [lo, hi] = min_max(w);
  EXPECT_GE(lo, -bound);
  EXPECT_LE(hi, bound);
  nn::init::kaiming_normal_(w, 0.0, nn::init::FanMode::FanIn, "relu", &g);
  EXPECT_NEAR(stddev(w), std::sqrt(2.0 / 128), 0.02 * std::sqrt(2.0 / 128));
  nn::init::trunc_normal_(w, 0.0, 1.0, -0.5, 0.5, &g);
  auto [tlo, thi] = min_max(w);
  EXPECT_GE(tlo, -0.5);
  EXPECT_LE(thi, 0.5);
  EXPECT_NEAR(nn::init::calculate_gain("tanh"), 5.0 / 3.0, 1e-12);
  expect_error<ValueError>([] { nn::init::calculate_gain("swish"); },
                           {"calculate_gain: unsupported nonlinearity 'swish'"});
  expect_error<ValueError>([&] { nn::init::xavier_uniform_(empty({3}), 1.0, &g); },
                           {"xavier_uniform_: fan in and fan out need a tensor with at least 2 dims, got shape [3]"});
}

TEST(LayerModeTest, DropoutIsIdentityInEvalAndScalesInTraining) {
  manual_seed(3);
  nn::Dropout drop(0.25);
  Tensor x = ones({10000});
  Tensor y = drop.forward(x);
  std::vector<float> v = y.to_vector<float>();
  int64_t zeros_seen = std::count(v.begin(), v.end(), 0.0f);
  EXPECT_NEAR(static_cast<double>(zeros_seen) / 10000, 0.25, 0.02);
  for (float f : v) EXPECT_TRUE(f == 0.0f || std::fabs(f - 1.0f / 0.75f) < 1e-6);
  drop.eval();
  EXPECT_TRUE(drop.forward(x).to_vector<float>() == x.to_vector<float>());
}

TEST(LayerModeTest, BatchNormUsesBatchStatsInTrainingAndRunningStatsInEval) {
  nn::BatchNorm1d bn(nn::BatchNormOptions{1, 0.0, 0.5});
  Tensor x = tensor<float>({1, 3}, {2, 1});
  Tensor y = bn.forward(x);  // batch mean 2, biased var 1
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{-1, 1}));
  EXPECT_EQ(bn.buffer("running_mean").to_vector<float>(), (std::vector<float>{1.0f}));  // 0.5*0 + 0.5*2
  EXPECT_EQ(bn.buffer("running_var").to_vector<float>(), (std::vector<float>{1.5f}));   // 0.5*1 + 0.5*2
  bn.eval();
  Tensor z = bn.forward(tensor<float>({1}, {1, 1}));
  EXPECT_NEAR(z.item<float>(), 0.0f, 1e-6);
  EXPECT_EQ(bn.buffer("num_batches_tracked").item<int64_t>(), 1);
  expect_error<ValueError>([&] { bn.forward(zeros({2, 3})); },
                           {"BatchNorm1d: expected 1 channels in dim 1, got shape [2, 3]"});
}

TEST(LayerModeTest, BatchNormWithoutMomentumKeepsTheCumulativeAverageOfTheBatchStatistics) {
  // torch's momentum=None: batch k weighs 1/k, so the running statistics are the plain averages.
  nn::BatchNorm1d bn(nn::BatchNormOptions{1, 0.0, std::nullopt});
  bn.forward(tensor<float>({1, 3}, {2, 1}));  // mean 2, unbiased var 2
  bn.forward(tensor<float>({5, 9}, {2, 1}));  // mean 7, unbiased var 8
  bn.forward(tensor<float>({0, 0}, {2, 1}));  // mean 0, unbiased var 0
  EXPECT_EQ(bn.buffer("running_mean").to_vector<float>(), (std::vector<float>{3.0f}));
  EXPECT_NEAR(bn.buffer("running_var").item<float>(), 10.0f / 3, 1e-6);  // (2 + 8 + 0) / 3, rounded twice
  EXPECT_NE(bn.str().find("momentum=None"), std::string::npos) << bn.str();
  bn.set_momentum(1.0);  // the last batch's statistics only
  bn.forward(tensor<float>({1, 3}, {2, 1}));
  EXPECT_EQ(bn.buffer("running_mean").to_vector<float>(), (std::vector<float>{2.0f}));
}

TEST(LayerModeTest, BatchNorm3dPoolsEachChannelOverTheBatchAndThreeSpatialDims) {
  manual_seed(3);
  nn::BatchNorm3d bn3(3);
  nn::BatchNorm2d bn2(3);
  Tensor x = randn({2, 3, 4, 5, 6});
  Tensor y = bn3.forward(x);
  EXPECT_TRUE(allclose(y, bn2.forward(x.reshape({2, 3, 20, 6})).reshape({2, 3, 4, 5, 6}), 1e-5, 1e-6));
  EXPECT_TRUE(allclose(bn3.buffer("running_var"), bn2.buffer("running_var")));
  expect_error<ValueError>(
      [&] {
        bn3.forward(zeros({2, 3, 4, 5}));
      },
      {"BatchNorm3d: expected 5D input (got 4D input): shape [2, 3, 4, 5]"});
}

TEST(ContainerTest, SequentialRunsChildrenInOrderAndNamesThemByIndex) {
  auto seq = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(4, 8), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(8, 2)});
  EXPECT_EQ(seq->size(), 3u);
  Tensor y = seq->forward(ones({5, 4}));
  EXPECT_EQ(y.sizes(), IntArrayRef({5, 2}));
  std::vector<std::string> names;
  for (auto& [n, p] : seq->named_parameters()) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  EXPECT_EQ(seq->str(),
            "Sequential(\n  (0): Linear(in_features=4, out_features=8, bias=True)  # 40 params\n"
            "  (1): ReLU()\n  (2): Linear(in_features=8, out_features=2, bias=True)  # 18 params\n)\n"
            "parameters: 58 (trainable 58)");
  expect_error<IndexError>([&] { (*seq)[3]; }, {"Sequential: index 3 out of range for 3 modules"});
}

TEST(ContainerTest, ModuleListAndDictNameTheirEntries) {
  nn::ModuleList list{std::make_shared<nn::Linear>(2, 2), std::make_shared<nn::Linear>(2, 3)};
  EXPECT_EQ(list.at<nn::Linear>(1)->options().out_features, 3);
  expect_error<TypeError>([&] { list.at<nn::Conv2d>(0); }, {"ModuleList: element 0 is a Linear"});
  nn::ModuleDict dict{{"cls", std::make_shared<nn::Linear>(2, 5)}};
  dict.insert("reg", std::make_shared<nn::Linear>(2, 1));
  EXPECT_TRUE(dict.contains("reg"));
  EXPECT_EQ(dict.named_parameters()[2].first, "reg.weight");
  expect_error<KeyError>([&] { dict.insert("cls", std::make_shared<nn::Identity>()); },
                         {"ModuleDict: module 'cls' already defined"});
}

TEST(LayerErrorsTest, ShapesAreNamedInErrors) {
  nn::Linear fc(3, 2);
  try {
    fc.forward(zeros({4, 5}));
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "linear: input of shape [4, 5] does not match weight of shape [2, 3] (expected last input dim 3)");
  }
  expect_error<ValueError>([] { nn::Conv2d(nn::Conv2dOptions{3, 4, 3, 1, 0, 1, 2}); },
                           {"Conv2d: in_channels (3) and out_channels (4) must be divisible by groups (2)"});
  expect_error<ValueError>([] { nn::MultiheadAttention(10, 3); },
                           {"MultiheadAttention: embed_dim (10) must be divisible by num_heads (3)"});
  expect_error<ValueError>([] { nn::Dropout(1.5); },
                           {"Dropout: probability has to be between 0 and 1, but got 1.5"});
}

TEST(TiedModelTest, MaskedLanguageModelTiesDecoderToEmbedding) {
  struct MaskedLM : nn::Module {
    std::shared_ptr<nn::Embedding> embed = register_module("embed", std::make_shared<nn::Embedding>(20, 8));
    std::shared_ptr<nn::TransformerEncoderLayer> encoder = register_module(
        "encoder", std::make_shared<nn::TransformerEncoderLayer>(nn::TransformerEncoderLayerOptions{8, 2, 16, 0.0, "gelu", 1e-5, true}));
    std::shared_ptr<nn::Linear> decoder = register_module("decoder", std::make_shared<nn::Linear>(8, 20));
    MaskedLM() : Module("MaskedLM") { decoder->replace_parameter("weight", embed->weight()); }
    Tensor forward(const Tensor& tokens) override { return decoder->forward(encoder->forward(embed->forward(tokens))); }
  };
  MaskedLM model;
  Tensor tokens = tensor<int64_t>({1, 5, 7, 2, 0, 3}, {2, 3});
  Tensor logits = model.forward(tokens);
  EXPECT_EQ(logits.sizes(), IntArrayRef({2, 3, 20}));
  nn::functional::cross_entropy(logits.reshape({6, 20}), tokens.reshape({6})).backward();
  // One parameter under two names, its gradient the sum of both uses.
  EXPECT_TRUE(model.decoder->weight().is_same(model.embed->weight()));
  EXPECT_TRUE(model.embed->weight().grad().defined());
  EXPECT_TRUE(model.state_dict().contains("decoder.weight"));
  EXPECT_EQ(model.parameters().size(), model.state_dict().size() - 1);
}
