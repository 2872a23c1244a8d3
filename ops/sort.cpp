#include "ember/ops/sort.h"

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"
#include "ember/ops/autocast.h"

namespace ember {
namespace {

using autograd::TensorList;

// d cumsum(x)/dx: the gradient summed from the right, flip(cumsum(flip(g)))
struct CumsumBackward : autograd::Node {
  int64_t dim = 0;
  const char* name() const override { return "CumsumBackward"; }
  TensorList apply(TensorList&& g) override { return {flip(cumsum(flip(g[0], {dim}), dim), {dim})}; }
};

}  // namespace

Tensor rows_last(const Tensor& t, int64_t dim) {
  Tensor v = t.dim() == 0 ? t.reshape({1}) : t;
  return contiguous_data(v.transpose(dim, -1));
}

Tensor impl_argsort(const Tensor& self, int64_t dim, bool descending, bool stable) {
  check_compute_dtype(self.dtype(), "argsort");
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), "argsort");
  Tensor rows = rows_last(self, d);
  Tensor indices = empty(rows.sizes(), TensorOptions(kInt64).device(self.device()));
  if (rows.numel() > 0) argsort_stub(self.device().type, indices, rows, descending);  // NB: always stable
  Tensor out = indices.transpose(d, -1);
  return self.dim() == 0 ? out.reshape({}) : contiguous_data(out);
}

std::tuple<Tensor, Tensor> impl_sort(const Tensor& self, int64_t dim, bool descending, bool stable) {
  Tensor indices = argsort(self, dim, descending, stable);
  if (self.dim() == 0) return {self.clone(), indices};
  return {gather(self, dim, indices), indices};
}

std::tuple<Tensor, Tensor> impl_topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), "topk");
  const int64_t n = self.dim() == 0 ? 1 : self.size(d);
  EMBER_CHECK_INDEX(k >= 0 && k <= n, "topk: k = ", k, " is out of range for a dim of size ", n);
  if (self.dim() == 0) return {self.clone(), zeros({}, TensorOptions(kInt64).device(self.device()))};
  Tensor indices = argsort(self, dim, largest).narrow(d, 0, k);
  return {gather(self, d, indices), contiguous_data(indices)};
}

std::tuple<Tensor, Tensor> impl_kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), "kthvalue");
  const int64_t n = self.dim() == 0 ? 1 : self.size(d);
  EMBER_CHECK_INDEX(k >= 1 && k <= n, "kthvalue: k = ", k, " is out of range for a dim of size ", n);
  if (self.dim() == 0) return {self.clone(), zeros({}, TensorOptions(kInt64).device(self.device()))};
  Tensor index = argsort(self, d).narrow(d, k - 1, 1);
  Tensor values = gather(self, d, index);
  if (!keepdim) return {values.squeeze(d), contiguous_data(index.squeeze(d))};
  return {values, contiguous_data(index)};
}

Tensor impl_cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  if (autocast::applies("cumsum", self))
    return autocast::run("cumsum", {self}, [&](const autocast::Cast& cast) { return cumsum(cast(self), dim, dtype); });
  DType out_dtype = dtype ? *dtype : (is_floating(self.dtype()) || is_complex(self.dtype()) ? self.dtype() : kInt64);
  check_compute_dtype(out_dtype, "cumsum");
  EMBER_CHECK_TYPE(out_dtype != kBool, "cumsum: cannot sum into bool");
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), "cumsum");
  Tensor src = self.dtype() == out_dtype ? self : self.to(out_dtype);
  Tensor rows = rows_last(src, d);
  Tensor out_rows = empty(rows.sizes(), TensorOptions(out_dtype).device(self.device()));
  if (rows.numel() > 0 && self.dim() > 0) cumsum_stub(self.device().type, out_rows, rows);
  // NB: a 0-d input is copied, as PyTorch's (the kernel's sum from +0 would make -0 into +0)
  Tensor out = self.dim() == 0 ? src.detach().clone() : contiguous_data(out_rows.transpose(d, -1));
  if (autograd::any_requires_grad(src)) {
    auto node = autograd::make_node<CumsumBackward>(src);
    node->dim = d;
    autograd::set_history(out, node);
  }
  return out;
}

}  // namespace ember
