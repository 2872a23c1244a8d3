#include "ember/ops/compare.h"

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/binary.h"
#include "ember/ops/complex.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

namespace {

// t converted to dtype, on device (a CPU scalar's copy), and broadcast (as a view) to shape.
Tensor prepare(const Tensor& t, DType dtype, Device device, IntArrayRef shape) {
  Tensor c = t.dtype() == dtype && t.device() == device ? t : copy_as(t, dtype, device);
  return c.sizes() == shape ? c : expand_data(c, shape);
}

Tensor compare(CompareOp op, const Tensor& a, const Tensor& b, const char* name) {
  const Device device = detail::common_device(a, b, name);
  DType dtype = result_type(a, b);
  if (is_complex(dtype) && (op == CompareOp::Eq || op == CompareOp::Ne))
    return detail::complex_compare(a, b, dtype, op == CompareOp::Eq);
  check_compute_dtype(dtype, name);
  DimVector shape = a.sizes() == b.sizes() ? a.sizes().vec() : broadcast_shapes(a.sizes(), b.sizes(), name);
  Tensor out = empty(shape, TensorOptions(kBool).device(device));
  if (out.numel() > 0)
    compare_stub(device.type, op, out, prepare(a, dtype, device, shape), prepare(b, dtype, device, shape));
  return out;
}

// d where(c, a, b)/da = grad where c, else 0 ; d/db = grad where !c, else 0
struct WhereBackward : autograd::Node {
  SavedTensor cond;
  DimVector a_shape, b_shape;
  const char* name() const override { return "WhereBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor c = cond.unpack(this), ga, gb;
    if (needs_input_grad(0)) ga = sum_to(where(c, g[0], 0), a_shape);
    if (needs_input_grad(1)) gb = sum_to(where(c, 0, g[0]), b_shape);
    return {ga, gb};
  }
  void release_saved() override { cond.reset(); }
};

}  // namespace

Tensor impl_eq(const Tensor& a, const Tensor& b) { return compare(CompareOp::Eq, a, b, "eq"); }
Tensor impl_ne(const Tensor& a, const Tensor& b) { return compare(CompareOp::Ne, a, b, "ne"); }
Tensor impl_lt(const Tensor& a, const Tensor& b) { return compare(CompareOp::Lt, a, b, "lt"); }
Tensor impl_le(const Tensor& a, const Tensor& b) { return compare(CompareOp::Le, a, b, "le"); }
Tensor impl_gt(const Tensor& a, const Tensor& b) { return compare(CompareOp::Gt, a, b, "gt"); }
Tensor impl_ge(const Tensor& a, const Tensor& b) { return compare(CompareOp::Ge, a, b, "ge"); }
Tensor impl_eq(const Tensor& a, Scalar b) { return eq(a, wrap_scalar(b, a)); }
Tensor impl_ne(const Tensor& a, Scalar b) { return ne(a, wrap_scalar(b, a)); }
Tensor impl_lt(const Tensor& a, Scalar b) { return lt(a, wrap_scalar(b, a)); }
Tensor impl_le(const Tensor& a, Scalar b) { return le(a, wrap_scalar(b, a)); }
Tensor impl_gt(const Tensor& a, Scalar b) { return gt(a, wrap_scalar(b, a)); }
Tensor impl_ge(const Tensor& a, Scalar b) { return ge(a, wrap_scalar(b, a)); }

Tensor impl_logical_not(const Tensor& t) {
  // NB: eq against a zero of t's own dtype, so NaN (nonzero) gives false, as in PyTorch.
  return compare(CompareOp::Eq, t, zeros({}, t.options()), "logical_not");
}
Tensor impl_logical_and(const Tensor& a, const Tensor& b) {
  return compare(CompareOp::LogicalAnd, a, b, "logical_and");
}
Tensor impl_logical_or(const Tensor& a, const Tensor& b) { return compare(CompareOp::LogicalOr, a, b, "logical_or"); }

Tensor impl_where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  EMBER_CHECK_TYPE(cond.dtype() == kBool, "where: condition must be a bool tensor, got ", cond.dtype());
  // NB: any of the three may be a CPU scalar (PyTorch's rule).
  const Device ab = detail::common_device(a, b, "where");
  const Device device = detail::common_device(cond, a.device() == ab ? a : b, "where");
  DType dtype = result_type(a, b);
  DimVector shape = broadcast_shapes(cond.sizes(), broadcast_shapes(a.sizes(), b.sizes(), "where"), "where");
  Tensor out = empty(shape, TensorOptions(dtype).device(device));
  if (out.numel() > 0)
    where_stub(device.type, out, prepare(cond, kBool, device, shape), prepare(a, dtype, device, shape),
               prepare(b, dtype, device, shape));
  if (autograd::any_requires_grad(a, b)) {
    auto node = autograd::make_node<WhereBackward>(a, b);
    node->cond = SavedTensor(cond);
    node->a_shape = a.sizes().vec();
    node->b_shape = b.sizes().vec();
    autograd::set_history(out, node);
  }
  return out;
}
Tensor impl_where(const Tensor& cond, const Tensor& a, Scalar b) { return where(cond, a, wrap_scalar(b, a)); }
Tensor impl_where(const Tensor& cond, Scalar a, const Tensor& b) { return where(cond, wrap_scalar(a, b), b); }

Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator==(const Tensor& a, Scalar b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator!=(const Tensor& a, Scalar b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<(const Tensor& a, Scalar b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator<=(const Tensor& a, Scalar b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>(const Tensor& a, Scalar b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator>=(const Tensor& a, Scalar b) { return ge(a, b); }

}  // namespace ember
