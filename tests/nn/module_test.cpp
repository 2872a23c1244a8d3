#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/nn/nn.h"
#include "support/expect.h"

using namespace ember;
using nn::Module;
using ember::testing::expect_error;
using ember::testing::message_of;

namespace {

// A layer built only from registration: weight, optional bias, a running buffer and a scratch one.
struct Affine : Module {
  Affine(int64_t in, int64_t out) : Module("Affine") {
    register_parameter("weight", ones({out, in}));
    register_parameter("bias", zeros({out}));
    register_buffer("running", zeros({out}));
    register_buffer("scratch", zeros({1}), /*persistent=*/false);
  }
  std::string extra_repr() const override { return "in=2, out=3"; }
};

struct Net : Module {
  std::shared_ptr<Affine> encoder = register_module("encoder", std::make_shared<Affine>(2, 3));
  std::shared_ptr<Affine> decoder = register_module("decoder", std::make_shared<Affine>(3, 2));
  Net() : Module("Net") {}
};

std::vector<std::string> names(const std::vector<std::pair<std::string, Tensor>>& items) {
  std::vector<std::string> out;
  for (const auto& [n, t] : items) out.push_back(n);
  return out;
}

}  // namespace

TEST(ModuleTest, RegisterParameterRejectsDuplicateName) {
  Module m("Custom");
  m.register_parameter("w", zeros({1}));
  EXPECT_EQ(message_of([&] { m.register_parameter("w", zeros({1})); }),
            "Custom: parameter 'w' already defined");
  EXPECT_EQ(message_of([&] { m.register_buffer("w", zeros({1})); }), "Custom: buffer 'w' already defined");
}

TEST(ModuleTest, RegisterRejectsDottedAndEmptyNames) {
  Module m("Custom");
  EXPECT_EQ(message_of([&] { m.register_parameter("a.b", zeros({1})); }),
            "Custom: parameter name 'a.b' can't contain \".\"");
  EXPECT_EQ(message_of([&] { m.register_buffer("", zeros({1})); }), "Custom: buffer name can't be empty");
  expect_error<ValueError>([&] { m.register_module("x.y", std::make_shared<Module>()); },
                           {"Custom: module name 'x.y' can't contain \".\""});
}

TEST(ModuleTest, RegisterReturnsTheStoredHandle) {
  Module m;
  Tensor w = m.register_parameter("w", zeros({2}));
  EXPECT_TRUE(w.is_same(m.parameter("w")));
  EXPECT_TRUE(w.requires_grad());
  Tensor frozen = m.register_parameter("frozen", zeros({2}), /*requires_grad=*/false);
  EXPECT_FALSE(frozen.requires_grad());
}

TEST(ModuleTest, StructuredNamesInRegistrationOrder) {
  Net net;
  EXPECT_EQ(names(net.named_parameters()),
            (std::vector<std::string>{"encoder.weight", "encoder.bias", "decoder.weight", "decoder.bias"}));
  EXPECT_EQ(names(net.named_buffers()), (std::vector<std::string>{"encoder.running", "encoder.scratch",
                                                                  "decoder.running", "decoder.scratch"}));
  EXPECT_EQ(names(net.named_parameters("model")).front(), "model.encoder.weight");
  EXPECT_EQ(net.named_parameters("", /*recurse=*/false).size(), 0u);
  std::vector<std::string> mods;
  for (auto& [n, m] : net.named_modules()) mods.push_back(n);
  EXPECT_EQ(mods, (std::vector<std::string>{"", "encoder", "decoder"}));
  EXPECT_EQ(net.children().size(), 2u);
}

TEST(ModuleTest, DeepNamesJoinWithDots) {
  Module root("Root");
  auto layers = root.register_module("layers", std::make_shared<Module>("ModuleList"));
  auto zero = layers->register_module("0", std::make_shared<Module>("Block"));
  auto attn = zero->register_module("attn", std::make_shared<Module>("Attention"));
  attn->register_parameter("q_proj_weight", zeros({1}));
  EXPECT_EQ(root.named_parameters()[0].first, "layers.0.attn.q_proj_weight");
}

TEST(ModuleTest, StateDictHoldsPersistentParametersAndBuffersOnly) {
  Net net;
  EXPECT_EQ(net.state_dict().keys(),
            (std::vector<std::string>{"encoder.weight", "encoder.bias", "encoder.running",
                                      "decoder.weight", "decoder.bias", "decoder.running"}));
}

