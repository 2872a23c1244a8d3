// RNN, LSTM, GRU and their cells against PyTorch (tests/fixtures/rnn.json, written by
// tests/fixtures/make_rnn_fixtures.py): outputs, final states and the gradients of the input, the
// states and every parameter, for 1 to 3 layers, bidirectional, batch_first, without bias, one
// step, an empty batch, unbatched input and packed batches of sequences of different lengths; then
// parameter names, dropout, printing and errors.
#include <gtest/gtest.h>

#include <algorithm>

#include "ember/ember.h"
#include "support/expect.h"
#include "support/fixture.h"

using namespace ember;
using ember::testing::expect_close;
using ember::testing::expect_error;
using ember::testing::FixtureCase;

namespace {

const std::map<std::string, FixtureCase>& cases() {
  static const auto all = ember::testing::load_fixture("rnn.json");
  return all;
}

bool flag(const FixtureCase& c, const char* name) { return c.scalar(name) != 0; }

std::shared_ptr<nn::Module> build(const FixtureCase& c) {
  const std::string& mode = c.strings.at("mode");
  const auto in = static_cast<int64_t>(c.scalar("input_size")), hidden = static_cast<int64_t>(c.scalar("hidden_size"));
  if (mode.find("Cell") != std::string::npos) {
    nn::RNNCellOptions o{in, hidden, flag(c, "bias"), mode == "RNNCell_RELU" ? "relu" : "tanh"};
    if (mode.rfind("RNNCell", 0) == 0) return std::make_shared<nn::RNNCell>(o);
    if (mode == "LSTMCell") return std::make_shared<nn::LSTMCell>(o);
    return std::make_shared<nn::GRUCell>(o);
  }
  nn::RNNOptions o{in, hidden, static_cast<int64_t>(c.scalar("num_layers"))};
  o.nonlinearity = mode == "RNN_RELU" ? "relu" : "tanh";
  o.bias = flag(c, "bias");
  o.batch_first = flag(c, "batch_first");
  o.bidirectional = flag(c, "bidirectional");
  if (mode == "LSTM") return std::make_shared<nn::LSTM>(o);
  if (mode == "GRU") return std::make_shared<nn::GRU>(o);
  return std::make_shared<nn::RNN>(o);
}

// PyTorch's run of a packed batch through the C++ API: pack_padded_sequence(x, lengths,
// batch_first, enforce_sorted=false), the layer's run, pad_packed_sequence.
std::vector<Tensor> run_packed(nn::RNNBase& m, const Tensor& x, const std::vector<int64_t>& lengths, const Tensor& h0,
                               const Tensor& c0) {
  const bool batch_first = m.options().batch_first;
  nn::RNNBase::PackedResult r = m.run(nn::pack_padded_sequence(x, lengths, batch_first, false), h0, c0);
  return {nn::pad_packed_sequence(r.output, batch_first).first, r.h_n, r.c_n};
}

// (output, h_n, c_n) of any of the layers (a cell's output is its h).
std::vector<Tensor> run(nn::Module& m, const Tensor& x, const Tensor& h0, const Tensor& c0) {
  if (auto* l = dynamic_cast<nn::LSTM*>(&m)) {
    auto [o, h, c] = l->forward(x, h0, c0);
    return {o, h, c};
  }
  if (auto* l = dynamic_cast<nn::RNN*>(&m)) {
    auto [o, h] = l->forward(x, h0);
    return {o, h, Tensor()};
  }
  if (auto* l = dynamic_cast<nn::GRU*>(&m)) {
    auto [o, h] = l->forward(x, h0);
    return {o, h, Tensor()};
  }
  if (auto* l = dynamic_cast<nn::LSTMCell*>(&m)) {
    auto [h, c] = l->forward(x, h0, c0);
    return {h, h, c};
  }
  if (auto* l = dynamic_cast<nn::RNNCell*>(&m)) {
    Tensor h = l->forward(x, h0);
    return {h, h, Tensor()};
  }
  Tensor h = dynamic_cast<nn::GRUCell&>(m).forward(x, h0);
  return {h, h, Tensor()};
}

void check_case(const std::string& name, const FixtureCase& c) {
  SCOPED_TRACE(name);
  std::shared_ptr<nn::Module> m = build(c);
  const bool f64 = c.tensor("input").dtype() == kFloat64;
  // NB: float32 to 1e-5 relative: the portable build (SSE2, no FMA; the sanitizer one) rounds a
  // few gradients 1.3e-6 away from PyTorch's.
  const double rtol = f64 ? 1e-10 : 1e-5, atol = f64 ? 1e-12 : 1e-6;
  if (f64) m->to(kFloat64);
  nn::StateDict state;
  for (const auto& [key, t] : c.tensors)
    if (key.rfind("param.", 0) == 0) state.insert(key.substr(6), t);
  nn::LoadResult loaded = m->load_state_dict(state);
  ASSERT_TRUE(loaded.ok()) << loaded.str();
  auto leaf = [&](const char* key) { return c.tensors.count(key) ? c.tensor(key).clone().set_requires_grad() : Tensor(); };
  Tensor x = leaf("input"), h0 = leaf("h0"), c0 = leaf("c0");
  std::vector<Tensor> got = c.tensors.count("lengths")
                                ? run_packed(dynamic_cast<nn::RNNBase&>(*m), x, c.tensor("lengths").to_vector<int64_t>(), h0, c0)
                                : run(*m, x, h0, c0);
  Tensor total = zeros({}, x.dtype());
  const char* keys[] = {"output", "h_n", "c_n"};
  for (size_t i = 0; i < 3; ++i) {
    if (!c.tensors.count(keys[i])) continue;
    expect_close(got[i], c.tensor(keys[i]), rtol, atol, keys[i]);
    // (A cell's output and h_n are one tensor, h; the fixture's loss counts it twice as well.)
    total = total + (got[i] * c.tensor(i == 0 ? std::string("grad_output") : std::string("grad_") + keys[i])).sum();
  }
  total.backward();
  expect_close(x.grad(), c.tensor("grad.input"), rtol, atol, "grad.input");
  if (h0.defined()) expect_close(h0.grad(), c.tensor("grad.h0"), rtol, atol, "grad.h0");
  if (c0.defined()) expect_close(c0.grad(), c.tensor("grad.c0"), rtol, atol, "grad.c0");
  for (const auto& [pname, p] : m->named_parameters()) {
    ASSERT_TRUE(p.grad().defined()) << pname;
    expect_close(p.grad(), c.tensor("grad." + pname), rtol, atol, "grad." + pname);
  }
}

}  // namespace

