// detail::rnn_layer: one recurrent layer in one direction over a whole sequence, forward and
// backward as loops of one GEMM and one fused cell kernel per step (ops/rnn.h). The loops write
// into preallocated buffers through views (core/strided.h), so a step allocates nothing but the
// views themselves and records nothing: the layer is one node of the graph, however long the
// sequence.
#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/kernels/matmul.h"
#include "ember/core/strided.h"
#include "ember/ops/binary.h"
#include "ember/ops/rnn.h"

namespace ember::detail {
namespace {

using autograd::SavedTensor;
using autograd::TensorList;

// Step t of a sequence tensor [T, B, n] ([B, T, n] when batch_first): the [B, n] matrix.
Tensor step(const Tensor& seq, int64_t t, bool batch_first) {
  const int64_t time_dim = batch_first ? 1 : 0, batch_dim = 1 - time_dim;
  return as_strided_data(seq, {seq.size(batch_dim), seq.size(2)}, {seq.stride(batch_dim), seq.stride(2)},
                         seq.storage_offset() + t * seq.stride(time_dim));
}

// Rows [begin, end) of a matrix (undefined stays undefined).
Tensor rows(const Tensor& m, int64_t begin, int64_t end) {
  if (!m.defined()) return m;
  return as_strided_data(m, {end - begin, m.size(1)}, m.strides(), m.storage_offset() + begin * m.stride(0));
}

// t itself if its rows have unit column stride (what the kernels and the GEMM read), else a copy.
Tensor unit_columns(const Tensor& t) {
  return !t.defined() || t.dim() == 0 || t.stride(-1) == 1 || t.size(-1) <= 1 ? t : contiguous_data(t);
}

// A contiguous copy with no history: a state the loops update in place.
Tensor state_copy(const Tensor& t) { return t.defined() ? copy_as(t, t.dtype(), t.device()) : t; }

DimVector seq_shape(bool batch_first, int64_t T, int64_t B, int64_t n) {
  return batch_first ? DimVector{B, T, n} : DimVector{T, B, n};
}

// The walk over a sequence: the time step processed s-th, and how many rows run at step t (all B,
// or a packed batch's batch_sizes[t]: its sequences longest first, so the running rows are always
// the first ones).
struct Walk {
  int64_t T = 0, B = 0;
  bool reverse = false, batch_first = false;
  DimVector batch_sizes;  // empty: every row runs every step

  bool packed() const { return !batch_sizes.empty(); }
  int64_t time(int64_t s) const { return reverse ? T - 1 - s : s; }
  int64_t running(int64_t t) const { return packed() ? batch_sizes[static_cast<size_t>(t)] : B; }
  // Step t's running rows of a sequence tensor laid out as the input ([B, T, n] when batch_first)
  // or of an internal time-major buffer.
  Tensor at(const Tensor& seq, int64_t t) const { return seq.defined() ? rows(step(seq, t, batch_first), 0, running(t)) : seq; }
  Tensor at_internal(const Tensor& buffer, int64_t t) const {
    return buffer.defined() ? rows(step(buffer, t, false), 0, running(t)) : buffer;
  }
  // Zeros where rows do not run (padding), else uninitialised.
  Tensor buffer(IntArrayRef shape, const TensorOptions& options) const {
    return packed() ? zeros(shape, options) : empty(shape, options);
  }

