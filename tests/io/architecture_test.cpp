// Architectures through the public API: built-in layers and containers round-trip their
// settings, io::save(module) + io::load_module rebuild a model that computes the same outputs,
// user types register a factory, and every malformed or unknown node is an error naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/io/architecture.h"
#include "ember/io/module_io.h"
#include "io/io_test_util.h"
#include "support/expect.h"

namespace ember::io {
namespace {

using ember::testing::bitwise_equal;
using ember::testing::TempDir;
using ::testing::HasSubstr;

// Sequential(layers...) without spelling out the pointer type at every call.
std::shared_ptr<nn::Sequential> sequential(std::vector<std::shared_ptr<nn::Module>> layers) {
  return std::make_shared<nn::Sequential>(layers);
}

// Outputs of the same weights on the same input. NB: not bitwise: the CPU kernels of LayerNorm
// and BatchNorm1d round the last bit differently depending on where their buffers happen to be
// allocated (a vector path and a scalar path), so even one model run twice can differ by an ulp.
// The weights themselves are compared bit for bit.
::testing::AssertionResult outputs_match(const Tensor& actual, const Tensor& expected) {
  if (actual.sizes() != expected.sizes())
    return ::testing::AssertionFailure() << "shapes " << actual.sizes() << " vs " << expected.sizes();
  double diff = (actual - expected).abs().max().item<double>();
  if (diff > 1e-6) return ::testing::AssertionFailure() << "max difference " << diff;
  return ::testing::AssertionSuccess();
}

void expect_same_weights(const nn::Module& a, const nn::Module& b) {
  nn::StateDict sb = b.state_dict();
  for (const auto& [name, t] : a.state_dict()) EXPECT_TRUE(bitwise_equal(t, sb.at(name))) << name;
}

// Same module tree: type names, child names, printed settings, and state names and shapes.
void expect_same_structure(const nn::Module& a, const nn::Module& b) {
  EXPECT_EQ(a.str(), b.str());
  EXPECT_TRUE(architecture(a).equals(architecture(b))) << architecture(a) << "\nvs\n" << architecture(b);
  nn::StateDict sa = a.state_dict(), sb = b.state_dict();
  ASSERT_EQ(sa.keys(), sb.keys());
  for (const auto& [name, t] : sa) EXPECT_EQ(t.sizes(), sb.at(name).sizes()) << name;
}

TEST(ArchitectureTest, SequentialOfBuiltinLayersRebuildsWithIdenticalEvalOutputs) {
  TempDir dir;
  manual_seed(11);
  auto model = sequential({
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions{2, 4, 3, /*stride=*/1, /*padding=*/1}),
      std::make_shared<nn::BatchNorm2d>(4),
      std::make_shared<nn::ReLU>(),
      std::make_shared<nn::MaxPool2d>(2),
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions{4, 6, {3, 2}, {1, 2}, {1, 0}, 1, /*groups=*/2, false}),
      std::make_shared<nn::AvgPool2d>(nn::Pool2dOptions{2, 1, 0, 1, false, false}),
      std::make_shared<nn::AdaptiveAvgPool2d>(Size2{2, 2}),
      std::make_shared<nn::Flatten>(),
      std::make_shared<nn::Linear>(24, 16),
      std::make_shared<nn::BatchNorm1d>(nn::BatchNormOptions{16, 1e-3, 0.2}),
      std::make_shared<nn::GELU>("tanh"),
      std::make_shared<nn::Dropout>(0.3),
      std::make_shared<nn::LeakyReLU>(0.2),
      std::make_shared<nn::LayerNorm>(16),
      std::make_shared<nn::Linear>(16, 5, /*bias=*/false),
      std::make_shared<nn::Tanh>(),
      std::make_shared<nn::Sigmoid>(),
      std::make_shared<nn::Identity>(),
      std::make_shared<nn::Softmax>(1),
  });
  Tensor x = randn({3, 2, 8, 12});
  model->forward(x);  // one training step's worth of running statistics
  model->eval();
  Tensor expected = model->forward(x);

