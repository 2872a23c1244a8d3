// The recurrent layers and cells through io::save(module) + io::load_module: every setting comes
// back (architecture nodes equal, printouts equal), the weights bit for bit, and the rebuilt
// layers compute what the originals do.
#include <gtest/gtest.h>

#include "ember/ember.h"
#include "ember/io/architecture.h"
#include "ember/io/module_io.h"
#include "io/io_test_util.h"

namespace ember::io {
namespace {

using ember::testing::bitwise_equal;
using ember::testing::TempDir;

TEST(RnnArchitectureTest, RecurrentLayersAndCellsRoundTrip) {
  TempDir dir;
  manual_seed(21);
  auto model = std::make_shared<nn::ModuleDict>();
  model->insert("lstm", std::make_shared<nn::LSTM>(nn::RNNOptions{.input_size = 3, .hidden_size = 4, .num_layers = 2,
                                                                  .bias = false, .batch_first = true, .dropout = 0.25,
                                                                  .bidirectional = true}));
  model->insert("gru", std::make_shared<nn::GRU>(nn::RNNOptions{.input_size = 3, .hidden_size = 5, .num_layers = 3}));
  model->insert("rnn", std::make_shared<nn::RNN>(nn::RNNOptions{.input_size = 3, .hidden_size = 2, .nonlinearity = "relu"}));
  model->insert("rnn_cell", std::make_shared<nn::RNNCell>(nn::RNNCellOptions{3, 4, true, "relu"}));
  model->insert("lstm_cell", std::make_shared<nn::LSTMCell>(nn::RNNCellOptions{3, 4, false}));
  model->insert("gru_cell", std::make_shared<nn::GRUCell>(3, 6));

  std::string path = dir.file("recurrent.ember");
  save(*model, path);
  manual_seed(22);  // the rebuilt layers draw other weights, which the load then replaces
  std::shared_ptr<nn::Module> loaded = load_module(path);
  EXPECT_EQ(loaded->str(), model->str());
  EXPECT_TRUE(architecture(*loaded).equals(architecture(*model))) << architecture(*loaded);
  nn::StateDict saved = model->state_dict();
  for (const auto& [name, t] : loaded->state_dict()) EXPECT_TRUE(bitwise_equal(t, saved.at(name))) << name;

  auto& lstm = dynamic_cast<nn::LSTM&>(*loaded->child("lstm"));
  EXPECT_EQ(lstm.options().dropout, 0.25);
  EXPECT_TRUE(lstm.options().batch_first && lstm.options().bidirectional && !lstm.options().bias);
  EXPECT_EQ(dynamic_cast<nn::RNN&>(*loaded->child("rnn")).cell(), RnnCell::Relu);
  EXPECT_EQ(dynamic_cast<nn::RNNCell&>(*loaded->child("rnn_cell")).cell(), RnnCell::Relu);

  model->eval();
  loaded->eval();
  Tensor x = randn({2, 5, 3});
  EXPECT_TRUE(bitwise_equal(lstm.forward(x), model->child_as<nn::LSTM>("lstm").forward(x)));
  Tensor seq = randn({5, 2, 3});
  EXPECT_TRUE(bitwise_equal(loaded->child_as<nn::GRU>("gru").forward(seq), model->child_as<nn::GRU>("gru").forward(seq)));
  Tensor step = randn({2, 3});
  EXPECT_TRUE(bitwise_equal(loaded->child_as<nn::GRUCell>("gru_cell").forward(step),
                            model->child_as<nn::GRUCell>("gru_cell").forward(step)));
}

TEST(RnnArchitectureTest, UnknownOptionIsRefused) {
  Value node = architecture(nn::GRU(3, 4));
  node.at("options").set("nonlinearity", std::string("relu"));  // RNN's option, not GRU's
  try {
    from_architecture(node);
    FAIL() << "expected an error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown option"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ember::io
