// The recurrent cells as the CUDA kernels run them, one (row, unit) at a time
// (cuda/shared/rnn_cell_unit.h), against the CPU kernels (core/cpu/rnn_kernel.cpp): every cell,
// float64 and float32, with and without biases and workspace, on rows with a stride past their
// width (views of wider matrices), forward and backward; and the backward's grad_carry_prev may be
// grad_carry itself.
#include <gtest/gtest.h>

#include "cuda_test_util.h"
#include "ember/core/kernels/rnn.h"
#include "ember/cuda/shared/rnn_cell_unit.h"

using namespace ember;
using ember::cuda_test::uniform;

namespace {

const char* cell_name(RnnCell c) {
  switch (c) {
    case RnnCell::Tanh: return "tanh";
    case RnnCell::Relu: return "relu";
    case RnnCell::Lstm: return "lstm";
    case RnnCell::Gru: return "gru";
  }
  return "?";
}

// [B, cols] with a row stride of cols + 3 (a view of a wider matrix).
Tensor strided(int64_t B, int64_t cols, uint64_t seed, DType t) {
  return uniform({B, cols + 3}, -1.5, 1.5, seed, t).narrow(1, 1, cols);
}

template <typename T>
cuda::RnnRows<T> rows_of(const Tensor& t) {
  if (!t.defined()) return {};
  return {static_cast<T*>(t.data_ptr()), t.stride(0)};
}
template <typename T>
const T* data_of(const Tensor& t) {
  return t.defined() ? static_cast<const T*>(t.data_ptr()) : nullptr;
}

template <typename T>
void check_cell(RnnCell cell, bool bias, bool keep_workspace) {
  const DType t = dtype_of<T>;
  const int64_t B = 3, H = 5, G = rnn_gates(cell) * H, W = rnn_workspace_gates(cell) * H;
  const double tol = t == kFloat64 ? 1e-13 : 2e-6;
  SCOPED_TRACE(std::string(cell_name(cell)) + " " + std::string(dtype_name(t)) + (bias ? " bias" : "") +
               (keep_workspace ? " workspace" : ""));
  RnnCellForward f;
  f.gates_x = strided(B, G, 1, t);
  f.gates_h = strided(B, G, 2, t);
  if (bias) {
    f.bias_ih = uniform({G}, -1, 1, 3, t);
    f.bias_hh = uniform({G}, -1, 1, 4, t);
  }
  f.h_prev = strided(B, H, 5, t);
  if (cell == RnnCell::Lstm) f.c_prev = strided(B, H, 6, t);
  auto outputs = [&]() {
    RnnCellForward o = f;
    o.h = zeros({B, H}, t);
    if (cell == RnnCell::Lstm) o.c = zeros({B, H}, t);
    if (W > 0 && keep_workspace) o.workspace = zeros({B, W}, t);
    return o;
  };
  const RnnCellForward want = outputs(), got = outputs();
  rnn_cell_forward_stub(DeviceType::CPU, cell, want);
  cuda::RnnForwardPtrs<T> p;
  p.gates_x = rows_of<const T>(got.gates_x);
  p.gates_h = rows_of<const T>(got.gates_h);
  p.h_prev = rows_of<const T>(got.h_prev);
  p.c_prev = rows_of<const T>(got.c_prev);
  p.bias_ih = data_of<T>(got.bias_ih);
  p.bias_hh = data_of<T>(got.bias_hh);
  p.h = rows_of<T>(got.h);
  p.c = rows_of<T>(got.c);
  p.workspace = rows_of<T>(got.workspace);
  p.H = H;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t u = 0; u < H; ++u) cuda::rnn_forward_unit(cell, p, b, u);
  ember::testing::expect_close(got.h, want.h, tol, tol, "h");
  if (cell == RnnCell::Lstm) ember::testing::expect_close(got.c, want.c, tol, tol, "c");
  if (got.workspace.defined()) ember::testing::expect_close(got.workspace, want.workspace, tol, tol, "workspace");
  if (W > 0 && !keep_workspace) return;  // no backward without the workspace