TEST(RnnTest, EveryFixtureCaseMatchesPyTorch) {
  ASSERT_GE(cases().size(), 60u);
  for (const auto& [name, c] : cases()) check_case(name, c);
}

TEST(RnnTest, ParametersHavePyTorchsNamesShapesOrderAndRange) {
  nn::LSTM lstm(nn::RNNOptions{.input_size = 3, .hidden_size = 4, .num_layers = 2, .bidirectional = true});
  std::vector<std::string> names;
  for (const auto& [name, p] : lstm.named_parameters()) names.push_back(name);
  std::vector<std::string> expected;
  for (std::string layer : {"_l0", "_l1"})
    for (std::string dir : {"", "_reverse"})
      for (std::string kind : {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}) expected.push_back(kind + layer + dir);
  EXPECT_EQ(names, expected);
  EXPECT_EQ(lstm.flat_weights_names(), expected);
  EXPECT_EQ(lstm.parameter("weight_ih_l0").sizes(), IntArrayRef({16, 3}));
  EXPECT_EQ(lstm.parameter("weight_ih_l1_reverse").sizes(), IntArrayRef({16, 8}));
  EXPECT_EQ(lstm.parameter("weight_hh_l1").sizes(), IntArrayRef({16, 4}));
  for (const Tensor& p : lstm.parameters()) EXPECT_LE(p.abs().max().item<double>(), 0.5);  // 1/sqrt(4)

  nn::GRU gru(nn::RNNOptions{.input_size = 3, .hidden_size = 5, .bias = false});
  EXPECT_EQ(gru.named_parameters().size(), 2u);
  EXPECT_EQ(gru.parameter("weight_hh_l0").sizes(), IntArrayRef({15, 5}));
  nn::LSTMCell cell(3, 4);
  EXPECT_EQ(cell.parameter("weight_ih").sizes(), IntArrayRef({16, 3}));
  EXPECT_EQ(cell.parameter("bias_hh").sizes(), IntArrayRef({16}));
}

