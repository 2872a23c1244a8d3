// Products and distances composed of other table ops: dot, mv and tensordot by matmul, kron by
// broadcasting, cross by narrow and cat, dist and cdist by norm (cdist with PyTorch's gradients
// where norm's would differ).
#include <algorithm>
#include <cmath>
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

}  // namespace

Tensor impl_dot(const Tensor& self, const Tensor& tensor) {
  if (autocast::applies("dot", {self, tensor}))
    return autocast::run("dot", {self, tensor},
                         [&](const autocast::Cast& cast) { return dot(cast(self), cast(tensor)); });
  EMBER_CHECK(self.dim() == 1 && tensor.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ", tensor.dim(),
              "D tensors");
  EMBER_CHECK(self.size(0) == tensor.size(0), "inconsistent tensor size, expected tensor [", self.size(0),
              "] and src [", tensor.size(0), "] to have the same number of elements, but got ", self.size(0), " and ",
              tensor.size(0), " elements respectively");
  return matmul(self, tensor);
}

Tensor impl_mv(const Tensor& self, const Tensor& vec) {
  if (autocast::applies("mv", {self, vec}))
    return autocast::run("mv", {self, vec}, [&](const autocast::Cast& cast) { return mv(cast(self), cast(vec)); });
  EMBER_CHECK(self.dim() == 2 && vec.dim() == 1, "mv: expected a matrix and a vector, got ", self.dim(), "-D and ",
              vec.dim(), "-D tensors");
  return matmul(self, vec);
}

Tensor impl_tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  // the dtypes are checked before autocast's casts would make them equal, as PyTorch checks them
  EMBER_CHECK(a.dtype() == b.dtype(), "tensordot: both inputs should have same dtype, got ", torch_type_name(a.dtype()),
              " and ", torch_type_name(b.dtype()));
  if (autocast::applies("tensordot", {a, b}))
    return autocast::run("tensordot", {a, b},
                         [&](const autocast::Cast& cast) { return tensordot(cast(a), cast(b), dims_a, dims_b); });
  EMBER_CHECK(dims_a.size() == dims_b.size(), "both dimension lists should have same length, got ", dims_a.size(),
              " and ", dims_b.size());
  DimVector da, db;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    da.push_back(wrap_dim(dims_a[i], a.dim(), "tensordot"));
    db.push_back(wrap_dim(dims_b[i], b.dim(), "tensordot"));
    EMBER_CHECK(a.size(da.back()) == b.size(db.back()), "contracted dimensions need to match, but first has size ",
                a.size(da.back()), " in dim ", da.back(), " and second has size ", b.size(db.back()), " in dim ",
                db.back());
  }
  DimVector order_a, order_b, out_a, out_b, contracted;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (std::find(da.begin(), da.end(), d) == da.end()) {
      order_a.push_back(d);
      out_a.push_back(a.size(d));
    }
  for (int64_t d : da) {
    order_a.push_back(d);
    contracted.push_back(a.size(d));
  }
  for (int64_t d : db) order_b.push_back(d);
  for (int64_t d = 0; d < b.dim(); ++d)
    if (std::find(db.begin(), db.end(), d) == db.end()) {
      order_b.push_back(d);
      out_b.push_back(b.size(d));
    }
  // every size given, none inferred: -1 is ambiguous where another size is 0
  const int64_t k = numel_of(contracted);
  const Tensor left = a.permute(order_a).reshape({numel_of(out_a), k});
  const Tensor right = b.permute(order_b).reshape({k, numel_of(out_b)});
  DimVector shape = out_a;
  for (int64_t s : out_b) shape.push_back(s);
  return matmul(left, right).reshape(shape);
}

Tensor impl_kron(const Tensor& self, const Tensor& other) {
  const int64_t n = std::max(self.dim(), other.dim());
  DimVector sa(static_cast<size_t>(n - self.dim()), 1), sb(static_cast<size_t>(n - other.dim()), 1);
  for (int64_t s : self.sizes()) sa.push_back(s);
  for (int64_t s : other.sizes()) sb.push_back(s);
  // a[i] * b[j] lands at i * b.shape + j: interleave the dims, then merge each pair
  DimVector a_exp, b_exp, out;
  for (int64_t d = 0; d < n; ++d) {
    const size_t i = static_cast<size_t>(d);
    a_exp.push_back(sa[i]);
    a_exp.push_back(1);
    b_exp.push_back(1);
    b_exp.push_back(sb[i]);
    out.push_back(sa[i] * sb[i]);
  }
  return (self.reshape(a_exp) * other.reshape(b_exp)).reshape(out);
}

