// Reductions composed of other table ops: NaN-skipping sums and means, counting, the trace, the
// median and quantiles (by sort, kthvalue and lerp, so their gradients are those ops').
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/autograd/function_node.h"
#include "ember/autograd/grad_mode.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"
#include "ember/ops/composite_grad.h"
#include "ember/ops/ops.h"

namespace ember {
namespace {

using autograd::Node;
using autograd::TensorList;

// A NaN of `t`'s dtype where that has one, else the integer dtype's lowest value (PyTorch's NaN
// of an empty median).
Scalar nan_of(DType t) {
  if (is_floating(t)) return Scalar(std::numeric_limits<double>::quiet_NaN());
  switch (t) {
    case kUInt8:
      return Scalar(int64_t{0});
    case kInt8:
      return Scalar(int64_t{std::numeric_limits<int8_t>::min()});
    case kInt16:
      return Scalar(int64_t{std::numeric_limits<int16_t>::min()});
    case kInt32:
      return Scalar(int64_t{std::numeric_limits<int32_t>::min()});
    default:
      return Scalar(std::numeric_limits<int64_t>::min());
  }
}

}  // namespace

Tensor impl_nansum(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  const Tensor clean = is_floating(self.dtype()) ? detail::keep_where(self, logical_not(isnan(self)), 0.0) : self;
  return sum(clean, dim, keepdim, dtype);
}

Tensor impl_nanmean(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  EMBER_CHECK(is_floating(self.dtype()) || is_complex(self.dtype()),
              "nanmean(): expected input to have floating point or complex dtype but got ",
              torch_type_name(self.dtype()));
  const Tensor x = dtype ? self.to(*dtype) : self;
  const Tensor count = logical_not(isnan(x)).to(x.dtype());
  return nansum(x, dim, keepdim) / sum(count, dim, keepdim);
}

namespace {

// var_mean's and std_mean's results: var (std) and mean as their ops give them, then, where a slice
// of finite values has a sum that overflows, PyTorch's Welford results: the mean as the sum of x / n
// (the sum over n) and the variance about it, in float64. Slices holding inf or NaN keep the ops' results. Only the
// slices that take the robust form see the data there: the others' infinities would send 0 * inf
// = NaN back through where()'s unused branch.
std::tuple<Tensor, Tensor> spread_and_mean(const Tensor& self, IntArrayRef dim, int64_t correction, bool keepdim,
                                           bool is_std) {
  const Tensor spread = is_std ? ember::std(self, dim, correction, keepdim) : var(self, dim, correction, keepdim);
  const Tensor m = mean(self, dim, keepdim);
  if (!is_floating(self.dtype()) || self.dim() == 0 || all(isfinite(m)).item<bool>()) return {spread, m};
  DimVector dims;
  if (dim.empty())
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  else
    for (int64_t d : dim) dims.push_back(wrap_dim(d, self.dim(), is_std ? "std_mean" : "var_mean"));
  int64_t n = 1;
  for (int64_t d : dims) n *= self.size(d);
  const Tensor use = logical_and(logical_not(isfinite(mean(self, dims, true))),
                                 eq(sum(logical_not(isfinite(self)), dims, true), Scalar(0)));
  if (!any(use).item<bool>()) return {spread, m};
  const Tensor wide = where(use, self.to(kFloat64), Scalar(0.0));
  // a narrower dtype's sum cannot overflow float64 and is exact for equal values, so the variance of
  // equal values is 0 (summed after dividing, the mean's rounding squared overflows float32);
  // float64's own sum can overflow, so it divides first
  const double count = static_cast<double>(n);
  const Tensor centre = self.dtype() == kFloat64 ? sum(wide / count, dims, true) : sum(wide, dims, true) / count;
  const Tensor centered = wide - centre;
  const Tensor v = sum(centered * centered, dims, keepdim) / static_cast<double>(std::max<int64_t>(0, n - correction));
  const Tensor robust_spread = (is_std ? sqrt(v) : v).to(spread.dtype());
  const Tensor robust_mean = (keepdim ? centre : centre.squeeze_dims(dims)).to(m.dtype());
  const Tensor where_used = keepdim ? use : use.squeeze_dims(dims);
  return {where(where_used, robust_spread, spread), where(where_used, robust_mean, m)};
}

}  // namespace

std::tuple<Tensor, Tensor> impl_var_mean(const Tensor& self, IntArrayRef dim, int64_t correction, bool keepdim) {
  return spread_and_mean(self, dim, correction, keepdim, false);
}

std::tuple<Tensor, Tensor> impl_std_mean(const Tensor& self, IntArrayRef dim, int64_t correction, bool keepdim) {
  return spread_and_mean(self, dim, correction, keepdim, true);
}

Tensor impl_count_nonzero(const Tensor& self, IntArrayRef dim) { return sum(ne(self, Scalar(0)), dim, false, kInt64); }

Tensor impl_trace(const Tensor& self) {
  if (autocast::applies("trace", self))
    return autocast::run("trace", {self}, [&](const autocast::Cast& cast) { return trace(cast(self)); });
  EMBER_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  return sum(diagonal(self));
}

Tensor impl_median(const Tensor& self) {
  EMBER_CHECK_AS(NotImplementedError, self.dtype() != kBool, "\"median_cpu\" not implemented for 'Bool'");
  const Tensor flat = self.detach().reshape({-1});
  const int64_t n = flat.numel();
  if (n == 0) {
    // as PyTorch: NaN (an integer dtype's lowest value), with an empty gradient
    const Tensor nan = full({}, nan_of(self.dtype()), TensorOptions(self.dtype()).device(self.device()));
    return self.requires_grad() && autograd::GradMode::is_enabled() ? sum(self) + nan : nan;
  }
  Tensor value = std::get<0>(sort(flat)).select(0, (n - 1) / 2);
  if (is_floating(self.dtype())) value = where(any(isnan(flat)), nan_of(self.dtype()), value);
  // PyTorch's gradient: split evenly among the entries equal to the median (the NaNs, when it is NaN)
  Tensor out = value.clone();
  autograd::record_function("MedianBackward0", out, {self}, {self, value},
                            [](const TensorList& saved, const TensorList& grads, const Node&) {
                              const Tensor &x = saved[0], &v = saved[1];
                              const Tensor hit = isnan(v).item<bool>() ? isnan(x) : eq(x, v);
                              return TensorList{where(hit, grads[0] / sum(hit), zeros_like(grads[0]))};
                            });
  return out;
}

std::tuple<Tensor, Tensor> impl_median(const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CHECK_AS(NotImplementedError, self.dtype() != kBool, "\"median_cpu\" not implemented for 'Bool'");
  const int64_t d = wrap_dim(dim, self.dim(), "median");
  const int64_t n = self.dim() ? self.size(d) : 1;
  EMBER_CHECK_INDEX(n > 0, "median(): Expected reduction dim ", d, " to have non-zero size.");
  Tensor index = std::get<1>(kthvalue(self.detach(), (n - 1) / 2 + 1, d, true));
  if (is_floating(self.dtype())) {
    const Tensor nan = isnan(self.detach());
    const Tensor first_nan = argmax(nan.to(kInt64), d, true);  // argmax gives the first of equal maxima
    index = where(any(nan, d, true), first_nan, index);
  }
  Tensor values = gather(self, d, index);  // the gradient goes to the median's entry
  if (!keepdim && self.dim()) {
    values = values.squeeze(d);
    index = index.squeeze(d);
  }
  return {values, index};
}

namespace {

// The quantiles of `qs` (each in [0, 1]) along d of x, one tensor per q, each keeping d (size 1).
// q_tensor, when defined, is the 1-D q the linear weights are computed from, so q gets a gradient.
std::vector<Tensor> quantiles(const Tensor& x, int64_t d, const std::vector<double>& qs, const Tensor& q_tensor,
                              std::string_view interpolation) {
  const Tensor values = std::get<0>(sort(x, d));
  const int64_t n = x.size(d);
  const Tensor has_nan = any(isnan(x), d, true);
  const bool nan_slices = any(has_nan).item<bool>();
  const Tensor last = values.narrow(d, n - 1, 1);
  std::vector<Tensor> outs;
  for (size_t k = 0; k < qs.size(); ++k) {
    const double pos = qs[k] * static_cast<double>(n - 1);
    int64_t lo = static_cast<int64_t>(std::floor(pos)), hi = static_cast<int64_t>(std::ceil(pos));
    if (interpolation == "lower") hi = lo;
    if (interpolation == "higher") lo = hi;
    if (interpolation == "nearest") lo = hi = static_cast<int64_t>(std::nearbyint(pos));  // half to even
    Tensor a = values.narrow(d, lo, 1), b = values.narrow(d, hi, 1);
    if (nan_slices) {  // as PyTorch's, a slice holding NaN takes its last sorted value (a NaN) and its gradient
      a = where(has_nan, last, a);
      b = where(has_nan, last, b);
    }
    if (interpolation != "linear" && interpolation != "midpoint") {
      outs.push_back(a);
      continue;
    }
    // as PyTorch's, always through lerp, also where both ends are one value: an infinite gradient's
    // share grad * 0 is then NaN, as PyTorch's
    Tensor frac = interpolation == "midpoint" ? full_like(a, 0.5)
                  : q_tensor.defined()
                      ? q_tensor.select(0, static_cast<int64_t>(k)).to(values.dtype()) * static_cast<double>(n - 1) -
                            static_cast<double>(lo)
                      : full_like(a, pos - static_cast<double>(lo));
    if (nan_slices) frac = where(has_nan, zeros_like(a), frac);
    outs.push_back(lerp(a, b, frac));
  }
  return outs;
}

Tensor quantile_of(const Tensor& self, const std::vector<double>& qs, const Tensor& q_tensor, bool q_is_list,
                   std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) {
  EMBER_CHECK_VALUE(interpolation == "linear" || interpolation == "lower" || interpolation == "higher" ||
                        interpolation == "nearest" || interpolation == "midpoint",
                    "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. Got ",
                    interpolation);
  for (double q : qs) EMBER_CHECK(q >= 0 && q <= 1, "quantile() q values must be in the range [0, 1]");
  EMBER_CHECK(is_floating(self.dtype()), "quantile() input tensor must be either float or double dtype, got ",
              torch_type_name(self.dtype()));
  Tensor input = self;
  if (dim && self.dim() == 0) {  // as PyTorch, a 0-d input is 1-D of one entry, with no dims kept
    wrap_dim(*dim, 0, "quantile");
    input = self.reshape({1});
    keepdim = false;
  }
  const Tensor x = dim ? input : input.reshape({-1});
  const int64_t d = dim ? wrap_dim(*dim, input.dim(), "quantile") : 0;
  EMBER_CHECK(x.size(d) > 0, "quantile() input tensor must be non-empty");
  std::vector<Tensor> outs = quantiles(x, d, qs, q_tensor, interpolation);
  for (Tensor& out : outs)
    if (!(keepdim && dim)) out = out.squeeze(d);
  if (!q_is_list) {
    const Tensor& result = outs[0];
    if (!dim) return keepdim ? result.reshape(DimVector(static_cast<size_t>(self.dim()), 1)) : result.reshape({});
    return result;
  }
  Tensor stacked = stack(outs, 0);
  if (dim) return stacked;
  DimVector shape{static_cast<int64_t>(outs.size())};
  if (keepdim)
    for (int64_t i = 0; i < self.dim(); ++i) shape.push_back(1);
  return stacked.reshape(shape);
}

}  // namespace

Tensor impl_quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     std::string_view interpolation) {
  if (autocast::applies("quantile", {self, q}))
    return autocast::run("quantile", {self, q}, [&](const autocast::Cast& cast) {
      return quantile(cast(self), cast(q), dim, keepdim, interpolation);
    });
  EMBER_CHECK(q.dim() <= 1, "quantile() q must be a scalar or 1D tensor");
  EMBER_CHECK(q.dtype() == self.dtype(), "quantile() q tensor must be same dtype as the input tensor");
  const std::vector<double> qs = q.detach().reshape({-1}).to_vector<double>();
  return quantile_of(self, qs, interpolation == "linear" ? q.reshape({-1}) : Tensor(), q.dim() == 1, dim, keepdim,
                     interpolation);
}

