#include "ember/ops/rearrange.h"

#include <algorithm>
#include <vector>

#include "ember/autograd/record.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/matmul.h"
#include "ember/ops/reduce.h"

namespace ember {
namespace {

// Where column - row of the last two dims satisfies keep(column - row), broadcast to t's shape.
template <typename Keep>
Tensor triangle(const Tensor& t, const char* name, const Keep& keep) {
  EMBER_CHECK_VALUE(t.dim() >= 2, name, ": expected a tensor of at least 2 dims, got shape ", t.sizes());
  const int64_t rows = t.size(-2), cols = t.size(-1);
  const TensorOptions on = TensorOptions(kInt64).device(t.device());
  Tensor offset = sub(arange(cols, on).unsqueeze(0), arange(rows, on).unsqueeze(1));  // [rows, cols]: j - i
  return where(keep(offset), t, zeros_like(t));
}

}  // namespace

Tensor impl_tril(const Tensor& self, int64_t diagonal) {
  return triangle(self, "tril", [&](const Tensor& d) { return le(d, diagonal); });
}

Tensor impl_triu(const Tensor& self, int64_t diagonal) {
  return triangle(self, "triu", [&](const Tensor& d) { return ge(d, diagonal); });
}

Tensor impl_flip(const Tensor& self, IntArrayRef dims) {
  // A 0-d tensor takes dim 0 (or -1) as a dim of size 1, as in PyTorch: flipping it is a copy.
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), false);
  Tensor out = self;
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, self.dim(), "flip");
    EMBER_CHECK_VALUE(!seen[static_cast<size_t>(w)], "flip: dim ", d, " appears more than once in dims");
    seen[static_cast<size_t>(w)] = true;
    if (self.dim() == 0) continue;
    const int64_t n = self.size(w);
    out = index_select(out, w, arange(n - 1, -1, -1, TensorOptions(kInt64).device(self.device())));
  }
  return out.is_same(self) ? self.clone() : out;
}

Tensor impl_roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  if (dims.empty()) {
    EMBER_CHECK_VALUE(shifts.size() == 1, "roll: without dims, expected one shift, got ", shifts.size());
    return roll(self.flatten(), shifts, {0}).reshape(self.sizes());
  }
  EMBER_CHECK_VALUE(shifts.size() == dims.size(), "roll: got ", shifts.size(), " shifts for ", dims.size(), " dims");
  Tensor out = self;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], self.dim(), "roll");
    if (self.dim() == 0) continue;  // dim 0 of a 0-d tensor has size 1: nothing moves
    const int64_t n = self.size(d);
    if (n == 0) continue;
    const int64_t s = ((shifts[i] % n) + n) % n;
    if (s == 0) continue;
    out = cat({out.narrow(d, n - s, s), out.narrow(d, 0, n - s)}, d);
  }
  return out.is_same(self) ? self.clone() : out;
}

Tensor impl_repeat(const Tensor& self, IntArrayRef repeats) {
  const int64_t nd = static_cast<int64_t>(repeats.size());
  EMBER_CHECK_VALUE(nd >= self.dim(), "repeat: ", nd, " repeats for a tensor of ", self.dim(),
                    " dims; give at least one per dim");
  for (int64_t r : repeats) EMBER_CHECK_VALUE(r >= 0, "repeat: repeats must not be negative, got ", repeats);
  // [s0, s1] tiled [r0, r1]: view as [1, s0, 1, s1], expand to [r0, s0, r1, s1], reshape.
  DimVector padded(static_cast<size_t>(nd - self.dim()), 1);
  for (int64_t s : self.sizes()) padded.push_back(s);
  DimVector view_shape, expanded, result;
  for (int64_t d = 0; d < nd; ++d) {
    const auto u = static_cast<size_t>(d);
    view_shape.insert(view_shape.end(), {1, padded[u]});
    expanded.insert(expanded.end(), {repeats[u], padded[u]});
    result.push_back(repeats[u] * padded[u]);
  }
  // A copy, as in PyTorch: when every repeat is 1 the reshape keeps a view of self, and writes to
  // self would show through the result.
  Tensor out = self.reshape(view_shape).expand(expanded).reshape(result);
  return out.storage() == self.storage() ? out.clone() : out;
}

Tensor impl_repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                              std::optional<int64_t> output_size) {
  EMBER_CHECK_VALUE(repeats >= 0, "repeat_interleave: repeats must not be negative, got ", repeats);
  if (!dim) return repeat_interleave(self.flatten(), repeats, 0, output_size);
  const int64_t d = wrap_dim(*dim, std::max<int64_t>(self.dim(), 1), "repeat_interleave");
  Tensor t = self.dim() == 0 ? self.reshape({1}) : self;
  DimVector expanded = t.sizes().vec(), result = t.sizes().vec();
  expanded.insert(expanded.begin() + d + 1, repeats);
  result[static_cast<size_t>(d)] *= repeats;
  EMBER_CHECK(!output_size || *output_size == result[static_cast<size_t>(d)],
              "repeat_interleave: Invalid output_size, expected ", result[static_cast<size_t>(d)], " but got ",
              *output_size);
  // NB: a new tensor, as in PyTorch: reshape may keep a view of self (or of the expanded view,
  // whose repeated elements share memory), on which in-place ops and view() would be refused.
  Tensor out = t.unsqueeze(d + 1).expand(expanded).reshape(result);
  return out.storage() == self.storage() ? out.clone() : out;
}

