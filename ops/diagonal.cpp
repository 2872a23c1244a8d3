#include "ember/ops/diagonal.h"

#include <algorithm>

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"
#include "ember/core/strided.h"
#include "ember/ops/inplace_of.h"
#include "ember/ops/ops.h"

namespace ember {
namespace {

using autograd::TensorList;

// d diagonal(x)/dx: the gradient written on the same diagonal of zeros.
struct DiagonalBackward : autograd::Node {
  DimVector in_shape;
  int64_t offset = 0, dim1 = 0, dim2 = 1;
  const char* name() const override { return "DiagonalBackward"; }
  TensorList apply(TensorList&& g) override {
    return {diagonal_scatter_zeros(g[0], in_shape, offset, dim1, dim2)};
  }
};

// d diagonal_scatter_zeros(src)/dsrc: the diagonal of the gradient.
struct DiagonalScatterBackward : autograd::Node {
  int64_t offset = 0, dim1 = 0, dim2 = 1;
  const char* name() const override { return "DiagonalScatterBackward"; }
  TensorList apply(TensorList&& g) override { return {diagonal(g[0], offset, dim1, dim2)}; }
};

void check_distinct(int64_t d1, int64_t d2, int64_t dim1, int64_t dim2, const char* op) {
  EMBER_CHECK_VALUE(d1 != d2, op, ": dim1 and dim2 must be different dims, got ", dim1, " and ", dim2);
}

}  // namespace

Tensor impl_diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t d1 = wrap_dim(dim1, self.dim(), "diagonal"), d2 = wrap_dim(dim2, self.dim(), "diagonal");
  check_distinct(d1, d2, dim1, dim2, "diagonal");
  const int64_t rows = self.size(d1), cols = self.size(d2);
  const int64_t length = std::max<int64_t>(0, offset >= 0 ? std::min(rows, cols - offset) : std::min(rows + offset, cols));
  int64_t start = self.storage_offset();
  if (length > 0) start += offset >= 0 ? offset * self.stride(d2) : -offset * self.stride(d1);
  DimVector sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(self.size(d));
    strides.push_back(self.stride(d));
  }
  sizes.push_back(length);
  strides.push_back(self.stride(d1) + self.stride(d2));
  Tensor out = as_strided_data(self, sizes, strides, start);
  std::shared_ptr<DiagonalBackward> node;
  if (autograd::any_requires_grad(self)) {
    node = autograd::make_node<DiagonalBackward>(self);
    node->in_shape = self.sizes().vec();
    node->offset = offset;
    node->dim1 = d1;
    node->dim2 = d2;
  }
  autograd::set_view_history(self, out, node);
  return out;
}

Tensor diagonal_scatter_zeros(const Tensor& src, IntArrayRef shape, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor out = zeros(shape, src.options());
  {
    autograd::NoGradGuard no_grad;
    copy_data(diagonal(out, offset, dim1, dim2), src);
  }
  if (autograd::any_requires_grad(src)) {
    auto node = autograd::make_node<DiagonalScatterBackward>(src);
    node->offset = offset;
    node->dim1 = dim1;
    node->dim2 = dim2;
    autograd::set_history(out, node);
  }
  return out;
}

Tensor impl_diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t n = self.dim() + 1;
  const int64_t d1 = wrap_dim(dim1, n, "diag_embed"), d2 = wrap_dim(dim2, n, "diag_embed");
  check_distinct(d1, d2, dim1, dim2, "diag_embed");
  EMBER_CHECK_VALUE(self.dim() > 0, "diag_embed: expected a tensor of at least 1 dim, got a 0-d tensor");
  const int64_t side = self.size(-1) + (offset >= 0 ? offset : -offset);
  DimVector shape(self.sizes().begin(), self.sizes().end() - 1);
  shape.insert(shape.begin() + std::min(d1, d2), side);
  shape.insert(shape.begin() + std::max(d1, d2), side);
  return diagonal_scatter_zeros(self, shape, offset, d1, d2);
}

Tensor impl_diag(const Tensor& self, int64_t diagonal_) {
  EMBER_CHECK_VALUE(self.dim() == 1 || self.dim() == 2, "diag: expected a 1-D or 2-D tensor, got shape ",
                    self.sizes());
  if (self.dim() == 1) return diag_embed(self, diagonal_, 0, 1);
  return diagonal(self, diagonal_, 0, 1).clone();
}

Tensor impl_fill_diagonal_(const Tensor& self, Scalar fill_value, bool wrap) {
  EMBER_CHECK(self.dim() >= 2, "fill_diagonal_: dimensions must larger than 1, got shape ", self.sizes());
  const int64_t side = self.size(0);
  for (int64_t d = 1; d < self.dim() && self.dim() > 2; ++d)
    EMBER_CHECK(self.size(d) == side, "fill_diagonal_: all dimensions of input must be of equal length, got shape ",
                self.sizes());
  // The flat distance from (i, i, ..) to (i + 1, i + 1, ..) in row-major order: 1 + n1 + n1 n2 + ...
  int64_t step = 0, stride = 1;
  for (int64_t d = self.dim() - 1; d >= 0; --d) {
    step += stride;
    stride *= self.size(d);
  }
  int64_t count = *std::min_element(self.sizes().begin(), self.sizes().end());
  // A tall matrix with wrap: the diagonal starts again every columns + 1 rows (PyTorch's flat stepping).
  if (wrap && self.dim() == 2 && self.size(0) > self.size(1)) count = (self.numel() - 1) / step + 1;
  const Tensor positions = arange(0, count, 1, TensorOptions(kInt64).device(self.device())) * step;
  return detail::inplace_of(self, "fill_diagonal_", {}, [&](const Tensor& t) {
    return index_fill(t.reshape({-1}), 0, positions, fill_value).reshape(t.sizes());
  });
}

}  // namespace ember
