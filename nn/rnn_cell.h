#pragma once
// One step of a recurrent layer as a module, as PyTorch's RNNCell (tanh or relu), LSTMCell and
// GRUCell: weight_ih [G * hidden, input_size], weight_hh [G * hidden, hidden] and, with bias,
// bias_ih and bias_hh [G * hidden] (G as in nn/rnn.h), all uniform in +-1/sqrt(hidden). Input
// [B, input_size] or unbatched [input_size]; a missing state starts at zero. The work is
// ember::rnn_tanh_cell / rnn_relu_cell / lstm_cell / gru_cell (ops/rnn.h).
#include <string>
#include <utility>

#include "ember/core/kernels/rnn.h"
#include "ember/nn/module.h"

namespace ember::nn {

struct RNNCellOptions {
  int64_t input_size;
  int64_t hidden_size;
  bool bias = true;
  std::string nonlinearity = "tanh";  // RNNCell: "tanh" or "relu"
};

/// Parameters, checks and the unbatched handling the three cells share.
class RNNCellBase : public Module {
 public:
  RNNCellBase(std::string type_name, RnnCell cell, RNNCellOptions options);
  const RNNCellOptions& options() const { return options_; }
  RnnCell cell() const { return cell_; }
  void reset_parameters();
  std::string extra_repr() const override;
  /// The new h from a zero state (LSTMCell: h only).
  Tensor forward(const Tensor& input) override;

 protected:
  struct Result {
    Tensor h, c;
  };
  /// Checks the input and states (undefined: zeros; cx LSTMCell only) and runs one step.
  Result run(const Tensor& input, const Tensor& hx, const Tensor& cx);

 private:
  RnnCell cell_;
  RNNCellOptions options_;
};

/// h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh), act tanh or relu.
class RNNCell : public RNNCellBase {
 public:
  explicit RNNCell(RNNCellOptions options);
  RNNCell(int64_t input_size, int64_t hidden_size) : RNNCell(RNNCellOptions{input_size, hidden_size}) {}
  using RNNCellBase::forward;
  Tensor forward(const Tensor& input, const Tensor& hx);
};

class LSTMCell : public RNNCellBase {
 public:
  explicit LSTMCell(RNNCellOptions options);
  LSTMCell(int64_t input_size, int64_t hidden_size) : LSTMCell(RNNCellOptions{input_size, hidden_size}) {}
  using RNNCellBase::forward;
  /// (h', c') from h and c (both undefined for zeros).
  std::pair<Tensor, Tensor> forward(const Tensor& input, const Tensor& h, const Tensor& c);
};

class GRUCell : public RNNCellBase {
 public:
  explicit GRUCell(RNNCellOptions options);
  GRUCell(int64_t input_size, int64_t hidden_size) : GRUCell(RNNCellOptions{input_size, hidden_size}) {}
  using RNNCellBase::forward;
  Tensor forward(const Tensor& input, const Tensor& hx);
};

}  // namespace ember::nn