TEST(RnnTest, PrintsLikePyTorch) {
  nn::LSTM lstm(nn::RNNOptions{.input_size = 4, .hidden_size = 6, .num_layers = 2, .batch_first = true,
                               .dropout = 0.5, .bidirectional = true});
  EXPECT_EQ(lstm.extra_repr(), "4, 6, num_layers=2, batch_first=True, dropout=0.5, bidirectional=True");
  EXPECT_EQ(nn::RNN(nn::RNNOptions{.input_size = 3, .hidden_size = 4, .nonlinearity = "relu", .bias = false}).extra_repr(),
            "3, 4, bias=False");
  EXPECT_EQ(nn::RNNCell(nn::RNNCellOptions{3, 4, true, "relu"}).extra_repr(), "3, 4, nonlinearity=relu");
  EXPECT_EQ(nn::GRUCell(nn::RNNCellOptions{3, 4, false}).extra_repr(), "3, 4, bias=False");
  EXPECT_EQ(nn::RNN(3, 4).mode(), "RNN_TANH");
  EXPECT_EQ(nn::GRU(3, 4).mode(), "GRU");
}

TEST(RnnTest, DropoutActsBetweenLayersInTrainingOnly) {
  manual_seed(3);
  nn::LSTM with(nn::RNNOptions{.input_size = 3, .hidden_size = 4, .num_layers = 2, .dropout = 0.5});
  nn::LSTM without(nn::RNNOptions{.input_size = 3, .hidden_size = 4, .num_layers = 2});
  ASSERT_TRUE(without.load_state_dict(with.state_dict()).ok());
  Tensor x = randn({5, 2, 3});
  with.eval();
  expect_close(with.forward(x), without.forward(x), 0, 0, "eval");
  with.train();
  manual_seed(7);
  Tensor a = with.forward(x);
  manual_seed(7);
  Tensor b = with.forward(x);
  expect_close(a, b, 0, 0, "same seed");
  EXPECT_GT((a - without.forward(x)).abs().max().item<double>(), 1e-3);
  // Dropout 1 zeroes the first layer's outputs: the second layer sees only its biases.
  nn::GRU all(nn::RNNOptions{.input_size = 3, .hidden_size = 4, .num_layers = 2, .dropout = 1.0});
  auto [out, h_n] = all.forward(x, Tensor());
  auto [out0, h0] = all.forward(zeros({5, 2, 3}), Tensor());
  expect_close(select(h_n, 0, 1), select(h0, 0, 1), 1e-6, 1e-7, "second layer");
}

TEST(RnnTest, MissingStatesStartAtZeroAndUnbatchedInputDropsTheBatchDim) {
  manual_seed(4);
  nn::LSTM lstm(nn::RNNOptions{.input_size = 3, .hidden_size = 4, .num_layers = 2, .batch_first = true});
  Tensor x = randn({2, 5, 3});
  auto [o1, h1, c1] = lstm.forward(x, Tensor(), Tensor());
  auto [o2, h2, c2] = lstm.forward(x, zeros({2, 2, 4}), zeros({2, 2, 4}));
  expect_close(o1, o2, 0, 0);
  EXPECT_EQ(o1.sizes(), IntArrayRef({2, 5, 4}));
  auto [ou, hu, cu] = lstm.forward(select(x, 0, 1), Tensor(), Tensor());
  EXPECT_EQ(ou.sizes(), IntArrayRef({5, 4}));
  EXPECT_EQ(hu.sizes(), IntArrayRef({2, 4}));
  expect_close(ou, select(o1, 0, 1), 1e-6, 1e-7);
  expect_close(cu, select(c1, 1, 1), 1e-6, 1e-7);
  EXPECT_EQ(lstm.forward(x).sizes(), IntArrayRef({2, 5, 4}));  // Module::forward: the output alone
}

