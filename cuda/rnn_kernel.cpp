// CUDA kernels of the recurrent cells (core/kernels/rnn.h; cuda/kernels/rnn.cu): the tensors'
// pointers and row strides handed to the per-unit kernels as they are (unit column stride is
// the contract; biases contiguous).
#include "ember/core/kernels/rnn.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
namespace {

template <typename T>
RnnRows<T> rows_of(const Tensor& t) {
  if (!t.defined()) return {};
  return {static_cast<T*>(t.data_ptr()), t.dim() == 2 ? t.stride(0) : 0};
}

template <typename T>
const T* data_of(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}

void cuda_rnn_cell_forward(RnnCell cell, const RnnCellForward& a) {
  check_floating_compute(a.h.dtype(), "rnn cell");
  const int64_t B = a.h.size(0);
  On on(a.h);
  auto run = [&]<typename T>(type_tag<T>) {
    RnnForwardPtrs<T> p;
    p.gates_x = rows_of<const T>(a.gates_x);
    p.gates_h = rows_of<const T>(a.gates_h);
    p.h_prev = rows_of<const T>(a.h_prev);
    p.c_prev = rows_of<const T>(a.c_prev);
    p.bias_ih = data_of<T>(a.bias_ih);
    p.bias_hh = data_of<T>(a.bias_hh);
    p.h = rows_of<T>(a.h);
    p.c = rows_of<T>(a.c);
    p.workspace = rows_of<T>(a.workspace);
    p.H = a.h.size(1);
    launch_rnn_cell_forward(cell, p, B, on.stream);
  };
  if (a.h.dtype() == kFloat32) run(type_tag<float>{});
  else run(type_tag<double>{});
}

void cuda_rnn_cell_backward(RnnCell cell, const RnnCellBackward& a) {
  check_floating_compute(a.grad_gates_x.dtype(), "rnn cell backward");
  const int64_t B = a.grad_gates_x.size(0);
  On on(a.grad_gates_x);
  auto run = [&]<typename T>(type_tag<T>) {
    RnnBackwardPtrs<T> p;
    p.grad_h = rows_of<const T>(a.grad_h);
    p.grad_h_rec = rows_of<const T>(a.grad_h_rec);
    p.grad_carry = rows_of<const T>(a.grad_carry);
    p.workspace = rows_of<const T>(a.workspace);
    p.h = rows_of<const T>(a.h);
    p.h_prev = rows_of<const T>(a.h_prev);
    p.c_prev = rows_of<const T>(a.c_prev);
    p.c = rows_of<const T>(a.c);
    p.grad_gates_x = rows_of<T>(a.grad_gates_x);
    p.grad_gates_h = rows_of<T>(a.grad_gates_h);
    p.grad_carry_prev = rows_of<T>(a.grad_carry_prev);
    p.H = a.grad_gates_x.size(1) / rnn_gates(cell);
    launch_rnn_cell_backward(cell, p, B, on.stream);
  };
  if (a.grad_gates_x.dtype() == kFloat32) run(type_tag<float>{});
  else run(type_tag<double>{});
}

}  // namespace

EMBER_REGISTER_KERNEL(rnn_cell_forward_stub, DeviceType::CUDA, (widened<&cuda_rnn_cell_forward>));
EMBER_REGISTER_KERNEL(rnn_cell_backward_stub, DeviceType::CUDA, (widened<&cuda_rnn_cell_backward>));

}  // namespace ember::cuda