  std::string path = dir.file("cnn.ember");
  save(*model, path);
  manual_seed(12);  // the rebuilt layers initialise differently before their state is loaded
  std::shared_ptr<nn::Sequential> loaded = load_module<nn::Sequential>(path);
  expect_same_structure(*loaded, *model);
  expect_same_weights(*loaded, *model);
  loaded->eval();
  EXPECT_TRUE(outputs_match(loaded->forward(x), expected));
  EXPECT_FALSE(bitwise_equal(loaded->state_dict().at("1.running_mean"), zeros({4})));  // trained stats came back
  EXPECT_EQ(loaded->state_dict().at("1.num_batches_tracked").item<int64_t>(), 1);
}

TEST(ArchitectureTest, ConvolutionNormalisationAndPReLULayersRebuildWithTheirOptions) {
  TempDir dir;
  manual_seed(21);
  nn::Conv2dOptions same{2, 4, {3, 4}};
  same.padding_rule = PaddingRule::Same;
  same.padding_mode = "reflect";
  same.dilation = {1, 2};
  nn::Conv1dOptions valid{4, 4, 3};
  valid.padding_rule = PaddingRule::Valid;
  valid.groups = 2;
  nn::Conv1dOptions circular{4, 2, 2, /*stride=*/1, /*padding=*/1};
  circular.padding_mode = "circular";
  auto model = sequential({
      std::make_shared<nn::Conv2d>(same),
      std::make_shared<nn::GroupNorm>(nn::GroupNormOptions{2, 4, 1e-4, true, /*bias=*/false}),
      std::make_shared<nn::PReLU>(4, 0.3),
      std::make_shared<nn::ConvTranspose2d>(nn::ConvTranspose2dOptions{4, 6, 3, 2, 1, 1, 2, false, 1}),
      std::make_shared<nn::InstanceNorm2d>(nn::InstanceNormOptions{6, 1e-5, 0.2, true, true}),
      std::make_shared<nn::AdaptiveMaxPool2d>(Size2(3, 4), /*return_indices=*/true),
      std::make_shared<nn::Flatten>(2),
      std::make_shared<nn::Conv1d>(nn::Conv1dOptions{6, 4, 3, 2, 1}),
      std::make_shared<nn::InstanceNorm1d>(4),
      std::make_shared<nn::Conv1d>(valid),
      std::make_shared<nn::Conv1d>(circular),
  });
  Tensor x = randn({2, 2, 7, 9});
  model->forward(x);  // running statistics move
  model->eval();
  Tensor expected = model->forward(x);
  std::string path = dir.file("conv.ember");
  save(*model, path);
  manual_seed(22);
  std::shared_ptr<nn::Sequential> loaded = load_module<nn::Sequential>(path);
  expect_same_structure(*loaded, *model);
  expect_same_weights(*loaded, *model);
  loaded->eval();
  EXPECT_TRUE(outputs_match(loaded->forward(x), expected));
  const auto& conv = dynamic_cast<const nn::Conv2d&>(*(*loaded)[0]);
  EXPECT_EQ(conv.options().padding_rule, PaddingRule::Same);
  EXPECT_EQ(conv.options().padding_mode, "reflect");
  EXPECT_TRUE(dynamic_cast<const nn::AdaptiveMaxPool2d&>(*(*loaded)[5]).return_indices());
  const Value arch = architecture(*model);
  EXPECT_EQ(arch.at("children").at("0").at("options").at("padding").as_string(), "same");
  EXPECT_EQ(arch.at("children").at("7").at("options").at("padding").as_int(), 1);
  auto norm3d = std::make_shared<nn::InstanceNorm3d>(nn::InstanceNormOptions{2, 1e-3, 0.1, true});
  EXPECT_TRUE(architecture(*from_architecture(architecture(*norm3d))).equals(architecture(*norm3d)));
  // BatchNorm3d, and momentum None (a cumulative average) as a None, not as a number
  auto batch3d = std::make_shared<nn::BatchNorm3d>(nn::BatchNormOptions{3, 1e-3, std::nullopt, false});
  EXPECT_TRUE(architecture(*batch3d).at("options").at("momentum").is_none());
  auto rebuilt = std::dynamic_pointer_cast<nn::BatchNorm3d>(from_architecture(architecture(*batch3d)));
  ASSERT_NE(rebuilt, nullptr);
  EXPECT_FALSE(rebuilt->options().momentum.has_value());
  EXPECT_FALSE(rebuilt->options().affine);
  EXPECT_EQ(rebuilt->options().eps, 1e-3);
  // a padding name no one knows is refused with the layer's name
  Value bad = arch.at("children").at("0");
  bad.at("options").set("padding", "full");
  try {
    from_architecture(bad);
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("io: Conv2d padding: invalid padding string 'full'"));
  }
}

