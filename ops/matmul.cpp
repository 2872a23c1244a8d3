#include "ember/ops/matmul.h"

#include <algorithm>
#include <optional>

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/strided.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/complex.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"

namespace ember {

using autograd::SavedTensor;
using autograd::TensorList;

namespace {

// The batch dims of a matrix operand: all but the last two (none for 1-D and 2-D operands).
IntArrayRef batch_dims(const Tensor& t) {
  return IntArrayRef(t.sizes().data(), t.dim() > 2 ? static_cast<size_t>(t.dim() - 2) : 0);
}

DimVector with_matrix(IntArrayRef batch, int64_t rows, int64_t cols) {
  DimVector shape = batch.vec();
  shape.push_back(rows);
  shape.push_back(cols);
  return shape;
}

void check_operands(const Tensor& a, const Tensor& b) {
  EMBER_CHECK_VALUE(a.defined() && b.defined(), "matmul: an operand is an undefined tensor");
  EMBER_CHECK_VALUE(a.dim() >= 1 && b.dim() >= 1, "matmul: both operands need at least 1 dimension, got ",
                    a.sizes(), " and ", b.sizes());
  EMBER_CHECK_TYPE(a.dtype() == b.dtype(), "matmul: expected both operands to have the same dtype, got ",
                   a.dtype(), " and ", b.dtype());
  check_compute_dtype(a.dtype(), "matmul");
  // NB: as PyTorch, a bool product is refused only where it has products to add up: with an empty
  // operand (an empty result, or an inner size of 0: all False) it is returned; 1-D by 1-D (dot) never.
  EMBER_CHECK_TYPE(a.dtype() != kBool || (!(a.dim() == 1 && b.dim() == 1) && (a.numel() == 0 || b.numel() == 0)),
                   "matmul: not supported for bool tensors");
  EMBER_CHECK_VALUE(a.device() == b.device(), "matmul: operands on different devices, ", a.device(),
                    " and ", b.device());
  int64_t k_b = b.dim() == 1 ? b.size(0) : b.size(-2);
  EMBER_CHECK_VALUE(a.size(-1) == k_b, "matmul: cannot multiply ", a.sizes(), " by ", b.sizes());
  IntArrayRef ba = batch_dims(a), bb = batch_dims(b);
  for (size_t i = 0; i < std::min(ba.size(), bb.size()); ++i) {
    int64_t sa = ba[ba.size() - 1 - i], sb = bb[bb.size() - 1 - i];
    EMBER_CHECK_VALUE(sa == sb || sa == 1 || sb == 1, "matmul: cannot multiply ", a.sizes(), " by ",
                      b.sizes(), " (batch dimensions do not broadcast)");
  }
}

// a [..., m, k] @ b [..., k, n] for operands of at least 2 dims, without autograd.
Tensor matmul_forward(const Tensor& a, const Tensor& b) {
  IntArrayRef ba = batch_dims(a), bb = batch_dims(b);
  DimVector batch = ba == bb ? ba.vec() : broadcast_shapes(ba, bb, "matmul");
  int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  Tensor out = empty(with_matrix(batch, m, n), a.options());
  if (out.numel() == 0) return out;
  if (k == 0) return zeros(out.sizes(), a.options());  // the empty sum (and bool's only product)
  DimVector a_shape = with_matrix(batch, m, k), b_shape = with_matrix(batch, k, n);
  matmul_stub(a.device().type, out, a.sizes() == IntArrayRef(a_shape) ? a : expand_data(a, a_shape),
              b.sizes() == IntArrayRef(b_shape) ? b : expand_data(b, b_shape), false);
  return out;
}

// A transposed matrix: a 2-D view with unit row stride, such as a linear layer's weight.t().
bool column_major(const Tensor& t) { return t.dim() == 2 && t.stride(0) == 1 && t.stride(1) != 1; }

// x @ y, computed as (y^T @ x^T)^T when `transposed`: the product then has the layout of a
// transposed operand, so its gradient leaves through that operand's transpose contiguous and
// AccumulateGrad keeps it instead of copying it (a linear layer's weight gradient; PyTorch does
// the same).
Tensor product(const Tensor& x, const Tensor& y, bool transposed) {
  if (!transposed) return matmul(x, y);
  return transpose(matmul(transpose(y, -1, -2), transpose(x, -1, -2)), -1, -2);
}

// d(a@b)/da = grad @ b^T ; d(a@b)/db = a^T @ grad (each summed over the batch dims it was broadcast
// to), laid out as the operand is. With an addend (matmul_add) the inputs are (addend, a, b) and the
// addend's gradient is grad summed to its shape.
struct MatmulBackward : autograd::Node {
  SavedTensor a, b;
  DimVector a_shape, b_shape;
  bool a_transposed = false, b_transposed = false;
  std::optional<DimVector> addend_shape;
  const char* name() const override { return addend_shape ? "AddmmBackward" : "MatmulBackward"; }
  TensorList apply(TensorList&& g) override {
    const size_t first = addend_shape ? 1 : 0;
    Tensor ga, gb;
    if (needs_input_grad(first))
      ga = sum_to(product(g[0], transpose(b.unpack(this), -1, -2), a_transposed), a_shape);
    if (needs_input_grad(first + 1))
      gb = sum_to(product(transpose(a.unpack(this), -1, -2), g[0], b_transposed), b_shape);
    if (!addend_shape) return {ga, gb};
    return {needs_input_grad(0) ? sum_to(g[0], *addend_shape) : Tensor(), ga, gb};
  }
  void release_saved() override {
    a.reset();
    b.reset();
  }
};

// Records out = [addend +] a @ b on the tape (nothing when no input requires grad).
void record_product(const Tensor& out, const Tensor* addend, const Tensor& a, const Tensor& b) {
  const bool wants = addend ? autograd::any_requires_grad(*addend, a, b) : autograd::any_requires_grad(a, b);
  if (!wants) return;
  auto node = addend ? autograd::make_node<MatmulBackward>(*addend, a, b) : autograd::make_node<MatmulBackward>(a, b);
  const size_t first = addend ? 1 : 0;
  if (addend) node->addend_shape = addend->sizes().vec();
  node->a_shape = a.sizes().vec();
  node->b_shape = b.sizes().vec();
  node->a_transposed = column_major(a);
  node->b_transposed = column_major(b);
  if (node->needs_input_grad(first)) node->b = SavedTensor(b);
  if (node->needs_input_grad(first + 1)) node->a = SavedTensor(a);
  autograd::set_history(out, node);
}

// The recorded product of operands with at least 2 dims.
Tensor batched_matmul(const Tensor& a, const Tensor& b) {
  Tensor out = matmul_forward(a, b);
  record_product(out, nullptr, a, b);
  return out;
}

}  // namespace

Tensor impl_matmul(const Tensor& a, const Tensor& b) {
  if (autocast::applies("matmul", a))
    return autocast::run("matmul", {a, b}, [&](const autocast::Cast& cast) { return matmul(cast(a), cast(b)); });
  if (is_complex(a.dtype()) || is_complex(b.dtype())) return detail::complex_matmul(a, b);
  check_operands(a, b);
  const int64_t da = a.dim(), db = b.dim();
  // 1-D operands become [1, k] or [k, 1] views, and the added dim is removed from the result.
  if (da == 1 && db == 1) return reshape(batched_matmul(unsqueeze(a, 0), unsqueeze(b, 1)), IntArrayRef());
  if (da == 1) return squeeze(matmul(unsqueeze(a, 0), b), -2);
  if (db == 1) return squeeze(matmul(a, unsqueeze(b, 1)), -1);
  // [B..., m, k] @ [k, n] as one [B*m, k] @ [k, n] product, as PyTorch folds it: the gradient of the
  // shared operand is then one GEMM, not B products of [k, n] and their sum (a seq-first transformer's
  // decoder input is a transposed view: its 35 [200, 10000] partial gradients, copied and summed, were
  // 7% of a training step). a is copied when its batch dims do not merge with its rows (reshape).
  if (da >= 3 && db == 2) {
    DimVector out_shape = a.sizes().vec();
    out_shape.back() = b.size(1);
    return reshape(batched_matmul(fold_rows(a), b), out_shape);
  }
  return batched_matmul(a, b);
}

Tensor fold_rows(const Tensor& x) {
  // NB: the row count spelled out, not -1, which a 0 inner size leaves undetermined.
  const int64_t rows = numel_of(IntArrayRef(x.sizes().data(), x.sizes().size() - 1));
  return reshape(x, {rows, x.size(-1)});
}

Tensor matmul_add(const Tensor& addend, const Tensor& a, const Tensor& b) {
  check_operands(a, b);
  EMBER_CHECK_VALUE(a.dim() == 2 && b.dim() == 2, "matmul_add: expected 2-D matrices, got shapes ", a.sizes(), " and ",
                    b.sizes());
  EMBER_CHECK_VALUE(addend.defined(), "matmul_add: the addend is an undefined tensor");
  const DimVector shape{a.size(0), b.size(1)};
  const bool fused = addend.dtype() == a.dtype() && addend.device() == a.device() && is_floating(a.dtype()) &&
                     broadcast_shapes(addend.sizes(), shape, "matmul_add") == IntArrayRef(shape);
  if (!fused) return add(addend, matmul(a, b));  // a promoted or broadcast-widened sum, as add gives it
  Tensor out = empty(shape, a.options());
  // A bias row (a linear layer's) goes into the product's epilogue where the backend has one.
  const bool row = addend.dim() == 1 && addend.is_contiguous();
  if (!row || !matmul_bias_stub(a.device().type, out, a, b, addend)) {
    copy_data(out, expand_data(addend, shape));
    if (out.numel() > 0 && a.size(1) > 0) matmul_stub(a.device().type, out, a, b, true);
  }
  record_product(out, &addend, a, b);
  return out;
}

Tensor impl_mm(const Tensor& a, const Tensor& b) {
  if (autocast::applies("mm", a)) return autocast::run("mm", {a, b}, [&](const autocast::Cast& cast) { return mm(cast(a), cast(b)); });
  EMBER_CHECK_VALUE(a.dim() == 2 && b.dim() == 2, "mm: expected 2-D tensors, got ", a.sizes(), " and ",
                    b.sizes());
  return matmul(a, b);
}

Tensor impl_bmm(const Tensor& a, const Tensor& b) {
  if (autocast::applies("bmm", a))
    return autocast::run("bmm", {a, b}, [&](const autocast::Cast& cast) { return bmm(cast(a), cast(b)); });
  EMBER_CHECK_VALUE(a.dim() == 3 && b.dim() == 3, "bmm: expected 3-D tensors, got ", a.sizes(), " and ",
                    b.sizes());
  EMBER_CHECK_VALUE(a.size(0) == b.size(0), "bmm: batch sizes differ: ", a.sizes(), " and ", b.sizes());
  return matmul(a, b);
}

}  // namespace ember
