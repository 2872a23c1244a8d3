// CPU kernels of the recurrent cells (core/kernels/rnn.h): each row of the batch is one pass over
// its gate blocks with Eigen array expressions (vectorised, the gates of a row stay in L1), rows
// split over threads when the batch is large. Sigmoid and tanh are the ones the unary ops use
// (sigmoid_of, tanh_of: core/cpu/math.h), so a fused step gives the values of the same formula in ops.
#include <Eigen/Core>
#include <algorithm>
#include <vector>

#include "ember/core/cpu/loops.h"
#include "ember/core/cpu/math.h"
#include "ember/core/kernels/rnn.h"
#include "ember/core/kernels/widen.h"

namespace ember::cpu {
namespace {

template <typename T>
using Arr = Eigen::Array<T, Eigen::Dynamic, 1>;

// Row r of a 2-D tensor with unit column stride (null rows for an undefined tensor).
template <typename T>
struct Rows {
  T* data = nullptr;
  int64_t stride = 0;
  explicit Rows(const Tensor& t) {
    if (!t.defined()) return;
    data = static_cast<T*>(t.data_ptr());
    stride = t.dim() == 2 ? t.stride(0) : 0;
  }
  explicit operator bool() const { return data != nullptr; }
  T* operator[](int64_t r) const { return data + r * stride; }
};

template <typename T>
ConstVecMap<T> block(const T* row, int64_t k, int64_t H) {
  return ConstVecMap<T>(row + k * H, H);
}
template <typename T>
VecMap<T> block(T* row, int64_t k, int64_t H) {
  return VecMap<T>(row + k * H, H);
}

// Calls row(lo, hi) over [0, B), split over threads once the rows hold enough elements.
template <typename F>
void over_rows(int64_t B, int64_t row_elements, const F& rows) {
  parallel_for(0, B, std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(row_elements, 1)), rows);
}

// The biases folded into one vector: b_ih + b_hh for every block the two simply add in (all but
// the GRU's n block, where b_ih's part is returned and b_hh's stays apart, inside r * (...)).
template <typename T>
Arr<T> folded_bias(RnnCell cell, const Tensor& b_ih, const Tensor& b_hh, int64_t G, int64_t H) {
  if (!b_ih.defined()) return Arr<T>::Zero(G);
  Arr<T> b = ConstVecMap<T>(static_cast<const T*>(b_ih.data_ptr()), G);
  ConstVecMap<T> bh(static_cast<const T*>(b_hh.data_ptr()), G);
  int64_t added = cell == RnnCell::Gru ? 2 * H : G;
  b.head(added) += bh.head(added);
  return b;
}

template <typename T>
void forward(RnnCell cell, const RnnCellForward& a) {
  const int64_t B = a.h.size(0), H = a.h.size(1), G = rnn_gates(cell) * H;
  if (B == 0 || H == 0) return;
  const Arr<T> bias = folded_bias<T>(cell, a.bias_ih, a.bias_hh, G, H);
  Arr<T> hn_bias = Arr<T>::Zero(H);
  if (cell == RnnCell::Gru && a.bias_hh.defined())
    hn_bias = ConstVecMap<T>(static_cast<const T*>(a.bias_hh.data_ptr()) + 2 * H, H);
  Rows<const T> gx(a.gates_x), gh(a.gates_h), h_prev(a.h_prev), c_prev(a.c_prev);
  Rows<T> h(a.h), c(a.c), ws(a.workspace);
  over_rows(B, G, [&](int64_t lo, int64_t hi) {
    Arr<T> scratch(ws ? 0 : rnn_workspace_gates(cell) * H);
    for (int64_t b = lo; b < hi; ++b) {
      VecMap<T> hb(h[b], H);
      switch (cell) {
        case RnnCell::Tanh:
          hb = tanh_of(ConstVecMap<T>(gx[b], H) + ConstVecMap<T>(gh[b], H) + bias);
          break;
        case RnnCell::Relu:
          hb = clamp_below(ConstVecMap<T>(gx[b], H) + ConstVecMap<T>(gh[b], H) + bias, T(0));
          break;
        case RnnCell::Lstm: {
          T* w = ws ? ws[b] : scratch.data();
          VecMap<T>(w, G) = ConstVecMap<T>(gx[b], G) + ConstVecMap<T>(gh[b], G) + bias;
          auto i = block(w, 0, H), f = block(w, 1, H), g = block(w, 2, H), o = block(w, 3, H);
          i = sigmoid_of(i);
          f = sigmoid_of(f);
          g = tanh_of(g);
          o = sigmoid_of(o);
          VecMap<T> cb(c[b], H);
          cb = f * ConstVecMap<T>(c_prev[b], H) + i * g;
          hb = o * tanh_of(cb);
          break;
        }
        case RnnCell::Gru: {
          T* w = ws ? ws[b] : scratch.data();
          auto r = block(w, 0, H), z = block(w, 1, H), n = block(w, 2, H), hn = block(w, 3, H);
          r = sigmoid_of(block(gx[b], 0, H) + block(gh[b], 0, H) + bias.segment(0, H));
          z = sigmoid_of(block(gx[b], 1, H) + block(gh[b], 1, H) + bias.segment(H, H));
          hn = block(gh[b], 2, H) + hn_bias;
          n = tanh_of(block(gx[b], 2, H) + bias.segment(2 * H, H) + r * hn);
          hb = n + z * (ConstVecMap<T>(h_prev[b], H) - n);  // PyTorch's order of operations
          break;
        }
      }
    }
  });
}

template <typename T>
void backward(RnnCell cell, const RnnCellBackward& a) {
  const int64_t B = a.grad_gates_x.size(0), H = a.grad_gates_x.size(1) / rnn_gates(cell);
  const int64_t G = rnn_gates(cell) * H;
  if (B == 0 || H == 0) return;
  Rows<const T> grad_h(a.grad_h), grad_h_rec(a.grad_h_rec), carry(a.grad_carry), ws(a.workspace), h(a.h),
      h_prev(a.h_prev), c_prev(a.c_prev), c(a.c);
  Rows<T> dgx(a.grad_gates_x), dgh(a.grad_gates_h), carry_prev(a.grad_carry_prev);
  over_rows(B, G, [&](int64_t lo, int64_t hi) {
    Arr<T> dh(H), dc(H), tc(H);
    for (int64_t b = lo; b < hi; ++b) {
      // The gradient reaching h: from the output, the next step's gates and (GRU) its direct use.
      dh.setZero();
      if (grad_h) dh += ConstVecMap<T>(grad_h[b], H);
      if (grad_h_rec) dh += ConstVecMap<T>(grad_h_rec[b], H);
      switch (cell) {
        case RnnCell::Tanh:  // d tanh(a) = dh * (1 - h^2)
          VecMap<T>(dgx[b], H) = dh * (T(1) - ConstVecMap<T>(h[b], H).square());
          break;
        case RnnCell::Relu:  // d relu(a) = dh where h > 0
          VecMap<T>(dgx[b], H) = (ConstVecMap<T>(h[b], H) > T(0)).select(dh, T(0));
          break;
        case RnnCell::Lstm: {
          const T* w = ws[b];
          auto i = block(w, 0, H), f = block(w, 1, H), g = block(w, 2, H), o = block(w, 3, H);
          tc = tanh_of(ConstVecMap<T>(c[b], H));
          // dc = carry + dh * o * (1 - tanh(c)^2); d a_o = dh * tanh(c) * o (1 - o)
          dc = dh * o * (T(1) - tc.square());
          if (carry) dc += ConstVecMap<T>(carry[b], H);
          T* d = dgx[b];
          block(d, 0, H) = dc * g * i * (T(1) - i);
          block(d, 1, H) = dc * ConstVecMap<T>(c_prev[b], H) * f * (T(1) - f);
          block(d, 2, H) = dc * i * (T(1) - g.square());
          block(d, 3, H) = dh * tc * o * (T(1) - o);
          VecMap<T>(carry_prev[b], H) = dc * f;
          break;
        }
        case RnnCell::Gru: {
          if (carry) dh += ConstVecMap<T>(carry[b], H);
          const T* w = ws[b];
          auto r = block(w, 0, H), z = block(w, 1, H), n = block(w, 2, H), hn = block(w, 3, H);
          // h = n + z (h_prev - n): dn = dh (1 - z), dz = dh (h_prev - n), d h_prev = dh z
          T* dx = dgx[b];
          T* dhh = dgh[b];
          block(dx, 2, H) = dh * (T(1) - z) * (T(1) - n.square());  // d a_n
          block(dx, 0, H) = block(dx, 2, H) * hn * r * (T(1) - r);   // through r * hn
          block(dx, 1, H) = dh * (ConstVecMap<T>(h_prev[b], H) - n) * z * (T(1) - z);
          block(dhh, 0, H) = block(dx, 0, H);
          block(dhh, 1, H) = block(dx, 1, H);
          block(dhh, 2, H) = block(dx, 2, H) * r;
          VecMap<T>(carry_prev[b], H) = dh * z;
          break;
        }
      }
    }
  });
}

void cpu_rnn_cell_forward(RnnCell cell, const RnnCellForward& args) {
  visit_floating_dtype(args.h.dtype(), "rnn cell", [&]<typename T>(type_tag<T>) { forward<T>(cell, args); });
}

void cpu_rnn_cell_backward(RnnCell cell, const RnnCellBackward& args) {
  visit_floating_dtype(args.grad_gates_x.dtype(), "rnn cell backward",
                       [&]<typename T>(type_tag<T>) { backward<T>(cell, args); });
}

}  // namespace

EMBER_REGISTER_KERNEL(rnn_cell_forward_stub, DeviceType::CPU, (widened<&cpu_rnn_cell_forward>));
EMBER_REGISTER_KERNEL(rnn_cell_backward_stub, DeviceType::CPU, (widened<&cpu_rnn_cell_backward>));

}  // namespace ember::cpu