TEST(ArchitectureTest, ArchitectureRecordsTypeNamesAndOptionsNotClasses) {
  auto model = sequential({std::make_shared<nn::Linear>(3, 2), std::make_shared<nn::ReLU>()});
  Value arch = architecture(*model);
  EXPECT_EQ(arch.at("type").as_string(), "Sequential");
  EXPECT_EQ(arch.at("children").keys(), (std::vector<Key>{"0", "1"}));
  const Value& linear = arch.at("children").at("0");
  EXPECT_TRUE(linear.equals(Value::dict({{"type", "Linear"},
                                         {"options", Value::dict({{"in_features", int64_t{3}},
                                                                  {"out_features", int64_t{2}},
                                                                  {"bias", true}})}})))
      << linear;
  EXPECT_TRUE(arch.at("children").at("1").at("options").equals(Value::dict()));
  EXPECT_FALSE(linear.contains("children"));  // a leaf layer builds its own children
}

TEST(ArchitectureTest, ContainersAttentionAndEncoderLayersRoundTrip) {
  TempDir dir;
  manual_seed(13);
  auto heads = std::make_shared<nn::ModuleDict>();
  heads->insert("cls", std::make_shared<nn::Linear>(8, 3));
  heads->insert("tokens", std::make_shared<nn::Embedding>(nn::EmbeddingOptions{20, 8, 0}));
  auto blocks = std::make_shared<nn::ModuleList>();
  blocks->push_back(std::make_shared<nn::TransformerEncoderLayer>(nn::TransformerEncoderLayerOptions{
      8, 2, 16, 0.0, "gelu", 1e-6, /*batch_first=*/true, /*norm_first=*/true}));
  blocks->push_back(std::make_shared<nn::MultiheadAttention>(nn::MultiheadAttentionOptions{8, 4, 0.1, false, true}));
  blocks->push_back(std::make_shared<nn::LayerNorm>(nn::LayerNormOptions{{8}, 1e-4, true, false}));
  auto model = std::make_shared<nn::ModuleDict>();
  model->insert("blocks", blocks);
  model->insert("heads", heads);
  auto named = std::make_shared<nn::Sequential>();
  named->push_back("stem", std::make_shared<nn::Linear>(8, 8));
  named->push_back("act", std::make_shared<nn::ReLU>());
  model->insert("named", named);

  std::string path = dir.file("mixed.ember");
  save(*model, path);
  manual_seed(14);
  std::shared_ptr<nn::Module> loaded = load_module(path);
  expect_same_structure(*loaded, *model);
  EXPECT_EQ(loaded->child("named")->named_children()[0].first, "stem");  // names kept, not renumbered

  model->eval();
  loaded->eval();
  Tensor x = randn({2, 5, 8});
  auto& layer = dynamic_cast<nn::TransformerEncoderLayer&>(*loaded->child("blocks")->child("0"));
  expect_same_weights(*loaded, *model);
  EXPECT_TRUE(outputs_match(layer.forward(x), blocks->at<nn::TransformerEncoderLayer>(0)->forward(x)));
  const auto& options = layer.options();
  EXPECT_EQ(options.activation, "gelu");
  EXPECT_EQ(options.layer_norm_eps, 1e-6);
  EXPECT_TRUE(options.batch_first && options.norm_first);
  auto embedding = std::dynamic_pointer_cast<nn::Embedding>(loaded->child("heads")->child("tokens"));
  ASSERT_NE(embedding, nullptr);
  EXPECT_EQ(embedding->options().padding_idx, std::optional<int64_t>(0));
}