  // The state the rows running at the s-th processed step start from: the previous step's
  // (`history`, the outputs or the internal c buffer), and for rows that join at this step (the
  // reverse direction of a packed batch) `initial`'s.
  Tensor previous(int64_t s, const Tensor& history, bool internal, const Tensor& initial) const {
    const int64_t n = running(time(s));
    if (s == 0) return rows(initial, 0, n);
    const int64_t before = time(s - 1), carried = std::min(n, running(before));
    Tensor from = step(history, before, internal ? false : batch_first);
    if (carried == n) return rows(from, 0, n);
    Tensor joined = empty({n, history.size(2)}, history.options());
    copy_data(rows(joined, 0, carried), rows(from, 0, carried));
    copy_data(rows(joined, carried, n), rows(initial, carried, n));
    return joined;
  }
};

// rows @ w^T (w [G, H]) or rows @ w, into out, with no autograd.
void gemm_into(const Tensor& out, const Tensor& rows, const Tensor& w, bool transpose_w) {
  if (out.numel() == 0) return;
  if (rows.size(1) == 0) {
    fill_data(out, 0);
    return;
  }
  Tensor rhs = transpose_w ? as_strided_data(w, {w.size(1), w.size(0)}, {w.stride(1), w.stride(0)}, w.storage_offset())
                           : w;
  matmul_stub(out.device().type, out, rows, rhs, false);
}

// d rnn_layer: the steps in reverse, each the fused backward kernel then one GEMM for the gradient
// reaching the previous h; the W_hh gradient is one GEMM over all steps, the bias gradients one
// sum. Under create_graph, rnn_layer_composite_backward instead.
struct RnnLayerBackward : autograd::Node {
  RnnCell cell = RnnCell::Tanh;
  Walk walk;
  SavedTensor gates_x, h0, c0, w_hh, b_ih, b_hh;  // gates_x and the biases: for create_graph only
  SavedTensor output;
  Tensor workspace, cells;  // [T, B, W * H] and (LSTM) every step's c, [T, B, H]: no history

  const char* name() const override {
    switch (cell) {
      case RnnCell::Lstm: return "LstmLayerBackward";
      case RnnCell::Gru: return "GruLayerBackward";
      default: return "RnnLayerBackward";
    }
  }

  TensorList apply(TensorList&& g) override {
    Tensor h_0 = h0.unpack(this), c_0 = c0.unpack(this), w = w_hh.unpack(this);
    Tensor grad_c_n = cell == RnnCell::Lstm ? g[2] : Tensor();
    if (autograd::any_requires_grad(g[0], g[1], grad_c_n, h_0, c_0, w)) {
      return rnn_layer_composite_backward(cell, g[0], g[1], grad_c_n, gates_x.unpack(this), h_0, c_0, w,
                                          b_ih.unpack(this), b_hh.unpack(this), walk.reverse, walk.batch_first,
                                          walk.batch_sizes);
    }
    return fused(g, unit_columns(h_0), unit_columns(c_0), w, output.unpack(this));
  }

  TensorList fused(const TensorList& g, const Tensor& h_0, const Tensor& c_0, const Tensor& w, const Tensor& out) {
    const bool lstm = cell == RnnCell::Lstm, gru = cell == RnnCell::Gru;
    const int64_t T = walk.T, B = walk.B, H = h_0.size(1), G = w.size(0);
    Tensor grad_out = unit_columns(g[0]);
    Tensor grad_x = walk.buffer(seq_shape(walk.batch_first, T, B, G), out.options());
    Tensor grad_h = gru ? walk.buffer(grad_x.sizes(), out.options()) : grad_x;  // d/d (h_prev W_hh^T)
    // The gradients reaching the state (h, and c for the LSTM; the GRU's direct z * dh part apart),
    // updated in place for the running rows: the others' pass through their idle steps unchanged.
    Tensor dh = state_copy(g[1]);
    Tensor carry = lstm ? state_copy(g[2]) : gru ? zeros({B, H}, out.options()) : Tensor();
    for (int64_t s = T - 1; s >= 0; --s) {
      const int64_t t = walk.time(s), n = walk.running(t);
      RnnCellBackward a;
      a.grad_h = walk.at(grad_out, t);
      a.grad_h_rec = rows(dh, 0, n);
      a.grad_carry = rows(carry, 0, n);
      a.workspace = walk.at_internal(workspace, t);
      a.h = walk.at(out, t);
      if (gru) a.h_prev = walk.previous(s, out, false, h_0);
      if (lstm) {
        a.c_prev = walk.previous(s, cells, true, c_0);
        a.c = walk.at_internal(cells, t);
      }
      a.grad_gates_x = walk.at(grad_x, t);
      if (gru) a.grad_gates_h = walk.at(grad_h, t);
      a.grad_carry_prev = a.grad_carry;  // in place (the kernels read a row before writing it)
      rnn_cell_backward_stub(out.device().type, cell, a);
      if (s > 0 || needs_input_grad(1)) gemm_into(rows(dh, 0, n), walk.at(grad_h, t), w, false);
    }
    Tensor grad_h0, grad_c0, grad_w, grad_b_ih, grad_b_hh;
    if (needs_input_grad(1)) grad_h0 = gru ? dh + carry : dh;
    if (lstm && needs_input_grad(2)) grad_c0 = carry;
    if (needs_input_grad(3)) grad_w = weight_grad(grad_h, h_0, out, H, G);
    if (needs_input_grad(4)) grad_b_ih = sum(grad_x, {0, 1});
    if (needs_input_grad(5)) grad_b_hh = sum(grad_h, {0, 1});
    return {grad_x, grad_h0, grad_c0, grad_w, grad_b_ih, grad_b_hh};
  }

