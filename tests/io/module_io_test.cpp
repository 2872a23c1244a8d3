// Module checkpoints through the public API: to_value, load_into (values, requires_grad and
// attributes, ties, strict and non-strict reports, key maps) and whole-module files. The two
// cases other frameworks got wrong are here by name: Paddle lost parameter attributes on a
// save/load round trip, MXNet could not load a tied masked-LM checkpoint into untied variants.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "ember/ember.h"
#include "ember/io/module_io.h"
#include "io/io_test_util.h"
#include "support/expect.h"

namespace ember::io {
namespace {

using ember::testing::bitwise_equal;
using ember::testing::expect_error;
using ember::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// Every state entry of `actual` has the value, requires_grad and attributes of the entry of the
// same name in `expected` (which may have more: a variant loads part of a checkpoint).
void expect_same_state(const nn::Module& actual, const nn::Module& expected) {
  nn::StateDict want = expected.state_dict();
  for (const nn::StateEntry& e : actual.state_entries(false)) {
    SCOPED_TRACE(e.name);
    const Tensor* t = want.find(e.name);
    ASSERT_NE(t, nullptr);
    EXPECT_TRUE(bitwise_equal(e.tensor, *t));
    EXPECT_EQ(e.tensor.requires_grad(), t->requires_grad());
    EXPECT_EQ(e.tensor.attributes(), t->attributes());
  }
}

// ---- Paddle's lost-attributes case ----------------------------------------------------------

// Structured names of its own, a frozen parameter, a persistent buffer of each dtype kind, and a
// non-persistent buffer that checkpoints must leave out.
class Tower : public nn::Module {
 public:
  Tower() : Module("Tower") {
    register_parameter("gain_vector", randn({4}));
    register_parameter("frozen_table", randn({3, 4}), /*requires_grad=*/false);
    head = register_module("proj_head", std::make_shared<nn::Linear>(4, 2));
    stages = register_module("stages", std::make_shared<nn::ModuleDict>());
    stages->insert("early", std::make_shared<nn::Linear>(4, 4));
    register_buffer("ema_stat", randn({4}));
    register_buffer("seen_batches", zeros({}, kInt64));
    register_buffer("scratch", randn({4}), /*persistent=*/false);
  }
  std::shared_ptr<nn::Linear> head;
  std::shared_ptr<nn::ModuleDict> stages;
};

// The original: attributes of every kind set by hand, a parameter frozen after construction.
std::shared_ptr<Tower> trained_tower() {
  manual_seed(1);
  auto tower = std::make_shared<Tower>();
  tower->parameter("gain_vector").attributes()["lr_scale"] = 0.1;
  tower->head->weight().attributes()["weight_decay"] = 0.0;
  tower->head->weight().attributes()["group"] = std::string("classifier head");
  tower->head->bias().attributes()["no_decay"] = true;
  tower->parameter("frozen_table").attributes()["rank"] = int64_t{3};
  tower->buffer("ema_stat").attributes()["ema_decay"] = 0.99;
  tower->stages->child("early")->parameter("weight").set_requires_grad(false);
  Tensor(tower->buffer("seen_batches")).fill_(41);
  return tower;
}

TEST(ModuleIoTest, PaddleCaseEveryValueAndAttributeComesBackIntoAFreshInstance) {
  TempDir dir;
  std::shared_ptr<Tower> original = trained_tower();
  std::string path = dir.file("tower.ember");
  save(to_value(*original), path);

  manual_seed(2);
  Tower fresh;
  // Stale settings the load must overwrite or remove.
  fresh.parameter("gain_vector").attributes()["lr_scale"] = 1.0;
  fresh.head->weight().attributes()["stale"] = true;
  Tensor scratch_before = fresh.buffer("scratch").clone();
  ASSERT_FALSE(bitwise_equal(fresh.parameter("gain_vector"), original->parameter("gain_vector")));

  nn::LoadResult result = load_into(fresh, path);
  EXPECT_TRUE(result.ok()) << result.str();
  expect_same_state(fresh, *original);
  EXPECT_FALSE(fresh.parameter("frozen_table").requires_grad());
  EXPECT_FALSE(fresh.stages->child("early")->parameter("weight").requires_grad());
  EXPECT_TRUE(fresh.stages->child("early")->parameter("bias").requires_grad());
  EXPECT_EQ(fresh.head->weight().attributes(),
            (Attributes{{"group", std::string("classifier head")}, {"weight_decay", 0.0}}));
  EXPECT_EQ(std::get<double>(fresh.parameter("gain_vector").attributes().at("lr_scale")), 0.1);
  EXPECT_EQ(fresh.buffer("seen_batches").item<int64_t>(), 41);
  // The non-persistent buffer is neither saved nor touched.
  expect_error<KeyError>([&] { File::open(path).info("scratch"); },
                         {"no tensor named 'scratch' in '" + path + "'"});
  EXPECT_TRUE(bitwise_equal(fresh.buffer("scratch"), scratch_before));
  // The loaded handles are still the module's own (loading copies, never rebinds).
  EXPECT_EQ(fresh.head->weight().data_ptr(), fresh.state_dict().at("proj_head.weight").data_ptr());
}

TEST(ModuleIoTest, ToValueListsTheStateInOrderWithKindsAndPersistence) {
  std::shared_ptr<Tower> tower = trained_tower();
  Value v = to_value(*tower);
  EXPECT_THAT(v.keys(), ::testing::ElementsAreArray(tower->state_dict().keys()));
  EXPECT_EQ(v.at("gain_vector").tensor_kind(), TensorKind::Parameter);
  EXPECT_EQ(v.at("ema_stat").tensor_kind(), TensorKind::Buffer);
  EXPECT_TRUE(v.at("gain_vector").as_tensor().is_same(tower->parameter("gain_vector")));
  EXPECT_FALSE(v.contains("scratch"));

  Value all = to_value(*tower, /*include_non_persistent=*/true);
  ASSERT_TRUE(all.contains("scratch"));
  EXPECT_EQ(all.at("scratch").tensor_kind(), TensorKind::Buffer);
  EXPECT_FALSE(all.at("scratch").persistent());
  EXPECT_TRUE(all.at("ema_stat").persistent());
}

// ---- MXNet's tied-parameter case ------------------------------------------------------------

constexpr int64_t kVocab = 11, kDim = 6;

// A masked-LM head: the decoder projects back onto the vocabulary with the embedding's own table
// (tied), or with a table of its own (untied), or is absent (a feature extractor).
class MaskedLM : public nn::Module {
 public:
  MaskedLM(bool with_decoder, bool tied) : Module("MaskedLM") {
    embed = register_module("embed", std::make_shared<nn::Embedding>(kVocab, kDim));
    encoder = register_module("encoder", std::make_shared<nn::Linear>(kDim, kDim));
    if (with_decoder) {
      decoder = register_module("decoder", std::make_shared<nn::Linear>(kDim, kVocab, /*bias=*/false));
      if (tied) decoder->replace_parameter("weight", embed->weight());
    }
  }
  Tensor forward(const Tensor& ids) override {
    Tensor h = encoder->forward(embed->forward(ids)).tanh();
    return decoder ? decoder->forward(h) : h;
  }
  std::shared_ptr<nn::Embedding> embed;
  std::shared_ptr<nn::Linear> encoder, decoder;
};

TEST(ModuleIoTest, MXNetCaseTiedCheckpointLoadsIntoTiedHeadlessAndUntiedVariants) {
  TempDir dir;
  manual_seed(3);
  MaskedLM original(/*with_decoder=*/true, /*tied=*/true);
  original.embed->weight().attributes()["lr_scale"] = 0.5;
  std::string path = dir.file("mlm.ember");
  save(to_value(original), path);

  // The tied table is stored once and the file knows both of its names.
  File file = File::open(path);
  EXPECT_EQ(file.tensors().size(), 3u);  // embed.weight, encoder.weight, encoder.bias
  EXPECT_THAT(file.info("decoder.weight").names, ElementsAre("embed.weight", "decoder.weight"));

  Tensor ids = tensor<int64_t>({1, 4, 0, 10, 7}, {5});
  Tensor expected = original.forward(ids);

  {  // (a) the same tied model
    manual_seed(4);
    MaskedLM tied(true, true);
    nn::LoadResult r = load_into(tied, path, /*strict=*/true);
    EXPECT_TRUE(r.ok()) << r.str();
    expect_same_state(tied, original);
    EXPECT_TRUE(tied.decoder->weight().is_same(tied.embed->weight())) << "the model's own tie is kept";
    EXPECT_TRUE(bitwise_equal(tied.forward(ids), expected));
  }
  {  // (b) without the decoder: its name aliases a loaded tensor, so it is not unexpected
    manual_seed(5);
    MaskedLM headless(/*with_decoder=*/false, false);
    nn::LoadResult r = load_into(headless, path, /*strict=*/true);
    EXPECT_TRUE(r.ok()) << r.str();
    expect_same_state(headless, original);
  }
  {  // (c) untied: both tables receive the saved values and attributes, and stay separate
    manual_seed(6);
    MaskedLM untied(true, /*tied=*/false);
    nn::LoadResult r = load_into(untied, path, /*strict=*/true);
    EXPECT_TRUE(r.ok()) << r.str();
    expect_same_state(untied, original);
    EXPECT_FALSE(untied.decoder->weight().is_same(untied.embed->weight()));
    EXPECT_TRUE(bitwise_equal(untied.decoder->weight(), original.embed->weight()));
    EXPECT_EQ(std::get<double>(untied.decoder->weight().attributes().at("lr_scale")), 0.5);
    EXPECT_TRUE(bitwise_equal(untied.forward(ids), expected));
  }
}

// ---- reports, strictness, key maps ----------------------------------------------------------

// fc: Linear(4 -> 10), head: Linear(10 -> 2).
std::shared_ptr<nn::ModuleDict> two_layers() {
  return std::make_shared<nn::ModuleDict>(std::initializer_list<std::pair<std::string, std::shared_ptr<nn::Module>>>{
      {"fc", std::make_shared<nn::Linear>(4, 10)}, {"head", std::make_shared<nn::Linear>(10, 2)}});
}

TEST(ModuleIoTest, StrictLoadNamesEveryProblemAndChangesNothing) {
  TempDir dir;
  std::string path = dir.file("bad.ember");
  Tensor bias = randn({10});
  save(Value::dict({{"fc.weight", randn({10, 3})}, {"fc.bias", bias}, {"extra.weight", randn({2})}}), path);
  auto model = two_layers();
  Tensor bias_before = model->child("fc")->parameter("bias").clone();
  try {
    load_into(*model, path);
    FAIL() << "expected an error";
  } catch (const KeyError& e) {
    EXPECT_THAT(e.what(), HasSubstr(path));
    EXPECT_THAT(e.what(), HasSubstr("missing key 'head.weight'"));
    EXPECT_THAT(e.what(), HasSubstr("missing key 'head.bias'"));
    EXPECT_THAT(e.what(), HasSubstr("unexpected key 'extra.weight'"));
    EXPECT_THAT(e.what(), HasSubstr("shape mismatch for 'fc.weight': checkpoint [10, 3], model [10, 4]"));
  }
  EXPECT_TRUE(bitwise_equal(model->child("fc")->parameter("bias"), bias_before));
}

TEST(ModuleIoTest, NonStrictLoadReportsAndLoadsWhatMatches) {
  auto model = two_layers();
  Tensor weight_before = model->child("fc")->parameter("weight").clone();
  Tensor bias = randn({10});
  Value state = Value::dict({{"fc.weight", randn({10, 3})}, {"fc.bias", bias}, {"extra.weight", randn({2})}});
  nn::LoadResult r = load_into(*model, state, /*strict=*/false);
  EXPECT_THAT(r.missing_keys, ElementsAre("head.weight", "head.bias"));
  EXPECT_THAT(r.unexpected_keys, ElementsAre("extra.weight"));
  ASSERT_EQ(r.shape_mismatches.size(), 1u);
  EXPECT_EQ(r.shape_mismatches[0].key, "fc.weight");
  EXPECT_EQ(r.shape_mismatches[0].checkpoint_shape, DimVector({10, 3}));
  EXPECT_EQ(r.shape_mismatches[0].model_shape, DimVector({10, 4}));
  EXPECT_TRUE(bitwise_equal(model->child("fc")->parameter("bias"), bias));
  EXPECT_TRUE(bitwise_equal(model->child("fc")->parameter("weight"), weight_before));
}

TEST(ModuleIoTest, KeyMapStripsPrefixesRenamesAndDrops) {
  TempDir dir;
  // Saved from a wrapper ("model.fc.weight") with an old name for the head and a stray counter.
  auto source = two_layers();
  Value saved = Value::dict();
  for (const auto& [name, t] : source->state_dict()) {
    std::string key = "model." + name;
    if (name.rfind("head.", 0) == 0) key = "model.classifier." + name.substr(5);
    saved.set(key, Value(t, TensorKind::Parameter));
  }
  saved.set("model.step", 7);
  std::string path = dir.file("wrapped.ember");
  save(saved, path);

  auto target = two_layers();
  KeyMap map = chain({[](const std::string& k) -> std::optional<std::string> {
                        if (k == "model.step") return std::nullopt;
                        return k;
                      },
                      strip_prefix("model."), rename({{"classifier.weight", "head.weight"},
                                                      {"classifier.bias", "head.bias"}})});
  nn::LoadResult r = load_into(*target, path, /*strict=*/true, map);
  EXPECT_TRUE(r.ok()) << r.str();
  expect_same_state(*target, *source);

  // Without the renames the report names the keys as the map left them.
  auto partial = two_layers();
  r = load_into(*partial, path, /*strict=*/false,
                [](const std::string& k) -> std::optional<std::string> {
                  if (k == "model.step") return std::nullopt;
                  return strip_prefix("model.")(k);
                });
  EXPECT_THAT(r.missing_keys, ElementsAre("head.weight", "head.bias"));
  EXPECT_THAT(r.unexpected_keys, UnorderedElementsAre("classifier.weight", "classifier.bias"));

  // add_prefix is strip_prefix's inverse.
  EXPECT_EQ(*add_prefix("model.")("fc.weight"), "model.fc.weight");
  EXPECT_EQ(*strip_prefix("model.")("other.fc.weight"), "other.fc.weight");
}

TEST(ModuleIoTest, KeyMapThatMergesTwoKeysNamesBoth) {
  auto model = two_layers();
  Value state = Value::dict({{"a", randn({10})}, {"b", randn({10})}});
  try {
    load_into(*model, state, false, rename({{"a", "fc.bias"}, {"b", "fc.bias"}}));
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_THAT(e.what(), HasSubstr("maps both 'a' and 'b' to 'fc.bias'"));
  }
}

TEST(ModuleIoTest, NonTensorEntriesAreErrorsNamingTheKey) {
  auto model = two_layers();
  Value ckpt = Value::dict({{"model", to_value(*two_layers())}, {"epoch", 3}});
  try {
    load_into(*model, ckpt);
    FAIL() << "expected an error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("state entry 'model' is of type dict, not a tensor"));
    EXPECT_THAT(e.what(), HasSubstr("ckpt.at(\"model\")"));
  }
  try {
    load_into(*model, Value::dict({{"fc.weight", randn({10, 4})}, {"epoch", 3}}));
    FAIL() << "expected an error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("state entry 'epoch' is of type int, not a tensor"));
  }
  try {
    load_into(*model, Value::list({randn({1})}));
    FAIL() << "expected an error";
  } catch (const TypeError& e) {
    EXPECT_THAT(e.what(), HasSubstr("the state is a list"));
  }
  // The sub-tree of a larger checkpoint loads, and a key_map can drop a non-tensor entry.
  EXPECT_TRUE(load_into(*model, ckpt.at("model")).ok());
  Value with_step = to_value(*two_layers());
  with_step.set("step", 5);
  KeyMap drop_step = [](const std::string& k) -> std::optional<std::string> {
    if (k == "step") return std::nullopt;
    return k;
  };
  EXPECT_TRUE(load_into(*model, with_step, true, drop_step).ok());
}

// A plain safetensors file, as another tool writes it: float32 tensors, no Ember metadata.
void write_plain_safetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors) {
  std::string header = "{", data;
  for (const auto& [name, t] : tensors) {
    Tensor c = t.contiguous();
    size_t begin = data.size();
    data.append(static_cast<const char*>(c.data_ptr()), c.nbytes());
    header += (header.size() > 1 ? "," : "") + std::string("\"") + name + "\":{\"dtype\":\"F32\",\"shape\":[";
    for (int64_t d = 0; d < c.dim(); ++d) header += (d ? "," : "") + std::to_string(c.size(d));
    header += "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(data.size()) + "]}";
  }
  header += "}";
  while (header.size() % 8) header += ' ';
  uint64_t n = header.size();
  std::string bytes(8, '\0');
  std::memcpy(bytes.data(), &n, 8);
  std::ofstream(path, std::ios::binary) << bytes << header << data;
}

