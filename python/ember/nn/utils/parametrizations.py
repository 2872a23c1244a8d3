"""torch.nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal as parametrizations
(parametrize.register_parametrization), with torch's names, so checkpoints match:

    weight_norm(linear)     # parametrizations.weight.original0 = g, .original1 = v
    spectral_norm(linear)   # parametrizations.weight.original, buffers parametrizations.weight.0._u, ._v
    orthogonal(linear)      # parametrizations.weight.original, buffer parametrizations.weight.0.base

spectral_norm runs n_power_iterations steps of the power method on each access in training mode
(updating the _u, _v buffers) and none in eval mode, as torch's.
"""
from __future__ import annotations

from typing import Any

from ... import _C
from ... import linalg as _linalg
from ..._C import Tensor
from .. import functional as F
from ..modules.module import Module
from . import parametrize


def _norm_except_dim(v: Tensor, dim: int) -> Tensor:
    # torch.norm_except_dim(v, 2, dim): the 2-norm over every dim but `dim`, kept as size-1 dims
    # (dim == -1: the norm of the whole tensor, a 0-d tensor).
    if dim == -1:
        return v.norm()
    others = [d for d in range(v.dim()) if d != dim]
    return v.norm(2, dim=others, keepdim=True) if others else v.abs()


def _weight_norm(v: Tensor, g: Tensor, dim: int) -> Tensor:
    # torch._weight_norm: w = v * (g / ||v||), the norm taken over every dim but `dim`.
    return v * (g / _norm_except_dim(v, dim))


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Any, name: str = "weight", dim: int | None = 0) -> Any:
    """torch.nn.utils.parametrizations.weight_norm: module.<name> = g * v / ||v|| with g
    (original0) and v (original1) trained; dim=None normalises over the whole tensor."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12):
        super().__init__()
        ndim = weight.dim()
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            from ...autograd import no_grad
            with no_grad():
                weight_mat = self._reshape_weight_to_matrix(weight.detach())
                h, w = weight_mat.shape
                u = _C.empty([h], dtype=weight.dtype, device=weight.device).normal_(0, 1)
                v = _C.empty([w], dtype=weight.dtype, device=weight.device).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # In place into the buffers, without a graph, as torch's (out=self._u).
        from ...autograd import no_grad
        with no_grad():
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(_C.matmul(weight_mat, self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(_C.matmul(weight_mat.t(), self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.dim() == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = (u * _C.matmul(weight_mat, v)).sum()  # torch.vdot(u, W v) (real tensors)
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Any, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Any:
    """torch.nn.utils.parametrizations.spectral_norm: module.<name> = W / sigma(W), sigma estimated
    by power iteration (u, v buffers). dim defaults to 1 for the ConvTranspose layers, else 0."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if type(module).__name__ in ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d") else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


def _is_orthogonal(Q: Tensor) -> bool:
    # torch's check: Q^T Q = I to 10 n eps.
    n, k = Q.shape[-2], Q.shape[-1]
    eps = 10.0 * n * (1.1920928955078125e-07 if Q.dtype == _C.float32 else 2.220446049250313e-16)
    eye = _C.eye(k, dtype=Q.dtype, device=Q.device)
    return bool(((_C.matmul(Q.mT, Q) - eye).abs() <= eps + 1e-5 * eye.abs()).all())


def _make_orthogonal(A: Tensor) -> Tensor:
    # The Q of A = QR (A tall) with R's diagonal made non-negative, so that Q is unique.
    Q, R = _C.linalg.qr(A.detach(), "reduced")  # noqa: N806
    return Q * _C.sign(R.diagonal(0, -2, -1)).unsqueeze(-2)


