// The gradients of detail::rnn_layer written in differentiable ops (ops/rnn.h): the forward
// recomputed step by step from the saved inputs, then the same backward recursion the fused
// kernels run (core/cpu/rnn_kernel.cpp), one op per term. Slow, but every term stays in the graph,
// so backward with create_graph gives second derivatives. A packed batch is written with masks:
// rows that do not run at a step keep their state (state = m * new + (1 - m) * old).
#include "ember/core/factory.h"
#include "ember/ops/binary.h"
#include "ember/ops/matmul.h"
#include "ember/ops/rnn.h"

namespace ember::detail {
namespace {

// What the backward of one step reads, recomputed with history.
struct StepState {
  Tensor mask;  // [B, 1]: 1 for the rows that run (undefined: all do)
  Tensor h_prev, c_prev;
  Tensor h, c;                // the cell's new values (before masking)
  std::vector<Tensor> gates;  // activated: Lstm i, f, g, o; Gru r, z, n, hn; Tanh/Relu none
};

Tensor plus(const Tensor& a, const Tensor& b) { return b.defined() ? a + b : a; }
Tensor masked(const Tensor& t, const Tensor& m) { return m.defined() ? t * m : t; }
// m * new + (1 - m) * old: the rows that run take the new value.
Tensor blend(const Tensor& m, const Tensor& new_value, const Tensor& old) {
  return m.defined() ? old + m * (new_value - old) : new_value;
}

}  // namespace

std::vector<Tensor> rnn_layer_composite_backward(RnnCell cell, const Tensor& grad_output, const Tensor& grad_h_n,
                                                 const Tensor& grad_c_n, const Tensor& gates_x, const Tensor& h0,
                                                 const Tensor& c0, const Tensor& w_hh, const Tensor& b_ih,
                                                 const Tensor& b_hh, bool reverse, bool batch_first,
                                                 IntArrayRef batch_sizes) {
  const int64_t time_dim = batch_first ? 1 : 0;
  const int64_t T = gates_x.size(time_dim), B = h0.size(0), H = h0.size(1);
  auto block = [&](const Tensor& t, int64_t k) { return narrow(t, 1, k * H, H); };

  // Forward, recomputed: steps[s] is the step processed s-th.
  std::vector<StepState> steps(static_cast<size_t>(T));
  Tensor h = h0, c = c0;
  for (int64_t s = 0; s < T; ++s) {
    const int64_t t = reverse ? T - 1 - s : s;
    StepState& st = steps[static_cast<size_t>(s)];
    if (!batch_sizes.empty())
      st.mask = lt(arange(B, TensorOptions(kInt64).device(h0.device())), batch_sizes[static_cast<size_t>(t)]).to(h0.dtype()).reshape({B, 1});
    st.h_prev = h;
    st.c_prev = c;
    Tensor gx = plus(select(gates_x, time_dim, t), b_ih);
    Tensor gh = plus(matmul(h, w_hh.t()), b_hh);
    switch (cell) {
      case RnnCell::Tanh: st.h = tanh(gx + gh); break;
      case RnnCell::Relu: st.h = relu(gx + gh); break;
      case RnnCell::Lstm: {
        Tensor a = gx + gh;
        Tensor i = sigmoid(block(a, 0)), f = sigmoid(block(a, 1)), g = tanh(block(a, 2)), o = sigmoid(block(a, 3));
        st.c = f * c + i * g;
        st.h = o * tanh(st.c);
        st.gates = {i, f, g, o};
        break;
      }
      case RnnCell::Gru: {
        Tensor r = sigmoid(block(gx, 0) + block(gh, 0)), z = sigmoid(block(gx, 1) + block(gh, 1));
        Tensor hn = block(gh, 2);
        Tensor n = tanh(block(gx, 2) + r * hn);
        st.h = n + z * (h - n);
        st.gates = {r, z, n, hn};
        break;
      }
    }
    h = blend(st.mask, st.h, h);
    if (st.c.defined()) c = blend(st.mask, st.c, c);
  }

  // Backward: the recursion of the fused kernels, on the gradients reaching the state (dh, dc).
  std::vector<Tensor> grad_x_steps(static_cast<size_t>(T)), grad_h_steps(static_cast<size_t>(T));
  Tensor dh = grad_h_n, dc = grad_c_n;
  Tensor grad_w = zeros(w_hh.sizes(), w_hh.options());
  for (int64_t s = T - 1; s >= 0; --s) {
    const int64_t t = reverse ? T - 1 - s : s;
    const StepState& st = steps[static_cast<size_t>(s)];
    const Tensor& m = st.mask;
    Tensor dnew = masked(select(grad_output, time_dim, t) + dh, m);  // the output is m * new too
    Tensor dx, dhh, dh_direct, dc_prev;
    switch (cell) {
      case RnnCell::Tanh: dx = dnew * (1.0 - st.h * st.h); break;
      case RnnCell::Relu: dx = dnew * gt(st.h, 0.0).to(dnew.dtype()); break;
      case RnnCell::Lstm: {
        const Tensor &i = st.gates[0], &f = st.gates[1], &g = st.gates[2], &o = st.gates[3];
        Tensor tc = tanh(st.c);
        Tensor dcell = plus(dnew * o * (1.0 - tc * tc), masked(dc, m));
        dx = cat({dcell * g * i * (1.0 - i), dcell * st.c_prev * f * (1.0 - f), dcell * i * (1.0 - g * g),
                  dnew * tc * o * (1.0 - o)},
                 1);
        dc_prev = dcell * f;
        break;
      }
      case RnnCell::Gru: {
        const Tensor &r = st.gates[0], &z = st.gates[1], &n = st.gates[2], &hn = st.gates[3];
        Tensor dn = dnew * (1.0 - z) * (1.0 - n * n);
        Tensor dr = dn * hn * r * (1.0 - r), dz = dnew * (st.h_prev - n) * z * (1.0 - z);
        dx = cat({dr, dz, dn}, 1);
        dhh = cat({dr, dz, dn * r}, 1);
        dh_direct = dnew * z;
        break;
      }
    }
    if (!dhh.defined()) dhh = dx;
    grad_x_steps[static_cast<size_t>(t)] = dx;
    grad_h_steps[static_cast<size_t>(t)] = dhh;
    grad_w = grad_w + matmul(dhh.t(), st.h_prev);
    // Rows that did not run pass their state's gradient on unchanged.
    Tensor idle = m.defined() ? 1.0 - m : Tensor();
    dh = plus(plus(matmul(dhh, w_hh), dh_direct), idle.defined() ? dh * idle : Tensor());
    if (cell == RnnCell::Lstm) dc = plus(dc_prev, idle.defined() ? dc * idle : Tensor());
  }

  Tensor grad_x = T > 0 ? stack(grad_x_steps, time_dim) : zeros(gates_x.sizes(), gates_x.options());
  Tensor grad_b_ih, grad_b_hh;
  if (b_ih.defined()) {
    grad_b_ih = T > 0 ? sum(grad_x, {0, 1}) : zeros(b_ih.sizes(), b_ih.options());
    grad_b_hh = T > 0 ? sum(stack(grad_h_steps, 0), {0, 1}) : zeros(b_hh.sizes(), b_hh.options());
  }
  return {grad_x, dh, cell == RnnCell::Lstm ? dc : Tensor(), grad_w, grad_b_ih, grad_b_hh};
}

}  // namespace ember::detail
