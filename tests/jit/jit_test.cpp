// ember::jit through its public API: a traced program replays the module's forward and trains as
// the module trains (bit for bit), follows train()/eval(), saves and loads without the module's
// class with names, attributes, requires_grad=false, non-persistent buffers and ties kept (the
// Paddle bug this project started from, on the program path), and a hostile program is refused
// before anything runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "io/io_test_util.h"
#include "support/capture_warnings.h"
#include "support/expect.h"

namespace ember::jit {
namespace {

namespace F = nn::functional;
using ember::testing::bitwise_equal;
using ember::testing::expect_error;
using ember::testing::TempDir;
using ::testing::HasSubstr;

std::shared_ptr<nn::Sequential> mlp() {
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(4, 8), std::make_shared<nn::BatchNorm1d>(8), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Dropout>(0.25), std::make_shared<nn::Linear>(8, 3)});
}

// A tied pair, a frozen parameter with an attribute, a non-persistent buffer, in-place ops and a
// Tensor method in the forward.
struct Tied : nn::Module {
  Tied() : nn::Module("Tied") {
    enc = register_module("enc", std::make_shared<nn::Linear>(4, 4));
    dec = register_module("dec", std::make_shared<nn::Linear>(4, 4));
    dec->replace_parameter("weight", enc->parameter("weight"));
    register_parameter("scale", full({4}, 0.5), /*requires_grad=*/false);
    parameter("scale").attributes()["lr_scale"] = 0.1;
    register_buffer("mask", tensor<float>({1, 0, 1, 1}), /*persistent=*/false);
  }
  Tensor forward(const Tensor& x) override {
    Tensor h = enc->forward(x);
    h.relu_();
    h.mul_(parameter("scale"));
    return dec->forward(h * buffer("mask")).t().contiguous();
  }
  std::shared_ptr<nn::Linear> enc, dec;
};

void expect_same_parameters(nn::Module& a, nn::Module& b) {
  auto pa = a.named_parameters(), pb = b.named_parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    SCOPED_TRACE(pa[i].first);
    EXPECT_EQ(pa[i].first, pb[i].first);
    EXPECT_TRUE(bitwise_equal(pa[i].second, pb[i].second));
  }
}

TEST(TraceTest, ReplaysTheForwardAndTrainsAsTheModuleTrains) {
  manual_seed(1);
  auto eager = mlp();
  manual_seed(1);
  auto source = mlp();
  const Tensor x = randn({6, 4});
  const Tensor y = tensor<int64_t>({0, 1, 2, 1, 0, 2});
  // the trace runs one forward in the module's own mode, as a call would: the eager model too
  const Generator::State before = default_generator().get_state();
  auto traced = trace(*source, x);
  const Generator::State after = default_generator().get_state();
  default_generator().set_state(before);
  eager->forward(x);
  EXPECT_EQ(default_generator().get_state(), after);
  EXPECT_EQ(traced->named_parameters().size(), eager->named_parameters().size());
  optim::AdamW a(eager->named_parameters(), {.lr = 1e-2});
  optim::AdamW b(traced->named_parameters(), {.lr = 1e-2});
  for (int step = 0; step < 5; ++step) {
    // NB: the same generator state for both, so dropout draws the same masks
    Generator::State rng = default_generator().get_state();
    a.zero_grad();
    F::cross_entropy(eager->forward(x), y).backward();
    a.step();
    default_generator().set_state(rng);
    b.zero_grad();
    F::cross_entropy(traced->forward(x), y).backward();
    b.step();
  }
  expect_same_parameters(*eager, *traced);
  // the traced module shares the source's tensors (as torch.jit.trace's does)
  EXPECT_TRUE(bitwise_equal(source->named_parameters()[0].second, eager->named_parameters()[0].second));
  auto ba = eager->named_buffers(), bb = traced->named_buffers();
  ASSERT_EQ(ba.size(), bb.size());
  for (size_t i = 0; i < ba.size(); ++i) {
    EXPECT_EQ(ba[i].first, bb[i].first);
    EXPECT_TRUE(bitwise_equal(ba[i].second, bb[i].second)) << ba[i].first;
  }
}

TEST(TraceTest, FollowsTrainAndEval) {
  manual_seed(2);
  auto model = mlp();
  const Tensor x = randn({6, 4});
  auto traced = trace(*model, x);
  traced->eval();
  model->eval();
  EXPECT_TRUE(bitwise_equal(traced->forward(x), model->forward(x)));
  EXPECT_THAT(traced->program(false).str(), HasSubstr("dropout"));
  traced->train();
  model->train();
  Generator::State rng = default_generator().get_state();
  const Tensor a = model->forward(x);
  default_generator().set_state(rng);
  const Tensor b = traced->forward(x);
  EXPECT_TRUE(bitwise_equal(a, b));
  EXPECT_FALSE(bitwise_equal(traced->forward(x), b));  // dropout draws again in training mode
}