class _Orthogonal(Module):
    """torch's _Orthogonal: Q = map(X) for X of the weight's shape ([..., n, k], transposed when
    wide). matrix_exp / cayley map the skew-symmetric A = L - L^T (L: X's lower triangle, padded to
    n x n) to exp(A) or (I - A/2)^-1 (I + A/2) and keep k columns; householder multiplies the
    reflectors below X's diagonal, its diagonal (+-1) giving the signs. With use_trivialization the
    result is base @ Q, base a buffer set by right_inverse."""

    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True):
        super().__init__()
        if weight.is_complex():
            raise NotImplementedError("parametrizations.orthogonal: complex weights are not supported by Ember")
        self.shape = tuple(weight.shape)
        self.orthogonal_map = orthogonal_map
        self.use_trivialization = use_trivialization

    def forward(self, X: Tensor) -> Tensor:  # noqa: N803
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X, n, k = X.mT, k, n  # noqa: N806
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()  # noqa: N806
            if n != k:
                X = _C.cat([X, _C.zeros(*X.shape[:-2], n, n - k, dtype=X.dtype, device=X.device)], -1)  # noqa: N806
            A = X - X.mT  # noqa: N806
            if self.orthogonal_map == "matrix_exp":
                Q = _linalg.matrix_exp(A)  # noqa: N806
            else:
                eye = _C.eye(n, dtype=A.dtype, device=A.device)
                Q = _linalg.solve(eye - 0.5 * A, eye + 0.5 * A)  # noqa: N806
            Q = Q[..., :k]  # noqa: N806
        else:
            A = X.tril(-1)  # noqa: N806
            tau = 2.0 / (1.0 + (A * A).sum(-2))
            # the diagonal's signs are constants: no gradient reaches it, as torch's (an int cast)
            signs = X.detach().diagonal(0, -2, -1).to(_C.int32).to(X.dtype).unsqueeze(-2)
            Q = _C.linalg.householder_product(A, tau) * signs  # noqa: N806
        if self.use_trivialization:
            Q = _C.matmul(self.base, Q)  # noqa: N806
        return Q.mT if transposed else Q

    def right_inverse(self, Q: Tensor) -> Tensor:  # noqa: N803
        from ...autograd import no_grad
        if tuple(Q.shape) != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {list(self.shape)}. "
                             f"Got a tensor of shape {list(Q.shape)}.")
        with no_grad():
            return self._right_inverse(Q.detach())

    def _right_inverse(self, Q: Tensor) -> Tensor:  # noqa: N803
        q_init = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transpose = n < k
        if transpose:
            Q, n, k = Q.mT, k, n  # noqa: N806
        if not self.use_trivialization:
            if self.orthogonal_map in ("matrix_exp", "cayley"):
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            # the reflectors of Q's QR; the diagonal holds R's signs (flipped where LAPACK skipped
            # a reflection, tau = 0, as forward's tau is never 0)
            A, tau = _C.geqrf(Q)  # noqa: N806
            diag = A.diagonal(0, -2, -1)
            signs = _C.sign(diag)
            diag.copy_(_C.where(tau == 0.0, -signs, signs))
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)  # noqa: N806
        else:
            # complete Q to an n x n orthogonal matrix with random columns
            extra = _C.randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(_C.cat([Q, extra], -1))  # noqa: N806
        if "base" in dict(self.named_buffers(recurse=False)):
            self.base = Q
        else:
            self.register_buffer("base", Q)
        # -I: householder(-I) is I, and the exp / Cayley of its skew part (0) is I too
        eye = _C.eye(q_init.shape[-2], q_init.shape[-1], dtype=q_init.dtype, device=q_init.device)
        return (-eye).expand(*q_init.shape).clone()


def orthogonal(module: Any, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Any:
    """torch.nn.utils.parametrizations.orthogonal: module.<name> ([..., m, n]) stays orthogonal
    (orthonormal columns when m >= n, rows otherwise). orthogonal_map 'matrix_exp', 'cayley' or
    'householder' (default: 'matrix_exp' for square matrices, else 'householder'). With
    use_trivialization (default) the current orthogonal value is kept in the buffer
    parametrizations.<name>.0.base and the trained original starts at -I (torch's layout); the
    initial value is the weight, orthogonalised by QR when it is not orthogonal."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.dim() < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.dim()} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] or weight.is_complex() else "householder"
    if orthogonal_map not in ("matrix_exp", "cayley", "householder"):
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


__all__ = ["weight_norm", "spectral_norm", "orthogonal"]