  // Backward from the CPU forward's state, with every incoming gradient present.
  RnnCellBackward bw;
  bw.grad_h = strided(B, H, 7, t);
  bw.grad_h_rec = strided(B, H, 8, t);
  if (W > 0) bw.grad_carry = strided(B, H, 9, t);
  bw.workspace = want.workspace;
  bw.h = want.h;
  bw.h_prev = f.h_prev;
  bw.c_prev = f.c_prev;
  bw.c = want.c;
  for (bool alias : {false, true}) {
    if (alias && W == 0) continue;
    SCOPED_TRACE(alias ? "grad_carry_prev is grad_carry" : "grad_carry_prev apart");
    auto grads = [&]() {
      RnnCellBackward o = bw;
      if (W > 0) o.grad_carry = bw.grad_carry.clone();
      o.grad_gates_x = zeros({B, G}, t);
      if (cell == RnnCell::Gru) o.grad_gates_h = zeros({B, G}, t);
      if (W > 0) o.grad_carry_prev = alias ? o.grad_carry : zeros({B, H}, t);
      return o;
    };
    const RnnCellBackward bwant = grads(), bgot = grads();
    rnn_cell_backward_stub(DeviceType::CPU, cell, bwant);
    cuda::RnnBackwardPtrs<T> q;
    q.grad_h = rows_of<const T>(bgot.grad_h);
    q.grad_h_rec = rows_of<const T>(bgot.grad_h_rec);
    q.grad_carry = rows_of<const T>(bgot.grad_carry);
    q.workspace = rows_of<const T>(bgot.workspace);
    q.h = rows_of<const T>(bgot.h);
    q.h_prev = rows_of<const T>(bgot.h_prev);
    q.c_prev = rows_of<const T>(bgot.c_prev);
    q.c = rows_of<const T>(bgot.c);
    q.grad_gates_x = rows_of<T>(bgot.grad_gates_x);
    q.grad_gates_h = rows_of<T>(bgot.grad_gates_h);
    q.grad_carry_prev = rows_of<T>(bgot.grad_carry_prev);
    q.H = H;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t u = 0; u < H; ++u) cuda::rnn_backward_unit(cell, q, b, u);
    ember::testing::expect_close(bgot.grad_gates_x, bwant.grad_gates_x, tol, tol, "grad_gates_x");
    if (cell == RnnCell::Gru) ember::testing::expect_close(bgot.grad_gates_h, bwant.grad_gates_h, tol, tol, "grad_gates_h");
    if (W > 0) ember::testing::expect_close(bgot.grad_carry_prev, bwant.grad_carry_prev, tol, tol, "grad_carry_prev");
  }
}

}  // namespace

TEST(RnnCellUnitTest, EveryCellFollowsTheCpuKernelForwardAndBackward) {
  for (RnnCell cell : {RnnCell::Tanh, RnnCell::Relu, RnnCell::Lstm, RnnCell::Gru})
    for (bool bias : {true, false})
      for (bool keep : {true, false}) {
        check_cell<double>(cell, bias, keep);
        check_cell<float>(cell, bias, keep);
      }
}

TEST(RnnCellUnitTest, ReluKeepsNaNAsTheCpuKernelDoes) {
  RnnCellForward f;
  f.gates_x = tensor(std::vector<double>{NAN, -1, 2}, {1, 3});
  f.gates_h = zeros({1, 3}, kFloat64);
  f.h = zeros({1, 3}, kFloat64);
  cuda::RnnForwardPtrs<double> p;
  p.gates_x = rows_of<const double>(f.gates_x);
  p.gates_h = rows_of<const double>(f.gates_h);
  p.h = rows_of<double>(f.h);
  p.H = 3;
  for (int64_t u = 0; u < 3; ++u) cuda::rnn_forward_unit(RnnCell::Relu, p, 0, u);
  const std::vector<double> h = f.h.to_vector<double>();
  EXPECT_TRUE(std::isnan(h[0]));
  EXPECT_EQ(h[1], 0);
  EXPECT_EQ(h[2], 2);
}