TEST(TraceTest, TracingInTheOtherModeLeavesBuffersAndGeneratorAsTheyWere) {
  manual_seed(3);
  auto model = mlp();
  model->eval();
  const Tensor x = randn({6, 4});
  const Tensor mean = clone(model->named_buffers()[0].second);
  const Generator::State rng = default_generator().get_state();
  trace(*model, x);
  EXPECT_TRUE(bitwise_equal(model->named_buffers()[0].second, mean));
  EXPECT_EQ(default_generator().get_state(), rng);
  EXPECT_FALSE(model->is_training());
}

TEST(ProgramFileTest, SaveAndLoadKeepNamesAttributesFrozenParametersBuffersAndTies) {
  TempDir dir;
  manual_seed(4);
  Tied model;
  const Tensor x = randn({3, 4});
  const Tensor expected = model.forward(x);
  auto traced = trace(model, x);
  save(*traced, dir.file("tied.ember"));
  auto loaded = load(dir.file("tied.ember"));
  EXPECT_TRUE(bitwise_equal(loaded->forward(x), expected));
  // the tie: one tensor under both names
  auto& enc = loaded->child_as<nn::Module>("enc");
  auto& dec = loaded->child_as<nn::Module>("dec");
  EXPECT_EQ(enc.parameter("weight").impl_ptr(), dec.parameter("weight").impl_ptr());
  EXPECT_FALSE(loaded->parameter("scale").requires_grad());
  EXPECT_EQ(std::get<double>(loaded->parameter("scale").attributes().at("lr_scale")), 0.1);
  EXPECT_TRUE(loaded->has_buffer("mask"));
  EXPECT_FALSE(loaded->is_persistent_buffer("mask"));
  EXPECT_TRUE(bitwise_equal(loaded->buffer("mask"), model.buffer("mask")));
  // the state dict has the original class's names: it loads back into it
  Tied fresh;
  auto report = fresh.load_state_dict(loaded->state_dict());
  EXPECT_TRUE(report.missing_keys.empty());
  EXPECT_TRUE(report.unexpected_keys.empty());
  EXPECT_TRUE(bitwise_equal(fresh.forward(x), expected));
}

TEST(ProgramFileTest, AFileWithoutAProgramIsRefusedByName) {
  TempDir dir;
  io::save(io::Value::dict({{"w", ones({2})}}), dir.file("plain.ember"));
  expect_error<ValueError>([&] { load(dir.file("plain.ember")); }, {"plain.ember", "holds no program"});
}

io::Value traced_program() {
  manual_seed(5);
  auto model = std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(3, 2), std::make_shared<nn::ReLU>()});
  return trace(*model, randn({2, 3}))->program(true).to_value();
}

TEST(ProgramTest, RoundTripsThroughItsDocument) {
  const io::Value doc = traced_program();
  EXPECT_TRUE(Program::from_value(doc, "doc").to_value().equals(doc));
}