TEST(ModuleTest, TiedParameterIsOneParameterListedUnderEveryName) {
  Net net;
  auto tied = std::make_shared<Affine>(2, 3);
  Module root("Tied");
  auto a = root.register_module("embedding", std::make_shared<Affine>(2, 3));
  auto b = root.register_module("decoder", std::make_shared<Affine>(2, 3));
  b->replace_parameter("weight", a->parameter("weight"));
  EXPECT_EQ(root.parameters().size(), 3u);  // shared weight once, two biases
  EXPECT_EQ(names(root.named_parameters()),
            (std::vector<std::string>{"embedding.weight", "embedding.bias", "decoder.bias"}));
  nn::StateDict sd = root.state_dict();
  EXPECT_TRUE(sd.contains("embedding.weight"));
  EXPECT_TRUE(sd.contains("decoder.weight"));
  EXPECT_TRUE(sd.at("embedding.weight").is_same(sd.at("decoder.weight")));
}

TEST(ModuleTest, LoadStateDictCopiesInPlace) {
  Net src, dst;
  {
    NoGradGuard g;
    src.encoder->parameter("weight").fill_(7.0);
    src.decoder->buffer("running").fill_(3.0);
  }
  Tensor handle = dst.encoder->parameter("weight");
  nn::LoadResult r = dst.load_state_dict(src.state_dict());
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(handle.is_same(dst.encoder->parameter("weight")));
  EXPECT_EQ(handle.to_vector<float>(), std::vector<float>(6, 7.0f));
  EXPECT_EQ(dst.decoder->buffer("running").to_vector<float>(), std::vector<float>(2, 3.0f));
  EXPECT_TRUE(handle.requires_grad());
  EXPECT_TRUE(handle.is_leaf());
}

TEST(ModuleTest, NonStrictLoadReportsMissingUnexpectedAndShapeMismatch) {
  Net net;
  nn::StateDict sd = net.state_dict();
  sd.erase("decoder.bias");
  sd.insert("extra.weight", zeros({1}));
  sd.set("encoder.weight", zeros({3, 4}));
  nn::LoadResult r = net.load_state_dict(sd, /*strict=*/false);
  EXPECT_EQ(r.missing_keys, (std::vector<std::string>{"decoder.bias"}));
  EXPECT_EQ(r.unexpected_keys, (std::vector<std::string>{"extra.weight"}));
  ASSERT_EQ(r.shape_mismatches.size(), 1u);
  EXPECT_EQ(r.str(),
            "missing key 'decoder.bias'\nunexpected key 'extra.weight'\nshape mismatch for "
            "'encoder.weight': checkpoint [3, 4], model [3, 2]");
}

TEST(ModuleTest, StrictLoadListsEveryProblemAndChangesNothing) {
  Net net, other;
  {
    NoGradGuard g;
    other.decoder->parameter("weight").fill_(5.0);
  }
  nn::StateDict sd = other.state_dict();
  sd.erase("encoder.bias");
  sd.insert("stray", zeros({1}));
  std::string msg = message_of([&] { net.load_state_dict(sd); });
  EXPECT_NE(msg.find("missing key 'encoder.bias'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unexpected key 'stray'"), std::string::npos) << msg;
  EXPECT_EQ(net.decoder->parameter("weight").to_vector<float>(), std::vector<float>(6, 1.0f));
}

TEST(ModuleTest, LoadingDifferentValuesIntoATiedPairIsAnError) {
  Module root("Tied");
  auto a = root.register_module("a", std::make_shared<Affine>(2, 3));
  auto b = root.register_module("b", std::make_shared<Affine>(2, 3));
  b->replace_parameter("weight", a->parameter("weight"));
  nn::StateDict sd = root.state_dict();
  sd.set("b.weight", full({3, 2}, 2.0));
  EXPECT_EQ(message_of([&] { root.load_state_dict(sd); }),
            "load_state_dict: 'a.weight' and 'b.weight' are tied in the model but the state gives "
            "them different values");
}