Tensor impl_cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  if (autocast::applies("cross", {self, other}))
    return autocast::run("cross", {self, other},
                         [&](const autocast::Cast& cast) { return cross(cast(self), cast(other), dim); });
  int64_t d = 0;
  if (dim) {
    d = wrap_dim(*dim, self.dim(), "cross");
  } else {
    for (d = 0; d < self.dim() && self.size(d) != 3; ++d) {
    }
    EMBER_CHECK(d < self.dim(), "cross: no dimension of size 3 in input");
  }
  EMBER_CHECK(self.size(d) == 3 && other.size(d) == 3, "linalg.cross: inputs dimension ", d,
              " must have length 3. Got ", self.size(d), " and ", other.size(d));
  EMBER_CHECK(self.dtype() == other.dtype(), "linalg.cross: expected input and other to have the same dtype, got ",
              torch_type_name(self.dtype()), " and ", torch_type_name(other.dtype()));
  const Tensor a0 = self.narrow(d, 0, 1), a1 = self.narrow(d, 1, 1), a2 = self.narrow(d, 2, 1);
  const Tensor b0 = other.narrow(d, 0, 1), b1 = other.narrow(d, 1, 1), b2 = other.narrow(d, 2, 1);
  return cat({a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0}, d);
}

Tensor impl_dist(const Tensor& self, const Tensor& other, double p) {
  if (autocast::applies("dist", {self, other}))
    return autocast::run("dist", {self, other},
                         [&](const autocast::Cast& cast) { return dist(cast(self), cast(other), p); });
  if (std::isinf(p) && p > 0) return amax(abs(self - other).reshape({-1}));
  // through the norm op: its gradient at a zero difference is 0, as PyTorch's ((sum d^p)^(1/p) would
  // give 0 * inf); p = 0 counts the differing entries, with a zero gradient
  return norm(self - other, p);
}

namespace {

Tensor pairwise_difference(const Tensor& x1, const Tensor& x2) { return x1.unsqueeze(-2) - x2.unsqueeze(-3); }

// PyTorch's cdist gradients, written over x1 and x2 so that they differentiate again: for p = 2,
// grad (x1 - x2) / dist and 0 where the distance is 0 whatever grad is (norm's backward gave
// grad * 0 = NaN for an infinite grad); for p = 1, grad sign(x1 - x2), NaN where the difference is
// (norm's sign gives 0).
TensorList cdist_backward(double p, const TensorList& saved, const TensorList& grads, IntArrayRef s1, IntArrayRef s2) {
  const Tensor diff = pairwise_difference(saved[0], saved[1]);
  Tensor g;
  if (p == 2) {
    const Tensor d = norm(diff, 2.0, {-1}).unsqueeze(-1);
    g = where(eq(d, Scalar(0)), zeros_like(diff), grads[0].unsqueeze(-1) * (diff / d));
  } else {
    g = grads[0].unsqueeze(-1) * where(isnan(diff), diff, sign(diff));
  }
  return {sum_to(g.sum({-2}), s1), sum_to(-g.sum({-3}), s2)};
}

}  // namespace

Tensor impl_cdist(const Tensor& x1, const Tensor& x2, double p, std::string_view compute_mode) {
  if (autocast::applies("cdist", {x1, x2}))
    return autocast::run("cdist", {x1, x2},
                         [&](const autocast::Cast& cast) { return cdist(cast(x1), cast(x2), p, compute_mode); });
  EMBER_CHECK(x1.dim() >= 2 && x2.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(),
              "D, X2 got: ", x2.dim(), "D");
  EMBER_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
              " X2: ", x2.size(-1));
  EMBER_CHECK(p >= 0, "cdist only supports non-negative p values");
  if (std::isinf(p)) return amax(abs(pairwise_difference(x1, x2)), {-1});
  if (p == 0) {  // the count of differing entries, NaN where one is NaN, with a zero gradient (PyTorch's cdist)
    Tensor count;
    {
      NoGradGuard no_grad;
      const Tensor d = pairwise_difference(x1, x2);
      count = where(any(isnan(d), -1), Scalar(NAN), norm(d, 0.0, {-1}));
    }
    return detail::with_zero_grad(count, {x1, x2});
  }
  if (p != 1 && p != 2) return norm(pairwise_difference(x1, x2), p, {-1});  // norm's gradients: 0 at a 0 distance
  Tensor out;
  {
    NoGradGuard no_grad;
    out = norm(pairwise_difference(x1, x2), p, {-1});
  }
  autograd::record_function(
      p == 2 ? "CdistBackward0" : "CdistBackward1", out, {x1, x2}, {x1, x2},
      [p, s1 = x1.sizes().vec(), s2 = x2.sizes().vec()](const TensorList& saved, const TensorList& grads, const Node&) {
        return cdist_backward(p, saved, grads, s1, s2);
      });
  return out;
}

}  // namespace ember