TEST(ProgramTest, RefusesHostileProgramsBeforeRunning) {
  const io::Value good = traced_program();
  auto node = [](io::Value& doc, size_t i) -> io::Value& { return doc.at("nodes")[i]; };
  {
    io::Value doc = good;
    node(doc, 0).set("op", "no_such_op");
    expect_error<KeyError>([&] { Program::from_value(doc, "p.ember"); },
                           {"p.ember", "node 0", "unknown op 'no_such_op'"});
  }
  {
    io::Value doc = good;
    node(doc, 0).at("args").push_back(io::Value(1));
    expect_error<ValueError>([&] { Program::from_value(doc, "p.ember"); }, {"node 0 (nn.linear)", "takes 3 arguments"});
  }
  {
    io::Value doc = good;
    node(doc, 0).at("args")[0] = io::Value(999);
    expect_error<ValueError>([&] { Program::from_value(doc, "p.ember"); }, {"value 999 is out of range"});
  }
  {
    io::Value doc = good;  // a cycle: the relu reads its own result
    node(doc, 1).at("args")[0] = node(doc, 1).at("outputs")[0];
    expect_error<ValueError>([&] { Program::from_value(doc, "p.ember"); },
                             {"node 1 (relu)", "used before it is defined"});
  }
  {
    io::Value doc = good;
    node(doc, 1).at("outputs")[0] = node(doc, 0).at("outputs")[0];
    expect_error<ValueError>([&] { Program::from_value(doc, "p.ember"); }, {"defined twice"});
  }
  {
    io::Value doc = good;
    node(doc, 0).at("args")[0] = io::Value("x");
    expect_error<ValueError>([&] { Program::from_value(doc, "p.ember"); }, {"value id must be an int"});
  }
  {
    io::Value doc = good;
    doc.set("values", int64_t{1} << 40);
    expect_error<ValueError>([&] { Program::from_value(doc, "p.ember"); }, {"value count", "out of range"});
  }
  {
    io::Value doc = good;
    doc.set("version", kProgramVersion + 1);
    expect_error<ValueError>([&] { Program::from_value(doc, "p.ember"); }, {"version"});
  }
  {
    io::Value doc = good;
    doc.set("outputs", io::Value("y"));
    expect_error<ValueError>([&] { Program::from_value(doc, "p.ember"); }, {"outputs", "str"});
  }
  const auto dims = [](std::vector<io::Value> at) {
    return io::Value::list({io::Value::dict({{"size", int64_t{6}}, {"at", io::Value::list(std::move(at))}})});
  };
  const auto pair = [](int64_t a, int64_t b) { return io::Value::list({a, b}); };
  {
    io::Value doc = good;
    doc.set("dims", dims({pair(5, 0)}));
    expect_error<ValueError>([&] { Program::from_value(doc, "p.ember"); }, {"dims", "input 5 is out of range"});
  }
  {
    io::Value doc = good;
    doc.set("dims", dims({pair(0, 0), pair(0, 0)}));
    expect_error<ValueError>([&] { Program::from_value(doc, "p.ember"); }, {"input 0 dim 0 is named twice"});
  }
  {
    io::Value doc = good;
    doc.set("dims", dims({pair(0, 9)}));
    expect_error<ValueError>([&] { Program::from_value(doc, "p.ember"); }, {"has no dim 9"});
  }
  {
    io::Value doc = good;  // a size term naming a dim the program does not follow
    node(doc, 0).set(
        "sizes",
        io::Value::list({io::Value::list({int64_t{0}, int64_t{-1}, int64_t{0}, io::Value::list({pair(1, 3)})})}));
    expect_error<ValueError>([&] { Program::from_value(doc, "p.ember"); }, {"node 0", "names dim 3"});
  }
  {
    io::Value doc = good;
    node(doc, 0).set("sizes", io::Value::list({io::Value::list({int64_t{0}, int64_t{-1}, int64_t{0}})}));
    expect_error<ValueError>([&] { Program::from_value(doc, "p.ember"); }, {"[arg, element, c, terms]"});
  }
}

struct Folding : nn::Module {
  Folding() : nn::Module("Folding") { fc = register_module("fc", std::make_shared<nn::Linear>(6, 2)); }
  // the batch read from the input: [B, 2, 3] -> [B * 2, 3] -> [B, 6]
  Tensor forward(const Tensor& x) override {
    return fc->forward(x.reshape({x.size(0) * 2, 3}).reshape({x.size(0), -1}));
  }
  std::shared_ptr<nn::Linear> fc;
};

TEST(TraceTest, SizesComputedFromTheBatchFollowIt) {
  manual_seed(6);
  Folding m;
  auto traced = trace(m, randn({4, 2, 3}));
  EXPECT_THAT(traced->program(true).str(), HasSubstr("reshape"));
  for (int64_t batch : {1, 4, 9}) {
    const Tensor x = randn({batch, 2, 3});
    EXPECT_TRUE(bitwise_equal(traced->forward(x), m.forward(x))) << "batch " << batch;
  }
}

struct FixedBatch : nn::Module {
  FixedBatch() : nn::Module("FixedBatch") {}
  Tensor forward(const Tensor& x) override { return x.reshape({4, -1}) * 2.0; }  // holds at batch 4 only
};

TEST(TraceTest, AProgramThatHoldsAtOneBatchRefusesAnother) {
  FixedBatch m;
  auto traced = trace(m, randn({4, 6}));
  EXPECT_TRUE(bitwise_equal(traced->forward(ones({4, 6})), m.forward(ones({4, 6}))));
  // its width may vary (reshape({4, -1}) holds at any), its batch not
  EXPECT_TRUE(bitwise_equal(traced->forward(ones({4, 7})), m.forward(ones({4, 7}))));
  expect_error<ValueError>(
      [&] {
        traced->forward(ones({5, 6}));
      },
      {"input 0 has shape [5, 6]", "holds its dim 0 at 4", "follows: input 0 dim 1"});
  expect_error<ValueError>([&] { traced->forward(ones({4, 6, 1})); }, {"traced with 2 dims"});
}

