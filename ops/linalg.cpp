#include "ember/ops/linalg.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ember/autograd/record.h"
#include "ember/core/copy.h"
#include "ember/core/factory.h"
#include "ember/core/shape.h"
#include "ember/ops/autocast.h"
#include "ember/ops/binary.h"
#include "ember/ops/compare.h"
#include "ember/ops/linalg_checks.h"
#include "ember/ops/reduce.h"

namespace ember {

namespace detail {

void check_linalg_float(const Tensor& a, std::string_view op) {
  const DType t = a.dtype();
  if (t == kFloat32 || t == kFloat64) return;
  EMBER_CHECK_AS(NotImplementedError, !is_complex(t), op, ": complex inputs are not supported by Ember. Got ", t);
  EMBER_CHECK_AS(NotImplementedError, t != kFloat16 && t != kBFloat16, op, ": Low precision dtypes not supported. Got ",
                 torch_type_name(t));
  EMBER_CHECK_AS(NotImplementedError, false, op, ": Expected a floating point or complex tensor as input. Got ",
                 torch_type_name(t));
}

void check_linalg_matrix(const Tensor& a, std::string_view op) {
  EMBER_CHECK(a.dim() >= 2, op, ": The input tensor A must have at least 2 dimensions.");
  check_linalg_float(a, op);
}

}  // namespace detail

namespace {

using autograd::SavedTensor;
using autograd::TensorList;

Tensor mT(const Tensor& t) { return t.transpose(-2, -1); }

void check_square(const Tensor& a, std::string_view op) {
  EMBER_CHECK(a.dim() >= 2, op, ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(a.size(-1) == a.size(-2), op, ": A must be batches of square matrices, but they are ", a.size(-2), " by ",
              a.size(-1), " matrices");
  detail::check_linalg_float(a, op);
}

DimVector batch_of(const Tensor& a) { return DimVector(a.sizes().begin(), a.sizes().end() - 2); }

// A's batch shape followed by `dims`.
DimVector with_dims(DimVector batch, std::initializer_list<int64_t> dims) {
  batch.insert(batch.end(), dims.begin(), dims.end());
  return batch;
}

// a [..., m, n] as the contiguous [B, m, n] stack the kernels read, outside autograd's graph.
Tensor stacked(const Tensor& a) { return contiguous_data(a.detach().reshape({-1, a.size(-2), a.size(-1)})); }

// A result of A's batch shape followed by `dims`, allocated as itself (so that it is no view, and
// autograd records it as the op's own output); the kernel writes it through stacked_view.
Tensor result(const DimVector& batch, std::initializer_list<int64_t> dims, const Tensor& like) {
  return empty(with_dims(batch, dims), like.options());
}

// The contiguous result t as the kernel's [B, ...] stack of its last `dims` dims.
Tensor stacked_view(const Tensor& t, int64_t dims) {
  DimVector shape{-1};
  for (int64_t d = t.dim() - dims; d < t.dim(); ++d) shape.push_back(t.size(d));
  return t.detach().view(shape);
}

// rows x cols identities, one per batch element (what a factorisation of an empty matrix gives).
Tensor eyes(const DimVector& batch, int64_t rows, int64_t cols, const Tensor& like) {
  return contiguous_data(eye(rows, cols, like.options()).expand(with_dims(batch, {rows, cols})));
}

// Raises LinAlgError(message(prefix, code)) for the first matrix whose status in info is nonzero
// (read on the host, as PyTorch's checks do), prefix naming the batch element when there is a batch.
template <typename Message>
void raise_first(const Tensor& info, const DimVector& batch, const Message& message) {
  Tensor host = info.to(Device(DeviceType::CPU));
  const int32_t* codes = static_cast<const int32_t*>(host.data_ptr());
  for (int64_t b = 0; b < host.numel(); ++b) {
    if (codes[b] == 0) continue;
    std::string prefix = batch.empty() ? std::string() : detail::str("(Batch element ", b, "): ");
    EMBER_CHECK_AS(LinAlgError, false, message(prefix, codes[b]));
  }
}

// An iterative factorisation's failure: the matrix did not converge, with too many repeated `what`.
void check_converged(const Tensor& info, const DimVector& batch, std::string_view op, std::string_view what) {
  raise_first(info, batch, [&](const std::string& prefix, int32_t code) {
    return detail::str(op, ": ", prefix, "The algorithm failed to converge because the input matrix is ",
                       "ill-conditioned or has too many repeated ", what, " (error code: ", code, ").");
  });
}

// A fresh status per matrix of the stack `read` (the entries the kernel will read), after raising
// for the first matrix that holds a NaN or an inf: LAPACK's iterations do not converge on those,
// and checking here makes that the same on every device, whatever its library does with them.
Tensor new_info(const Tensor& read, const DimVector& batch, std::string_view op) {
  raise_first(logical_not(isfinite(read)).reshape({read.size(0), -1}).any(1).to(kInt32), batch,
              [&](const std::string& prefix, int32_t) {
                return detail::str(op, ": ", prefix, "The algorithm failed to converge because the input matrix ",
                                   "contained non-finite values.");
              });
  return zeros({read.size(0)}, TensorOptions(kInt32).device(read.device()));
}

// The LU kernel's results for the stack a [B, n, n]: the factors, getrf's pivots, and per matrix
// the 1-based column of U's first zero pivot (0: none).
struct LuFactors {
  Tensor lu, pivots, info;
};
LuFactors lu_factor_values(const Tensor& a) {
  const TensorOptions ints = TensorOptions(kInt32).device(a.device());
  LuFactors f{empty(a.sizes(), a.options()), empty({a.size(0), a.size(1)}, ints), zeros({a.size(0)}, ints)};
  lu_factor_stub(a.device().type, f.lu, f.pivots, f.info, a);
  return f;
}

// X [batch..., n, k] = A^-1 B for A [..., n, n] and B [..., n, k] whose batch dims broadcast to
// `batch`, no graph; a singular A raises message(prefix, k).
template <typename Message>
Tensor lu_solve_values(const Tensor& A, const Tensor& B, const DimVector& batch, const Message& message) {
  const int64_t n = A.size(-1), k = B.size(-1);
  Tensor X = result(batch, {n, k}, A);
  if (n == 0) return X;
  Tensor a = stacked(A.expand(with_dims(batch, {n, n})));
  if (a.numel() == 0) return X;
  const LuFactors f = lu_factor_values(a);
  raise_first(f.info, batch, message);
  if (X.numel() > 0)
    lu_solve_stub(A.device().type, stacked_view(X, 2), f.lu, f.pivots, stacked(B.expand(with_dims(batch, {n, k}))));
  return X;
}

// ---- backward formulas (PyTorch's FunctionsManual, real case), in differentiable ops

// svd_backward for the thin factors U [.., m, k], S [.., k], Vh [.., k, n]; an undefined
// cotangent contributes nothing.
Tensor svd_backward(const Tensor& gU, const Tensor& gS, const Tensor& gVh, const Tensor& U, const Tensor& S,
                    const Tensor& Vh) {
  const int64_t m = U.size(-2), n = Vh.size(-1), k = S.size(-1);
  if (!gU.defined() && !gVh.defined())  // S alone: no division by gaps, defined at repeated values too
    return matmul(U, (gS.defined() ? gS : zeros_like(S)).unsqueeze(-1) * Vh);
  const Tensor eye_k = eye(k, k, S.options());
  const Tensor S2 = S * S;
  const Tensor gap = S2.unsqueeze(-2) - S2.unsqueeze(-1) + eye_k;  // its diagonal is never read: 1
  Tensor inner;
  if (gU.defined()) {
    Tensor UtgU = matmul(mT(U), gU);
    inner = (UtgU - mT(UtgU)) * S.unsqueeze(-2);
  }
  if (gVh.defined()) {
    Tensor VtgV = matmul(Vh, mT(gVh));
    Tensor part = S.unsqueeze(-1) * (VtgV - mT(VtgV));
    inner = inner.defined() ? inner + part : part;
  }
  inner = inner / gap;
  if (gS.defined()) inner = inner + diag_embed(gS);
  if (m > n && gU.defined()) {  // gU's part outside U's columns: (I - U U^T) gU S^-1, through Vh
    Tensor gUSinv = gU / S.unsqueeze(-2);
    return matmul(matmul(U, inner) + gUSinv - matmul(U, matmul(mT(U), gUSinv)), Vh);
  }
  if (m < n && gVh.defined()) {
    Tensor SinvgVh = gVh / S.unsqueeze(-1);
    return matmul(U, matmul(inner, Vh) + SinvgVh - matmul(matmul(SinvgVh, mT(Vh)), Vh));
  }
  return matmul(matmul(U, inner), Vh);
}

// dA = U dU^T ... : every (U, S, Vh) of A [.., m, n]; with full_matrices the columns (rows) of U
// (Vh) past k get no gradient, as PyTorch narrows them away.
struct SvdBackward : autograd::Node {
  SavedTensor U, S, Vh;
  DimVector a_shape;
  const char* name() const override { return "LinalgSvdBackward"; }
  bool materializes_grads() const override { return false; }
  TensorList apply(TensorList&& g) override {
    Tensor u = U.unpack(this), s = S.unpack(this), vh = Vh.unpack(this);
    if (!g[0].defined() && !g[1].defined() && !g[2].defined()) return {Tensor()};
    const int64_t k = s.size(-1);
    if (k == 0) return {zeros(a_shape, s.options())};
    auto thin_u = [&](const Tensor& t) { return t.defined() ? t.narrow(-1, 0, k) : t; };
    auto thin_vh = [&](const Tensor& t) { return t.defined() ? t.narrow(-2, 0, k) : t; };
    return {svd_backward(thin_u(g[0]), g[1], thin_vh(g[2]), thin_u(u), s, thin_vh(vh))};
  }
  void release_saved() override {
    U.reset();
    S.reset();
    Vh.reset();
  }
};

// A = V diag(L) V^T: gA = V (skew(V^T gV) / 2 / (L_j - L_i) + diag gL) V^T (symmetric, although
// eigh reads one triangle, as PyTorch's).
struct EighBackward : autograd::Node {
  SavedTensor L, V;
  const char* name() const override { return "LinalgEighBackward"; }
  bool materializes_grads() const override { return false; }
  TensorList apply(TensorList&& g) override {
    Tensor l = L.unpack(this), v = V.unpack(this);
    const Tensor &gL = g[0], &gV = g[1];
    if (!gL.defined() && !gV.defined()) return {Tensor()};
    Tensor inner;
    if (gV.defined()) {
      Tensor VtgV = matmul(mT(v), gV);
      Tensor gap = l.unsqueeze(-2) - l.unsqueeze(-1) + eye(l.size(-1), l.size(-1), l.options());
      inner = (VtgV - mT(VtgV)) * 0.5 / gap;
    }
    if (gL.defined()) inner = inner.defined() ? inner + diag_embed(gL) : diag_embed(gL);
    return {matmul(matmul(v, inner), mT(v))};
  }
  void release_saved() override {
    L.reset();
    V.reset();
  }
};

// A = QR with Q [.., m, n], R [.., n, n] (m >= n): gA = (gQ + Q copyltu(M)) R^-T with
// M = R gR^T - gQ^T Q, copyltu(M) = tril(M) + tril(M, -1)^T; defined where R is invertible.
Tensor qr_square_backward(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  Tensor M = matmul(R, mT(gR)) - matmul(mT(gQ), Q);
  Tensor b = gQ + matmul(Q, tril(M) + mT(tril(M, -1)));
  return linalg_solve_triangular(mT(R), b, /*upper=*/false, /*left=*/false, /*unitriangular=*/false);
}

struct QrBackward : autograd::Node {
  SavedTensor Q, R;
  std::string mode;
  const char* name() const override { return "LinalgQrBackward"; }
  bool materializes_grads() const override { return false; }
  TensorList apply(TensorList&& g) override {
    if (!g[0].defined() && !g[1].defined()) return {Tensor()};
    EMBER_CHECK(mode != "r", "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please ",
                "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
    Tensor q = Q.unpack(this), r = R.unpack(this);
    const int64_t m = q.size(-2), n = r.size(-1);
    EMBER_CHECK(mode != "complete" || m <= n,
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
    Tensor gQ = g[0].defined() ? g[0] : zeros_like(q);
    Tensor gR = g[1].defined() ? g[1] : zeros_like(r);
    if (m >= n) return {qr_square_backward(gQ, gR, q, r)};
    // A = [X | Y] with X square: R = [R_X | Q^T Y], so Y's gradient is Q gR_Y and X's is the
    // square case with gQ + Y gR_Y^T.
    Tensor gR_Y = gR.narrow(-1, m, n - m);
    Tensor Y = matmul(q, r.narrow(-1, m, n - m));
    Tensor gX = qr_square_backward(gQ + matmul(Y, mT(gR_Y)), gR.narrow(-1, 0, m), q, r.narrow(-1, 0, m));
    return {cat({gX, matmul(q, gR_Y)}, -1)};
  }
  void release_saved() override {
    Q.reset();
    R.reset();
  }
};

// A = L L^T: gA = sym(L^-T Phi(L^T gL) L^-1), Phi the lower triangle with its diagonal halved
// (PyTorch's cholesky_backward), symmetric because A is.
struct CholeskyBackward : autograd::Node {
  SavedTensor L;  // NB: lower; upper's U is a transposing view of it, with its own gradient
  const char* name() const override { return "LinalgCholeskyBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor l = L.unpack(this), gL = g[0];
    Tensor phi = tril(matmul(mT(l), gL));
    phi = phi - diag_embed(phi.diagonal(0, -2, -1)) * 0.5;
    Tensor gA = linalg_solve_triangular(mT(l), phi, /*upper=*/true, /*left=*/true, false);
    gA = linalg_solve_triangular(l, gA, /*upper=*/false, /*left=*/false, false);
    return {(gA + mT(gA)) * 0.5};
  }
  void release_saved() override { L.reset(); }
};

// The cofactor matrix of each A (the gradient of det) where A is singular: with A = U S Vh,
// det(U) det(Vh) U diag(prod_{j != i} s_j) Vh, the products taken without dividing (so exact 0s
// stay); det(U) det(Vh) = +-1 is a constant.
Tensor singular_cofactors(const Tensor& A) {
  auto [U, S, Vh] = linalg_svd(A, false);
  Tensor alpha;
  {
    autograd::NoGradGuard no_grad;
    alpha = (linalg_det(U) * linalg_det(Vh)).unsqueeze(-1).unsqueeze(-1);
  }
  const int64_t n = S.size(-1);
  Tensor ones_col = ones_like(S.narrow(-1, 0, 1));
  // before[i] = s_0 ... s_(i-1), after[i] = s_(i+1) ... s_(n-1)
  Tensor before = cat({ones_col, cumprod(S.narrow(-1, 0, n - 1), -1)}, -1);
  Tensor after = flip(cat({ones_col, cumprod(flip(S, {-1}).narrow(-1, 0, n - 1), -1)}, -1), {-1});
  return matmul(U * (before * after).unsqueeze(-2), Vh) * alpha;
}

// A with its singular matrices (det = 0) replaced by the identity: what a formula through A^-1
// may invert; the singular ones' results are replaced after.
Tensor invertible_part(const Tensor& A, const Tensor& singular) {
  const int64_t n = A.size(-1);
  return where(singular.unsqueeze(-1).unsqueeze(-1), eye(n, n, A.options()).expand(A.sizes()), A);
}

// det: gA = g det A^-T where A is invertible, g cof(A) where it is singular.
struct DetBackward : autograd::Node {
  SavedTensor A, det;
  const char* name() const override { return "LinalgDetBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor a = A.unpack(this), d = det.unpack(this);
    if (a.size(-1) == 0) return {zeros_like(a)};
    Tensor singular = eq(d.detach(), 0);
    Tensor scale = (g[0] * d).unsqueeze(-1).unsqueeze(-1);
    Tensor gA = scale * mT(linalg_inv(invertible_part(a, singular)));
    if (!singular.any().item<bool>()) return {gA};
    Tensor cof = g[0].unsqueeze(-1).unsqueeze(-1) * singular_cofactors(a);
    return {where(singular.unsqueeze(-1).unsqueeze(-1), cof, gA)};
  }
  void release_saved() override {
    A.reset();
    det.reset();
  }
};

// logabsdet: gA = g A^-T; NaN where A is singular (-inf's derivative is not defined).
struct SlogdetBackward : autograd::Node {
  SavedTensor A, sign;
  const char* name() const override { return "LinalgSlogdetBackward"; }
  bool materializes_grads() const override { return false; }
  TensorList apply(TensorList&& g) override {
    if (!g[1].defined()) return {Tensor()};  // sign's gradient is 0
    Tensor a = A.unpack(this);
    if (a.size(-1) == 0) return {zeros_like(a)};
    Tensor singular = eq(sign.unpack(this), 0);
    Tensor gA = g[1].unsqueeze(-1).unsqueeze(-1) * mT(linalg_inv(invertible_part(a, singular)));
    return {where(singular.unsqueeze(-1).unsqueeze(-1), full_like(gA, std::numeric_limits<double>::quiet_NaN()), gA)};
  }
  void release_saved() override {
    A.reset();
    sign.reset();
  }
};

// geqrf has no gradient in PyTorch either: the reflectors are a factored form, not a function
// anyone differentiates; backward reaching it says so.
struct GeqrfBackward : autograd::Node {
  const char* name() const override { return "GeqrfBackward"; }
  bool materializes_grads() const override { return false; }
  TensorList apply(TensorList&&) override {
    EMBER_CHECK_AS(NotImplementedError, false, "the derivative for 'geqrf' is not implemented.");
    return {};
  }
};

// X = A^-1 B: gB = A^-T G (a solve with A^T), gA = -gB X^T.
struct SolveBackward : autograd::Node {
  SavedTensor A, X;
  DimVector a_shape, b_shape;
  const char* name() const override { return "LinalgSolveBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor gB = linalg_solve(mT(A.unpack(this)), g[0], /*left=*/true);
    Tensor gA = needs_input_grad(0) ? sum_to(-matmul(gB, mT(X.unpack(this))), a_shape) : Tensor();
    return {gA, needs_input_grad(1) ? sum_to(gB, b_shape) : Tensor()};
  }
  void release_saved() override {
    A.reset();
    X.reset();
  }
};

// X = A^-1: gA = -X^T (G X^T), multiplied in PyTorch's order (the inverses' product first gave
// inf * 0 = NaN for a 1e38-sized inverse and a zero cotangent, where PyTorch's gives 0).
struct InvBackward : autograd::Node {
  SavedTensor X;
  const char* name() const override { return "LinalgInvBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor xt = mT(X.unpack(this));
    return {-matmul(xt, matmul(g[0], xt))};
  }
  void release_saved() override { X.reset(); }
};

// X = A^-1 B: gB = A^-T G, gA = -gB X^T (X = B A^-1: gB = G A^-T, gA = -X^T gB), kept to the
// triangle A's values were read from.
struct SolveTriangularBackward : autograd::Node {
  SavedTensor A, X;
  bool upper = false, left = true, unit = false;
  DimVector a_shape, b_shape;
  const char* name() const override { return "LinalgSolveTriangularBackward"; }
  TensorList apply(TensorList&& g) override {
    Tensor a = A.unpack(this);
    Tensor gB = linalg_solve_triangular(mT(a), g[0], !upper, left, unit);
    Tensor gA;
    if (needs_input_grad(0)) {
      Tensor x = X.unpack(this);
      Tensor full = left ? -matmul(gB, mT(x)) : -matmul(mT(x), gB);
      gA = sum_to(upper ? triu(full, unit ? 1 : 0) : tril(full, unit ? -1 : 0), a_shape);
    }
    return {gA, needs_input_grad(1) ? sum_to(gB, b_shape) : Tensor()};
  }
  void release_saved() override {
    A.reset();
    X.reset();
  }
};

// The SVD's values (and, with vectors, its factors) of A, no graph.
std::tuple<Tensor, Tensor, Tensor> svd_values(const Tensor& A, bool vectors, bool full) {
  const DimVector batch = batch_of(A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const int64_t ku = full ? m : k, kv = full ? n : k;
  if (A.numel() == 0) {
    Tensor s = zeros(with_dims(batch, {k}), A.options());
    if (!vectors) return {Tensor(), s, Tensor()};
    return {eyes(batch, m, ku, A), s, eyes(batch, kv, n, A)};
  }
  Tensor a = stacked(A);
  Tensor s = result(batch, {k}, A), u, vh;
  if (vectors) {
    u = result(batch, {m, ku}, A);
    vh = result(batch, {kv, n}, A);
  }
  Tensor info = new_info(a, batch, "linalg.svd");
  svd_stub(A.device().type, vectors ? stacked_view(u, 2) : u, stacked_view(s, 1), vectors ? stacked_view(vh, 2) : vh,
           info, a);
  check_converged(info, batch, "linalg.svd", "singular values");
  return {u, s, vh};
}

std::tuple<Tensor, Tensor> eigh_values(const Tensor& A, bool vectors, bool upper) {
  const DimVector batch = batch_of(A);
  const int64_t n = A.size(-1);
  if (A.numel() == 0) {
    Tensor l = zeros(with_dims(batch, {n}), A.options());
    return {l, vectors ? eyes(batch, n, n, A) : Tensor()};
  }
  Tensor a = stacked(A);
  Tensor l = result(batch, {n}, A), v = vectors ? result(batch, {n, n}, A) : Tensor();
  Tensor info = new_info(upper ? triu(a) : tril(a), batch, "linalg.eigh");
  eigh_stub(A.device().type, stacked_view(l, 1), vectors ? stacked_view(v, 2) : v, info, a, upper);
  check_converged(info, batch, "linalg.eigh", "eigenvalues");
  return {l, v};
}

bool upper_of(std::string_view uplo) {
  EMBER_CHECK(uplo == "L" || uplo == "U", "Expected UPLO argument to be 'L' or 'U', but got ", uplo);
  return uplo == "U";
}

}  // namespace

// NB: `driver` picks a cuSOLVER algorithm in PyTorch; Ember's kernels have one, so it is ignored.
std::tuple<Tensor, Tensor, Tensor> impl_linalg_svd(const Tensor& A, bool full_matrices,
                                                   std::optional<std::string_view>) {
  if (autocast::applies("linalg_svd", A))
    return autocast::run("linalg_svd", {A},
                         [&](const autocast::Cast& cast) { return linalg_svd(cast(A), full_matrices); });
  detail::check_linalg_matrix(A, "linalg.svd");
  auto [U, S, Vh] = svd_values(A, /*vectors=*/true, full_matrices);
  if (autograd::any_requires_grad(A)) {
    auto node = autograd::make_node<SvdBackward>(A);
    node->a_shape = A.sizes().vec();
    for (const Tensor& out : {U, S, Vh}) autograd::set_history(out, node);
    node->U = SavedTensor(U, true);
    node->S = SavedTensor(S, true);
    node->Vh = SavedTensor(Vh, true);
  }
  return {U, S, Vh};
}

Tensor impl_linalg_svdvals(const Tensor& A, std::optional<std::string_view>) {
  if (autocast::applies("linalg_svdvals", A))
    return autocast::run("linalg_svdvals", {A}, [&](const autocast::Cast& cast) { return linalg_svdvals(cast(A)); });
  detail::check_linalg_matrix(A, "linalg.svdvals");
  // NB: the gradient needs U and Vh, and the second one their own gradients: the full op then
  if (autograd::any_requires_grad(A)) return std::get<1>(linalg_svd(A, false));
  return std::get<1>(svd_values(A, /*vectors=*/false, false));
}

std::tuple<Tensor, Tensor> impl_linalg_eigh(const Tensor& A, std::string_view UPLO) {
  if (autocast::applies("linalg_eigh", A))
    return autocast::run("linalg_eigh", {A}, [&](const autocast::Cast& cast) { return linalg_eigh(cast(A), UPLO); });
  check_square(A, "linalg.eigh");
  auto [L, V] = eigh_values(A, /*vectors=*/true, upper_of(UPLO));
  if (autograd::any_requires_grad(A)) {
    auto node = autograd::make_node<EighBackward>(A);
    autograd::set_history(L, node);
    autograd::set_history(V, node);
    node->L = SavedTensor(L, true);
    node->V = SavedTensor(V, true);
  }
  return {L, V};
}

Tensor impl_linalg_eigvalsh(const Tensor& A, std::string_view UPLO) {
  if (autocast::applies("linalg_eigvalsh", A))
    return autocast::run("linalg_eigvalsh", {A},
                         [&](const autocast::Cast& cast) { return linalg_eigvalsh(cast(A), UPLO); });
  check_square(A, "linalg.eigvalsh");
  if (autograd::any_requires_grad(A)) return std::get<0>(linalg_eigh(A, UPLO));
  return std::get<0>(eigh_values(A, /*vectors=*/false, upper_of(UPLO)));
}

std::tuple<Tensor, Tensor> impl_linalg_qr(const Tensor& A, std::string_view mode) {
  if (autocast::applies("linalg_qr", A))
    return autocast::run("linalg_qr", {A}, [&](const autocast::Cast& cast) { return linalg_qr(cast(A), mode); });
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r", "qr received unrecognized mode '", mode,
              "' but expected one of 'reduced' (default), 'r', or 'complete'");
  detail::check_linalg_matrix(A, "linalg.qr");
  const DimVector batch = batch_of(A);
  const int64_t m = A.size(-2), n = A.size(-1), kq = mode == "complete" ? m : std::min(m, n);
  Tensor Q, R;
  if (A.numel() == 0) {
    Q = eyes(batch, m, kq, A);
    R = zeros(with_dims(batch, {kq, n}), A.options());
  } else {
    Tensor a = stacked(A);
    Q = result(batch, {m, kq}, A);
    R = result(batch, {kq, n}, A);
    qr_stub(A.device().type, stacked_view(Q, 2), stacked_view(R, 2), a);
  }
  if (autograd::any_requires_grad(A)) {
    auto node = autograd::make_node<QrBackward>(A);
    node->mode = std::string(mode);
    autograd::set_history(Q, node);
    autograd::set_history(R, node);
    node->Q = SavedTensor(Q, true);
    node->R = SavedTensor(R, true);
  }
  if (mode == "r") return {empty({0}, A.options()), R};
  return {Q, R};
}

Tensor impl_linalg_cholesky(const Tensor& A, bool upper) {
  if (autocast::applies("linalg_cholesky", A))
    return autocast::run("linalg_cholesky", {A},
                         [&](const autocast::Cast& cast) { return linalg_cholesky(cast(A), upper); });
  check_square(A, "linalg.cholesky");
  const DimVector batch = batch_of(A);
  const int64_t n = A.size(-1);
  Tensor L = result(batch, {n, n}, A);
  if (A.numel() > 0) {
    Tensor a = stacked(A);
    Tensor info = zeros({a.size(0)}, TensorOptions(kInt32).device(A.device()));
    cholesky_stub(A.device().type, stacked_view(L, 2), info, a);
    // NB: a NaN on the diagonal fails too, as potrf's check; some libraries let it through
    Tensor nan_at = isnan(L.detach().diagonal(0, -2, -1)).reshape({a.size(0), n}).to(kInt32);
    Tensor first_nan = where(nan_at.any(1), argmax(nan_at, 1).to(kInt32) + 1, zeros_like(info));
    raise_first(where(info > 0, info, first_nan), batch, [](const std::string& prefix, int32_t k) {
      return detail::str("linalg.cholesky: ", prefix, "The factorization could not be completed because the input is ",
                         "not positive-definite (the leading minor of order ", k, " is not positive-definite).");
    });
    L = tril(L);
  }
  if (autograd::any_requires_grad(A)) {
    auto node = autograd::make_node<CholeskyBackward>(A);
    autograd::set_history(L, node);
    node->L = SavedTensor(L, true);
  }
  return upper ? mT(L) : L;
}

namespace {

// The LU diagonal [..., n] and the permutation's sign [...] of A, no graph.
std::tuple<Tensor, Tensor> lu_diagonal_and_sign(const Tensor& A) {
  const DimVector batch = batch_of(A);
  const int64_t n = A.size(-1);
  const LuFactors f = lu_factor_values(stacked(A));
  const Tensor steps = arange(1, n + 1, 1, TensorOptions(kInt32).device(A.device()));
  const Tensor swaps = ne(f.pivots, steps).sum({-1});
  const Tensor sign = (1 - remainder(swaps, 2) * 2).to(A.dtype());
  return {f.lu.diagonal(0, -2, -1).reshape(with_dims(batch, {n})), sign.reshape(batch)};
}

}  // namespace

Tensor impl_linalg_det(const Tensor& A) {
  if (autocast::applies("linalg_det", A))
    return autocast::run("linalg_det", {A}, [&](const autocast::Cast& cast) { return linalg_det(cast(A)); });
  check_square(A, "linalg.det");
  Tensor det;
  if (A.numel() == 0) {
    det = ones(batch_of(A), A.options());
  } else {
    auto [diagonal, sign] = lu_diagonal_and_sign(A);
    det = contiguous_data(prod(diagonal, -1) * sign);
  }
  if (autograd::any_requires_grad(A)) {
    auto node = autograd::make_node<DetBackward>(A);
    node->A = SavedTensor(A);
    autograd::set_history(det, node);
    node->det = SavedTensor(det, true);
  }
  return det;
}

std::tuple<Tensor, Tensor> impl_linalg_slogdet(const Tensor& A) {
  if (autocast::applies("linalg_slogdet", A))
    return autocast::run("linalg_slogdet", {A}, [&](const autocast::Cast& cast) { return linalg_slogdet(cast(A)); });
  check_square(A, "linalg.slogdet");
  Tensor sign, logabsdet;
  if (A.numel() == 0) {
    sign = ones(batch_of(A), A.options());
    logabsdet = zeros(batch_of(A), A.options());
  } else {
    auto [diagonal, permutation] = lu_diagonal_and_sign(A);
    sign = contiguous_data(prod(ember::sign(diagonal), -1) * permutation);
    logabsdet = contiguous_data(log(diagonal.abs()).sum({-1}));
  }
  if (autograd::any_requires_grad(A)) {
    auto node = autograd::make_node<SlogdetBackward>(A);
    node->A = SavedTensor(A);
    autograd::set_history(sign, node);
    autograd::set_history(logabsdet, node);
    node->sign = SavedTensor(sign, true);
  }
  return {sign, logabsdet};
}

std::tuple<Tensor, Tensor> impl_geqrf(const Tensor& self) {
  detail::check_linalg_matrix(self, "geqrf");
  const DimVector batch = batch_of(self);
  const int64_t m = self.size(-2), n = self.size(-1);
  Tensor a = result(batch, {m, n}, self), tau = result(batch, {std::min(m, n)}, self);
  if (self.numel() > 0) geqrf_stub(self.device().type, stacked_view(a, 2), stacked_view(tau, 1), stacked(self));
  if (autograd::any_requires_grad(self)) {
    auto node = autograd::make_node<GeqrfBackward>(self);
    autograd::set_history(a, node);
    autograd::set_history(tau, node);
  }
  return {a, tau};
}

Tensor impl_linalg_solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  constexpr std::string_view op = "linalg.solve_triangular";
  EMBER_CHECK(A.dim() >= 2, op, ": The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK(B.dim() >= 2, op, ": The input tensor B must have at least 2 dimensions.");
  detail::check_linalg_float(A, op);
  EMBER_CHECK(A.dtype() == B.dtype(), op, ": Expected A and B to have the same dtype, but found A of type ",
              torch_type_name(A.dtype()), " and B of type ", torch_type_name(B.dtype()), " instead.");
  EMBER_CHECK(A.device() == B.device(), op, ": Expected A and B on the same device, but found A on ", A.device(),
              " and B on ", B.device());
  const int64_t n = A.size(-1);
  EMBER_CHECK(A.size(-2) == n, op, ": A must be batches of square matrices, but they are ", A.size(-2), " by ", n,
              " matrices");
  const int64_t rows = B.size(-2), cols = B.size(-1);
  EMBER_CHECK((left ? rows : cols) == n, op, ": Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", A.size(-2), "x", n, " and ", rows, "x", cols, ")");
  const DimVector batch = broadcast_shapes(batch_of(A), batch_of(B), "linalg.solve_triangular");
  Tensor X = empty(with_dims(batch, {rows, cols}), A.options());
  if (X.numel() > 0) {
    Tensor a = stacked(A.expand(with_dims(batch, {n, n})));
    Tensor b = stacked(B.expand(with_dims(batch, {rows, cols})));
    solve_triangular_stub(A.device().type, stacked_view(X, 2), a, b, upper, left, unitriangular);
  }
  if (autograd::any_requires_grad(A, B)) {
    auto node = autograd::make_node<SolveTriangularBackward>(A, B);
    node->upper = upper;
    node->left = left;
    node->unit = unitriangular;
    node->a_shape = A.sizes().vec();
    node->b_shape = B.sizes().vec();
    node->A = SavedTensor(A);
    autograd::set_history(X, node);
    if (node->needs_input_grad(0)) node->X = SavedTensor(X, true);
  }
  return X;
}

namespace {

// The solve of A X = R (R [..., n, k], never a vector), recorded for autograd.
Tensor solve_left(const Tensor& A, const Tensor& R) {
  const DimVector batch = broadcast_shapes(batch_of(A), batch_of(R), "linalg.solve");
  Tensor X = lu_solve_values(A, R, batch, [](const std::string& prefix, int32_t) {
    return detail::str("torch.linalg.solve: ", prefix, "The solver failed because the input matrix is singular.");
  });
  if (autograd::any_requires_grad(A, R)) {
    auto node = autograd::make_node<SolveBackward>(A, R);
    node->a_shape = A.sizes().vec();
    node->b_shape = R.sizes().vec();
    node->A = SavedTensor(A);
    autograd::set_history(X, node);
    if (node->needs_input_grad(0)) node->X = SavedTensor(X, true);
  }
  return X;
}

}  // namespace

Tensor impl_linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  if (autocast::applies("linalg_solve", A))
    return autocast::run("linalg_solve", {A, B},
                         [&](const autocast::Cast& cast) { return linalg_solve(cast(A), cast(B), left); });
  check_square(A, "linalg.solve");
  detail::check_linalg_float(B, "linalg.solve");
  EMBER_CHECK(A.dtype() == B.dtype(), "linalg.solve: Expected A and B to have the same dtype, but found A of type ",
              torch_type_name(A.dtype()), " and B of type ", torch_type_name(B.dtype()), " instead");
  EMBER_CHECK(A.device() == B.device(), "linalg.solve: Expected A and B on the same device, but found A on ",
              A.device(), " and B on ", B.device());
  const bool vector =
      left &&
      (B.dim() == 1 || (B.dim() == A.dim() - 1 && std::equal(B.sizes().begin(), B.sizes().end(), A.sizes().begin())));
  const Tensor rhs = vector ? B.unsqueeze(-1) : B;
  const int64_t n = A.size(-1);
  const bool fits = rhs.dim() >= 2 ? rhs.size(left ? -2 : -1) == n : false;
  EMBER_CHECK(fits, "linalg.solve: Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B", " (",
              n, "x", n, " and ", rhs.dim() >= 2 ? rhs.size(-2) : (rhs.dim() == 1 ? rhs.size(-1) : 1), "x",
              rhs.dim() >= 2 ? rhs.size(-1) : 1, ")");
  if (!left) return mT(solve_left(mT(A), mT(rhs)));  // X A = B is A^T X^T = B^T
  Tensor X = solve_left(A, rhs);
  return vector ? X.squeeze(-1) : X;
}

Tensor impl_linalg_inv(const Tensor& A) {
  if (autocast::applies("linalg_inv", A))
    return autocast::run("linalg_inv", {A}, [&](const autocast::Cast& cast) { return linalg_inv(cast(A)); });
  check_square(A, "linalg.inv");
  const int64_t n = A.size(-1);
  const DimVector batch = batch_of(A);
  Tensor X = lu_solve_values(A, eye(n, n, A.options()), batch, [](const std::string& prefix, int32_t k) {
    return detail::str("linalg.inv: ", prefix, "The diagonal element ", k,
                       " is zero, the inversion could not be completed because the input matrix is singular.");
  });
  if (autograd::any_requires_grad(A)) {
    auto node = autograd::make_node<InvBackward>(A);
    autograd::set_history(X, node);
    node->X = SavedTensor(X, true);
  }
  return X;
}

Tensor impl_linalg_matrix_exp(const Tensor& A) {
  check_square(A, "linalg.matrix_exp");
  const DimVector batch = batch_of(A);
  const int64_t n = A.size(-1);
  if (A.numel() == 0) return eye(n, n, A.options()) + A * 0;  // in A's graph, as PyTorch's
  // Pade [13/13]'s coefficients b_0..b_13 and the largest 1-norm it takes at double precision
  // (Higham 2005, "The scaling and squaring method for the matrix exponential revisited").
  static constexpr double b[14] = {64764752532480000.0,
                                   32382376266240000.0,
                                   7771770303897600.0,
                                   1187353796428800.0,
                                   129060195264000.0,
                                   10559470521600.0,
                                   670442572800.0,
                                   33522128640.0,
                                   1323241920.0,
                                   40840800.0,
                                   960960.0,
                                   16380.0,
                                   182.0,
                                   1.0};
  constexpr double theta13 = 5.371920351148152;
  const Tensor x64 = A.dtype() == kFloat64 ? A : A.to(kFloat64);
  // Per matrix: its 1-norm, and the squarings s that bring it under theta13 (2^-s is exact).
  const std::vector<double> norms =
      x64.detach().abs().sum({-2}).amax({-1}).reshape({-1}).to(Device(DeviceType::CPU)).to_vector<double>();
  std::vector<double> scale(norms.size()), finite(norms.size());
  std::vector<int64_t> squarings(norms.size());
  int64_t most = 0;
  for (size_t i = 0; i < norms.size(); ++i) {
    finite[i] = std::isfinite(norms[i]) ? 1.0 : 0.0;
    const int64_t s =
        finite[i] && norms[i] > theta13 ? static_cast<int64_t>(std::ceil(std::log2(norms[i] / theta13))) : 0;
    squarings[i] = s;
    scale[i] = std::ldexp(1.0, static_cast<int>(-s));
    most = std::max(most, s);
  }
  const DimVector per_matrix = with_dims(batch, {1, 1});
  const auto column = [&](const std::vector<double>& v) {
    return tensor(v, {static_cast<int64_t>(v.size())}, x64.options()).reshape(per_matrix);
  };
  const Tensor ok = column(finite).to(kBool);
  const Tensor x = where(ok, x64, zeros_like(x64)) * column(scale);  // NB: NaN/inf give NaN below
  const Tensor id = eye(n, n, x64.options());
  const Tensor x2 = matmul(x, x), x4 = matmul(x2, x2), x6 = matmul(x4, x2);
  const Tensor u =
      matmul(x, matmul(x6, x6 * b[13] + x4 * b[11] + x2 * b[9]) + x6 * b[7] + x4 * b[5] + x2 * b[3] + id * b[1]);
  const Tensor v = matmul(x6, x6 * b[12] + x4 * b[10] + x2 * b[8]) + x6 * b[6] + x4 * b[4] + x2 * b[2] + id * b[0];
  Tensor r = linalg_solve(v - u, v + u, /*left=*/true);
  std::vector<double> steps(squarings.size());
  for (int64_t step = 0; step < most; ++step) {  // the matrices of a batch may need different counts
    for (size_t i = 0; i < squarings.size(); ++i) steps[i] = squarings[i] > step ? 1.0 : 0.0;
    r = where(column(steps).to(kBool), matmul(r, r), r);
  }
  r = where(ok, r, full_like(r, std::numeric_limits<double>::quiet_NaN()));
  return A.dtype() == kFloat64 ? r : r.to(A.dtype());
}

}  // namespace ember
