#pragma once
// Recurrent layers as PyTorch has them: RNN (tanh or relu), LSTM and GRU, num_layers deep and
// optionally bidirectional, over input [T, B, input_size] ([B, T, input_size] with batch_first) or
// an unbatched [T, input_size]. Layer k holds, for each direction (suffix "" and "_reverse"),
// weight_ih_l{k} [G * hidden, in], weight_hh_l{k} [G * hidden, hidden] and, with bias, bias_ih_l{k}
// and bias_hh_l{k} [G * hidden]: G gate blocks in PyTorch's order (LSTM i, f, g, o; GRU r, z, n),
// `in` input_size for layer 0 and hidden_size * directions above; all uniform in +-1/sqrt(hidden).
// The states are [num_layers * directions, B, hidden]; a missing one starts at zero. The work is
// ember::rnn_tanh / rnn_relu / lstm / gru (ops/rnn.h): one fused step per time step.
//
//   auto lstm = std::make_shared<nn::LSTM>(nn::RNNOptions{.input_size = 10, .hidden_size = 20, .num_layers = 2});
//   auto [out, h_n, c_n] = lstm->forward(x, Tensor(), Tensor());
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ember/core/kernels/rnn.h"
#include "ember/nn/module.h"
#include "ember/nn/packed_sequence.h"

namespace ember::nn {

/// One options struct for the three layers; nonlinearity is RNN's, proj_size LSTM's (only 0).
struct RNNOptions {
  int64_t input_size;
  int64_t hidden_size;
  int64_t num_layers = 1;
  std::string nonlinearity = "tanh";  // RNN: "tanh" or "relu"
  bool bias = true;
  bool batch_first = false;
  double dropout = 0.0;  // on the outputs of every layer but the last, in training
  bool bidirectional = false;
  int64_t proj_size = 0;  // LSTM: projections are not supported (NotImplementedError unless 0)
};

/// What RNN, LSTM and GRU share: parameters, checks, the run over the stack.
class RNNBase : public Module {
 public:
  RNNBase(std::string type_name, RnnCell cell, RNNOptions options);

  const RNNOptions& options() const { return options_; }
  RnnCell cell() const { return cell_; }
  /// PyTorch's mode string: "RNN_TANH", "RNN_RELU", "LSTM" or "GRU".
  std::string mode() const;
  /// Redraws every parameter uniform in +-1/sqrt(hidden_size), in registration order.
  void reset_parameters();
  /// Parameter names in the order ember::lstm & co. take them (PyTorch's _flat_weights_names).
  const std::vector<std::string>& flat_weights_names() const { return flat_names_; }
  /// The parameters themselves in that order, looked up now (replacements and ties included).
  std::vector<Tensor> flat_weights() const;
  std::string extra_repr() const override;
  /// The output sequence alone, from zero states (what a Sequential passes on).
  Tensor forward(const Tensor& input) override;

  struct Result {
    Tensor output, h_n, c_n;  // c_n: LSTM only
  };
  /// The forward of any of the three: checks the input and states (hx, cx undefined: zeros; cx
  /// LSTM only), handles unbatched input and runs the stack.
  Result run(const Tensor& input, const Tensor& hx, const Tensor& cx);
  /// A packed batch (PackedSequence's data [N, input_size] and int64 batch_sizes, sequences
  /// longest first; hx, cx in that order, or undefined for zeros): the output data packed the
  /// same way, and each sequence's last states.
  Result forward_packed(const Tensor& data, const Tensor& batch_sizes, const Tensor& hx, const Tensor& cx);
  struct PackedResult {
    PackedSequence output;
    Tensor h_n, c_n;
  };
  /// A PackedSequence (nn/packed_sequence.h) with hx, cx in the batch's own order (undefined:
  /// zeros): the output packed the same way, the last states in that order.
  PackedResult run(const PackedSequence& input, const Tensor& hx = {}, const Tensor& cx = {});

 private:
  /// hx and cx for a batch of B (zeros where undefined), their shapes checked.
  std::pair<Tensor, Tensor> states(int64_t batch, const Tensor& input, const Tensor& hx, const Tensor& cx) const;
  /// PyTorch's checks of the input's dtype (against the weights') and feature size.
  void check_input(const Tensor& input, const Tensor& weight) const;

  RnnCell cell_;
  RNNOptions options_;
  std::vector<std::string> flat_names_;
};

/// Elman RNN: h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), act tanh or relu.
class RNN : public RNNBase {
 public:
  explicit RNN(RNNOptions options);
  RNN(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1)
      : RNN(RNNOptions{input_size, hidden_size, num_layers}) {}
  using RNNBase::forward;
  /// (output, h_n); hx [num_layers * directions, B, hidden] ([..., hidden] 2-D for unbatched input),
  /// undefined for zeros.
  std::pair<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx);
};

/// LSTM with PyTorch's gates i, f, g, o: c_t = f c_{t-1} + i g, h_t = o tanh(c_t).
class LSTM : public RNNBase {
 public:
  explicit LSTM(RNNOptions options);
  LSTM(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1)
      : LSTM(RNNOptions{input_size, hidden_size, num_layers}) {}
  using RNNBase::forward;
  /// (output, h_n, c_n) from h_0 and c_0 (both undefined for zeros).
  std::tuple<Tensor, Tensor, Tensor> forward(const Tensor& input, const Tensor& h0, const Tensor& c0);
};

/// GRU with PyTorch's gates r, z, n: n = tanh(W_in x + b_in + r (W_hn h + b_hn)),
/// h_t = (1 - z) n + z h_{t-1}.
class GRU : public RNNBase {
 public:
  explicit GRU(RNNOptions options);
  GRU(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1)
      : GRU(RNNOptions{input_size, hidden_size, num_layers}) {}
  using RNNBase::forward;
  /// (output, h_n), as RNN's.
  std::pair<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx);
};

}  // namespace ember::nn
