#include "ember/ops/reduce.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/compare.h"
#include "ember/ops/complex.h"
#include "ember/ops/convert.h"
#include "ember/ops/unary.h"
#include "ember/ops/view.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

DimVector reduction_dims(IntArrayRef dims, int64_t ndim, const char* op) {
  DimVector out;
  if (dims.empty()) {
    for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    return out;
  }
  for (int64_t d : dims) out.push_back(wrap_dim(d, ndim, op));
  std::sort(out.begin(), out.end());
  for (size_t i = 1; i < out.size(); ++i)
    EMBER_CHECK_VALUE(out[i] != out[i - 1], op, ": dim ", out[i], " appears twice in ", dims);
  if (ndim == 0) out.clear();  // dim 0 / -1 of a 0-d tensor reduces nothing
  return out;
}

DimVector reduced_shape(IntArrayRef sizes, IntArrayRef dims, bool keepdim) {
  DimVector out;
  size_t k = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    bool reduced = k < dims.size() && dims[k] == static_cast<int64_t>(d);
    if (reduced) ++k;
    if (!reduced)
      out.push_back(sizes[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

Tensor unsqueeze_reduced(const Tensor& grad, IntArrayRef in_sizes, IntArrayRef dims, bool keepdim) {
  if (keepdim) return grad;
  return reshape(grad, reduced_shape(in_sizes, dims, true));
}

namespace {

void check_floating(const Tensor& t, const char* op) {
  check_floating_compute(t.dtype(), op);
}

// A contiguous tensor of `shape` viewing the (contiguous) out's data, without autograd.
Tensor reshaped_data(const Tensor& out, IntArrayRef shape) {
  return as_strided_data(out, shape, contiguous_strides(shape), out.storage_offset());
}

// reduce_stub over rd (sorted, unique) of t converted to dtype; no autograd. A reduced dim of
// size 0 gives 0 (callers refuse it for max/min).
Tensor reduce_forward(ReduceOp op, const Tensor& t, IntArrayRef rd, bool keepdim, DType dtype) {
  Tensor in = t.dtype() == dtype ? t : copy_as(t, dtype, t.device());
  Tensor out;
  if (rd.empty()) {  // a 0-d tensor: the result is a copy
    out = in.is_same(t) ? copy_as(t, dtype, t.device()) : in;
  } else {
    out = empty(reduced_shape(t.sizes(), rd, true), TensorOptions(dtype).device(t.device()));
    if (in.numel() == 0)
      fill_data(out, op == ReduceOp::Prod ? 1 : 0);  // the empty sum and product
    else
      reduce_stub(t.device().type, op, out, in, rd);
  }
  return keepdim ? out : reshaped_data(out, reduced_shape(t.sizes(), rd, false));
}

// max/min reduce nothing over an empty dim: refuse it, naming the op.
void check_nonempty_dims(const Tensor& t, IntArrayRef rd, const char* op) {
  for (int64_t d : rd)
    EMBER_CHECK_VALUE(t.size(d) > 0, op, ": cannot reduce over dimension ", d,
                      " of size 0 (input ", describe(t), ")");
}

// amax/amin values without autograd; bool tensors are reduced as uint8.
Tensor extreme_forward(const Tensor& t, IntArrayRef rd, bool keepdim, bool is_max, const char* op) {
  check_compute_dtype(t.dtype(), op);
  check_nonempty_dims(t, rd, op);
  ReduceOp rop = is_max ? ReduceOp::Max : ReduceOp::Min;
  if (t.dtype() != kBool) return reduce_forward(rop, t, rd, keepdim, t.dtype());
  return copy_as(reduce_forward(rop, t, rd, keepdim, kUInt8), kBool, t.device());
}

// d sum(x)/dx = grad broadcast back over the reduced dims
struct SumBackward : autograd::Node {
  DimVector in_shape, dims;
  bool keepdim = false;
  const char* name() const override { return "SumBackward"; }
  TensorList apply(TensorList&& g) override {
    return {expand(unsqueeze_reduced(g[0], in_shape, dims, keepdim), in_shape)};
  }
};

// d amax(x)/dx = grad / count where x equals the result, else 0. As in PyTorch, a slice whose
// result is NaN has no element equal to it, and its gradient is NaN throughout (g / 0 * 0); but
// max() and min() of the whole tensor share it among the NaNs then, and give the other elements 0
// even when the gradient is NaN (PyTorch's evenly_distribute_backward).
struct AmaxBackward : autograd::Node {
  SavedTensor self, result;
  DimVector dims;
  bool keepdim = false, is_max = true, nan_shares = false;
  const char* name() const override { return is_max ? "AmaxBackward" : "AminBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = self.unpack(this);
    Tensor r = unsqueeze_reduced(result.unpack(this), x.sizes(), dims, keepdim);
    Tensor mask = nan_shares && std::isnan(r.item<double>()) ? isnan(x) : eq(x, r);
    Tensor share = unsqueeze_reduced(g[0], x.sizes(), dims, keepdim) / sum(mask, dims, true);
    // NB: the whole tensor's masks (PyTorch's masked_fill) keep a NaN gradient off the elements that
    // are not the extreme; amax/amin along dims multiply by the mask, so NaN reaches them all.
    if (nan_shares) return {where(mask, share, 0)};
    return {share * mask};
  }
  void release_saved() override {
    self.reset();
    result.reset();
  }
};

Tensor extreme(const Tensor& t, IntArrayRef dims, bool keepdim, bool is_max, const char* op, bool whole = false) {
  DimVector rd = reduction_dims(dims, t.dim(), op);
  Tensor out = extreme_forward(t, rd, keepdim, is_max, op);
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<AmaxBackward>(t);
    node->dims = rd;
    node->keepdim = keepdim;
    node->is_max = is_max;
    node->nan_shares = whole;
    node->self = SavedTensor(t);
    autograd::set_history(out, node);  // NB: before saving out, so the saved output requires grad
    node->result = SavedTensor(out, true);
  }
  return out;
}

// d max(x, dim)/dx = grad at the position `indices` names along dim, 0 elsewhere
struct MaxDimBackward : autograd::Node {
  SavedTensor indices;
  DimVector in_shape;
  int64_t dim = 0;
  bool keepdim = false;
  const char* name() const override { return "MaxDimBackward"; }
  TensorList apply(TensorList&& g) override {
    if (in_shape.empty()) return {g[0]};  // 0-d input: the value is the input
    DimVector one{dim};
    Tensor idx = unsqueeze_reduced(indices.unpack(this), in_shape, one, keepdim);
    DimVector pos_shape(in_shape.size(), 1);
    pos_shape[static_cast<size_t>(dim)] = in_shape[static_cast<size_t>(dim)];
    // One-hot of the indices along dim: building it from differentiable ops keeps the gradient
    // differentiable in grad (create_graph).
    Tensor positions = reshape(arange(in_shape[static_cast<size_t>(dim)],
                                      TensorOptions(kInt64).device(g[0].device())), pos_shape);
    return {where(eq(positions, idx), unsqueeze_reduced(g[0], in_shape, one, keepdim), 0)};
  }
  void release_saved() override { indices.reset(); }
};

// (values, indices) along dim without autograd; values are skipped when !want_values.
std::tuple<Tensor, Tensor> arg_reduce_forward(const Tensor& t, int64_t dim, bool keepdim, bool is_max,
                                              bool want_values, const char* op) {
  check_compute_dtype(t.dtype(), op);
  int64_t d = wrap_dim(dim, t.dim(), op);
  if (t.dim() == 0) return {want_values ? copy_as(t, t.dtype(), t.device()) : Tensor(),
                            zeros({}, TensorOptions(kInt64).device(t.device()))};
  DimVector rd{d};
  check_nonempty_dims(t, rd, op);
  DimVector kshape = reduced_shape(t.sizes(), rd, true);
  Tensor values = want_values ? empty(kshape, t.options()) : Tensor();
  Tensor indices = empty(kshape, TensorOptions(kInt64).device(t.device()));
  if (indices.numel() > 0)
    arg_reduce_stub(t.device().type, is_max ? ReduceOp::Max : ReduceOp::Min, values, indices, t, d);
  if (!keepdim) {
    DimVector shape = reduced_shape(t.sizes(), rd, false);
    if (want_values) values = reshaped_data(values, shape);
    indices = reshaped_data(indices, shape);
  }
  return {values, indices};
}

std::tuple<Tensor, Tensor> extreme_dim(const Tensor& t, int64_t dim, bool keepdim, bool is_max) {
  const char* op = is_max ? "max" : "min";
  auto [values, indices] = arg_reduce_forward(t, dim, keepdim, is_max, true, op);
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<MaxDimBackward>(t);
    node->in_shape = t.sizes().vec();
    node->dim = t.dim() == 0 ? 0 : wrap_dim(dim, t.dim(), op);
    node->keepdim = keepdim;
    node->indices = SavedTensor(indices);
    autograd::set_history(values, node);
  }
  return {values, indices};
}

Tensor arg_extreme(const Tensor& t, std::optional<int64_t> dim, bool keepdim, bool is_max) {
  const char* op = is_max ? "argmax" : "argmin";
  if (dim) return std::get<1>(arg_reduce_forward(t, *dim, keepdim, is_max, false, op));
  EMBER_CHECK_VALUE(t.numel() > 0, op, ": cannot reduce an empty tensor (", describe(t),
                    ") without a dim");
  // Over the flattened tensor: the index counts in row-major order.
  Tensor flat = contiguous_data(t);
  flat = as_strided_data(flat, {t.numel()}, {1}, flat.storage_offset());
  Tensor index = std::get<1>(arg_reduce_forward(flat, 0, false, is_max, false, op));
  return keepdim ? reshaped_data(index, DimVector(static_cast<size_t>(t.dim()), 1)) : index;
}

// d logsumexp(x)/dx = grad * exp(x - result)
struct LogsumexpBackward : autograd::Node {
  SavedTensor self, result;
  DimVector dims;
  bool keepdim = false;
  const char* name() const override { return "LogsumexpBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = self.unpack(this);
    Tensor r = unsqueeze_reduced(result.unpack(this), x.sizes(), dims, keepdim);
    return {unsqueeze_reduced(g[0], x.sizes(), dims, keepdim) * exp(x - r)};
  }
  void release_saved() override {
    self.reset();
    result.reset();
  }
};

// PyTorch's linalg_vector_norm_backward, in its order of operations (an overflow or a 0 * inf then
// gives what PyTorch's gives): p = 0: no gradient (None); p = 1: sign(x) grad; p = 2: grad x / norm
// (0 where norm == 0); p = +-inf: sign(x) grad / count where |x| == norm or is NaN; p < 1:
// sign(x) |x|^(p-1) (0 at x == 0) grad norm^(1-p); otherwise sign(x) |x|^(p-1) grad / norm^(p-1)
// (x |x|^(p-2) from p = 2 on; 0 where norm == 0; sign(x) (|x| / norm)^(p-1) where norm^(p-1) underflows).
struct NormBackward : autograd::Node {
  SavedTensor self, result;
  DimVector dims;
  bool keepdim = false;
  double p = 2;
  const char* name() const override { return "NormBackward"; }
  TensorList apply(TensorList&& g) override {
    if (p == 0) return {Tensor()};
    Tensor x = self.unpack(this);
    Tensor n = unsqueeze_reduced(result.unpack(this), x.sizes(), dims, keepdim);
    Tensor gk = unsqueeze_reduced(g[0], x.sizes(), dims, keepdim);
    if (p == 1) return {sign(x) * gk};
    if (p == 2) return {gk * where(eq(n, 0), 0, x / n)};
    if (std::isinf(p)) {
      Tensor ax = abs(x);
      Tensor mask = logical_or(eq(ax, n), isnan(ax));
      return {sign(x) * (gk / sum(mask, dims, true) * mask)};
    }
    if (p < 1) return {where(eq(x, 0), 0, sign(x) * pow(abs(x), p - 1)) * gk * pow(n, 1 - p)};
    Tensor scaled = p < 2 ? sign(x) * pow(abs(x), p - 1) : x * pow(abs(x), p - 2);
    Tensor denominator = pow(n, p - 1);
    Tensor grad = scaled * where(eq(n, 0), 0, gk / denominator);
    // NB: a norm of subnormal entries (kept exact: it is accumulated in double) whose power underflows
    // gave 0 / 0; there the gradient is sign(x) (|x| / norm)^(p-1), the float64 one.
    Tensor underflow = logical_and(eq(denominator, 0), ne(n, 0));
    return {where(underflow, sign(x) * pow(abs(x) / n, p - 1) * gk, grad)};
  }
  void release_saved() override {
    self.reset();
    result.reset();
  }
};

}  // namespace

Tensor impl_sum(const Tensor& t, IntArrayRef dims, bool keepdim, std::optional<DType> dtype) {
  if (autocast::applies("sum", t))
    return autocast::run("sum", {t}, [&](const autocast::Cast& cast) { return sum(cast(t), dims, keepdim, dtype); });
  if (dtype && *dtype != t.dtype()) return sum(t.to(*dtype), dims, keepdim);
  DimVector rd = reduction_dims(dims, t.dim(), "sum");
  Tensor out;
  if (is_complex(t.dtype())) {
    out = detail::complex_sum(t, rd, keepdim);
  } else {
    // NB: an integer sum is int64 unless dtype names the integer type (then it wraps around in it).
    DType accumulate = dtype ? *dtype : is_integral(t.dtype()) ? kInt64 : t.dtype();
    check_compute_dtype(accumulate, "sum");
    out = reduce_forward(ReduceOp::Sum, t, rd, keepdim, accumulate);
    if (is_floating(accumulate)) {
      // NB: PyTorch's sums start from +0, so a sum of -0s is +0 (digamma of it inf, not -inf); a copy or
      // a first row taken as the start kept -0. x + 0 is x for every other x.
      autograd::NoGradGuard no_grad;
      out.add_(0.0);
    }
  }
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<SumBackward>(t);
    node->in_shape = t.sizes().vec();
    node->dims = rd;
    node->keepdim = keepdim;
    autograd::set_history(out, node);
  }
  return out;
}

