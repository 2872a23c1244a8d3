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

// Step t of an internal time-major buffer [T, B, n].
Tensor slot(const Tensor& buffer, int64_t t) { return buffer.defined() ? step(buffer, t, false) : Tensor(); }

// t itself if its rows have unit column stride (what the kernels and the GEMM read), else a copy.
Tensor unit_columns(const Tensor& t) {
  return !t.defined() || t.dim() == 0 || t.stride(-1) == 1 || t.size(-1) <= 1 ? t : contiguous_data(t);
}

DimVector seq_shape(bool batch_first, int64_t T, int64_t B, int64_t n) {
  return batch_first ? DimVector{B, T, n} : DimVector{T, B, n};
}

// The step processed s-th: t runs up in the forward direction, down in the reverse one.
int64_t time_of(int64_t s, int64_t T, bool reverse) { return reverse ? T - 1 - s : s; }

// rows @ w^T (w [G, H]) or rows @ w, into out, with no autograd.
void gemm_into(const Tensor& out, const Tensor& rows, const Tensor& w, bool transpose_w) {
  if (out.numel() == 0) return;
  if (rows.size(1) == 0) {
    fill_data(out, 0);
    return;
  }
  Tensor rhs = transpose_w ? as_strided_data(w, {w.size(1), w.size(0)}, {w.stride(1), w.stride(0)}, w.storage_offset())
                           : w;
  matmul_stub(out.device().type, out, rows, rhs);
}

