// clamp with tensor bounds, and clamp_min / clamp_max (one bound, a number or a tensor). One bound is maximum(self,
// min) or minimum(self, max), gradient and all; two bounds follow PyTorch's clamp.Tensor, whose gradient rules differ
// from that composition: NaN anywhere gives a NaN result whose gradient goes to self; min > max gives max everywhere;
// a tie of self with one bound (min < max) halves the gradient between them; self == min == max
// sends it all to self.
#include <limits>

#include "ember/autograd/record.h"
#include "ember/core/promotion.h"
#include "ember/ops/binary.h"
#include "ember/ops/compare.h"
#include "ember/ops/convert.h"
#include "ember/ops/ops.h"
#include "ember/ops/reduce.h"
#include "ember/ops/unary.h"
#include "ember/ops/view.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

namespace {

struct ClampTensorBackward : autograd::Node {
  SavedTensor self, min, max;
  DimVector self_shape, min_shape, max_shape;
  const char* name() const override { return "ClampTensorBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor x = self.unpack(this), lo = min.unpack(this), hi = max.unpack(this);
    Tensor ordered = le(lo, hi);  // false where a bound is NaN
    Tensor apart = ne(lo, hi);
    Tensor half = g[0] * 0.5;
    Tensor gx, glo, ghi;
    if (needs_input_grad(0)) {
      Tensor inside = logical_not(logical_or(lt(x, lo), gt(x, hi)));
      // NB: only between ordered bounds: beside a NaN bound a tie with the other one keeps it all
      Tensor tie = logical_and(lt(lo, hi), logical_or(eq(x, lo), eq(x, hi)));
      gx = sum_to(where(inside, where(tie, half, g[0]), 0), self_shape);
    }
    if (needs_input_grad(1)) {
      Tensor share = where(lt(x, lo), g[0], where(logical_and(eq(x, lo), apart), half, 0));
      glo = sum_to(where(ordered, share, 0), min_shape);
    }
    if (needs_input_grad(2)) {
      Tensor share = where(gt(x, hi), g[0], where(logical_and(eq(x, hi), apart), half, 0));
      ghi = sum_to(where(gt(lo, hi), g[0], where(ordered, share, 0)), max_shape);
    }
    return {gx, glo, ghi};
  }
  void release_saved() override {
    self.reset();
    min.reset();
    max.reset();
  }
};

}  // namespace

Tensor impl_clamp(const Tensor& self, const Tensor& min, const Tensor& max) {
  EMBER_CHECK_VALUE(min.defined() || max.defined(), "clamp: at least one of 'min' and 'max' must be given");
  if (!max.defined()) return maximum(self, min);
  if (!min.defined()) return minimum(self, max);
  Tensor out;
  {
    autograd::NoGradGuard no_grad;
    // NB: x where it equals a bound (its zero's sign: PyTorch's scalar loop, and clamp with number
    // bounds everywhere), not minimum(maximum(...)), whose packets give the bound's; a NaN bound gives NaN
    Tensor above = where(lt(self, min), min, self);
    out = where(gt(above, max), max, above);
    if (is_floating(out.dtype()))
      out = where(logical_or(isnan(min), isnan(max)), std::numeric_limits<double>::quiet_NaN(), out);
  }
  if (autograd::any_requires_grad(self, min, max)) {
    auto node = autograd::make_node<ClampTensorBackward>(self, min, max);
    node->self = SavedTensor(self);
    node->min = SavedTensor(min);
    node->max = SavedTensor(max);
    node->self_shape = self.sizes().vec();
    node->min_shape = min.sizes().vec();
    node->max_shape = max.sizes().vec();
    autograd::set_history(out, node);
  }
  return out;
}

Tensor impl_clamp_min(const Tensor& self, Scalar min) { return clamp(self, min, std::nullopt); }
Tensor impl_clamp_min(const Tensor& self, const Tensor& min) { return clamp(self, min, Tensor()); }
Tensor impl_clamp_max(const Tensor& self, Scalar max) { return clamp(self, std::nullopt, max); }
Tensor impl_clamp_max(const Tensor& self, const Tensor& max) { return clamp(self, Tensor(), max); }

}  // namespace ember