Tensor impl_mean(const Tensor& t, IntArrayRef dims, bool keepdim, std::optional<DType> dtype) {
  if (dtype && *dtype != t.dtype()) return mean(t.to(*dtype), dims, keepdim);
  if (!is_complex(t.dtype())) check_floating(t, "mean");
  DimVector rd = reduction_dims(dims, t.dim(), "mean");
  int64_t count = 1;
  for (int64_t d : rd) count *= t.size(d);
  return div(sum(t, rd, keepdim), static_cast<double>(count));
}

Tensor impl_amax(const Tensor& t, IntArrayRef dims, bool keepdim) { return extreme(t, dims, keepdim, true, "amax"); }
Tensor impl_amin(const Tensor& t, IntArrayRef dims, bool keepdim) { return extreme(t, dims, keepdim, false, "amin"); }

Tensor impl_max(const Tensor& t) {
  EMBER_CHECK_VALUE(t.numel() > 0, "max: cannot reduce an empty tensor (", describe(t),
                    ") without a dim");
  return extreme(t, {}, false, true, "max", true);
}
Tensor impl_min(const Tensor& t) {
  EMBER_CHECK_VALUE(t.numel() > 0, "min: cannot reduce an empty tensor (", describe(t),
                    ") without a dim");
  return extreme(t, {}, false, false, "min", true);
}

