#pragma once
// The CUDA kernels' launchers, as the host side calls them: plain pointers, sizes, dtypes and op
// codes, no Tensor. The kernels (cuda/kernels/*.cu, compiled by nvcc) see only this header and the
// shared math of cuda/shared/, never Eigen or the tensor headers; the kernel registrations
// (cuda/*_kernel.cpp, compiled by g++) turn tensors into these arguments. Every launcher queues its
// work on `stream` (the device's one stream) and returns without waiting.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "ember/core/dtype.h"
#include "ember/core/kernels/complex_ops.h"
#include "ember/core/kernels/op_codes.h"
#include "ember/core/kernels/rnn_cell.h"
#include "ember/core/math/elementwise.h"
#include "ember/cuda/shared/attention_score.h"
#include "ember/cuda/shared/offset_calculator.h"
#include "ember/cuda/shared/reduce_layout.h"
#include "ember/cuda/shared/rnn_cell_unit.h"

namespace ember::cuda {
using namespace elementwise;  // the per-element math (core/math/elementwise.h)

/// The operands of an elementwise kernel: `numel` elements of one shape, operand k's first element
/// at data[k], its byte offsets from calc.
template <int N>
struct ElementwiseArgs {
  int64_t numel = 0;
  char* data[N] = {};
  OffsetCalculator<N> calc;
};

/// A device's error slot (cuda/runtime.h): two int64, a code and a value. A kernel that meets a
/// value it must refuse (an integer division by zero, an index out of range) writes the first one
/// it finds there, and the host throws after the kernel (check_error_slot).
enum class KernelError : int64_t { None = 0, DivisionByZero = 1, IndexOutOfRange = 2 };

/// Temporary device memory for a launcher, from the caching allocator; the caller releases it once
/// the launch is queued (safe: everything runs in order on the device's one stream).
class Scratch {
 public:
  virtual void* get(size_t bytes) = 0;