// A user module: its own type name, settings and children, rebuilt through a registered factory.
class ScaledBlock : public nn::Module {
 public:
  ScaledBlock(int64_t width, double scale) : Module("ScaledBlock"), width_(width), scale_(scale) {
    inner_ = register_module("inner", std::make_shared<nn::Linear>(width, width));
    register_buffer("scale", full({}, scale));
  }
  Tensor forward(const Tensor& x) override { return inner_->forward(x).mul(buffer("scale")) + x; }
  int64_t width() const { return width_; }
  double scale() const { return scale_; }

 private:
  int64_t width_;
  double scale_;
  std::shared_ptr<nn::Linear> inner_;
};

void register_scaled_block() {
  static const bool registered = [] {
    register_module_type(
        "ScaledBlock",
        [](const nn::Module& m) {
          const auto& b = dynamic_cast<const ScaledBlock&>(m);
          return Value::dict({{"width", b.width()}, {"scale", b.scale()}});
        },
        [](const Value& o) { return std::make_shared<ScaledBlock>(o.at("width").as_int(), o.at("scale").as_float()); });
    return true;
  }();
  ASSERT_TRUE(registered);
}

TEST(ArchitectureTest, TransformerStacksAndAttentionOptionsRoundTrip) {
  TempDir dir;
  manual_seed(15);
  nn::TransformerOptions o{8, 2, 2, 1, 16, 0.0, "gelu"};
  o.batch_first = o.norm_first = true;
  o.bias = false;
  auto model = std::make_shared<nn::ModuleDict>();
  model->insert("transformer", std::make_shared<nn::Transformer>(o));
  nn::MultiheadAttentionOptions mha{8, 2, 0.0, true, false, true, true, 3, 5};
  model->insert("mha", std::make_shared<nn::MultiheadAttention>(mha));
  model->insert("decoder", std::make_shared<nn::TransformerDecoder>(nn::TransformerDecoderLayer(8, 2), 1));
  std::string path = dir.file("transformer.ember");
  save(*model, path);
  std::shared_ptr<nn::Module> loaded = load_module(path);
  expect_same_structure(*loaded, *model);
  expect_same_weights(*loaded, *model);
  // The stacks record their children ("layers", "norm"); Transformer records its options too.
  Value arch = architecture(*model);
  EXPECT_TRUE(arch.at("children").at("transformer").at("children").at("encoder").at("children").contains("norm"));
  EXPECT_FALSE(arch.at("children").at("decoder").at("children").contains("norm"));
  auto& t = dynamic_cast<nn::Transformer&>(*loaded->child("transformer"));
  EXPECT_TRUE(t.options().batch_first && t.options().norm_first && !t.options().bias);
  EXPECT_EQ(t.encoder().num_layers(), 2);
  auto& a = dynamic_cast<nn::MultiheadAttention&>(*loaded->child("mha"));
  EXPECT_EQ(a.kdim(), 3);
  EXPECT_EQ(a.vdim(), 5);
  EXPECT_TRUE(a.options().add_bias_kv && a.options().add_zero_attn);
  model->eval();
  loaded->eval();
  Tensor src = randn({2, 5, 8}), tgt = randn({2, 3, 8});
  auto& original = dynamic_cast<nn::Transformer&>(*model->child("transformer"));
  EXPECT_TRUE(outputs_match(t.forward(src, tgt), original.forward(src, tgt)));
  // A stack whose "layers" is missing is refused with the path.
  Value bad = architecture(*model->child("decoder"));
  bad.at("children").set("extra", bad.at("children").at("layers"));
  EXPECT_THAT(ember::testing::message_of([&] { from_architecture(bad); }),
              HasSubstr("unexpected child 'extra' of TransformerDecoder"));
}