Tensor impl_max(const Tensor& a, const Tensor& b) { return maximum(a, b); }
Tensor impl_min(const Tensor& a, const Tensor& b) { return minimum(a, b); }

std::tuple<Tensor, Tensor> impl_max(const Tensor& t, int64_t dim, bool keepdim) {
  return extreme_dim(t, dim, keepdim, true);
}
std::tuple<Tensor, Tensor> impl_min(const Tensor& t, int64_t dim, bool keepdim) {
  return extreme_dim(t, dim, keepdim, false);
}

Tensor impl_argmax(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(t, dim, keepdim, true);
}
Tensor impl_argmin(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  return arg_extreme(t, dim, keepdim, false);
}

namespace {
// Two passes (subtract the mean, then square) rather than E[x^2] - E[x]^2, which cancels
// catastrophically when the mean is large. N <= correction divides by 0, giving nan/inf as in
// PyTorch. float32 is computed in float64 (as PyTorch accumulates it): the squares of values
// beyond 1.8e19 overflow float32, though their std (and often their var) does not.
// d var(x)/dx = grad * 2 (x - mean) / (N - correction), PyTorch's var_backward: the mean's own
// share, -2 sum(x - mean) / N, is 0 and left out, since an infinite x would make it NaN for every
// element. Composed of ops, so it has a gradient of its own (the mean's share enters there).
// The mean var centres on: x0 + mean(x - x0), x0 each slice's first element, so that a slice of equal
// values has exactly their value as its mean and a variance of exactly 0 (sum / n of three copies of
// tanh(-2.5) is an ulp off, and std's gradient there was noise of 0.03 where PyTorch's Welford pass
// gives 0). An empty slice has mean's NaN, a slice holding inf or NaN mean's answer.
Tensor centre(const Tensor& x, IntArrayRef dims) {
  Tensor x0 = x;
  for (int64_t d : dims) {
    if (x.size(d) == 0) return mean(x, dims, true);
    x0 = narrow(x0, d, 0, 1);
  }
  // NB: where a slice holds inf or NaN (x - x0 is NaN there), mean's own answer: inf - inf would spread NaN
  const Tensor centred = x0 + mean(x - x0, dims, true);
  return where(isfinite(centred), centred, mean(x, dims, true));
}

struct VarBackward : autograd::Node {
  SavedTensor self;
  DimVector dims;
  bool keepdim = false;
  double dof = 0;      // n - correction
  bool whole = false;  // the whole tensor (no dims, or a 0-d one)
  const char* name() const override { return "VarBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = self.unpack(this);
    Tensor grad = unsqueeze_reduced(g[0], x.sizes(), dims, keepdim);
    Tensor m = centre(x, dims);
    // NB: PyTorch's var_backward: the whole tensor's gradient at dof <= 0 is grad * inf (NaN where x is
    // its mean), whatever the sign of x - mean; along dims 2 / dof goes to inf or negative.
    if (whole && dof <= 0) {
      const double inf = std::numeric_limits<double>::infinity();
      return {grad * where(eq(x, m), std::numeric_limits<double>::quiet_NaN(), full_like(x, inf))};
    }
    return {(2.0 / dof) * grad * (x - m)};
  }
  void release_saved() override { self.reset(); }
};

Tensor var_wide(const Tensor& t, IntArrayRef dims, int64_t correction, bool keepdim, const char* op) {
  check_floating(t, op);
  DimVector rd = reduction_dims(dims, t.dim(), op);
  int64_t n = 1;
  for (int64_t d : rd) n *= t.size(d);
  Tensor x = t.dtype() == DType::Float32 ? to(t, DType::Float64) : t;
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    Tensor centered = x - centre(x, rd);
    out = div(sum(centered * centered, rd, keepdim), static_cast<double>(std::max<int64_t>(0, n - correction)));
  }
  if (autograd::any_requires_grad(x)) {
    auto node = autograd::make_node<VarBackward>(x);
    node->self = SavedTensor(x);
    node->dims = rd;
    node->keepdim = keepdim;
    node->dof = static_cast<double>(n - correction);
    node->whole = dims.empty() || t.dim() == 0;
    autograd::set_history(out, node);
  }
  return out;
}
}  // namespace