// d rnn_layer: the steps in reverse, each the fused backward kernel then one GEMM for the gradient
// reaching the previous h; the W_hh gradient is one GEMM over all steps, the bias gradients one
// sum. Under create_graph, rnn_layer_composite_backward instead.
struct RnnLayerBackward : autograd::Node {
  RnnCell cell = RnnCell::Tanh;
  bool reverse = false, batch_first = false;
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
                                          b_ih.unpack(this), b_hh.unpack(this), reverse, batch_first);
    }
    return fused(g, unit_columns(h_0), unit_columns(c_0), w, output.unpack(this));
  }

  TensorList fused(const TensorList& g, const Tensor& h_0, const Tensor& c_0, const Tensor& w, const Tensor& out) {
    const bool lstm = cell == RnnCell::Lstm, gru = cell == RnnCell::Gru;
    const int64_t time_dim = batch_first ? 1 : 0;
    const int64_t T = out.size(time_dim), B = h_0.size(0), H = h_0.size(1), G = w.size(0);
    Tensor grad_out = unit_columns(g[0]);
    Tensor grad_x = empty(seq_shape(batch_first, T, B, G), out.options());
    Tensor grad_h = gru ? empty(grad_x.sizes(), out.options()) : grad_x;  // d/d (h_prev W_hh^T)
    Tensor rec = empty({B, H}, out.options());                            // grad_gates_h(t) W_hh
    Tensor carry[2];
    if (lstm || gru) carry[0] = empty({B, H}, out.options()), carry[1] = empty({B, H}, out.options());
    Tensor dh_rec = unit_columns(g[1]), dcarry = lstm ? unit_columns(g[2]) : Tensor();
    for (int64_t s = T - 1; s >= 0; --s) {
      const int64_t t = time_of(s, T, reverse), prev = time_of(s - 1, T, reverse);
      RnnCellBackward a;
      a.grad_h = step(grad_out, t, batch_first);
      a.grad_h_rec = dh_rec;
      a.grad_carry = dcarry;
      a.workspace = slot(workspace, t);
      a.h = step(out, t, batch_first);
      if (gru) a.h_prev = s > 0 ? step(out, prev, batch_first) : h_0;
      if (lstm) {
        a.c_prev = s > 0 ? slot(cells, prev) : c_0;
        a.c = slot(cells, t);
      }
      a.grad_gates_x = step(grad_x, t, batch_first);
      if (gru) a.grad_gates_h = step(grad_h, t, batch_first);
      if (lstm || gru) a.grad_carry_prev = carry[s % 2];
      rnn_cell_backward_stub(out.device().type, cell, a);
      if (s > 0 || needs_input_grad(1)) gemm_into(rec, step(grad_h, t, batch_first), w, false);
      dh_rec = rec;
      dcarry = a.grad_carry_prev;
    }
    Tensor grad_h0, grad_c0, grad_w, grad_b_ih, grad_b_hh;
    if (needs_input_grad(1)) grad_h0 = gru && T > 0 ? dh_rec + dcarry : dh_rec;
    if (lstm && needs_input_grad(2)) grad_c0 = dcarry;
    if (needs_input_grad(3)) grad_w = weight_grad(grad_h, h_0, out, T, B, H, G);
    if (needs_input_grad(4)) grad_b_ih = sum(grad_x, {0, 1});
    if (needs_input_grad(5)) grad_b_hh = sum(grad_h, {0, 1});
    return {grad_x, grad_h0, grad_c0, grad_w, grad_b_ih, grad_b_hh};
  }

  // d/d W_hh = sum over steps of grad_gates_h(t)^T h_prev(t): one GEMM over the rows of every
  // step, with h_prev(t) laid out as grad_gates_h is (h0 at the first step processed, then the
  // output shifted by one step).
  Tensor weight_grad(const Tensor& grad_h, const Tensor& h_0, const Tensor& out, int64_t T, int64_t B,
                     int64_t H, int64_t G) const {
    if (T * B == 0) return zeros({G, H}, out.options());
    const int64_t time_dim = batch_first ? 1 : 0;
    Tensor prev = empty(out.sizes(), out.options());
    const int64_t first = reverse ? T - 1 : 0;
    copy_data(step(prev, first, batch_first), h_0);
    if (T > 1) {
      auto span = [&](const Tensor& t, int64_t start) {
        DimVector sizes = t.sizes().vec();
        sizes[time_dim] = T - 1;
        return as_strided_data(t, sizes, t.strides(), t.storage_offset() + start * t.stride(time_dim));
      };
      copy_data(span(prev, reverse ? 0 : 1), span(out, reverse ? 1 : 0));
    }
    Tensor gh2 = as_strided_data(grad_h, {G, T * B}, {1, G}, grad_h.storage_offset());  // [T*B, G]^T
    Tensor prev2 = as_strided_data(prev, {T * B, H}, {H, 1}, 0);
    Tensor grad_w = empty({G, H}, out.options());
    matmul_stub(out.device().type, grad_w, gh2, prev2);
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
                         const Tensor& b_ih, const Tensor& b_hh, bool reverse, bool batch_first, const char* op) {
  check_layer_args(cell, gates_x, h0, c0, w_hh, b_ih, b_hh, op);
  const bool lstm = cell == RnnCell::Lstm;
  const int64_t time_dim = batch_first ? 1 : 0;
  const int64_t T = gates_x.size(time_dim), B = h0.size(0), H = h0.size(1), G = w_hh.size(0);
  EMBER_CHECK_VALUE(gates_x.size(1 - time_dim) == B, op, ": input batch size ", gates_x.size(1 - time_dim),
                    " does not match the hidden state's ", B);
  const TensorOptions options = gates_x.options();
  const bool record = autograd::any_requires_grad(gates_x, h0, c0, w_hh, b_ih, b_hh);
  Tensor gx = unit_columns(gates_x), w = unit_columns(w_hh);
  Tensor bi = b_ih.defined() ? contiguous_data(b_ih) : b_ih, bh = b_hh.defined() ? contiguous_data(b_hh) : b_hh;
  Tensor out = empty(seq_shape(batch_first, T, B, H), options);
  Tensor workspace = record && rnn_workspace_gates(cell) > 0
                         ? empty({T, B, rnn_workspace_gates(cell) * H}, options)
                         : Tensor();
  Tensor cells = lstm ? empty({T, B, H}, options) : Tensor();
  Tensor gates_h = empty({B, G}, options);
  Tensor h_prev = unit_columns(h0), c_prev = unit_columns(c0);
  for (int64_t s = 0; s < T; ++s) {
    const int64_t t = time_of(s, T, reverse);
    gemm_into(gates_h, h_prev, w, true);
    RnnCellForward a{step(gx, t, batch_first), gates_h, bi, bh, h_prev, c_prev,
                     step(out, t, batch_first), slot(cells, t), slot(workspace, t)};
    rnn_cell_forward_stub(gates_x.device().type, cell, a);
    h_prev = a.h;
    c_prev = a.c;
  }
  RnnLayerResult result{out, copy_as(h_prev, h_prev.dtype(), h_prev.device()),
                        lstm ? copy_as(c_prev, c_prev.dtype(), c_prev.device()) : Tensor()};
  if (record) {
    auto node = autograd::make_node<RnnLayerBackward>(gates_x, h0, c0, w_hh, b_ih, b_hh);
    node->cell = cell;
    node->reverse = reverse;
    node->batch_first = batch_first;
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