TEST(ArchitectureTest, RegisteredUserTypeRoundTripsInsideASequential) {
  register_scaled_block();
  EXPECT_TRUE(has_module_type("ScaledBlock"));
  EXPECT_THAT(module_types(), ::testing::Contains("ScaledBlock"));
  TempDir dir;
  manual_seed(15);
  auto model = sequential({std::make_shared<nn::Linear>(3, 4), std::make_shared<ScaledBlock>(4, 0.25),
                           std::make_shared<nn::Tanh>()});
  Tensor x = randn({6, 3});
  Tensor expected = model->forward(x);
  std::string path = dir.file("user.ember");
  save(*model, path);
  EXPECT_FALSE(load(path).at("architecture").at("children").at("1").contains("children"));

  manual_seed(16);
  auto loaded = load_module<nn::Sequential>(path);
  expect_same_structure(*loaded, *model);
  auto block = std::dynamic_pointer_cast<ScaledBlock>((*loaded)[1]);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(block->scale(), 0.25);
  expect_same_weights(*loaded, *model);
  EXPECT_TRUE(outputs_match(loaded->forward(x), expected));
}

TEST(ArchitectureTest, UnknownTypeOnLoadNamesTheTypeAndHowToRegisterIt) {
  class Unregistered : public nn::Module {
   public:
    Unregistered() : Module("UnregisteredNet") { register_module("fc", std::make_shared<nn::Linear>(2, 2)); }
  };
  TempDir dir;
  std::string path = dir.file("unknown.ember");
  auto model = sequential({std::make_shared<nn::ReLU>(), std::make_shared<Unregistered>()});
  save(*model, path);  // saving records the name (and children) so the weights are never lost
  try {
    load_module(path);
    FAIL() << "expected an error";
  } catch (const KeyError& e) {
    EXPECT_THAT(e.what(), HasSubstr(path));
    EXPECT_THAT(e.what(), HasSubstr("unknown module type 'UnregisteredNet' at '1'"));
    EXPECT_THAT(e.what(), HasSubstr("io::register_module_type(\"UnregisteredNet\""));
  }
  // The state still loads into a module built in code.
  auto rebuilt = sequential({std::make_shared<nn::ReLU>(), std::make_shared<Unregistered>()});
  EXPECT_TRUE(load_into(*rebuilt, path).ok());
  EXPECT_TRUE(bitwise_equal(rebuilt->state_dict().at("1.fc.weight"), model->state_dict().at("1.fc.weight")));
}

TEST(ArchitectureTest, LoadModuleRemakesTiesTheStateRecords) {
  TempDir dir;
  auto embed = std::make_shared<nn::Embedding>(7, 4);
  auto decoder = std::make_shared<nn::Linear>(4, 7, /*bias=*/false);
  decoder->replace_parameter("weight", embed->weight());
  auto model = sequential({embed, std::make_shared<nn::Linear>(4, 4), decoder});
  std::string path = dir.file("tied.ember");
  save(*model, path);
  EXPECT_EQ(File::open(path).tensors().size(), 3u);

  auto loaded = load_module<nn::Sequential>(path);
  EXPECT_TRUE((*loaded)[2]->parameter("weight").is_same((*loaded)[0]->parameter("weight")));
  EXPECT_EQ(loaded->parameters().size(), model->parameters().size());
  EXPECT_TRUE(bitwise_equal((*loaded)[2]->parameter("weight"), embed->weight()));
}

TEST(ArchitectureTest, MalformedOptionsAreErrorsNamingTheLayerAndOption) {
  auto node = [](Value options) { return Value::dict({{"type", "Linear"}, {"options", std::move(options)}}); };
  try {
    from_architecture(node(Value::dict({{"in_features", "four"}, {"out_features", 2}})));
    FAIL() << "expected an error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("option 'in_features' of Linear at the root module is a str, expected int"));
  }
  try {
    from_architecture(Value::dict({{"type", "Sequential"},
                                   {"children", Value::dict({{"0", node(Value::dict({{"in_features", 2}}))}})}}));
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("option 'out_features' of Linear at '0' is missing"));
  }
  try {
    from_architecture(node(Value::dict({{"in_features", 2}, {"out_features", 2}, {"bias_init", 0.5}})));
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown option 'bias_init' for Linear"));
  }
  try {
    from_architecture(Value::dict({{"options", Value::dict()}}));
    FAIL() << "expected an error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("has no \"type\" string"));
  }
  // A missing optional field takes the layer's default (files written before it existed).
  auto linear = std::dynamic_pointer_cast<nn::Linear>(
      from_architecture(node(Value::dict({{"in_features", 2}, {"out_features", 3}}))));
  ASSERT_NE(linear, nullptr);
  EXPECT_TRUE(linear->options().bias);
}