Tensor impl_var(const Tensor& t, IntArrayRef dims, int64_t correction, bool keepdim) {
  return to(var_wide(t, dims, correction, keepdim, "var"), t.dtype());
}

namespace {
// d sqrt(v)/dv = grad / (2 std), taken as 0 where std is 0: the spread of constant values does not
// move (PyTorch's choice), where sqrt's own backward would give 0 * inf = NaN.
struct StdBackward : autograd::Node {
  SavedTensor result;
  const char* name() const override { return "StdBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor r = result.unpack(this);
    return {where(eq(r, 0), 0, g[0] / (r * 2.0))};
  }
  void release_saved() override { result.reset(); }
};
}  // namespace

Tensor impl_std(const Tensor& t, IntArrayRef dims, int64_t correction, bool keepdim) {
  Tensor v = var_wide(t, dims, correction, keepdim, "std");
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    out = sqrt(v);
  }
  if (autograd::any_requires_grad(v)) {
    auto node = autograd::make_node<StdBackward>(v);
    autograd::set_history(out, node);
    node->result = SavedTensor(out, true);
  }
  return to(out, t.dtype());
}

Tensor impl_logsumexp(const Tensor& t, IntArrayRef dims, bool keepdim) {
  if (autocast::applies("logsumexp", t))
    return autocast::run("logsumexp", {t}, [&](const autocast::Cast& cast) { return logsumexp(cast(t), dims, keepdim); });
  DType dtype = detail::float_result_type(t.dtype());
  check_compute_dtype(dtype, "logsumexp");
  Tensor x = to(t, dtype);
  DimVector rd = reduction_dims(dims, t.dim(), "logsumexp");
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    if (x.numel() == 0) {
      out = log(sum(exp(x), rd, keepdim));  // log(0) = -inf over an empty dim
    } else {
      Tensor m = reduce_forward(ReduceOp::Max, x, rd, true, dtype);
      // An infinite max would turn x - m into inf - inf = nan: shift by 0 there instead.
      m = where(eq(abs(m), std::numeric_limits<double>::infinity()), 0, m);
      out = add(log(sum(exp(x - m), rd, true)), m);
      if (!keepdim) out = reshaped_data(out, reduced_shape(t.sizes(), rd, false));
    }
  }
  if (autograd::any_requires_grad(x)) {
    auto node = autograd::make_node<LogsumexpBackward>(x);
    node->dims = rd;
    node->keepdim = keepdim;
    node->self = SavedTensor(x);
    autograd::set_history(out, node);
    node->result = SavedTensor(out, true);
  }
  return out;
}

