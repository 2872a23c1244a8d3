#pragma once
// Recurrent layers as functions, PyTorch's torch.rnn_tanh / rnn_relu / lstm / gru over a sequence
// and their one-step cells (declared from the op table, ember/ops/functions.h). Each layer and
// direction runs as one recorded op, detail::rnn_layer: the input projection x W_ih^T of the whole
// sequence is one GEMM (a matmul before it), then each time step is one GEMM (h W_hh^T) and one
// fused cell kernel (core/kernels/rnn.h) that adds the biases, applies the gates and writes h (and
// c). Its backward runs the steps in reverse with the fused backward kernel and one GEMM per step,
// then forms the W_hh and bias gradients with one GEMM and one sum over all steps. Under
// create_graph the backward is written in differentiable ops (rnn_layer_composite.cpp), so
// second derivatives work too.
#include <tuple>

#include "ember/core/kernels/rnn.h"
#include "ember/ops/functions.h"

namespace ember::detail {

/// What one layer in one direction returns: output [T, B, H] ([B, T, H] when batch_first), and
/// the last state h_n, c_n [B, H] (c_n undefined unless LSTM).
struct RnnLayerResult {
  Tensor output, h_n, c_n;
};

/// One recurrent layer over a sequence, differentiable in every tensor argument.
///   gates_x  [T, B, G] (batch_first: [B, T, G]): x W_ih^T for every step, without bias
///   h0, c0   [B, H] (c0: LSTM only, else undefined); w_hh [G, H]; b_ih, b_hh [G] or both undefined
///   reverse  runs the steps from T - 1 down to 0 (the backward direction of a bidirectional layer)
///   batch_sizes  empty, or (a packed batch, time-major) how many sequences run at each step,
///            longest first: at step t only rows [0, batch_sizes[t]) advance, the others keep
///            their state and output zeros; h_n, c_n hold each row's last state
/// G = rnn_gates(cell) * H. `op` names the caller in errors.
RnnLayerResult rnn_layer(RnnCell cell, const Tensor& gates_x, const Tensor& h0, const Tensor& c0,
                         const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh, bool reverse,
                         bool batch_first, const char* op, IntArrayRef batch_sizes = {});

/// Gradients of rnn_layer (for gates_x, h0, c0, w_hh, b_ih, b_hh) in differentiable ops, the
/// forward recomputed from the same inputs: the backward under create_graph, and the unfused
/// formula the fused kernels are tested against. grad_c_n is undefined unless LSTM.
std::vector<Tensor> rnn_layer_composite_backward(RnnCell cell, const Tensor& grad_output,
                                                 const Tensor& grad_h_n, const Tensor& grad_c_n,
                                                 const Tensor& gates_x, const Tensor& h0, const Tensor& c0,
                                                 const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh,
                                                 bool reverse, bool batch_first, IntArrayRef batch_sizes = {});

}  // namespace ember::detail