TEST(ArchitectureTest, RegistrationErrors) {
  try {
    register_module_type("Linear", [](const nn::Module&) { return Value::dict(); },
                         [](const Value&) { return std::make_shared<nn::Identity>(); });
    FAIL() << "expected an error";
  } catch (const KeyError& e) {
    EXPECT_THAT(e.what(), HasSubstr("module type 'Linear' is already registered"));
  }
  // A factory that builds a module of another type name would save under a name it can't load.
  static const bool registered = [] {
    register_module_type("MislabelledBlock", [](const nn::Module&) { return Value::dict(); },
                         [](const Value&) { return std::make_shared<nn::Identity>(); });
    return true;
  }();
  ASSERT_TRUE(registered);
  try {
    from_architecture(Value::dict({{"type", "MislabelledBlock"}, {"options", Value::dict()}}));
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("built a module named 'Identity'"));
  }
  // A user class that borrows a built-in name is refused rather than described as that layer.
  class FakeLinear : public nn::Module {
   public:
    FakeLinear() : Module("Linear") {}
  };
  try {
    architecture(FakeLinear());
    FAIL() << "expected an error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("is not the built-in Linear"));
  }
}

TEST(ArchitectureTest, LoadModuleOfAStateOnlyFileSaysSo) {
  TempDir dir;
  std::string path = dir.file("state.ember");
  save(to_value(nn::Linear(2, 2)), path);
  try {
    load_module(path);
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("holds no module architecture"));
    EXPECT_THAT(e.what(), HasSubstr("io::load_into"));
  }
  TempDir other;
  std::string seq = other.file("seq.ember");
  save(*sequential({std::make_shared<nn::ReLU>()}), seq);
  try {
    load_module<nn::ModuleList>(seq);
    FAIL() << "expected an error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("holds a Sequential"));
  }
}

TEST(ArchitectureTest, PaddingLayersRebuildWithTheirAmountsAndValue) {
  TempDir dir;
  manual_seed(17);
  auto model = sequential({std::make_shared<nn::ConstantPad2d>(nn::PadAmounts({1, 0, 2, 3}), 1.5),
                           std::make_shared<nn::ReflectionPad2d>(2), std::make_shared<nn::ZeroPad1d>(1),
                           std::make_shared<nn::CircularPad2d>(nn::PadAmounts({0, 1, 1, 0}))});
  const std::string path = dir.file("pads.ember");
  save(*model, path);
  auto back = load_module<nn::Sequential>(path);
  Tensor x = randn({2, 3, 5, 6});
  EXPECT_TRUE(bitwise_equal(back->forward(x), model->forward(x)));
  auto& constant = back->child_as<nn::ConstantPad2d>("0");
  EXPECT_EQ(constant.value(), 1.5);
  EXPECT_EQ(constant.padding(), (std::vector<int64_t>{1, 0, 2, 3}));
}

TEST(ArchitectureTest, ActivationLayersRebuildWithTheirOptions) {
  TempDir dir;
  manual_seed(19);
  auto model = sequential({std::make_shared<nn::ELU>(nn::ELUOptions{0.3}), std::make_shared<nn::SiLU>(),
                           std::make_shared<nn::Softplus>(nn::SoftplusOptions{2.0, 4.0}),
                           std::make_shared<nn::Hardtanh>(nn::HardtanhOptions{-2.0, 2.5}),
                           std::make_shared<nn::Threshold>(nn::ThresholdOptions{0.1, -3.0}),
                           std::make_shared<nn::Softshrink>(nn::ShrinkOptions{0.2}), std::make_shared<nn::Mish>(),
                           std::make_shared<nn::LogSoftmax>(nn::DimOptions{1})});
  const std::string path = dir.file("acts.ember");
  save(*model, path);
  auto back = load_module<nn::Sequential>(path);
  Tensor x = randn({3, 5});
  EXPECT_TRUE(bitwise_equal(back->forward(x), model->forward(x)));
  EXPECT_EQ(back->child_as<nn::Threshold>("4").options().value, -3.0);
  EXPECT_EQ(back->str(), model->str());
}