Tensor impl_norm(const Tensor& t, double p, IntArrayRef dims, bool keepdim, std::optional<DType> dtype) {
  if (dtype) return norm(t.to(*dtype), p, dims, keepdim);
  if (autocast::applies("norm", t))
    return autocast::run("norm", {t}, [&](const autocast::Cast& cast) { return norm(cast(t), p, dims, keepdim); });
  check_floating(t, "norm");
  DimVector rd = reduction_dims(dims, t.dim(), "norm");
  int64_t n = 1;
  for (int64_t d : rd) n *= t.size(d);
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    if (n == 1 && p != 0)
      out = sum(abs(t), rd, keepdim);  // |x| of one value, as PyTorch: its square may overflow
    else if (p == 2)
      out = sqrt(sum(t * t, rd, keepdim));
    else if (p == 1)
      out = sum(abs(t), rd, keepdim);
    else if (std::isinf(p))
      out = extreme_forward(abs(t), rd, keepdim, p > 0, "norm");
    else if (p == 0)
      out = copy_as(sum(ne(t, 0), rd, keepdim), t.dtype(), t.device());
    else
      out = pow(sum(pow(abs(t), p), rd, keepdim), 1.0 / p);
  }
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<NormBackward>(t);
    node->dims = rd;
    node->keepdim = keepdim;
    node->p = p;
    node->self = SavedTensor(t);
    autograd::set_history(out, node);
    node->result = SavedTensor(out, true);
  }
  return out;
}