  // d/d W_hh = sum over steps of grad_gates_h(t)^T h_prev(t): one GEMM over the rows of every
  // step, with h_prev(t) laid out as grad_gates_h is (rows that do not run: zeros on both sides).
  Tensor weight_grad(const Tensor& grad_h, const Tensor& h_0, const Tensor& out, int64_t H, int64_t G) const {
    const int64_t T = walk.T, B = walk.B;
    if (T * B == 0) return zeros({G, H}, out.options());
    Tensor prev = walk.buffer(out.sizes(), out.options());
    for (int64_t s = 0; s < T; ++s) copy_data(walk.at(prev, walk.time(s)), walk.previous(s, out, false, h_0));
    Tensor gh2 = as_strided_data(grad_h, {G, T * B}, {1, G}, grad_h.storage_offset());  // [T*B, G]^T
    Tensor prev2 = as_strided_data(prev, {T * B, H}, {H, 1}, 0);
    Tensor grad_w = empty({G, H}, out.options());
    matmul_stub(out.device().type, grad_w, gh2, prev2, false);
    return grad_w;
  }

  void release_saved() override {
    for (SavedTensor* s : {&gates_x, &h0, &c0, &w_hh, &b_ih, &b_hh, &output}) s->reset();
    workspace = Tensor();
    cells = Tensor();
  }
};

void check_layer_args(RnnCell cell, const Tensor& gates_x, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                      const Tensor& b_ih, const Tensor& b_hh, const char* op) {
  EMBER_CHECK_VALUE(gates_x.dim() == 3 && h0.dim() == 2 && w_hh.dim() == 2, op,
                    ": internal layer shapes: gates ", gates_x.sizes(), ", h0 ", h0.sizes(), ", w_hh ", w_hh.sizes());
  const int64_t H = h0.size(1), G = rnn_gates(cell) * H;
  EMBER_CHECK_VALUE(w_hh.size(0) == G && w_hh.size(1) == H, op, ": weight_hh of shape ", w_hh.sizes(),
                    " does not match a hidden state of shape ", h0.sizes(), " (expected [", G, ", ", H, "])");
  EMBER_CHECK_VALUE(gates_x.size(2) == G, op, ": the input projection has ", gates_x.size(2), " gate columns, expected ",
                    G);
  EMBER_CHECK_VALUE(b_ih.defined() == b_hh.defined(), op, ": give both biases or neither");
  if (b_ih.defined())
    EMBER_CHECK_VALUE(b_ih.dim() == 1 && b_ih.size(0) == G && b_hh.dim() == 1 && b_hh.size(0) == G, op,
                      ": biases of shapes ", b_ih.sizes(), " and ", b_hh.sizes(), " do not match [", G, "]");
  EMBER_CHECK_VALUE((cell == RnnCell::Lstm) == c0.defined(), op, ": a cell state is for LSTM layers only");
  if (c0.defined())
    EMBER_CHECK_VALUE(c0.sizes() == h0.sizes(), op, ": cell state of shape ", c0.sizes(),
                      " does not match the hidden state's ", h0.sizes());
  for (const Tensor* t : {&h0, &c0, &w_hh, &b_ih, &b_hh}) {
    if (!t->defined()) continue;
    EMBER_CHECK_TYPE(t->dtype() == gates_x.dtype(), op, ": expected every tensor to have dtype ", gates_x.dtype(),
                     ", got ", t->dtype());
    EMBER_CHECK_VALUE(t->device() == gates_x.device(), op, ": expected every tensor on ", gates_x.device(),
                      ", got one on ", t->device());
  }
  check_floating_compute(gates_x.dtype(), op);
}

}  // namespace

RnnLayerResult rnn_layer(RnnCell cell, const Tensor& gates_x, const Tensor& h0, const Tensor& c0, const Tensor& w_hh,
                         const Tensor& b_ih, const Tensor& b_hh, bool reverse, bool batch_first, const char* op,
                         IntArrayRef batch_sizes) {
  check_layer_args(cell, gates_x, h0, c0, w_hh, b_ih, b_hh, op);
  const bool lstm = cell == RnnCell::Lstm;
  const int64_t time_dim = batch_first ? 1 : 0;
  Walk walk{gates_x.size(time_dim), h0.size(0), reverse, batch_first, batch_sizes.vec()};
  const int64_t T = walk.T, B = walk.B, H = h0.size(1), G = w_hh.size(0);
  EMBER_CHECK_VALUE(gates_x.size(1 - time_dim) == B, op, ": input batch size ", gates_x.size(1 - time_dim),
                    " does not match the hidden state's ", B);
  if (walk.packed()) {
    EMBER_CHECK_VALUE(!batch_first && static_cast<int64_t>(batch_sizes.size()) == T, op, ": ", batch_sizes.size(),
                      " batch sizes for ", T, " time-major steps");
    for (int64_t t = 0; t < T; ++t)
      EMBER_CHECK_VALUE(batch_sizes[t] >= 1 && batch_sizes[t] <= (t ? batch_sizes[t - 1] : B), op,
                        ": batch sizes must run from at most ", B, " down to at least 1 without growing, got ",
                        batch_sizes);
  }
  const TensorOptions options = gates_x.options();
  const bool record = autograd::any_requires_grad(gates_x, h0, c0, w_hh, b_ih, b_hh);
  Tensor gx = unit_columns(gates_x), w = unit_columns(w_hh);
  Tensor bi = b_ih.defined() ? contiguous_data(b_ih) : b_ih, bh = b_hh.defined() ? contiguous_data(b_hh) : b_hh;
  Tensor out = walk.buffer(seq_shape(batch_first, T, B, H), options);
  Tensor workspace = record && rnn_workspace_gates(cell) > 0
                         ? empty({T, B, rnn_workspace_gates(cell) * H}, options)
                         : Tensor();
  Tensor cells = lstm ? empty({T, B, H}, options) : Tensor();
  Tensor gates_h = empty({B, G}, options);
  // The running state, updated in place: rows that do not run at a step keep theirs.
  Tensor h_state = state_copy(h0), c_state = state_copy(c0);
  for (int64_t s = 0; s < T; ++s) {
    const int64_t t = walk.time(s), n = walk.running(t);
    Tensor h_prev = rows(h_state, 0, n), c_prev = rows(c_state, 0, n), gh = rows(gates_h, 0, n);
    gemm_into(gh, h_prev, w, true);
    RnnCellForward a{walk.at(gx, t), gh, bi, bh, h_prev, c_prev, walk.at(out, t), walk.at_internal(cells, t),
                     walk.at_internal(workspace, t)};
    rnn_cell_forward_stub(gates_x.device().type, cell, a);
    copy_data(h_prev, a.h);
    if (lstm) copy_data(c_prev, a.c);
  }
  RnnLayerResult result{out, h_state, c_state};
  if (record) {
    auto node = autograd::make_node<RnnLayerBackward>(gates_x, h0, c0, w_hh, b_ih, b_hh);
    node->cell = cell;
    node->walk = walk;
    node->gates_x = SavedTensor(gates_x);
    node->h0 = SavedTensor(h0);
    node->c0 = SavedTensor(c0);
    node->w_hh = SavedTensor(w_hh);
    node->b_ih = SavedTensor(b_ih);
    node->b_hh = SavedTensor(b_hh);
    node->workspace = workspace;
    node->cells = cells;
    autograd::set_history(result.output, node);
    autograd::set_history(result.h_n, node);
    if (lstm) autograd::set_history(result.c_n, node);
    node->output = SavedTensor(result.output, /*is_output=*/true);
  }
  return result;
}

}  // namespace ember::detail