Tensor impl_outer(const Tensor& self, const Tensor& vec2) {
  EMBER_CHECK_VALUE(self.dim() == 1 && vec2.dim() == 1, "outer: expected two 1-D tensors, got shapes ",
                    self.sizes(), " and ", vec2.sizes());
  return mul(self.unsqueeze(1), vec2.unsqueeze(0));
}

namespace {
// beta == 0: the product as it is (self's values are not read, its NaN and inf included, as PyTorch),
// but self's gradient is PyTorch's grad * beta: 0, and NaN where the gradient is inf or NaN.
struct IgnoredAddendBackward : autograd::Node {
  DimVector self_shape;
  const char* name() const override { return "IgnoredAddendBackward"; }
  autograd::TensorList apply(autograd::TensorList&& g) override {
    Tensor gs;
    if (needs_input_grad(0)) gs = sum_to(mul(g[0], 0.0), self_shape);
    return {gs, needs_input_grad(1) ? g[0] : Tensor()};
  }
};

// beta * self + alpha * product, self broadcast.
Tensor scaled_sum(const Tensor& self, Tensor product, const Scalar& beta, const Scalar& alpha) {
  if (alpha.to<double>() != 1) product = mul(product, alpha);
  if (beta.to<double>() != 0) return add(beta.to<double>() == 1 ? self : mul(self, beta), product);
  Tensor out = where(scalar_tensor(false, TensorOptions(kBool).device(product.device())), self.expand_as(product).detach(),
                     product.detach());
  if (autograd::any_requires_grad(self, product)) {
    auto node = autograd::make_node<IgnoredAddendBackward>(self, product);
    node->self_shape = self.sizes().vec();
    autograd::set_history(out, node);
  }
  return out;
}
}  // namespace

Tensor impl_addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta, Scalar alpha) {
  if (autocast::applies("addmm", self))
    return autocast::run("addmm", {self, mat1, mat2},
                         [&](const autocast::Cast& cast) { return addmm(cast(self), cast(mat1), cast(mat2), beta, alpha); });
  EMBER_CHECK_VALUE(mat1.dim() == 2 && mat2.dim() == 2, "addmm: expected 2-D matrices, got shapes ", mat1.sizes(),
                    " and ", mat2.sizes());
  if (beta.to<double>() == 1 && alpha.to<double>() == 1) return matmul_add(self, mat1, mat2);
  return scaled_sum(self, mm(mat1, mat2), beta, alpha);
}

Tensor impl_baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, Scalar beta, Scalar alpha) {
  if (autocast::applies("baddbmm", self))
    return autocast::run("baddbmm", {self, batch1, batch2},
                         [&](const autocast::Cast& cast) { return baddbmm(cast(self), cast(batch1), cast(batch2), beta, alpha); });
  EMBER_CHECK_VALUE(batch1.dim() == 3 && batch2.dim() == 3, "baddbmm: expected 3-D batches, got shapes ",
                    batch1.sizes(), " and ", batch2.sizes());
  return scaled_sum(self, bmm(batch1, batch2), beta, alpha);
}

Tensor impl_one_hot(const Tensor& self, int64_t num_classes) {
  EMBER_CHECK_TYPE(self.dtype() == kInt64, "one_hot: expected an int64 tensor of class indices, got ", self.dtype());
  if (num_classes == -1) {
    EMBER_CHECK_VALUE(self.numel() > 0, "one_hot: cannot infer num_classes from an empty tensor; give it");
    num_classes = max(self).item<int64_t>() + 1;
  }
  EMBER_CHECK_VALUE(num_classes >= 0, "one_hot: num_classes must be -1 or non-negative, got ", num_classes);
  if (self.numel() > 0) {
    const int64_t lo = min(self).item<int64_t>(), hi = max(self).item<int64_t>();
    EMBER_CHECK_INDEX(lo >= 0 && hi < num_classes, "one_hot: class values must be in [0, ", num_classes, "), got ",
                      lo < 0 ? lo : hi);
  }
  return eq(self.unsqueeze(-1), arange(num_classes, TensorOptions(kInt64).device(self.device()))).to(kInt64);
}

Tensor impl_any(const Tensor& self) { return gt(sum(ne(self, 0).to(kInt64)), 0); }
Tensor impl_any(const Tensor& self, int64_t dim, bool keepdim) {
  return gt(sum(ne(self, 0).to(kInt64), {dim}, keepdim), 0);
}
Tensor impl_all(const Tensor& self) { return eq(sum(eq(self, 0).to(kInt64)), 0); }
Tensor impl_all(const Tensor& self, int64_t dim, bool keepdim) {
  return eq(sum(eq(self, 0).to(kInt64), {dim}, keepdim), 0);
}

}  // namespace ember