Tensor impl_quantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                     std::string_view interpolation) {
  if (autocast::applies("quantile", self))
    return autocast::run("quantile", {self}, [&](const autocast::Cast& cast) {
      return quantile(cast(self), q, dim, keepdim, interpolation);
    });
  return quantile_of(self, {q}, Tensor(), false, dim, keepdim, interpolation);
}

namespace {

// any / all over the dims given: None reduces every dim, an empty list none (each entry's truth).
Tensor logical_over(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, bool is_any) {
  if (!dim) {
    const Tensor out = is_any ? any(self) : all(self);
    return keepdim ? out.reshape(DimVector(static_cast<size_t>(self.dim()), 1)) : out;
  }
  if (dim->empty()) return ne(self, 0);
  const Tensor hits = sum((is_any ? ne(self, 0) : eq(self, 0)).to(kInt64), *dim, keepdim);
  return is_any ? gt(hits, 0) : eq(hits, 0);
}

}  // namespace

Tensor impl_any(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return logical_over(self, dim, keepdim, true);
}
Tensor impl_all(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return logical_over(self, dim, keepdim, false);
}

Tensor impl_norm(const Tensor& self, std::string_view p, IntArrayRef dim, bool keepdim, std::optional<DType> dtype) {
  const Tensor x = dtype ? self.to(*dtype) : self;
  if (p == "nuc") return linalg_matrix_norm(x, "nuc", dim.empty() ? IntArrayRef{-2, -1} : dim, keepdim);
  EMBER_CHECK(p == "fro", "linalg.matrix_norm: Order ", p, " not supported.");
  EMBER_CHECK(dim.size() <= 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ", dim);
  return norm(x, 2.0, dim, keepdim);
}

std::tuple<Tensor, Tensor> impl_mode(const Tensor& self, int64_t dim, bool keepdim) {
  if (self.dim() == 0) return {self.clone(), zeros({}, TensorOptions(kInt64).device(self.device()))};
  const int64_t d = wrap_dim(dim, self.dim(), "mode"), n = self.size(d);
  EMBER_CHECK_INDEX(n > 0, "mode(): Expected reduction dim ", d, " to have non-zero size.");
  const Tensor moved = movedim(self, {d}, {-1});
  const Tensor rows = moved.reshape({-1, n});
  Tensor last;
  {
    NoGradGuard no_grad;
    // A sort groups equal values into runs; the first run with the largest count is the mode (runs
    // ascend by value), and its index the largest original position in the run.
    const auto [ordered, order] = sort(rows, 1);
    const Tensor starts = cat({ones({rows.size(0), 1}, TensorOptions(kBool).device(self.device())),
                               ne(ordered.narrow(1, 1, n - 1), ordered.narrow(1, 0, n - 1))},
                              1);
    const Tensor run = sub(cumsum(starts.to(kInt64), 1), 1);
    const Tensor counts = scatter_add(zeros_like(run), 1, run, ones_like(run));
    const Tensor best = argmax(counts, 1, true);  // the first maximum
    last = amax(where(eq(run, best), order, full_like(order, -1)), {1}, true);
  }
  DimVector shape = moved.sizes().vec();
  shape.pop_back();
  Tensor values = rows.gather(1, last).reshape(shape), indices = last.reshape(shape);
  if (keepdim) return {values.unsqueeze(d), indices.unsqueeze(d)};
  return {values, indices};
}

Tensor impl_sum_to_size(const Tensor& self, IntArrayRef size) {
  bool expandable = static_cast<int64_t>(size.size()) <= self.dim();
  for (size_t i = 1; expandable && i <= size.size(); ++i) {
    const int64_t want = size[size.size() - i], have = self.size(-static_cast<int64_t>(i));
    expandable = want == have || want == 1;
  }
  EMBER_CHECK(expandable, "sum_to_size: size ", size, " is not expandable to size ", self.sizes());
  return sum_to(self, size);
}

}  // namespace ember
