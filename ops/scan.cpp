#include "ember/ops/scan.h"

#include <limits>
#include <vector>

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/compare.h"
#include "ember/ops/sort.h"

namespace ember {
namespace {

using autograd::SavedTensor;
using autograd::TensorList;

Tensor reversed_cumsum(const Tensor& t, int64_t dim) { return flip(cumsum(flip(t, {dim}), dim), {dim}); }

// The gradient of cumprod where x holds zeros, in O(n) (PyTorch's first-order path; its own
// derivative is not cumprod's second one). Before the first zero z1 the no-zero formula holds;
// at z1 it is prod(x[:z1]) * sum_{j in [z1, z2)} g[j] prod(x(z1, j]); after z1 it is 0.
Tensor cumprod_zeros_backward(const Tensor& grad, const Tensor& x, const Tensor& out, int64_t dim) {
  Tensor is_zero = eq(x, 0);
  Tensor zeros_so_far = cumsum(is_zero, dim);
  Tensor before = eq(zeros_so_far, 0);
  Tensor at_first = logical_and(is_zero, eq(zeros_so_far, 1));
  Tensor after_first = logical_and(eq(zeros_so_far, 1), logical_not(at_first));
  Tensor grad_before = reversed_cumsum(where(before, out * grad, 0), dim) / where(before, x, 1);
  Tensor running = cumprod(where(after_first, x, 1), dim);  // prod(x(z1, j]) for j in [z1, z2)
  Tensor to_first = sum(running * where(eq(zeros_so_far, 1), grad, 0), {dim}, true);
  Tensor prefix = prod(where(before, x, 1), dim, true);
  return where(before, grad_before, where(at_first, prefix * to_first, 0));
}

// The same in O(n^2) from differentiable ops, for create_graph (PyTorch's): for each k,
// sum_{j >= k} g[j] prod_{i <= j, i != k} x[i].
Tensor cumprod_zeros_backward_twice(const Tensor& grad, const Tensor& x, int64_t dim) {
  const int64_t n = x.size(dim);
  DimVector one = x.sizes().vec();
  one[static_cast<size_t>(dim)] = 1;
  std::vector<Tensor> parts;
  for (int64_t k = 0; k < n; ++k) {
    Tensor until = k > 0 ? prod(narrow(x, dim, 0, k), dim, true) : ones(one, x.options());
    Tensor omitted = until;
    if (k < n - 1) omitted = cat({until, until * cumprod(narrow(x, dim, k + 1, n - k - 1), dim)}, dim);
    parts.push_back(sum(narrow(grad, dim, k, n - k) * omitted, {dim}, true));
  }
  return cat(parts, dim);
}

// d cumprod(x)_j/dx_k = prod_{i <= j, i != k} x_i for j >= k: reversed_cumsum(out * grad) / x
// when no entry is 0, else the zero-safe forms above.
struct CumprodBackward : autograd::Node {
  SavedTensor self, result;
  int64_t dim = 0;
  const char* name() const override { return "CumprodBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = self.unpack(this);
    if (x.dim() == 0 || x.size(dim) <= 1) return {g[0]};
    Tensor out = result.unpack(this);
    if (!any(eq(x, 0)).item<bool>()) return {reversed_cumsum(out * g[0], dim) / x};
    if (autograd::GradMode::is_enabled()) return {cumprod_zeros_backward_twice(g[0], x, dim)};
    return {cumprod_zeros_backward(g[0], x, out, dim)};
  }
  void release_saved() override {
    self.reset();
    result.reset();
  }
};

// d logcumsumexp(x)_j/dx_k = exp(x_k - out_j) for j >= k, summed against the gradient's positive
// and negative parts in log space so nothing overflows (PyTorch's, after TensorFlow's).
struct LogcumsumexpBackward : autograd::Node {
  SavedTensor self, result;
  int64_t dim = 0;
  const char* name() const override { return "LogcumsumexpBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = self.unpack(this), out = result.unpack(this);
    if (x.dim() == 0) return {g[0]};
    const double lowest = x.dtype() == kFloat32 ? -std::numeric_limits<float>::max() : -std::numeric_limits<double>::max();
    auto reversed = [&](const Tensor& t) { return flip(logcumsumexp(flip(t, {dim}), dim), {dim}); };
    Tensor log_abs = log(abs(g[0]));
    Tensor pos = exp(reversed(where(gt(g[0], 0), log_abs, lowest) - out) + x);
    Tensor neg = exp(reversed(where(lt(g[0], 0), log_abs, lowest) - out) + x);
    return {pos - neg};
  }
  void release_saved() override {
    self.reset();
    result.reset();
  }
};

// Runs scan_stub over the rows of `src` along d; returns (out, indices) in src's layout (indices
// only for cummax/cummin).
std::pair<Tensor, Tensor> scan_forward(ScanOp op, const Tensor& src, int64_t d) {
  Tensor rows = rows_last(src, d);
  Tensor out_rows = empty(rows.sizes(), TensorOptions(src.dtype()).device(src.device()));
  const bool with_indices = op == ScanOp::Cummax || op == ScanOp::Cummin;
  Tensor index_rows = with_indices ? empty(rows.sizes(), TensorOptions(kInt64).device(src.device())) : Tensor();
  if (rows.numel() > 0) scan_stub(src.device().type, op, out_rows, index_rows, rows);
  auto restore = [&](const Tensor& r) {
    if (!r.defined()) return r;
    return src.dim() == 0 ? r.reshape({}) : contiguous_data(r.transpose(d, -1));
  };
  return {restore(out_rows), restore(index_rows)};
}

// A scan whose gradient is Backward's (saving the input and the result).
template <typename Backward>
Tensor recorded_scan(ScanOp op, const Tensor& src, int64_t d) {
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    out = scan_forward(op, src, d).first;
  }
  if (autograd::any_requires_grad(src)) {
    auto node = autograd::make_node<Backward>(src);
    node->dim = d;
    node->self = SavedTensor(src);
    autograd::set_history(out, node);
    node->result = SavedTensor(out, true);
  }
  return out;
}

std::tuple<Tensor, Tensor> cumulative_extreme(const Tensor& self, int64_t dim, ScanOp op, const char* name) {
  check_compute_dtype(self.dtype(), name);
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), name);
  Tensor indices = scan_forward(op, self, d).second;
  if (self.dim() == 0) return {self.clone(), indices};
  return {gather(self, d, indices), indices};
}

}  // namespace