namespace {

// grad * prod_{i != k} x_i along dim: the running products of the entries before k and after k
// (exclusive cumprods from both ends), exact with zeros and differentiable (PyTorch's
// prod_safe_zeros_backward). grad has x's shape with dim of size 1.
Tensor prod_safe_zeros_backward(const Tensor& grad, const Tensor& x, int64_t dim) {
  if (x.numel() == 0) return expand(grad, x.sizes());
  const int64_t n = x.size(dim);
  DimVector one = x.sizes().vec();
  one[static_cast<size_t>(dim)] = 1;
  Tensor ones_ = ones(one, x.options());
  Tensor before = cumprod(cat({ones_, narrow(x, dim, 0, n - 1)}, dim), dim);
  Tensor after = flip(cumprod(cat({ones_, flip(narrow(x, dim, 1, n - 1), {dim})}, dim), dim), {dim});
  return grad * (before * after);
}

// d prod(x)/dx_k = grad * prod_{i != k} x_i: grad * (result / x) when no entry is 0 (PyTorch's
// fast path), else prod_safe_zeros_backward along dim (the flattened tensor for a full product).
struct ProdBackward : autograd::Node {
  SavedTensor self, result;
  std::optional<int64_t> dim;  // none: the product of every entry
  bool keepdim = false;
  const char* name() const override { return "ProdBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = self.unpack(this);
    if (x.dim() == 0) return {g[0]};
    Tensor r = result.unpack(this), gk = g[0];
    if (dim && !keepdim) {
      gk = unsqueeze(gk, *dim);
      r = unsqueeze(r, *dim);
    }
    Tensor zeros_ = eq(x, 0);
    const int64_t zero_count = sum(zeros_).item<int64_t>();
    if (zero_count == 0) return {gk * (r / x)};
    if (dim) return {prod_safe_zeros_backward(gk, x, *dim)};
    // Two zeros leave a zero in every product of the others (PyTorch's shortcut, also where an inf
    // would make the cumulative products NaN); not when differentiating again, where they matter.
    if (zero_count > 1 && !autograd::GradMode::is_enabled()) return {zeros_like(x)};
    return {reshape(prod_safe_zeros_backward(reshape(gk, {1}), reshape(x, {-1}), 0), x.sizes())};
  }
  void release_saved() override {
    self.reset();
    result.reset();
  }
};

Tensor prod_impl(const Tensor& t, std::optional<int64_t> dim, bool keepdim) {
  DType accumulate = is_integral(t.dtype()) ? kInt64 : t.dtype();
  check_compute_dtype(accumulate, "prod");
  DimVector rd = dim ? reduction_dims({*dim}, t.dim(), "prod") : reduction_dims({}, t.dim(), "prod");
  Tensor out = reduce_forward(ReduceOp::Prod, t, rd, keepdim && dim, accumulate);
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<ProdBackward>(t);
    if (dim && t.dim() > 0) node->dim = rd[0];
    node->keepdim = keepdim;
    node->self = SavedTensor(t);
    autograd::set_history(out, node);
    node->result = SavedTensor(out, true);
  }
  return out;
}

}  // namespace

