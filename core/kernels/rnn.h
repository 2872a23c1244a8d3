#pragma once
// The kernel contract of the recurrent cells (ops/rnn.h): one time step of an Elman RNN (tanh or
// ReLU), LSTM or GRU cell, forward and backward, each one pass over the gates. The matrix products
// (x W_ih^T for every step at once, h W_hh^T per step) are GEMMs outside these kernels; the kernels
// add the biases, apply the gate nonlinearities and update the state. Ops call the stubs; each
// backend (core/cpu/, cuda/) registers its kernels into them.
//
// With a = gates_x + bias_ih + gates_h + bias_hh (per gate block of H columns), PyTorch's cells:
//   Tanh, Relu: h = act(a)
//   Lstm (blocks i, f, g, o): i, f, o = sigmoid(a_i, a_f, a_o), g = tanh(a_g),
//                             c = f * c_prev + i * g, h = o * tanh(c)
//   Gru (blocks r, z, n):     r, z = sigmoid(a_r, a_z), hn = gates_h_n + bias_hh_n,
//                             n = tanh(gates_x_n + bias_ih_n + r * hn), h = (1 - z) * n + z * h_prev
#include <cstdint>

#include "ember/core/dispatch.h"
#include "ember/core/kernels/widen.h"
#include "ember/core/kernels/rnn_cell.h"  // RnnCell, rnn_gates
#include "ember/core/tensor.h"

namespace ember {

/// One forward step over a batch of B rows. Every matrix is 2-D with unit column stride and any
/// row stride; all of one floating dtype. Undefined where the cell has no such state.
struct RnnCellForward {
  Tensor gates_x;           // [B, G] this step's x W_ih^T (no bias)
  Tensor gates_h;           // [B, G] h_prev W_hh^T (no bias)
  Tensor bias_ih, bias_hh;  // [G] contiguous, or both undefined (no biases)
  Tensor h_prev;            // [B, H] (GRU: read; others: unused)
  Tensor c_prev;            // [B, H] LSTM only
  Tensor h;                 // [B, H] written
  Tensor c;                 // [B, H] written, LSTM only
  Tensor workspace;         // [B, rnn_workspace_gates * H] written, or undefined (no backward)
};

/// One backward step. The gradient reaching h is grad_h + grad_h_rec (+ grad_carry for the GRU);
/// any of them undefined counts as zero.
struct RnnCellBackward {
  Tensor grad_h;         // [B, H] from the step's output
  Tensor grad_h_rec;     // [B, H] from the next step's gates (grad_gates_h W_hh)
  Tensor grad_carry;     // [B, H] LSTM: gradient reaching c; GRU: the next step's z * dh
  Tensor workspace;      // the forward's
  Tensor h;              // [B, H] the step's output (Tanh, Relu)
  Tensor h_prev;         // [B, H] GRU
  Tensor c_prev, c;      // [B, H] LSTM
  Tensor grad_gates_x;   // [B, G] written: d/d gates_x (also d/d bias_ih, row by row)
  Tensor grad_gates_h;   // [B, G] written for the GRU (block n is r times grad_gates_x's); the
                         // other cells' equals grad_gates_x and is left undefined
  Tensor grad_carry_prev;  // [B, H] written: LSTM d/d c_prev; GRU the direct part z * dh of
                           // d/d h_prev; undefined for Tanh and Relu. May be grad_carry itself
                           // (each row is read before it is written)
};

using RnnCellForwardFn = void (*)(RnnCell cell, const RnnCellForward& args);
using RnnCellBackwardFn = void (*)(RnnCell cell, const RnnCellBackward& args);
EMBER_DECLARE_STUB(rnn_cell_forward_stub, RnnCellForwardFn);
EMBER_DECLARE_STUB(rnn_cell_backward_stub, RnnCellBackwardFn);

/// A widened cell step reads the states and gates and writes the members marked "written" above.
template <>
struct WidenArg<RnnCellForward> {
  static bool has_16bit(const RnnCellForward& a) { return WidenArg<Tensor>::has_16bit(a.h); }
  static RnnCellForward apply(const RnnCellForward& a, detail::Widening& w, bool) {
    RnnCellForward r;
    r.gates_x = w.widen(a.gates_x, false), r.gates_h = w.widen(a.gates_h, false);
    r.bias_ih = w.widen(a.bias_ih, false), r.bias_hh = w.widen(a.bias_hh, false);
    r.h_prev = w.widen(a.h_prev, false), r.c_prev = w.widen(a.c_prev, false);
    r.h = w.widen(a.h, true), r.c = w.widen(a.c, true), r.workspace = w.widen(a.workspace, true);
    return r;
  }
};
template <>
struct WidenArg<RnnCellBackward> {
  static bool has_16bit(const RnnCellBackward& a) { return WidenArg<Tensor>::has_16bit(a.grad_gates_x); }
  static RnnCellBackward apply(const RnnCellBackward& a, detail::Widening& w, bool) {
    RnnCellBackward r;
    r.grad_h = w.widen(a.grad_h, false), r.grad_h_rec = w.widen(a.grad_h_rec, false);
    r.grad_carry = w.widen(a.grad_carry, false), r.workspace = w.widen(a.workspace, false);
    r.h = w.widen(a.h, false), r.h_prev = w.widen(a.h_prev, false);
    r.c_prev = w.widen(a.c_prev, false), r.c = w.widen(a.c, false);
    r.grad_gates_x = w.widen(a.grad_gates_x, true), r.grad_gates_h = w.widen(a.grad_gates_h, true);
    r.grad_carry_prev = w.widen(a.grad_carry_prev, true);
    return r;
  }
};

}  // namespace ember
