// The gradients of detail::rnn_layer written in differentiable ops (ops/rnn.h): the forward
// recomputed step by step from the saved inputs, then the same backward recursion the fused
// kernels run (core/cpu/rnn_kernel.cpp), one op per term. Slow, but every term stays in the graph,
// so backward with create_graph gives second derivatives.
#include "ember/core/factory.h"
#include "ember/ops/binary.h"
#include "ember/ops/matmul.h"
#include "ember/ops/rnn.h"

namespace ember::detail {
namespace {

// What the backward of one step reads, recomputed with history.
struct StepState {
  Tensor h_prev, c_prev;
  Tensor h, c;
  std::vector<Tensor> gates;  // activated: Lstm i, f, g, o; Gru r, z, n, hn; Tanh/Relu none
};

Tensor plus(const Tensor& a, const Tensor& b) { return b.defined() ? a + b : a; }

}  // namespace

std::vector<Tensor> rnn_layer_composite_backward(RnnCell cell, const Tensor& grad_output, const Tensor& grad_h_n,
                                                 const Tensor& grad_c_n, const Tensor& gates_x, const Tensor& h0,
                                                 const Tensor& c0, const Tensor& w_hh, const Tensor& b_ih,
                                                 const Tensor& b_hh, bool reverse, bool batch_first) {
  const int64_t time_dim = batch_first ? 1 : 0;
  const int64_t T = gates_x.size(time_dim), H = h0.size(1);
  auto block = [&](const Tensor& t, int64_t k) { return narrow(t, 1, k * H, H); };

  // Forward, recomputed: steps[s] is the step processed s-th.
  std::vector<StepState> steps(static_cast<size_t>(T));
  Tensor h = h0, c = c0;
  for (int64_t s = 0; s < T; ++s) {
    const int64_t t = reverse ? T - 1 - s : s;
    StepState& st = steps[static_cast<size_t>(s)];
    st.h_prev = h;
    st.c_prev = c;
    Tensor gx = plus(select(gates_x, time_dim, t), b_ih);
    Tensor gh = plus(matmul(h, w_hh.t()), b_hh);
    switch (cell) {
      case RnnCell::Tanh: h = tanh(gx + gh); break;
      case RnnCell::Relu: h = relu(gx + gh); break;
      case RnnCell::Lstm: {
        Tensor a = gx + gh;
        Tensor i = sigmoid(block(a, 0)), f = sigmoid(block(a, 1)), g = tanh(block(a, 2)), o = sigmoid(block(a, 3));
        c = f * c + i * g;
        h = o * tanh(c);
        st.gates = {i, f, g, o};
        break;
      }
      case RnnCell::Gru: {
        Tensor r = sigmoid(block(gx, 0) + block(gh, 0)), z = sigmoid(block(gx, 1) + block(gh, 1));
        Tensor hn = block(gh, 2);
        Tensor n = tanh(block(gx, 2) + r * hn);
        h = n + z * (h - n);
        st.gates = {r, z, n, hn};
        break;
      }
    }
    st.h = h;
    st.c = c;
  }

  // Backward: the recursion of the fused kernels.
  std::vector<Tensor> grad_x_steps(static_cast<size_t>(T)), grad_h_steps(static_cast<size_t>(T));
  Tensor dh_rec = grad_h_n, carry = grad_c_n;
  Tensor grad_w = zeros(w_hh.sizes(), w_hh.options());
  for (int64_t s = T - 1; s >= 0; --s) {
    const int64_t t = reverse ? T - 1 - s : s;
    const StepState& st = steps[static_cast<size_t>(s)];
    Tensor dh = select(grad_output, time_dim, t) + dh_rec;
    Tensor dx, dhh;
    switch (cell) {
      case RnnCell::Tanh: dx = dh * (1.0 - st.h * st.h); break;
      case RnnCell::Relu: dx = dh * gt(st.h, 0.0).to(dh.dtype()); break;
      case RnnCell::Lstm: {
        const Tensor &i = st.gates[0], &f = st.gates[1], &g = st.gates[2], &o = st.gates[3];
        Tensor tc = tanh(st.c);
        Tensor dc = plus(dh * o * (1.0 - tc * tc), carry);
        dx = cat({dc * g * i * (1.0 - i), dc * st.c_prev * f * (1.0 - f), dc * i * (1.0 - g * g),
                  dh * tc * o * (1.0 - o)},
                 1);
        carry = dc * f;
        break;
      }
      case RnnCell::Gru: {
        const Tensor &r = st.gates[0], &z = st.gates[1], &n = st.gates[2], &hn = st.gates[3];
        if (carry.defined()) dh = dh + carry;
        Tensor dn = dh * (1.0 - z) * (1.0 - n * n);
        Tensor dr = dn * hn * r * (1.0 - r), dz = dh * (st.h_prev - n) * z * (1.0 - z);
        dx = cat({dr, dz, dn}, 1);
        dhh = cat({dr, dz, dn * r}, 1);
        carry = dh * z;
        break;
      }
    }
    if (!dhh.defined()) dhh = dx;
    grad_x_steps[static_cast<size_t>(t)] = dx;
    grad_h_steps[static_cast<size_t>(t)] = dhh;
    grad_w = grad_w + matmul(dhh.t(), st.h_prev);
    dh_rec = matmul(dhh, w_hh);
  }

  Tensor grad_x = T > 0 ? stack(grad_x_steps, time_dim) : zeros(gates_x.sizes(), gates_x.options());
  Tensor grad_h0 = cell == RnnCell::Gru && carry.defined() ? dh_rec + carry : dh_rec;
  Tensor grad_c0 = cell == RnnCell::Lstm ? carry : Tensor();
  Tensor grad_b_ih, grad_b_hh;
  if (b_ih.defined()) {
    grad_b_ih = T > 0 ? sum(grad_x, {0, 1}) : zeros(b_ih.sizes(), b_ih.options());
    grad_b_hh = T > 0 ? sum(stack(grad_h_steps, 0), {0, 1}) : zeros(b_hh.sizes(), b_hh.options());
  }
  return {grad_x, grad_h0, grad_c0, grad_w, grad_b_ih, grad_b_hh};
}

}  // namespace ember::detail