Tensor impl_prod(const Tensor& t, std::optional<DType> dtype) {
  if (autocast::applies("prod", t))
    return autocast::run("prod", {t}, [&](const autocast::Cast& cast) { return prod(cast(t), dtype); });
  if (dtype && *dtype != t.dtype()) return prod(t.to(*dtype));
  return prod_impl(t, std::nullopt, false);
}

Tensor impl_prod(const Tensor& t, int64_t dim, bool keepdim, std::optional<DType> dtype) {
  if (autocast::applies("prod", t))
    return autocast::run("prod", {t}, [&](const autocast::Cast& cast) { return prod(cast(t), dim, keepdim, dtype); });
  if (dtype && *dtype != t.dtype()) return prod(t.to(*dtype), dim, keepdim);
  return prod_impl(t, dim, keepdim);
}

Tensor sum_to(const Tensor& t, IntArrayRef shape) {
  if (t.sizes() == shape) return t;
  int64_t lead = t.dim() - static_cast<int64_t>(shape.size());
  EMBER_INTERNAL_ASSERT(lead >= 0, "sum_to: ", t.sizes(), " to ", shape);
  DimVector dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < shape.size(); ++i)
    if (shape[i] == 1 && t.size(lead + static_cast<int64_t>(i)) != 1)
      dims.push_back(lead + static_cast<int64_t>(i));
  Tensor r = dims.empty() ? t : sum(t, dims, true);
  return reshape(r, shape);
}

}  // namespace ember
