#include "ember/ops/reduce.h"

#include <algorithm>

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/ops/binary.h"
#include "ember/ops/view.h"

namespace ember {

EMBER_DEFINE_STUB(reduce_stub, ReduceFn);

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

// d(sum)/d(input) = grad broadcast back over the reduced dims
struct SumBackward : autograd::Node {
  DimVector in_shape, dims;
  bool keepdim = false;
  const char* name() const override { return "SumBackward"; }
  TensorList apply(TensorList&& g) override {
    return {expand(unsqueeze_reduced(g[0], in_shape, dims, keepdim), in_shape)};
  }
};

}  // namespace

Tensor sum(const Tensor& t, IntArrayRef dims, bool keepdim) {
  DimVector rd = reduction_dims(dims, t.dim(), "sum");
  DType dtype = is_integral(t.dtype()) ? kInt64 : t.dtype();
  check_compute_dtype(dtype, "sum");
  Tensor in = t.dtype() == dtype ? t : copy_as(t, dtype, t.device());
  Tensor out;
  if (rd.empty()) {
    out = contiguous_data(in);
    out = out.is_same(t) ? copy_as(t, dtype, t.device()) : out;
  } else {
    out = empty(reduced_shape(t.sizes(), rd, true), TensorOptions(dtype).device(t.device()));
    if (in.numel() == 0)
      fill_data(out, 0);
    else
      reduce_stub(t.device().type, ReduceOp::Sum, out, in, rd);
  }
  if (!keepdim) out = as_strided_data(out, reduced_shape(t.sizes(), rd, false),
                                      contiguous_strides(reduced_shape(t.sizes(), rd, false)), 0);
  if (autograd::any_requires_grad(t)) {
    auto node = autograd::make_node<SumBackward>(t);
    node->in_shape = t.sizes().vec();
    node->dims = rd;
    node->keepdim = keepdim;
    autograd::set_history(out, node);
  }
  return out;
}

Tensor mean(const Tensor& t, IntArrayRef dims, bool keepdim) {
  check_floating_compute(t.dtype(), "mean");
  DimVector rd = reduction_dims(dims, t.dim(), "mean");
  int64_t count = 1;
  for (int64_t d : rd) count *= t.size(d);
  return div(sum(t, rd, keepdim),
             static_cast<double>(count));
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

Tensor Tensor::sum(IntArrayRef dims, bool keepdim) const { return ember::sum(*this, dims, keepdim); }
Tensor Tensor::mean(IntArrayRef dims, bool keepdim) const {
  return ember::mean(*this, dims, keepdim);
}

}  // namespace ember