TEST(ModuleTest, TiedStateLoadsIntoUntiedAndPartialModels) {
  Module tied("Tied");
  auto a = tied.register_module("a", std::make_shared<Affine>(2, 3));
  auto b = tied.register_module("b", std::make_shared<Affine>(2, 3));
  b->replace_parameter("weight", a->parameter("weight"));
  {
    NoGradGuard g;
    a->parameter("weight").fill_(4.0);
  }
  nn::StateDict sd = tied.state_dict();
  // Untied variant: both names get the value.
  Module untied("Untied");
  auto ua = untied.register_module("a", std::make_shared<Affine>(2, 3));
  auto ub = untied.register_module("b", std::make_shared<Affine>(2, 3));
  EXPECT_TRUE(untied.load_state_dict(sd).ok());
  EXPECT_EQ(ub->parameter("weight").to_vector<float>(), std::vector<float>(6, 4.0f));
  EXPECT_FALSE(ua->parameter("weight").is_same(ub->parameter("weight")));
  // Variant with only `a` and its bias... the alias b.weight is not unexpected, b.bias is.
  Module partial("Partial");
  partial.register_module("a", std::make_shared<Affine>(2, 3));
  nn::LoadResult r = partial.load_state_dict(sd, false);
  EXPECT_TRUE(r.missing_keys.empty());
  EXPECT_EQ(r.unexpected_keys, (std::vector<std::string>{"b.bias", "b.running"}));
}

TEST(ModuleTest, TrainEvalIsRecursive) {
  Net net;
  EXPECT_TRUE(net.is_training());
  net.eval();
  EXPECT_FALSE(net.is_training());
  EXPECT_FALSE(net.encoder->is_training());
  net.train();
  EXPECT_TRUE(net.decoder->is_training());
}

TEST(ModuleTest, ZeroGradClearsOrZeroes) {
  Net net;
  Tensor w = net.encoder->parameter("weight");
  (w * 2.0).sum().backward();
  net.zero_grad(/*set_to_none=*/false);
  EXPECT_EQ(w.grad().to_vector<float>(), std::vector<float>(6, 0.0f));
  net.zero_grad();
  EXPECT_FALSE(w.grad().defined());
}

TEST(ModuleTest, ToDtypeConvertsInPlaceKeepingHandlesAndTies) {
  Module root("Tied");
  auto a = root.register_module("a", std::make_shared<Affine>(2, 3));
  auto b = root.register_module("b", std::make_shared<Affine>(2, 3));
  b->replace_parameter("weight", a->parameter("weight"));
  Tensor handle = a->parameter("weight");
  root.to(kFloat64);
  EXPECT_EQ(handle.dtype(), kFloat64);
  EXPECT_TRUE(b->parameter("weight").is_same(handle));
  EXPECT_EQ(a->buffer("running").dtype(), kFloat64);
  EXPECT_TRUE(handle.requires_grad());
  // Gradients flow into the converted parameter.
  (handle * 1.0).sum().backward();
  EXPECT_EQ(handle.grad().dtype(), kFloat64);
}

TEST(ModuleTest, ApplyVisitsChildrenThenSelf) {
  Net net;
  std::vector<std::string> order;
  net.apply([&](Module& m) { order.push_back(m.type_name()); });
  EXPECT_EQ(order, (std::vector<std::string>{"Affine", "Affine", "Net"}));
}

TEST(ModuleTest, PrintsATreeWithParameterCounts) {
  Net net;
  EXPECT_EQ(net.str(),
            "Net(\n  (encoder): Affine(in=2, out=3)  # 9 params\n  (decoder): Affine(in=2, out=3)"
            "  # 8 params\n)\nparameters: 17 (trainable 17)");
}

TEST(ModuleTest, ParameterAttributesLiveOnTheTensorAndFollowTies) {
  Module root("Tied");
  auto a = root.register_module("a", std::make_shared<Affine>(2, 3));
  auto b = root.register_module("b", std::make_shared<Affine>(2, 3));
  b->replace_parameter("weight", a->parameter("weight"));
  a->parameter("weight").attributes()["lr_scale"] = 0.5;
  a->parameter("bias").attributes()["weight_decay"] = 0.0;
  EXPECT_EQ(std::get<double>(b->parameter("weight").attributes().at("lr_scale")), 0.5);
  root.to(kFloat64);
  EXPECT_EQ(std::get<double>(a->parameter("weight").attributes().at("lr_scale")), 0.5);
}

TEST(ModuleTest, ModuleWithoutForwardSaysSo) {
  Module m("Plain");
  expect_error<NotImplementedError>([&] { m.forward(zeros({1})); },
                                    {"Plain has no single-tensor forward()"});
}