TEST(ModuleIoTest, PlainSafetensorsLoadsValuesAndKeepsTheModelsAttributes) {
  TempDir dir;
  auto source = two_layers();
  std::string path = dir.file("plain.safetensors");
  write_plain_safetensors(path, source->state_dict().items());

  auto model = two_layers();
  model->child("fc")->parameter("weight").attributes()["lr_scale"] = 0.3;
  model->child("head")->parameter("bias").set_requires_grad(false);
  nn::LoadResult r = load_into(*model, path);
  EXPECT_TRUE(r.ok()) << r.str();
  for (const auto& [name, t] : source->state_dict()) EXPECT_TRUE(bitwise_equal(model->state_dict().at(name), t)) << name;
  // A plain file says nothing about requires_grad or attributes, so the model's stay as they were.
  EXPECT_TRUE(model->child("fc")->parameter("weight").requires_grad());
  EXPECT_FALSE(model->child("head")->parameter("bias").requires_grad());
  EXPECT_EQ(std::get<double>(model->child("fc")->parameter("weight").attributes().at("lr_scale")), 0.3);
}

TEST(ModuleIoTest, LoadIntoAcceptsAWholeModuleFileAndAnInMemoryState) {
  TempDir dir;
  std::shared_ptr<Tower> original = trained_tower();
  std::string path = dir.file("module.ember");
  save(*original, path);  // {"architecture", "state"}: Tower is unregistered, which only load_module needs
  Value root = load(path);
  ASSERT_TRUE(root.contains("architecture"));
  EXPECT_EQ(root.at("architecture").at("type").as_string(), "Tower");

  manual_seed(9);
  Tower from_file;
  EXPECT_TRUE(load_into(from_file, path).ok());
  expect_same_state(from_file, *original);

  manual_seed(10);
  Tower from_memory;
  EXPECT_TRUE(load_into(from_memory, to_value(*original)).ok());
  expect_same_state(from_memory, *original);
  EXPECT_FALSE(from_memory.parameter("gain_vector").is_same(original->parameter("gain_vector")));
}

}  // namespace
}  // namespace ember::io