// A sequence model as GPT's forward is written: positions from arange(T), the batch and the sequence
// folded into one dim for the head (a product of two sizes), a zero state of the batch's size.
struct Sequence : nn::Module {
  Sequence() : nn::Module("Sequence") {
    tok = register_module("tok", std::make_shared<nn::Embedding>(11, 4));
    pos = register_module("pos", std::make_shared<nn::Embedding>(16, 4));
    head = register_module("head", std::make_shared<nn::Linear>(4, 3));
  }
  Tensor forward(const Tensor& idx) override {
    const int64_t b = idx.size(0), t = idx.size(1);
    Tensor x = tok->forward(idx) + pos->forward(arange(t)) + zeros({b, 1, 4});
    return head->forward(x.reshape({b * t, 4})).reshape({b, t * 3});
  }
  std::shared_ptr<nn::Embedding> tok, pos;
  std::shared_ptr<nn::Linear> head;
};

TEST(TraceTest, BatchAndSequenceLengthBothFollowTheInputThroughFactoriesAndProducts) {
  for (const auto& [b, t] : std::vector<std::pair<int64_t, int64_t>>{{3, 7}, {5, 5}, {2, 16}}) {
    manual_seed(7);
    Sequence m;
    auto traced = trace(m, randint(0, 11, {b, t}));
    const io::Value doc = traced->program(true).to_value();
    ASSERT_NE(doc.find("dims"), nullptr) << b << "x" << t;
    EXPECT_EQ(doc.at("dims").size(), 2u) << b << "x" << t << ": " << doc.at("dims").str();
    EXPECT_THAT(traced->program(true).str(), HasSubstr("factory.arange"));
    for (const auto& [b2, t2] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {4, 9}, {b, t}, {6, 16}}) {
      const Tensor idx = randint(0, 11, {b2, t2});
      EXPECT_TRUE(bitwise_equal(traced->forward(idx), m.forward(idx)))
          << "traced " << b << "x" << t << ", run " << b2 << "x" << t2;
    }
  }
}

// A size divided by a stride looks constant over near sizes (62 / 8 = 61 / 8 = ... = 59 / 8): the far
// trace shows it, and the program holds that dim rather than slice 7 columns of any length.
struct Strided : nn::Module {
  Strided() : nn::Module("Strided") {}
  Tensor forward(const Tensor& x) override { return x.narrow(1, 0, x.size(1) / 8) * 2.0; }
};

TEST(TraceTest, ASizeDividedByAStrideIsNotMistakenForAConstant) {
  Strided m;
  auto traced = trace(m, randn({3, 62}));
  EXPECT_TRUE(bitwise_equal(traced->forward(ones({5, 62})), m.forward(ones({5, 62}))));  // the batch follows
  expect_error<ValueError>([&] { traced->forward(ones({3, 80})); }, {"holds its dim 1 at 62"});
}

// Noise drawn in the forward (a VAE's reparameterisation) is a node that draws afresh, not the
// trace's draw kept as a constant.
struct Noisy : nn::Module {
  Noisy() : nn::Module("Noisy") { fc = register_module("fc", std::make_shared<nn::Linear>(3, 2)); }
  Tensor forward(const Tensor& x) override {
    const Tensor mu = fc->forward(x);
    return mu + randn_like(mu) * 0.5 + rand({x.size(0), 1});
  }
  std::shared_ptr<nn::Linear> fc;
};

TEST(TraceTest, RandomFactoriesInTheForwardDrawAfreshFromTheDefaultGenerator) {
  Noisy m;
  auto traced = trace(m, randn({4, 3}));
  const Tensor x = randn({6, 3});
  manual_seed(11);
  const Tensor eager = m.forward(x);
  manual_seed(11);
  EXPECT_TRUE(bitwise_equal(traced->forward(x), eager));
  EXPECT_FALSE(bitwise_equal(traced->forward(x), eager));  // the next draw
  Generator own(3);
  struct OwnGenerator : nn::Module {
    explicit OwnGenerator(Generator& g) : nn::Module("OwnGenerator"), g(g) {}
    Tensor forward(const Tensor& x) override { return x + randn(x.sizes(), {}, &g); }
    Generator& g;
  } with_own(own);
  expect_error<ValueError>([&] { trace(with_own, randn({2, 2})); }, {"generator of its own"});
}

