// CUDA kernels for softmax / log_softmax and their gradient (cuda/kernels/reduce.cu): inputs made
// contiguous and seen as [O, R, I], R the softmax dim.
#include "ember/core/copy.h"
#include "ember/core/kernels/softmax.h"
#include "ember/cuda/tensor_args.h"
#include "ember/core/kernels/widen.h"

namespace ember::cuda {
namespace {

struct Layout {
  int64_t O = 1, R = 1, I = 1;
};

Layout layout_of(const Tensor& t, int64_t dim) {
  Layout l;
  if (t.dim() == 0) return l;
  for (int64_t d = 0; d < dim; ++d) l.O *= t.size(d);
  l.R = t.size(dim);
  for (int64_t d = dim + 1; d < t.dim(); ++d) l.I *= t.size(d);
  return l;
}

void cuda_softmax(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  check_floating_compute(in.dtype(), log ? "log_softmax" : "softmax");
  const Tensor src = contiguous_data(in);
  const Layout l = layout_of(src, dim);
  On on(out);
  launch_softmax(in.dtype(), src.data_ptr(), out.data_ptr(), l.O, l.R, l.I, log, on.stream);
}

void cuda_softmax_backward(const Tensor& grad_in, const Tensor& grad, const Tensor& y, int64_t dim, bool log) {
  check_floating_compute(y.dtype(), log ? "log_softmax" : "softmax");
  const Tensor gc = contiguous_data(grad), yc = contiguous_data(y);
  const Layout l = layout_of(yc, dim);
  On on(grad_in);
  launch_softmax_backward(y.dtype(), gc.data_ptr(), yc.data_ptr(), grad_in.data_ptr(), l.O, l.R, l.I, log, on.stream);
}

void cuda_log_softmax_nll(const Tensor& loss, const Tensor& stats, const Tensor& logits, const Tensor& target) {
  const Tensor src = contiguous_data(logits), tc = contiguous_data(target);
  On on(loss);
  launch_log_softmax_nll(src.dtype(), src.data_ptr(), static_cast<const int64_t*>(tc.data_ptr()), loss.data_ptr(),
                         stats.data_ptr(), src.size(0), src.size(1), on.stream);
}

void cuda_log_softmax_nll_backward(const Tensor& grad_logits, const Tensor& grad, const Tensor& logits,
                                   const Tensor& stats, const Tensor& target) {
  const Tensor src = contiguous_data(logits), tc = contiguous_data(target), gc = contiguous_data(grad);
  On on(grad_logits);
  launch_log_softmax_nll_backward(src.dtype(), src.data_ptr(), static_cast<const int64_t*>(tc.data_ptr()),
                                  stats.data_ptr(), gc.data_ptr(), grad_logits.data_ptr(), src.size(0), src.size(1),
                                  on.stream);
}

}  // namespace

EMBER_REGISTER_KERNEL(log_softmax_nll_stub, DeviceType::CUDA, &cuda_log_softmax_nll);
EMBER_REGISTER_KERNEL(log_softmax_nll_backward_stub, DeviceType::CUDA, &cuda_log_softmax_nll_backward);
EMBER_REGISTER_KERNEL(softmax_stub, DeviceType::CUDA, (widened<&cuda_softmax, 0>));
EMBER_REGISTER_KERNEL(softmax_backward_stub, DeviceType::CUDA, (widened<&cuda_softmax_backward, 0>));

}  // namespace ember::cuda