TEST(ArchitectureTest, PoolConvAndResamplingLayersRebuildWithTheirOptions) {
  TempDir dir;
  manual_seed(29);
  auto volume = sequential(
      {std::make_shared<nn::Conv3d>(nn::Conv3dOptions{.in_channels = 2,
                                                      .out_channels = 3,
                                                      .kernel_size = {3, 1, 3},
                                                      .padding_mode = "circular",
                                                      .padding_rule = PaddingRule::Same}),
       std::make_shared<nn::MaxPool3d>(nn::MaxPool3dOptions{.kernel_size = 2, .stride = Size3{1, 2, 2}, .padding = 1}),
       std::make_shared<nn::AvgPool3d>(
           nn::AvgPool3dOptions{.kernel_size = 2, .count_include_pad = false, .divisor_override = 3}),
       std::make_shared<nn::ConvTranspose3d>(nn::ConvTranspose3dOptions{
           .in_channels = 3, .out_channels = 2, .kernel_size = 2, .stride = 2, .dilation = {1, 1, 2}}),
       std::make_shared<nn::AdaptiveMaxPool3d>(nn::AdaptiveMaxPoolOptions<Size3>{.output_size = {-1, 2, 3}}),
       std::make_shared<nn::LPPool3d>(nn::LPPoolOptions<Size3>{.norm_type = 2.0, .kernel_size = 1})});
  auto row =
      sequential({std::make_shared<nn::ConvTranspose1d>(nn::ConvTranspose1dOptions{
                      .in_channels = 2, .out_channels = 4, .kernel_size = 3, .output_padding = 0}),
                  std::make_shared<nn::MaxPool1d>(nn::MaxPool1dOptions{.kernel_size = 2, .ceil_mode = true}),
                  std::make_shared<nn::AvgPool1d>(nn::AvgPool1dOptions{.kernel_size = 3, .stride = 1, .padding = 1}),
                  std::make_shared<nn::LPPool1d>(nn::LPPoolOptions<int64_t>{.norm_type = 2.0, .kernel_size = 2}),
                  std::make_shared<nn::AdaptiveAvgPool1d>(nn::AdaptiveAvgPoolOptions<int64_t>{.output_size = 3})});
  auto plane =
      sequential({std::make_shared<nn::Upsample>(nn::UpsampleOptions{
                      .scale_factor = std::vector<double>{2.0, 1.5}, .mode = "bicubic", .align_corners = true}),
                  std::make_shared<nn::UpsamplingNearest2d>(nn::UpsampleOptions{.size = std::vector<int64_t>{12, 9}}),
                  std::make_shared<nn::LocalResponseNorm>(nn::LocalResponseNormOptions{.size = 3, .beta = 0.5}),
                  std::make_shared<nn::Unfold>(nn::UnfoldOptions{.kernel_size = 2, .stride = 2}),
                  std::make_shared<nn::Fold>(nn::FoldOptions{.output_size = {12, 8}, .kernel_size = 2, .stride = 2})});
  const std::vector<std::pair<std::shared_ptr<nn::Sequential>, std::vector<int64_t>>> models = {
      {volume, {1, 2, 4, 5, 6}}, {row, {2, 2, 7}}, {plane, {1, 2, 3, 4}}};
  for (const auto& [model, shape] : models) {
    const std::string path = dir.file("layers.ember");
    save(*model, path);
    auto back = load_module<nn::Sequential>(path);
    expect_same_structure(*back, *model);
    expect_same_weights(*back, *model);
    Tensor x = randn(shape);
    EXPECT_TRUE(bitwise_equal(back->forward(x), model->forward(x)));
  }
  EXPECT_EQ(load_module<nn::Sequential>(dir.file("layers.ember"))->child_as<nn::Upsample>("0").options().mode,
            "bicubic");
}

