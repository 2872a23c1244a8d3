#pragma once
// The recurrent cells of core/kernels/rnn.h for one hidden unit u of one batch row b: the gates
// of that unit are read from each block of G = gates * H columns, activated, and the state written.
// The CUDA kernels run one (b, u) per thread through these; tests/cuda check them against the CPU
// kernels (core/cpu/rnn_kernel.cpp), whose formulas (and PyTorch's order of operations) they follow.
#include <cmath>
#include <cstdint>

#include "ember/core/host_device.h"
#include "ember/core/kernels/rnn_cell.h"

namespace ember::cuda {

/// A 2-D operand of the cell kernels: rows at `rs` elements, unit column stride; null: undefined.
template <typename T>
struct RnnRows {
  T* data = nullptr;
  int64_t rs = 0;
  EMBER_HOST_DEVICE T* row(int64_t b) const { return data + b * rs; }
};

/// RnnCellForward as pointers (biases [G] contiguous or both null).
template <typename T>
struct RnnForwardPtrs {
  RnnRows<const T> gates_x, gates_h, h_prev, c_prev;
  const T* bias_ih = nullptr;
  const T* bias_hh = nullptr;
  RnnRows<T> h, c, workspace;
  int64_t H = 0;
};

/// RnnCellBackward as pointers.
template <typename T>
struct RnnBackwardPtrs {
  RnnRows<const T> grad_h, grad_h_rec, grad_carry, workspace, h, h_prev, c_prev, c;
  RnnRows<T> grad_gates_x, grad_gates_h, grad_carry_prev;
  int64_t H = 0;
};

namespace rnn {

template <typename T>
EMBER_HOST_DEVICE inline T sigmoid(T x) {
  return T(1) / (T(1) + std::exp(-x));
}

}  // namespace rnn

/// One forward step of unit u of row b.
template <typename T>
EMBER_HOST_DEVICE inline void rnn_forward_unit(RnnCell cell, const RnnForwardPtrs<T>& a, int64_t b, int64_t u) {
  const int64_t H = a.H;
  const T* gx = a.gates_x.row(b);
  const T* gh = a.gates_h.row(b);
  // Block k's pre-activation gates_x + gates_h + bias_ih + bias_hh (the CPU's folded bias first).
  auto pre = [&](int64_t k) {
    const int64_t j = k * H + u;
    const T bias = a.bias_ih ? a.bias_ih[j] + a.bias_hh[j] : T(0);
    return gx[j] + gh[j] + bias;
  };
  T* h = a.h.row(b);
  switch (cell) {
    case RnnCell::Tanh:
      h[u] = std::tanh(pre(0));
      break;
    case RnnCell::Relu: {
      const T x = pre(0);
      h[u] = x != x ? x : (x > T(0) ? x : T(0));  // NaN stays, as relu
      break;
    }
    case RnnCell::Lstm: {
      const T i = rnn::sigmoid(pre(0)), f = rnn::sigmoid(pre(1)), g = std::tanh(pre(2)), o = rnn::sigmoid(pre(3));
      const T c = f * a.c_prev.row(b)[u] + i * g;
      a.c.row(b)[u] = c;
      h[u] = o * std::tanh(c);
      if (a.workspace.data) {
        T* w = a.workspace.row(b);
        w[u] = i;
        w[H + u] = f;
        w[2 * H + u] = g;
        w[3 * H + u] = o;
      }
      break;
    }
    case RnnCell::Gru: {
      const T bx_n = a.bias_ih ? a.bias_ih[2 * H + u] : T(0);
      const T bh_n = a.bias_hh ? a.bias_hh[2 * H + u] : T(0);
      const T r = rnn::sigmoid(pre(0)), z = rnn::sigmoid(pre(1));
      const T hn = gh[2 * H + u] + bh_n;
      const T n = std::tanh(gx[2 * H + u] + bx_n + r * hn);
      h[u] = n + z * (a.h_prev.row(b)[u] - n);  // PyTorch's order of operations
      if (a.workspace.data) {
        T* w = a.workspace.row(b);
        w[u] = r;
        w[H + u] = z;
        w[2 * H + u] = n;
        w[3 * H + u] = hn;
      }
      break;
    }
  }
}

/// One backward step of unit u of row b (see core/cpu/rnn_kernel.cpp for the derivation).
/// NB: grad_carry_prev may alias grad_carry: unit u of row b reads its own entry before writing it.
template <typename T>
EMBER_HOST_DEVICE inline void rnn_backward_unit(RnnCell cell, const RnnBackwardPtrs<T>& a, int64_t b, int64_t u) {
  const int64_t H = a.H;
  T dh = T(0);
  if (a.grad_h.data) dh += a.grad_h.row(b)[u];
  if (a.grad_h_rec.data) dh += a.grad_h_rec.row(b)[u];
  T* dx = a.grad_gates_x.row(b);
  switch (cell) {
    case RnnCell::Tanh: {  // d tanh(a) = dh * (1 - h^2)
      const T h = a.h.row(b)[u];
      dx[u] = dh * (T(1) - h * h);
      break;
    }
    case RnnCell::Relu:  // d relu(a) = dh where h > 0
      dx[u] = a.h.row(b)[u] > T(0) ? dh : T(0);
      break;
    case RnnCell::Lstm: {
      const T* w = a.workspace.row(b);
      const T i = w[u], f = w[H + u], g = w[2 * H + u], o = w[3 * H + u];
      const T tc = std::tanh(a.c.row(b)[u]);
      T dc = dh * o * (T(1) - tc * tc);
      if (a.grad_carry.data) dc += a.grad_carry.row(b)[u];
      dx[u] = dc * g * i * (T(1) - i);
      dx[H + u] = dc * a.c_prev.row(b)[u] * f * (T(1) - f);
      dx[2 * H + u] = dc * i * (T(1) - g * g);
      dx[3 * H + u] = dh * tc * o * (T(1) - o);
      a.grad_carry_prev.row(b)[u] = dc * f;
      break;
    }
    case RnnCell::Gru: {
      if (a.grad_carry.data) dh += a.grad_carry.row(b)[u];
      const T* w = a.workspace.row(b);
      const T r = w[u], z = w[H + u], n = w[2 * H + u], hn = w[3 * H + u];
      // h = n + z (h_prev - n): dn = dh (1 - z), dz = dh (h_prev - n), d h_prev = dh z
      const T dan = dh * (T(1) - z) * (T(1) - n * n);
      const T dar = dan * hn * r * (T(1) - r);
      const T daz = dh * (a.h_prev.row(b)[u] - n) * z * (T(1) - z);
      T* dhh = a.grad_gates_h.row(b);
      dx[u] = dar;
      dx[H + u] = daz;
      dx[2 * H + u] = dan;
      dhh[u] = dar;
      dhh[H + u] = daz;
      dhh[2 * H + u] = dan * r;
      a.grad_carry_prev.row(b)[u] = dh * z;
      break;
    }
  }
}

}  // namespace ember::cuda