 protected:
  ~Scratch() = default;
};

/// Throws an ember::Error for the launch just queued, if it failed to launch (bad geometry, no
/// kernel image for this GPU). Defined in cuda/check.cpp
/// (host code), as are the two below.
void check_launch(const char* kernel);
/// Throws an ember::Error naming `what` unless `status` is cudaSuccess.
void check_cuda(cudaError_t status, const char* what);
/// Throws a NotImplementedError naming `op` unless `fits` (pool sizes past 32-bit arithmetic).
void check_pool_sizes(bool fits, const char* op);

// ---- elementwise.cu: one templated kernel over ElementwiseArgs for all of these
/// out = op(in) (operands: out, in), T = dtype.
void launch_unary(const ElementwiseArgs<2>& args, DType dtype, UnaryOp op, const UnaryArgs& p, cudaStream_t stream);
/// grad_in = grad * op'(saved) (operands: grad_in, grad, saved); a, b: activation_backward_op's.
void launch_activation_backward(const ElementwiseArgs<3>& args, DType dtype, UnaryOp op, double a, double b,
                                cudaStream_t stream);
/// out = a op b (operands: out, a, b); integer division by zero is reported in error_slot.
void launch_binary(const ElementwiseArgs<3>& args, DType dtype, BinaryOp op, int64_t* error_slot,
                   cudaStream_t stream);
/// out = a + alpha * b rounded once (operands: out, a, b), dtype float32 or float64.
void launch_add_scaled(const ElementwiseArgs<3>& args, DType dtype, double alpha, cudaStream_t stream);
/// out (bool) = a op b (operands: out, a, b), a and b of dtype.
void launch_compare(const ElementwiseArgs<3>& args, DType dtype, CompareOp op, cudaStream_t stream);
/// out = cond ? a : b (operands: out, cond, a, b), elements of `itemsize` bytes.
void launch_where(const ElementwiseArgs<4>& args, int itemsize, cudaStream_t stream);
/// out = in converted from `from` to `to` (operands: out, in), the CPU's conversions.
void launch_convert(const ElementwiseArgs<2>& args, DType to, DType from, cudaStream_t stream);
/// Every element of the operand set to `bits` (its low `itemsize` bytes).
void launch_fill(const ElementwiseArgs<1>& args, int itemsize, uint64_t bits, cudaStream_t stream);
/// out = mask ? bits : src (operands: out, src, mask).
void launch_masked_fill(const ElementwiseArgs<3>& args, int itemsize, uint64_t bits, cudaStream_t stream);

// ---- index.cu
/// Reports an entry of the index operand (int32 or int64) outside [0, size) in error_slot.
void launch_check_indices(const ElementwiseArgs<1>& index, DType index_dtype, int64_t size, int64_t* error_slot,
                          cudaStream_t stream);
/// out[.., j, ..] = src[.., index[j], ..] for the 1-D contiguous `index` of length n (operands: out,
/// src with its indexed dim at stride 0); `inner` is the count of out's elements after the dim,
/// src_step the byte stride of src's indexed dim.
void launch_index_select(const ElementwiseArgs<2>& args, int itemsize, const void* index, DType index_dtype,
                         int64_t n, int64_t inner, int64_t src_step, cudaStream_t stream);
/// out = src[.., index, ..] along the dim (operands: out, index, src with that dim at stride 0).
void launch_gather(const ElementwiseArgs<3>& args, int itemsize, DType index_dtype, int64_t src_step,
                   cudaStream_t stream);
/// out[.., index, ..] += src (operands: out with the dim at stride 0, index, src), with atomics.
void launch_scatter_add(const ElementwiseArgs<3>& args, DType dtype, DType index_dtype, int64_t out_step,
                        cudaStream_t stream);
/// out[.., index[j], ..] += src[.., j, ..] for the 1-D contiguous `index` of length n (operands:
/// src, out with the dim at stride 0), with atomics; `inner` counts src's elements after the dim.
void launch_index_add(const ElementwiseArgs<2>& args, DType dtype, const void* index, DType index_dtype,
                      int64_t n, int64_t inner, int64_t out_step, cudaStream_t stream);

// ---- reduce.cu: one block-reduction kernel over [A, O, R, I] (cuda/shared/reduce_layout.h)
enum class ReduceKind : uint8_t { Sum, Max, Min, Prod };
/// out[o, i] = op over a, r of the contiguous in[a, o, r, i]; floats accumulate sums and products in
/// double, integers in int64 (wrapping).
void launch_reduce(ReduceKind op, DType dtype, const void* in, void* out, const ReduceLayout& l, Scratch& scratch,
                   cudaStream_t stream);
/// Max (or min) and its first index along r of the contiguous in [O, R, I]; a NaN wins; values
/// may be null.
void launch_arg_reduce(bool is_max, DType dtype, const void* in, void* values, int64_t* indices, int64_t O,
                       int64_t R, int64_t I, Scratch& scratch, cudaStream_t stream);
/// Per-channel mean and biased variance of x [N, C, S] (Welford in double).
void launch_batch_norm_stats(DType dtype, const void* x, void* mean, void* var, int64_t N, int64_t C,
                             int64_t S, Scratch& scratch, cudaStream_t stream);
/// Per-channel sum(g) and sum(g * (x - mean[c])) over [N, C, S].
void launch_batch_norm_grad_sums(DType dtype, const void* g, const void* x, const void* mean, void* sum_g,
                                 void* sum_gx, int64_t N, int64_t C, int64_t S, Scratch& scratch,
                                 cudaStream_t stream);
/// Layer norm of the rows of x [R, D]: out, mean, rstd; weight and bias may be null.
void launch_layer_norm(DType dtype, const void* x, const void* weight, const void* bias, void* out, void* mean,
                       void* rstd, int64_t R, int64_t D, double eps, cudaStream_t stream);
/// Its gradients; grad_in, grad_weight, grad_bias and weight may each be null.
void launch_layer_norm_backward(DType dtype, const void* g, const void* x, const void* mean, const void* rstd,
                                const void* weight, void* grad_in, void* grad_weight, void* grad_bias,
                                int64_t R, int64_t D, Scratch& scratch, cudaStream_t stream);
/// (log_)softmax along r of the contiguous in [O, R, I].
void launch_softmax(DType dtype, const void* in, void* out, int64_t O, int64_t R, int64_t I, bool log,
                    cudaStream_t stream);
/// Its gradient from grad and the output y (both contiguous [O, R, I]).
void launch_softmax_backward(DType dtype, const void* grad, const void* y, void* grad_in, int64_t O, int64_t R,
                             int64_t I, bool log, cudaStream_t stream);
/// Cross entropy's rows of the contiguous logits [N, C]: loss [N] and stats [N, 2] (the kernel contract
/// of core/kernels/softmax.h), and the gradient from grad [N].
void launch_log_softmax_nll(DType dtype, const void* logits, const int64_t* target, void* loss, void* stats, int64_t N,
                            int64_t C, cudaStream_t stream);
void launch_log_softmax_nll_backward(DType dtype, const void* logits, const int64_t* target, const void* stats,
                                     const void* grad, void* grad_logits, int64_t N, int64_t C, cudaStream_t stream);

// ---- pool.cu
/// Geometry of a 2-D pooling over `planes` (N * C) planes of H x W.
struct PoolGeometry {
  int64_t planes, H, W, oH, oW;
  int64_t kH, kW, sH, sW, pH, pW, dH, dW;
  bool adaptive, count_include_pad;
  int64_t divisor_override;  // 0: none
};
void launch_max_pool2d(DType dtype, const PoolGeometry& g, const void* in, void* out, int64_t* indices,
                       cudaStream_t stream);
/// grad_in (zeroed here) += grad_out at indices (plane-relative; out-of-plane ones are skipped).
void launch_max_pool2d_backward(DType dtype, int64_t planes, int64_t in_plane, int64_t out_plane,
                                const void* grad_out, const int64_t* indices, void* grad_in, cudaStream_t stream);
void launch_avg_pool2d(DType dtype, const PoolGeometry& g, const void* in, void* out, cudaStream_t stream);
/// grad_in (zeroed here) = the adjoint of avg_pool2d applied to grad_out.
void launch_avg_pool2d_backward(DType dtype, const PoolGeometry& g, const void* grad_out, void* grad_in,
                                cudaStream_t stream);

// ---- sort.cu
/// The stable order that sorts each row of the contiguous in [rows, n] (NaN above every number).
void launch_argsort(DType dtype, const void* in, int64_t* indices, int64_t rows, int64_t n, bool descending,
                    Scratch& scratch, cudaStream_t stream);
/// Running sums along each row of the contiguous in [rows, n] (integers wrap).
void launch_cumsum(DType dtype, const void* in, void* out, int64_t rows, int64_t n, cudaStream_t stream);

// ---- scan.cu
/// The running scan `op` along each row of the contiguous in [rows, n] (cuda/shared/scan_row.h),
/// one row per thread; indices (int64, for Cummax and Cummin) may be null otherwise. Bool is
/// scanned as uint8 0/1 values.
void launch_scan(ScanOp op, DType dtype, const void* in, void* out, int64_t* indices, int64_t rows, int64_t n,
                 cudaStream_t stream);

// ---- sampling.cu
/// k draws from each row of the contiguous float64 weights [rows, n] into out [rows, k], one row
/// per thread (cuda/shared/multinomial_row.h): row r's draws are the Philox uniform doubles from
/// 32-bit draw number draw0 + 2 k r on, the CPU kernel's.
void launch_multinomial(const double* weights, int64_t* out, int64_t rows, int64_t n, int64_t k, bool replacement,
                        uint64_t seed, uint64_t draw0, Scratch& scratch, cudaStream_t stream);

// ---- rnn.cu: one thread per (batch row, hidden unit) over B rows (cuda/shared/rnn_cell_unit.h)
void launch_rnn_cell_forward(RnnCell cell, const RnnForwardPtrs<float>& a, int64_t B, cudaStream_t stream);
void launch_rnn_cell_forward(RnnCell cell, const RnnForwardPtrs<double>& a, int64_t B, cudaStream_t stream);
void launch_rnn_cell_backward(RnnCell cell, const RnnBackwardPtrs<float>& a, int64_t B, cudaStream_t stream);
void launch_rnn_cell_backward(RnnCell cell, const RnnBackwardPtrs<double>& a, int64_t B, cudaStream_t stream);

// ---- attention.cu: fused attention over contiguous operands (cuda/shared/attention_score.h)
/// out, logsumexp and (when not null) probs: a block per query row, three passes over its keys
/// (maximum, sum of exponentials, then probabilities times values a chunk of keys at a time).
void launch_attention_forward(DType dtype, const AttentionShape& s, const void* q, const void* k, const void* v,
                              const void* mask, void* out, void* logsumexp, void* probs, cudaStream_t stream);
/// grad_q (a block per query row), grad_k and grad_v (a block per key row, summing over the query
/// rows in order: no atomics, the same result every run); each may be null. probs null: recomputed
/// from logsumexp.
void launch_attention_backward(DType dtype, const AttentionShape& s, const void* q, const void* k, const void* v,
                               const void* mask, const void* grad_out, const void* out, const void* logsumexp,
                               const void* probs, void* grad_q, void* grad_k, void* grad_v, Scratch& scratch,
                               cudaStream_t stream);

// ---- pointwise.cu: the kernels with a layout of their own
/// Inverted dropout of the contiguous in [n]: element i keeps when draw counter + i of Philox
/// stream `seed` (as a float in [0, 1)) is below 1 - p.
void launch_dropout(DType dtype, const void* in, void* out, void* mask, int64_t n, double p, uint64_t seed,
                    uint64_t counter, cudaStream_t stream);
/// out = a * ka[c] + (b - b0[c]) * kb[c] + k[c] over [N, C, S] (b, b0, kb null: no second term).
void launch_channel_affine(DType dtype, void* out, const void* a, const void* ka, const void* b, const void* b0,
                           const void* kb, const void* k, int64_t N, int64_t C, int64_t S, cudaStream_t stream);
/// out [count, m, n] (contiguous) = a @ b for integer dtypes (cuBLAS has none), one thread per
/// output; a's matrix i starts at a + i * a_batch (elements), its rows and cols at a_rs and a_cs.
void launch_gemm_fallback(DType dtype, int64_t count, int64_t m, int64_t n, int64_t k, const void* a,
                          int64_t a_batch, int64_t a_rs, int64_t a_cs, const void* b, int64_t b_batch, int64_t b_rs,
                          int64_t b_cs, void* out, cudaStream_t stream);

/// The optimizer steps of core/kernels/optim.h, over contiguous [n] buffers (a null buffer: not used).
struct SgdArgs {
  double lr, weight_decay, momentum, dampening;
  bool nesterov, maximize, first;
};
struct AdamArgs {
  double beta1, beta2, eps, weight_decay;
  bool amsgrad, maximize, decoupled;
  double step_size, bc2_sqrt, decay;
};
struct RmspropArgs {
  double lr, alpha, eps, weight_decay, momentum;
  bool centered, maximize;
};
struct AdagradArgs {
  double clr, weight_decay, eps;
  bool maximize;
};
/// grad *= inv_scale; *found_inf = 1 where an element was inf or NaN (core/kernels/optim.h, unscale_stub).
void launch_unscale(DType dtype, void* grad, float* found_inf, int64_t n, float inv_scale, cudaStream_t stream);
void launch_sgd_step(DType dtype, void* param, const void* grad, void* buf, int64_t n, const SgdArgs& a,
                     cudaStream_t stream);
void launch_adam_step(DType dtype, void* param, const void* grad, void* exp_avg, void* exp_avg_sq,
                      void* max_exp_avg_sq, int64_t n, const AdamArgs& a, cudaStream_t stream);
void launch_rmsprop_step(DType dtype, void* param, const void* grad, void* square_avg, void* grad_avg, void* buf,
                         int64_t n, const RmspropArgs& a, cudaStream_t stream);
void launch_adagrad_step(DType dtype, void* param, const void* grad, void* sum, int64_t n, const AdagradArgs& a,
                         cudaStream_t stream);

// ---- complex.cu: complex math (core/kernels/complex.h) and the FFTs' scaling
/// out = op(a, b) (operands: out, a, b): complex of `complex` (complex64 or complex128) for Mul and
/// Div, a and b of its real dtype for Make and Polar.
void launch_complex_binary(const ElementwiseArgs<3>& args, DType complex, ComplexBinaryOp op, cudaStream_t stream);
/// out = op(in) (operands: out, in), in of `complex`; out of its real dtype for Abs and Angle.
void launch_complex_unary(const ElementwiseArgs<2>& args, DType complex, ComplexUnaryOp op, cudaStream_t stream);
/// Each of the `count` values of the contiguous `data` (float32 or float64: `real`) times scale.
void launch_scale(void* data, int64_t count, DType real, double scale, cudaStream_t stream);

}  // namespace ember::cuda