TEST(ArchitectureTest, EmbeddingBagRebuildsWithItsOptionsAndWeight) {
  TempDir dir;
  manual_seed(23);
  nn::EmbeddingBag bag({7, 3, "sum", true, 2});
  const std::string path = dir.file("bag.ember");
  save(bag, path);
  auto back = load_module<nn::EmbeddingBag>(path);
  EXPECT_EQ(back->options().mode, "sum");
  EXPECT_TRUE(back->options().include_last_offset);
  EXPECT_EQ(back->options().padding_idx, 2);
  Tensor input = tensor(std::vector<int64_t>{1, 2, 6, 0}), offsets = tensor(std::vector<int64_t>{0, 1, 4});
  EXPECT_TRUE(bitwise_equal(back->forward(input, offsets), bag.forward(input, offsets)));
}

TEST(ArchitectureTest, LossModulesRebuildWithTheirOptionsAndWeights) {
  TempDir dir;
  manual_seed(13);
  nn::ModuleDict losses;
  Tensor w = rand({3}, kFloat64);
  losses.insert("ce", std::make_shared<nn::CrossEntropyLoss>(nn::CrossEntropyLossOptions{
                          .weight = w, .ignore_index = 2, .reduction = nn::Reduction::Sum, .label_smoothing = 0.1}));
  losses.insert("bce",
                std::make_shared<nn::BCEWithLogitsLoss>(nn::BCEWithLogitsLossOptions{.pos_weight = full({3}, 2.0)}));
  losses.insert("kl", std::make_shared<nn::KLDivLoss>(nn::KLDivLossOptions{nn::Reduction::BatchMean, true}));
  losses.insert("mm", std::make_shared<nn::MultiMarginLoss>(nn::MultiMarginLossOptions{.p = 2, .margin = 0.5}));
  losses.insert("ctc", std::make_shared<nn::CTCLoss>(nn::CTCLossOptions{.blank = 3, .zero_infinity = true}));
  losses.insert("triplet",
                std::make_shared<nn::TripletMarginLoss>(nn::TripletMarginLossOptions{.p = 1.0, .swap = true}));
  const std::string path = dir.file("losses.ember");
  save(losses, path);
  auto back = load_module<nn::ModuleDict>(path);
  auto& ce = back->child_as<nn::CrossEntropyLoss>("ce");
  EXPECT_EQ(ce.options().ignore_index, 2);
  EXPECT_EQ(ce.options().reduction, nn::Reduction::Sum);
  EXPECT_EQ(ce.options().label_smoothing, 0.1);
  EXPECT_EQ(ce.weight().dtype(), kFloat64);
  ember::testing::expect_close(ce.weight(), w, 0, 0);
  ember::testing::expect_close(back->child_as<nn::BCEWithLogitsLoss>("bce").weight("pos_weight"), full({3}, 2.0), 0, 0);
  EXPECT_FALSE(back->child_as<nn::BCEWithLogitsLoss>("bce").weight().defined());
  EXPECT_EQ(back->child_as<nn::KLDivLoss>("kl").options().reduction, nn::Reduction::BatchMean);
  EXPECT_TRUE(back->child_as<nn::KLDivLoss>("kl").options().log_target);
  EXPECT_EQ(back->child_as<nn::MultiMarginLoss>("mm").options().p, 2);
  EXPECT_EQ(back->child_as<nn::CTCLoss>("ctc").options().blank, 3);
  EXPECT_TRUE(back->child_as<nn::CTCLoss>("ctc").options().zero_infinity);
  EXPECT_EQ(back->child_as<nn::TripletMarginLoss>("triplet").options().p, 1.0);

  nn::TripletMarginWithDistanceLoss custom(
      {.distance_function = [](const Tensor& a, const Tensor& b) { return a - b; }});
  try {
    save(custom, dir.file("custom.ember"));
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("distance_function"));
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("custom.ember")));
}

}  // namespace
}  // namespace ember::io