TEST(RnnTest, ErrorsMatchPyTorchs) {
  nn::LSTM lstm(4, 6);
  Tensor x = randn({5, 3, 4});
  expect_error<ValueError>([&] { lstm.forward(randn({5, 3, 4, 1})); }, {"LSTM", "2D or 3D", "4D"});
  expect_error([&] { lstm.forward(randn({5, 3, 5})); }, {"input.size(-1) must be equal to input_size", "Expected 4, got 5"});
  expect_error([&] { lstm.forward(x, zeros({2, 3, 6}), zeros({1, 3, 6})); },
               {"Expected hidden[0] size (1, 3, 6), got [2, 3, 6]"});
  expect_error([&] { lstm.forward(x, zeros({1, 3, 6}), zeros({1, 2, 6})); }, {"Expected hidden[1] size (1, 3, 6), got [1, 2, 6]"});
  expect_error([&] { lstm.forward(x, zeros({3, 6}), zeros({3, 6})); }, {"batched 3-D input", "3-D", "2-D"});
  expect_error<ValueError>([&] { lstm.forward(x.to(kFloat64)); }, {"LSTM", "float64", "float32"});
  nn::GRU gru(4, 6);
  expect_error([&] { gru.forward(randn({5, 4}), zeros({1, 1, 6})); }, {"unbatched 2-D input", "2-D", "3-D"});
  expect_error([&] { gru.forward(x, zeros({1, 3, 5})); }, {"Expected hidden size (1, 3, 6), got [1, 3, 5]"});
  expect_error([&] { gru.forward(randn({0, 3, 4})); }, {"gru", "sequence length"});

  expect_error<NotImplementedError>([] { nn::LSTM(nn::RNNOptions{.input_size = 4, .hidden_size = 6, .proj_size = 3}); },
                                    {"LSTM", "proj_size = 3", "not supported"});
  expect_error<ValueError>([] { nn::GRU(nn::RNNOptions{.input_size = 4, .hidden_size = 6, .proj_size = 3}); },
                           {"GRU", "proj_size", "only supported for LSTM"});
  expect_error<ValueError>([] { nn::RNN(nn::RNNOptions{.input_size = 4, .hidden_size = 6, .nonlinearity = "sigmoid"}); },
                           {"RNN", "nonlinearity 'sigmoid'"});
  expect_error<ValueError>([] { nn::RNN(nn::RNNOptions{.input_size = 4, .hidden_size = 0}); }, {"RNN", "hidden_size"});
  expect_error<ValueError>([] { nn::GRU(nn::RNNOptions{.input_size = 4, .hidden_size = 2, .num_layers = 0}); },
                           {"GRU", "num_layers"});
  expect_error<ValueError>([] { nn::LSTM(nn::RNNOptions{.input_size = 4, .hidden_size = 2, .dropout = 1.5}); },
                           {"LSTM", "dropout", "1.5"});

  nn::LSTMCell cell(4, 6);
  expect_error<ValueError>([&] { cell.forward(randn({2, 3, 4})); }, {"LSTMCell", "1D or 2D", "3D"});
  expect_error([&] { cell.forward(randn({3, 5})); }, {"input has inconsistent input_size: got 5 expected 4"});
  expect_error([&] { cell.forward(randn({3, 4}), zeros({2, 6}), zeros({2, 6})); },
               {"Input batch size 3 doesn't match hidden0 batch size 2"});
  expect_error<ValueError>([] { nn::RNNCell(nn::RNNCellOptions{4, 6, true, "gelu"}); }, {"RNNCell", "nonlinearity", "gelu"});
}

TEST(RnnTest, CellsRunUnbatchedAndFromZeroStates) {
  manual_seed(5);
  nn::GRUCell cell(3, 4);
  Tensor x = randn({2, 3});
  expect_close(cell.forward(x), cell.forward(x, zeros({2, 4})), 0, 0);
  Tensor one = cell.forward(select(x, 0, 1));
  EXPECT_EQ(one.sizes(), IntArrayRef({4}));
  expect_close(one, select(cell.forward(x), 0, 1), 1e-6, 1e-7);
  nn::LSTMCell lstm(3, 4);
  auto [h, c] = lstm.forward(select(x, 0, 0), Tensor(), Tensor());
  EXPECT_EQ(c.sizes(), IntArrayRef({4}));
}