// Multi-input modules whose batch sits in different dims (a sequence-first LSTM's input and state).
TEST(TraceTest, ABatchSharedByInputsInDifferentDimsFollowsThemTogether) {
  manual_seed(8);
  nn::LSTM lstm(3, 4, 2);
  const auto forward = [&](const std::vector<Tensor>& in) {
    auto [y, h, c] = lstm.forward(in[0], in[1], in[2]);
    return io::Value::tuple({io::Value(y), io::Value(h)});
  };
  auto traced = trace(lstm, {randn({7, 5, 3}), randn({2, 5, 4}), randn({2, 5, 4})}, forward);
  const io::Value doc = traced->program(false).to_value();
  ASSERT_NE(doc.find("dims"), nullptr);
  for (const auto& [t, b] : std::vector<std::pair<int64_t, int64_t>>{{7, 5}, {3, 2}, {9, 8}}) {
    const std::vector<Tensor> in{randn({t, b, 3}), randn({2, b, 4}), randn({2, b, 4})};
    lstm.eval();
    traced->eval();
    const io::Value want = forward(in), got = traced->run(in);
    EXPECT_TRUE(bitwise_equal(got[0].as_tensor(), want[0].as_tensor())) << t << "x" << b;
  }
  expect_error<ValueError>(
      [&] {
        traced->run({randn({7, 5, 3}), randn({2, 6, 4}), randn({2, 6, 4})});
      },
      {"must be equal"});
}

TEST(ProgramTest, ASizeThatOverflowsIsAnErrorNotAWrappedSize) {
  Folding m;
  auto traced = trace(m, randn({4, 2, 3}));
  io::Value doc = traced->program(false).to_value();
  for (io::Value& node : doc.at("nodes").items())
    if (node.find("sizes") != nullptr)
      for (io::Value& e : node.at("sizes").items()) e[3][0][0] = io::Value(INT64_MAX / 2);
  const Program p = Program::from_value(doc, "p.ember");
  std::vector<Tensor> state;
  for (const auto& [name, id] : p.state()) state.push_back(name == "fc.weight" ? m.fc->weight() : m.fc->bias());
  expect_error<ValueError>([&] { p.run({randn({4, 2, 3})}, state); }, {"overflows"});
}

struct Unregistered : nn::Module {
  Unregistered() : nn::Module("Unregistered") { w = randn({3}).set_requires_grad(true); }
  Tensor forward(const Tensor& x) override { return x * w; }
  Tensor w;
};

TEST(TraceTest, AnUnregisteredTensorThatRequiresGradIsAnError) {
  Unregistered m;
  expect_error<ValueError>(
      [&] {
        trace(m, randn({2, 3}));
      },
      {"mul.Tensor", "neither an input nor a parameter or buffer registered", "register_parameter"});
}

struct HostRoundTrip : nn::Module {
  HostRoundTrip() : nn::Module("HostRoundTrip") {}
  Tensor forward(const Tensor& x) override {
    // the input's values leave the graph and come back as a constant
    return tensor(x.to_vector<float>(), x.sizes()) * 2.0;
  }
};

TEST(TraceTest, TheCheckCatchesValuesTakenOutOfTheGraph) {
  HostRoundTrip m;
  ember::testing::CaptureWarnings warnings;
  expect_error<ValueError>([&] { trace(m, randn({4, 3})); }, {"does not reproduce", "rolled"});
  ASSERT_FALSE(warnings.messages.empty());
  EXPECT_THAT(warnings.messages[0], HasSubstr("Tensor.to_vector()"));
  // without the check the program keeps the traced values, as the warning said
  auto traced = trace(m, randn({4, 3}), {.check = false});
  EXPECT_THAT(traced->program(true).str(), HasSubstr("constant"));
}

TEST(OpRegistryTest, EveryTableOpAndItsInPlaceFormIsThere) {
  ASSERT_NE(find_op("add.Tensor"), nullptr);
  EXPECT_FALSE(find_op("add.Tensor")->run_inplace);  // Tensor.add_ is a method of its own
  ASSERT_NE(find_op("exp"), nullptr);
  EXPECT_TRUE(find_op("exp")->run_inplace);
  EXPECT_NE(find_op("nn.linear"), nullptr);
  EXPECT_NE(find_op("Tensor.copy_"), nullptr);
  EXPECT_EQ(find_op("no_such_op"), nullptr);
  EXPECT_NE(find_op("linalg_svd"), nullptr);
  EXPECT_NE(find_op("split.sizes"), nullptr);
}

}  // namespace
}  // namespace ember::jit

namespace ember::jit {
namespace {

}  // namespace
}  // namespace ember::jit