Tensor impl_cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  if (autocast::applies("cumprod", self))
    return autocast::run("cumprod", {self}, [&](const autocast::Cast& cast) { return cumprod(cast(self), dim, dtype); });
  DType out_dtype = dtype ? *dtype : (is_floating(self.dtype()) || is_complex(self.dtype()) ? self.dtype() : kInt64);
  check_compute_dtype(out_dtype, "cumprod");
  EMBER_CHECK_TYPE(out_dtype != kBool, "cumprod: cannot multiply into bool");
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), "cumprod");
  return recorded_scan<CumprodBackward>(ScanOp::Cumprod, self.dtype() == out_dtype ? self : self.to(out_dtype), d);
}

Tensor impl_logcumsumexp(const Tensor& self, int64_t dim) {
  EMBER_CHECK_TYPE(is_floating(self.dtype()), "logcumsumexp: expected a floating tensor, got ", self.dtype());
  check_compute_dtype(self.dtype(), "logcumsumexp");
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), "logcumsumexp");
  // NB: a 0-d input is copied, as PyTorch's (log(0 + e^-0) would make -0 into +0); its gradient is 1
  if (self.dim() == 0) return self.clone();
  return recorded_scan<LogcumsumexpBackward>(ScanOp::Logcumsumexp, self, d);
}

std::tuple<Tensor, Tensor> impl_cummax(const Tensor& self, int64_t dim) {
  return cumulative_extreme(self, dim, ScanOp::Cummax, "cummax");
}

std::tuple<Tensor, Tensor> impl_cummin(const Tensor& self, int64_t dim) {
  return cumulative_extreme(self, dim, ScanOp::Cummin, "cummin");
}

}  // namespace ember
